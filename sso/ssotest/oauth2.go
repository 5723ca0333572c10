package ssotest

import (
	"maps"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"
)

// OAuth2Server is an in-process generic OAuth2 provider (authorization code flow with
// optional PKCE) for tests. /authorize approves at once for the current user (SetUser), with
// no login page; /token checks the client's credentials by AuthMethod, the code (single use,
// bound to its redirect_uri) and the PKCE verifier; /userinfo answers the user's claims for
// a bearer token. Every request is logged for assertions (Requests).
type OAuth2Server struct {
	URL          string
	ClientID     string
	ClientSecret string
	// AuthMethod is how /token wants the client to authenticate: "client_secret_post" (the
	// default when blank) or "client_secret_basic". The other method gets 401 invalid_client,
	// as strict providers answer. Set it before the flow starts.
	AuthMethod string

	srv *httptest.Server

	mu        sync.Mutex
	user      map[string]any
	deny      string
	codes     map[string]authGrant
	tokens    map[string]map[string]any
	overrides map[string]oauth2Override
	log       []OAuth2Request
}

// OAuth2Request is one request the server answered.
type OAuth2Request struct {
	Path   string // "/authorize", "/token" or "/userinfo"
	Status int    // the HTTP status answered
	Error  string // the OAuth error code answered, if any

	// /authorize
	RedirectURI         string
	Scope               string
	Prompt              string
	CodeChallenge       string
	CodeChallengeMethod string

	// /token
	ClientAuth   string // "client_secret_post", "client_secret_basic", "none" or "both"
	CodeVerifier string
	PKCEVerified bool // the verifier matched the code's challenge
}

type oauth2Override struct {
	status      int
	contentType string
	body        string
}

// NewOAuth2Server starts a server that stops when the test ends. Its user, until SetUser,
// is {"sub": "oauth2-user-1", "email": "ada@example.com", "name": "Ada Lovelace"}.
func NewOAuth2Server(tb testing.TB) *OAuth2Server {
	tb.Helper()
	s := &OAuth2Server{
		ClientID:     "tally-client",
		ClientSecret: "tally-secret-" + randomID(),
		user:         map[string]any{"sub": "oauth2-user-1", "email": "ada@example.com", "name": "Ada Lovelace"},
		codes:        map[string]authGrant{},
		tokens:       map[string]map[string]any{},
		overrides:    map[string]oauth2Override{},
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/authorize", s.authorize)
	mux.HandleFunc("/token", s.token)
	mux.HandleFunc("/userinfo", s.userinfo)
	s.srv = httptest.NewServer(mux)
	s.URL = s.srv.URL
	tb.Cleanup(s.srv.Close)
	return s
}

// AuthorizeURL, TokenURL and UserinfoURL are the endpoints to configure a provider with.
func (s *OAuth2Server) AuthorizeURL() string { return s.URL + "/authorize" }
func (s *OAuth2Server) TokenURL() string     { return s.URL + "/token" }
func (s *OAuth2Server) UserinfoURL() string  { return s.URL + "/userinfo" }

// Client is an HTTP client for the server.
func (s *OAuth2Server) Client() *http.Client { return s.srv.Client() }

// SetUser makes claims the user that /authorize signs in from now on; codes already issued
// keep the user they were issued for.
func (s *OAuth2Server) SetUser(claims map[string]any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.user = maps.Clone(claims)
}

// Deny makes /authorize send the browser back with error=code (as "access_denied" when the
// person declines) instead of a code; "" approves again.
func (s *OAuth2Server) Deny(code string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.deny = code
}

// Override makes the endpoint at path ("/token", "/userinfo") answer status and body instead
// of its real answer, to test how clients take a broken provider; status 0 removes it.
func (s *OAuth2Server) Override(path string, status int, contentType, body string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if status == 0 {
		delete(s.overrides, path)
		return
	}
	s.overrides[path] = oauth2Override{status: status, contentType: contentType, body: body}
}

// Requests returns the requests answered so far at path, or all of them when path is "".
func (s *OAuth2Server) Requests(path string) []OAuth2Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []OAuth2Request
	for _, r := range s.log {
		if path == "" || r.Path == path {
			out = append(out, r)
		}
	}
	return out
}

// Follow plays the browser at the authorization URL: it GETs authURL without following the
// redirect and returns where the server sends the browser back (the callback URL, with code
// and state or error).
func (s *OAuth2Server) Follow(tb testing.TB, authURL string) (callbackURL string) {
	tb.Helper()
	return follow(tb, s.srv.Client(), authURL)
}

func (s *OAuth2Server) authorize(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	rec := OAuth2Request{Path: "/authorize", RedirectURI: q.Get("redirect_uri"), Scope: q.Get("scope"),
		Prompt: q.Get("prompt"), CodeChallenge: q.Get("code_challenge"), CodeChallengeMethod: q.Get("code_challenge_method")}
	defer s.record(&rec)
	if s.overridden(w, &rec) {
		return
	}
	// A bad client or redirect URI must not redirect (RFC 6749 §4.1.2.1): it would make the
	// server an open redirector.
	back, err := url.Parse(rec.RedirectURI)
	if q.Get("client_id") != s.ClientID || err != nil || !back.IsAbs() {
		rec.Status, rec.Error = http.StatusBadRequest, "invalid_request"
		http.Error(w, "unknown client_id or bad redirect_uri", rec.Status)
		return
	}
	s.mu.Lock()
	deny, user := s.deny, maps.Clone(s.user)
	s.mu.Unlock()
	params := back.Query()
	switch {
	case deny != "":
		params.Set("error", deny)
	case q.Get("response_type") != "code":
		params.Set("error", "unsupported_response_type")
	case rec.CodeChallenge != "" && rec.CodeChallengeMethod != "S256" && rec.CodeChallengeMethod != "plain" && rec.CodeChallengeMethod != "":
		params.Set("error", "invalid_request")
	default:
		code := randomID()
		s.mu.Lock()
		s.codes[code] = authGrant{redirectURI: rec.RedirectURI, challenge: rec.CodeChallenge,
			method: rec.CodeChallengeMethod, claims: user, expires: time.Now().Add(codeLifetime)}
		s.mu.Unlock()
		params.Set("code", code)
	}
	rec.Error = params.Get("error")
	if st := q.Get("state"); st != "" {
		params.Set("state", st)
	}
	back.RawQuery = params.Encode()
	rec.Status = http.StatusFound
	http.Redirect(w, r, back.String(), rec.Status)
}

func (s *OAuth2Server) token(w http.ResponseWriter, r *http.Request) {
	rec := OAuth2Request{Path: "/token"}
	defer s.record(&rec)
	if s.overridden(w, &rec) {
		return
	}
	var lg tokenLog
	g, ok := exchangeCode(w, r, &lg, tokenClient{s.ClientID, s.ClientSecret, s.AuthMethod}, &s.mu, s.codes)
	rec.Status, rec.Error, rec.ClientAuth, rec.CodeVerifier, rec.PKCEVerified = lg.Status, lg.Error, lg.ClientAuth, lg.CodeVerifier, lg.PKCEVerified
	if !ok {
		return
	}
	tok := randomID()
	s.mu.Lock()
	s.tokens[tok] = g.claims
	s.mu.Unlock()
	rec.Status = http.StatusOK
	w.Header().Set("Cache-Control", "no-store")
	writeJSON(w, rec.Status, map[string]any{"access_token": tok, "token_type": "Bearer", "expires_in": 3600})
}

func (s *OAuth2Server) userinfo(w http.ResponseWriter, r *http.Request) {
	rec := OAuth2Request{Path: "/userinfo"}
	defer s.record(&rec)
	if s.overridden(w, &rec) {
		return
	}
	scheme, tok, _ := strings.Cut(r.Header.Get("Authorization"), " ")
	s.mu.Lock()
	claims, ok := s.tokens[tok]
	s.mu.Unlock()
	if !strings.EqualFold(scheme, "Bearer") || !ok {
		w.Header().Set("WWW-Authenticate", `Bearer error="invalid_token"`)
		rec.Status, rec.Error = http.StatusUnauthorized, "invalid_token"
		writeOAuthError(w, rec.Status, rec.Error)
		return
	}
	rec.Status = http.StatusOK
	writeJSON(w, rec.Status, claims)
}

func (s *OAuth2Server) overridden(w http.ResponseWriter, rec *OAuth2Request) bool {
	s.mu.Lock()
	o, ok := s.overrides[rec.Path]
	s.mu.Unlock()
	if !ok {
		return false
	}
	if o.contentType != "" {
		w.Header().Set("Content-Type", o.contentType)
	}
	rec.Status = o.status
	w.WriteHeader(o.status)
	_, _ = w.Write([]byte(o.body))
	return true
}

func (s *OAuth2Server) record(rec *OAuth2Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.log = append(s.log, *rec)
}
