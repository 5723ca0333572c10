package fakesimplefin

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"path"
	"slices"
	"time"
)

// setupToken is a minted claim code. A one-time token keeps its credential once claimed,
// to tell "already claimed" from "unknown"; a reusable one answers it again.
type setupToken struct {
	expires  time.Time // zero: never (the protocol defines no expiry)
	reusable bool
	claimed  *credential
}

// credential is one access URL's Basic-auth pair and its quota counters.
type credential struct {
	user, pass string
	revoked    bool
	// Request times in the last 24 hours: the Bridge keeps a separate quota for requests
	// that name accounts.
	calls, accountCalls []time.Time
}

// TokenOption sets a property of a setup token.
type TokenOption func(*tokenOptions)

type tokenOptions struct {
	ttl      time.Duration
	reusable bool
}

// ExpiresIn makes the token unclaimable d after it is minted, by the server's clock.
func ExpiresIn(d time.Duration) TokenOption {
	return func(o *tokenOptions) { o.ttl = d }
}

// Reusable makes a token that every claim accepts, answering the same access URL, like the
// Bridge's DEMO token.
func Reusable() TokenOption {
	return func(o *tokenOptions) { o.reusable = true }
}

// NewSetupToken mints a setup token: standard padded base64 of the claim URL
// <URL>/simplefin/claim/<code>, as the Bridge shows it to the user.
func (s *Server) NewSetupToken(opts ...TokenOption) string {
	var o tokenOptions
	for _, opt := range opts {
		opt(&o)
	}
	code := randomHex(16)
	s.mu.Lock()
	defer s.mu.Unlock()
	t := &setupToken{reusable: o.reusable}
	if o.ttl > 0 {
		t.expires = s.clock().Add(o.ttl)
	}
	s.tokens[code] = t
	return base64.StdEncoding.EncodeToString([]byte(s.base() + root + "/claim/" + code))
}

// ExpireToken makes a setup token from NewSetupToken unclaimable from now on.
func (s *Server) ExpireToken(token string) {
	code := codeOf(token)
	s.mu.Lock()
	defer s.mu.Unlock()
	t, ok := s.tokens[code]
	if !ok {
		panic(fmt.Sprintf("fakesimplefin: ExpireToken: no setup token %q", token))
	}
	t.expires = s.clock()
}

// codeOf returns the claim code of a setup token. A token that is not this package's is a
// bug in the test.
func codeOf(token string) string {
	raw, err := base64.StdEncoding.DecodeString(token)
	if err != nil {
		panic(fmt.Sprintf("fakesimplefin: setup token %q: %v", token, err))
	}
	u, err := url.Parse(string(raw))
	if err != nil {
		panic(fmt.Sprintf("fakesimplefin: setup token %q: %v", token, err))
	}
	return path.Base(u.Path)
}

// NewAccessURL mints credentials without a setup token, for tests that start after the
// claim.
func (s *Server) NewAccessURL() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.accessURL(s.newCredential())
}

// RevokeAccess disables an access URL, as the user can in the Bridge: its requests are 403
// from now on.
func (s *Server) RevokeAccess(accessURL string) {
	u, err := url.Parse(accessURL)
	if err != nil || u.User == nil {
		panic(fmt.Sprintf("fakesimplefin: RevokeAccess: not an access URL: %v", err))
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	c, ok := s.creds[u.User.Username()]
	if !ok {
		panic("fakesimplefin: RevokeAccess: unknown access URL")
	}
	c.revoked = true
}

// newCredential makes and registers a Basic-auth pair. The caller holds s.mu.
func (s *Server) newCredential() *credential {
	c := &credential{user: randomHex(8), pass: randomHex(16)}
	s.creds[c.user] = c
	return c
}

// accessURL is the access URL of c: http(s)://user:pass@host/simplefin.
func (s *Server) accessURL(c *credential) string {
	u, err := url.Parse(s.base())
	if err != nil {
		panic(fmt.Sprintf("fakesimplefin: Server.URL %q: %v", s.URL, err))
	}
	u.User = url.UserPassword(c.user, c.pass)
	u.Path = root
	return u.String()
}

// serveClaim exchanges a setup token for an access URL.
func (s *Server) serveClaim(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	c, refusal := s.claim(r.PathValue("code"))
	s.mu.Unlock()

	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	if c == nil {
		w.WriteHeader(http.StatusForbidden)
		io.WriteString(w, refusal)
		return
	}
	io.WriteString(w, s.accessURL(c)+"\n") // clients must trim, as with the Bridge
}

// claim returns the credential a claim of code earns, or the Bridge's 403 text. Checking and
// marking under one hold of s.mu (the caller's) makes exactly one of two racing claims win.
func (s *Server) claim(code string) (*credential, string) {
	t, ok := s.tokens[code]
	switch {
	case !ok || !t.expires.IsZero() && !s.clock().Before(t.expires):
		return nil, "Forbidden"
	case t.claimed != nil && !t.reusable:
		return nil, "Forbidden (was it already claimed?)"
	case t.claimed == nil:
		t.claimed = s.newCredential()
	}
	return t.claimed, ""
}

// serveInfo lists the protocol versions the fake speaks. The protocol asks no auth here.
func (s *Server) serveInfo(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	versions := slices.Clone(s.versions)
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, map[string][]string{"versions": versions})
}

// authenticate returns the live credential of r's Basic auth, or nil. The caller holds s.mu.
func (s *Server) authenticate(r *http.Request) *credential {
	user, pass, ok := r.BasicAuth()
	if !ok {
		return nil
	}
	c := s.creds[user]
	if c == nil || c.revoked || subtle.ConstantTimeCompare([]byte(pass), []byte(c.pass)) != 1 {
		return nil
	}
	return c
}

// base is s.URL, which URLs handed out are made from and which must be set by then.
func (s *Server) base() string {
	if s.URL == "" {
		panic("fakesimplefin: Server.URL is not set")
	}
	return s.URL
}

func randomHex(n int) string {
	b := make([]byte, n)
	rand.Read(b) // never fails (crypto/rand)
	return hex.EncodeToString(b)
}
