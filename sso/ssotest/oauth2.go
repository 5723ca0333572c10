package ssotest

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"maps"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"
)

// Token endpoint client authentication methods, as sso spells them. Repeated here so that
// ssotest does not import sso: sso's own tests import ssotest.
const (
	oauth2SecretPost  = "client_secret_post"
	oauth2SecretBasic = "client_secret_basic"
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
	codes     map[string]oauth2Grant
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

type oauth2Grant struct {
	redirectURI string
	challenge   string
	method      string
	claims      map[string]any
	expires     time.Time
}

type oauth2Override struct {
	status      int
	contentType string
	body        string
}

// oauth2CodeLifetime is how long a code may wait for its exchange.
const oauth2CodeLifetime = 10 * time.Minute

// NewOAuth2Server starts a server that stops when the test ends. Its user, until SetUser,
// is {"sub": "oauth2-user-1", "email": "ada@example.com", "name": "Ada Lovelace"}.
func NewOAuth2Server(tb testing.TB) *OAuth2Server {
	tb.Helper()
	s := &OAuth2Server{
		ClientID:     "tally-client",
		ClientSecret: "tally-secret-" + oauth2RandomID(),
		user:         map[string]any{"sub": "oauth2-user-1", "email": "ada@example.com", "name": "Ada Lovelace"},
		codes:        map[string]oauth2Grant{},
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
	c := *s.srv.Client()
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
		code := oauth2RandomID()
		s.mu.Lock()
		s.codes[code] = oauth2Grant{redirectURI: rec.RedirectURI, challenge: rec.CodeChallenge,
			method: rec.CodeChallengeMethod, claims: user, expires: time.Now().Add(oauth2CodeLifetime)}
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
	if r.Method != http.MethodPost {
		rec.Status = http.StatusMethodNotAllowed
		http.Error(w, "POST only", rec.Status)
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, 64<<10)
	if err := r.ParseForm(); err != nil {
		oauth2Error(w, &rec, http.StatusBadRequest, "invalid_request")
		return
	}
	id, secret, ok := s.clientAuth(r, &rec)
	if rec.ClientAuth == "both" {
		// RFC 6749 §2.3: a client must not use more than one method in a request.
		oauth2Error(w, &rec, http.StatusBadRequest, "invalid_request")
		return
	}
	if want := s.authMethod(); !ok || rec.ClientAuth != want || id != s.ClientID || secret != s.ClientSecret {
		if want == oauth2SecretBasic {
			w.Header().Set("WWW-Authenticate", `Basic realm="ssotest"`)
		}
		oauth2Error(w, &rec, http.StatusUnauthorized, "invalid_client")
		return
	}
	if r.PostForm.Get("grant_type") != "authorization_code" {
		oauth2Error(w, &rec, http.StatusBadRequest, "unsupported_grant_type")
		return
	}
	rec.CodeVerifier = r.PostForm.Get("code_verifier")
	code := r.PostForm.Get("code")
	s.mu.Lock()
	g, found := s.codes[code]
	delete(s.codes, code) // single use, whatever happens next
	s.mu.Unlock()
	if !found || time.Now().After(g.expires) || r.PostForm.Get("redirect_uri") != g.redirectURI {
		oauth2Error(w, &rec, http.StatusBadRequest, "invalid_grant")
		return
	}
	switch {
	case g.challenge == "" && rec.CodeVerifier != "":
		// OAuth 2.1: a verifier without a challenge is refused, or PKCE could be stripped.
		oauth2Error(w, &rec, http.StatusBadRequest, "invalid_grant")
		return
	case g.challenge != "":
		if oauth2PKCEChallenge(g.method, rec.CodeVerifier) != g.challenge || rec.CodeVerifier == "" {
			oauth2Error(w, &rec, http.StatusBadRequest, "invalid_grant")
			return
		}
		rec.PKCEVerified = true
	}
	tok := oauth2RandomID()
	s.mu.Lock()
	s.tokens[tok] = g.claims
	s.mu.Unlock()
	rec.Status = http.StatusOK
	w.Header().Set("Cache-Control", "no-store")
	oauth2JSON(w, rec.Status, map[string]any{"access_token": tok, "token_type": "Bearer", "expires_in": 3600})
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
		oauth2Error(w, &rec, http.StatusUnauthorized, "invalid_token")
		return
	}
	rec.Status = http.StatusOK
	oauth2JSON(w, rec.Status, claims)
}

// clientAuth reads the client's credentials and notes how they were sent. Basic credentials
// are form-encoded inside the header (RFC 6749 §2.3.1), so they are unescaped.
func (s *OAuth2Server) clientAuth(r *http.Request, rec *OAuth2Request) (id, secret string, ok bool) {
	bid, bsecret, basic := r.BasicAuth()
	_, post := r.PostForm["client_secret"]
	switch {
	case basic && post:
		rec.ClientAuth = "both"
	case basic:
		rec.ClientAuth = oauth2SecretBasic
		var err1, err2 error
		id, err1 = url.QueryUnescape(bid)
		secret, err2 = url.QueryUnescape(bsecret)
		return id, secret, err1 == nil && err2 == nil
	case post:
		rec.ClientAuth = oauth2SecretPost
		return r.PostForm.Get("client_id"), r.PostForm.Get("client_secret"), true
	default:
		rec.ClientAuth = "none"
	}
	return "", "", false
}

func (s *OAuth2Server) authMethod() string {
	if s.AuthMethod == "" {
		return oauth2SecretPost
	}
	return s.AuthMethod
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

func oauth2Error(w http.ResponseWriter, rec *OAuth2Request, status int, code string) {
	rec.Status, rec.Error = status, code
	w.Header().Set("Cache-Control", "no-store")
	oauth2JSON(w, status, map[string]string{"error": code})
}

func oauth2JSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// oauth2PKCEChallenge derives the challenge a verifier answers (RFC 7636 §4.2); a missing method
// means "plain".
func oauth2PKCEChallenge(method, verifier string) string {
	if method == "S256" {
		sum := sha256.Sum256([]byte(verifier))
		return base64.RawURLEncoding.EncodeToString(sum[:])
	}
	return verifier
}

func oauth2RandomID() string {
	b := make([]byte, 24)
	_, _ = rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}
