package ssotest

import (
	"cmp"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/url"
	"sync"
	"testing"
	"time"
)

// What OAuth2Server and OIDCProvider share: the authorization code they issue, the /token
// endpoint's checks, and the small helpers around them.

// Token endpoint client authentication methods, as sso spells them. Repeated here so that
// ssotest does not import sso: sso's own tests import ssotest.
const (
	secretPost  = "client_secret_post"
	secretBasic = "client_secret_basic"
)

// codeLifetime is how long a code may wait for its exchange.
const codeLifetime = 10 * time.Minute

// authGrant is what an issued code stands for.
type authGrant struct {
	redirectURI string
	nonce       string // OIDC only
	challenge   string
	method      string // the challenge's method; "" means "plain"
	claims      map[string]any
	expires     time.Time
}

// tokenClient is the client a /token endpoint accepts.
type tokenClient struct {
	id, secret string
	authMethod string // secretPost when blank
}

// tokenLog is what exchangeCode notes for the request log.
type tokenLog struct {
	Status       int
	Error        string
	ClientAuth   string // "client_secret_post", "client_secret_basic", "none" or "both"
	CodeVerifier string
	PKCEVerified bool
}

// exchangeCode runs the /token checks of the authorization code grant: POST, the client's
// credentials by its method, the grant type, the code (single use, unexpired, bound to its
// redirect_uri; taken from codes under mu) and the PKCE verifier. It notes what it saw in lg;
// on a refusal it has answered and returns false.
func exchangeCode(w http.ResponseWriter, r *http.Request, lg *tokenLog, client tokenClient,
	mu *sync.Mutex, codes map[string]authGrant) (authGrant, bool) {
	if r.Method != http.MethodPost {
		lg.Status = http.StatusMethodNotAllowed
		http.Error(w, "POST only", lg.Status)
		return authGrant{}, false
	}
	r.Body = http.MaxBytesReader(w, r.Body, 64<<10)
	if err := r.ParseForm(); err != nil {
		lg.fail(w, http.StatusBadRequest, "invalid_request")
		return authGrant{}, false
	}
	var id, secret string
	var ok bool
	lg.ClientAuth, id, secret, ok = clientAuth(r)
	if lg.ClientAuth == "both" {
		// RFC 6749 §2.3: a client must not use more than one method in a request.
		lg.fail(w, http.StatusBadRequest, "invalid_request")
		return authGrant{}, false
	}
	want := cmp.Or(client.authMethod, secretPost)
	if !ok || lg.ClientAuth != want || id != client.id || secret != client.secret {
		if want == secretBasic {
			w.Header().Set("WWW-Authenticate", `Basic realm="ssotest"`)
		}
		lg.fail(w, http.StatusUnauthorized, "invalid_client")
		return authGrant{}, false
	}
	if r.PostForm.Get("grant_type") != "authorization_code" {
		lg.fail(w, http.StatusBadRequest, "unsupported_grant_type")
		return authGrant{}, false
	}
	lg.CodeVerifier = r.PostForm.Get("code_verifier")
	code := r.PostForm.Get("code")
	mu.Lock()
	g, found := codes[code]
	delete(codes, code) // single use, whatever happens next
	mu.Unlock()
	if !found || time.Now().After(g.expires) || r.PostForm.Get("redirect_uri") != g.redirectURI {
		lg.fail(w, http.StatusBadRequest, "invalid_grant")
		return authGrant{}, false
	}
	switch {
	case g.challenge == "" && lg.CodeVerifier != "":
		// OAuth 2.1: a verifier without a challenge is refused, or PKCE could be stripped.
		lg.fail(w, http.StatusBadRequest, "invalid_grant")
		return authGrant{}, false
	case g.challenge != "":
		if lg.CodeVerifier == "" || pkceChallenge(g.method, lg.CodeVerifier) != g.challenge {
			lg.fail(w, http.StatusBadRequest, "invalid_grant")
			return authGrant{}, false
		}
		lg.PKCEVerified = true
	}
	return g, true
}

func (lg *tokenLog) fail(w http.ResponseWriter, status int, code string) {
	lg.Status, lg.Error = status, code
	writeOAuthError(w, status, code)
}

// clientAuth reads the client's credentials and tells how they were sent. Basic credentials
// are form-encoded inside the header (RFC 6749 §2.3.1), so they are unescaped.
func clientAuth(r *http.Request) (method, id, secret string, ok bool) {
	bid, bsecret, basic := r.BasicAuth()
	_, post := r.PostForm["client_secret"]
	switch {
	case basic && post:
		return "both", "", "", false
	case basic:
		var err1, err2 error
		id, err1 = url.QueryUnescape(bid)
		secret, err2 = url.QueryUnescape(bsecret)
		return secretBasic, id, secret, err1 == nil && err2 == nil
	case post:
		return secretPost, r.PostForm.Get("client_id"), r.PostForm.Get("client_secret"), true
	}
	return "none", "", "", false
}

// writeOAuthError answers an OAuth error code (RFC 6749 §5.2).
func writeOAuthError(w http.ResponseWriter, status int, code string) {
	w.Header().Set("Cache-Control", "no-store")
	writeJSON(w, status, map[string]string{"error": code})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// pkceChallenge derives the challenge a verifier answers (RFC 7636 §4.2); a missing method
// means "plain".
func pkceChallenge(method, verifier string) string {
	if method == "S256" {
		sum := sha256.Sum256([]byte(verifier))
		return base64.RawURLEncoding.EncodeToString(sum[:])
	}
	return verifier
}

func randomID() string {
	b := make([]byte, 24)
	_, _ = rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

// follow plays the browser at an authorization URL: it GETs authURL with client, without
// following the redirect, and returns where the server sends the browser back.
func follow(tb testing.TB, client *http.Client, authURL string) string {
	tb.Helper()
	c := *client
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	resp, err := c.Get(authURL)
	if err != nil {
		tb.Fatalf("ssotest: GET %s: %v", authURL, err)
	}
	defer resp.Body.Close()
	loc, err := resp.Location()
	if err != nil {
		tb.Fatalf("ssotest: GET %s: HTTP %d without a redirect", authURL, resp.StatusCode)
	}
	return loc.String()
}
