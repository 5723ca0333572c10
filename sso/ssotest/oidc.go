package ssotest

import (
	"cmp"
	"crypto/rand"
	"crypto/rsa"
	"encoding/base64"
	"encoding/json"
	"maps"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
)

// OIDCProvider is an in-process OpenID Connect provider (authorization code flow with PKCE
// and nonce) for tests. It publishes a discovery document and a JWKS, so that go-oidc
// discovers and verifies it as it would a real provider. /authorize approves at once for the
// current user (SetUser), with no login page; /token checks the client's credentials by
// AuthMethod, the code (single use, bound to its redirect_uri) and the S256 PKCE verifier,
// and answers an access token and an RS256-signed ID token; /userinfo answers the user's
// claims for a bearer token; /end_session logs the RP-initiated logout and redirects.
//
// Tamper breaks the next ID token in one way or another, to test that clients refuse it.
// Every request is logged for assertions (Requests).
type OIDCProvider struct {
	URL          string // the issuer: the discovery document is at URL + "/.well-known/openid-configuration"
	ClientID     string
	ClientSecret string
	// AuthMethod is how /token wants the client to authenticate: "client_secret_post" (the
	// default when blank) or "client_secret_basic". The other method gets 401 invalid_client.
	// Set it before the flow starts.
	AuthMethod string
	// Tamper spoils the next ID token /token issues; it is used up by that token (reset to
	// the zero value). Set it before the flow's callback is completed.
	Tamper OIDCTamper
	// GroupsInUserinfoOnly leaves the user's "groups" claim out of ID tokens: only /userinfo
	// answers it, as many providers do for large or optional claims.
	GroupsInUserinfoOnly bool
	// UserinfoStatus, when set, is what /userinfo answers instead of the claims (an outage).
	UserinfoStatus int

	srv      *httptest.Server
	key      *rsa.PrivateKey // signs ID tokens; published in the JWKS
	keyID    string
	otherKey *rsa.PrivateKey // signs tampered ID tokens (OtherKey); never published; made on first use

	mu     sync.Mutex
	user   map[string]any
	deny   string
	codes  map[string]authGrant
	tokens map[string]map[string]any // access token → the user's claims
	log    []OIDCRequest
}

// OIDCTamper describes how to spoil an ID token. The zero value spoils nothing.
type OIDCTamper struct {
	Issuer      string // when set, the token's iss instead of the provider's URL
	Audience    string // when set, the token's aud instead of the client id
	Nonce       string // when set, the token's nonce instead of the one sent to /authorize
	Expired     bool   // exp (and iat) in the past
	AlgNone     bool   // an unsigned token: header alg "none", empty signature
	OtherKey    bool   // signed by a key not in the JWKS, under the published key's kid
	OmitIDToken bool   // the token response carries no id_token at all
}

// OIDCRequest is one request the provider answered.
type OIDCRequest struct {
	Path   string // "/.well-known/openid-configuration", "/jwks", "/authorize", "/token", "/userinfo" or "/end_session"
	Status int    // the HTTP status answered
	Error  string // the OAuth error code answered, if any

	// /authorize
	ClientID            string
	RedirectURI         string
	State               string
	Scope               string
	Nonce               string
	Prompt              string
	Claims              string // the claims request parameter (OIDC Core §5.5), raw JSON
	CodeChallenge       string
	CodeChallengeMethod string

	// /token
	ClientAuth   string // "client_secret_post", "client_secret_basic", "none" or "both"
	CodeVerifier string
	PKCEVerified bool   // the verifier matched the code's challenge
	IDToken      string // the ID token issued, "" when none was
	Tampered     bool   // the ID token was spoiled by Tamper

	// /end_session
	IDTokenHint           string
	PostLogoutRedirectURI string
}

// oidcTokenLifetime is how long issued ID and access tokens are valid.
const oidcTokenLifetime = time.Hour

// NewOIDCProvider starts a provider that stops when the test ends. Its user, until SetUser,
// is {"sub": "oidc-user-1", "email": "ada@example.com", "email_verified": true,
// "name": "Ada Lovelace"}.
func NewOIDCProvider(tb testing.TB) *OIDCProvider {
	tb.Helper()
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		tb.Fatalf("ssotest: generate the signing key: %v", err)
	}
	s := &OIDCProvider{
		ClientID:     "tally-oidc-client",
		ClientSecret: "tally-oidc-secret-" + randomID(),
		key:          key,
		keyID:        "ssotest-" + randomID()[:8],
		user: map[string]any{"sub": "oidc-user-1", "email": "ada@example.com", "email_verified": true,
			"name": "Ada Lovelace"},
		codes:  map[string]authGrant{},
		tokens: map[string]map[string]any{},
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/.well-known/openid-configuration", s.discovery)
	mux.HandleFunc("/jwks", s.jwks)
	mux.HandleFunc("/authorize", s.authorize)
	mux.HandleFunc("/token", s.token)
	mux.HandleFunc("/userinfo", s.userinfo)
	mux.HandleFunc("/end_session", s.endSession)
	s.srv = httptest.NewServer(mux)
	s.URL = s.srv.URL
	tb.Cleanup(s.srv.Close)
	return s
}

// EndSessionURL is the provider's RP-initiated logout endpoint, as its discovery document
// gives it.
func (s *OIDCProvider) EndSessionURL() string { return s.URL + "/end_session" }

// Client is an HTTP client for the provider.
func (s *OIDCProvider) Client() *http.Client { return s.srv.Client() }

// SetUser makes claims the user that /authorize signs in from now on (sub, email,
// email_verified, name, groups ...); codes already issued keep the user they were issued
// for. The protocol claims (iss, aud, exp, iat, nonce) are the provider's, whatever claims
// holds.
func (s *OIDCProvider) SetUser(claims map[string]any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.user = maps.Clone(claims)
}

// Deny makes /authorize send the browser back with error=code (as "access_denied" when the
// person declines) instead of a code; "" approves again.
func (s *OIDCProvider) Deny(code string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.deny = code
}

// Requests returns the requests answered so far at path, or all of them when path is "".
func (s *OIDCProvider) Requests(path string) []OIDCRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []OIDCRequest
	for _, r := range s.log {
		if path == "" || r.Path == path {
			out = append(out, r)
		}
	}
	return out
}

// Follow plays the browser at the authorization URL: it GETs authURL without following the
// redirect and returns where the provider sends the browser back (the callback URL, with
// code and state or error).
func (s *OIDCProvider) Follow(tb testing.TB, authURL string) (callbackURL string) {
	tb.Helper()
	return follow(tb, s.srv.Client(), authURL)
}

func (s *OIDCProvider) discovery(w http.ResponseWriter, _ *http.Request) {
	rec := OIDCRequest{Path: "/.well-known/openid-configuration", Status: http.StatusOK}
	defer s.record(&rec)
	writeJSON(w, rec.Status, map[string]any{
		"issuer":                                s.URL,
		"authorization_endpoint":                s.URL + "/authorize",
		"token_endpoint":                        s.URL + "/token",
		"userinfo_endpoint":                     s.URL + "/userinfo",
		"jwks_uri":                              s.URL + "/jwks",
		"end_session_endpoint":                  s.EndSessionURL(),
		"response_types_supported":              []string{"code"},
		"subject_types_supported":               []string{"public"},
		"id_token_signing_alg_values_supported": []string{string(jose.RS256)},
		"scopes_supported":                      []string{"openid", "email", "profile", "groups"},
		"token_endpoint_auth_methods_supported": []string{cmp.Or(s.AuthMethod, secretPost)},
		"code_challenge_methods_supported":      []string{"S256"},
		"claims_parameter_supported":            true,
		"claims_supported":                      []string{"sub", "iss", "aud", "exp", "iat", "nonce", "email", "email_verified", "name", "given_name", "family_name", "groups"},
	})
}

func (s *OIDCProvider) jwks(w http.ResponseWriter, _ *http.Request) {
	rec := OIDCRequest{Path: "/jwks", Status: http.StatusOK}
	defer s.record(&rec)
	writeJSON(w, rec.Status, jose.JSONWebKeySet{Keys: []jose.JSONWebKey{
		{Key: &s.key.PublicKey, KeyID: s.keyID, Algorithm: string(jose.RS256), Use: "sig"},
	}})
}

func (s *OIDCProvider) authorize(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	rec := OIDCRequest{Path: "/authorize", ClientID: q.Get("client_id"), RedirectURI: q.Get("redirect_uri"),
		State: q.Get("state"), Scope: q.Get("scope"), Nonce: q.Get("nonce"), Prompt: q.Get("prompt"),
		Claims: q.Get("claims"), CodeChallenge: q.Get("code_challenge"), CodeChallengeMethod: q.Get("code_challenge_method")}
	defer s.record(&rec)
	// A bad client or redirect URI must not redirect (RFC 6749 §4.1.2.1): it would make the
	// provider an open redirector.
	back, err := url.Parse(rec.RedirectURI)
	if rec.ClientID != s.ClientID || err != nil || !back.IsAbs() {
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
	case !slices.Contains(strings.Fields(rec.Scope), "openid"):
		params.Set("error", "invalid_scope")
	case rec.CodeChallenge != "" && rec.CodeChallengeMethod != "S256":
		// Only S256: "plain" protects nothing against a stolen authorization request.
		params.Set("error", "invalid_request")
	default:
		code := randomID()
		s.mu.Lock()
		s.codes[code] = authGrant{redirectURI: rec.RedirectURI, nonce: rec.Nonce, challenge: rec.CodeChallenge,
			method: rec.CodeChallengeMethod, claims: user, expires: time.Now().Add(codeLifetime)}
		s.mu.Unlock()
		params.Set("code", code)
	}
	rec.Error = params.Get("error")
	if rec.State != "" {
		params.Set("state", rec.State)
	}
	back.RawQuery = params.Encode()
	rec.Status = http.StatusFound
	http.Redirect(w, r, back.String(), rec.Status)
}

func (s *OIDCProvider) token(w http.ResponseWriter, r *http.Request) {
	rec := OIDCRequest{Path: "/token"}
	defer s.record(&rec)
	var lg tokenLog
	g, ok := exchangeCode(w, r, &lg, tokenClient{s.ClientID, s.ClientSecret, s.AuthMethod}, &s.mu, s.codes)
	rec.Status, rec.Error, rec.ClientAuth, rec.CodeVerifier, rec.PKCEVerified = lg.Status, lg.Error, lg.ClientAuth, lg.CodeVerifier, lg.PKCEVerified
	if !ok {
		return
	}

	s.mu.Lock()
	tamper := s.Tamper
	s.Tamper = OIDCTamper{} // used up by this token
	s.mu.Unlock()
	rec.Tampered = tamper != OIDCTamper{}

	access := randomID()
	answer := map[string]any{"access_token": access, "token_type": "Bearer",
		"expires_in": int(oidcTokenLifetime.Seconds())}
	if !tamper.OmitIDToken {
		idToken, err := s.idToken(g, tamper)
		if err != nil {
			oidcError(w, &rec, http.StatusInternalServerError, "server_error")
			return
		}
		answer["id_token"], rec.IDToken = idToken, idToken
	}
	s.mu.Lock()
	s.tokens[access] = g.claims
	s.mu.Unlock()
	rec.Status = http.StatusOK
	w.Header().Set("Cache-Control", "no-store")
	writeJSON(w, rec.Status, answer)
}

// idToken builds and signs the ID token for a grant, spoiled as tamper says.
func (s *OIDCProvider) idToken(g authGrant, tamper OIDCTamper) (string, error) {
	now := time.Now()
	claims := map[string]any{}
	maps.Copy(claims, g.claims)
	if s.GroupsInUserinfoOnly {
		delete(claims, "groups")
	}
	claims["iss"] = s.URL
	claims["aud"] = s.ClientID
	claims["azp"] = s.ClientID
	claims["iat"] = now.Unix()
	claims["exp"] = now.Add(oidcTokenLifetime).Unix()
	delete(claims, "nonce")
	if g.nonce != "" {
		claims["nonce"] = g.nonce
	}
	if tamper.Issuer != "" {
		claims["iss"] = tamper.Issuer
	}
	if tamper.Audience != "" {
		claims["aud"] = tamper.Audience
	}
	if tamper.Nonce != "" {
		claims["nonce"] = tamper.Nonce
	}
	if tamper.Expired {
		claims["iat"] = now.Add(-2 * oidcTokenLifetime).Unix()
		claims["exp"] = now.Add(-oidcTokenLifetime).Unix()
	}
	payload, err := json.Marshal(claims)
	if err != nil {
		return "", err
	}

	if tamper.AlgNone {
		// go-jose will not produce an unsigned JWS, so it is spelled out: header, payload and
		// an empty signature (RFC 7519 §6.1).
		header := base64.RawURLEncoding.EncodeToString([]byte(`{"alg":"none","typ":"JWT"}`))
		return header + "." + base64.RawURLEncoding.EncodeToString(payload) + ".", nil
	}
	key := s.key
	if tamper.OtherKey {
		// A key the JWKS does not hold, under the kid of one it does: the verifier finds the
		// published key and must then reject the signature.
		if key, err = s.unpublishedKey(); err != nil {
			return "", err
		}
	}
	signer, err := jose.NewSigner(
		jose.SigningKey{Algorithm: jose.RS256, Key: jose.JSONWebKey{Key: key, KeyID: s.keyID, Algorithm: string(jose.RS256)}},
		(&jose.SignerOptions{}).WithType("JWT"))
	if err != nil {
		return "", err
	}
	jws, err := signer.Sign(payload)
	if err != nil {
		return "", err
	}
	return jws.CompactSerialize()
}

// unpublishedKey is the key for OtherKey tokens, generated on first use: most tests never
// need it.
func (s *OIDCProvider) unpublishedKey() (*rsa.PrivateKey, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.otherKey == nil {
		k, err := rsa.GenerateKey(rand.Reader, 2048)
		if err != nil {
			return nil, err
		}
		s.otherKey = k
	}
	return s.otherKey, nil
}

func (s *OIDCProvider) userinfo(w http.ResponseWriter, r *http.Request) {
	rec := OIDCRequest{Path: "/userinfo"}
	defer s.record(&rec)
	if s.UserinfoStatus != 0 {
		rec.Status = s.UserinfoStatus
		http.Error(w, "unavailable", s.UserinfoStatus)
		return
	}
	scheme, tok, _ := strings.Cut(r.Header.Get("Authorization"), " ")
	s.mu.Lock()
	claims, ok := s.tokens[tok]
	s.mu.Unlock()
	if !strings.EqualFold(scheme, "Bearer") || !ok {
		w.Header().Set("WWW-Authenticate", `Bearer error="invalid_token"`)
		oidcError(w, &rec, http.StatusUnauthorized, "invalid_token")
		return
	}
	rec.Status = http.StatusOK
	writeJSON(w, rec.Status, claims)
}

// endSession logs an RP-initiated logout and sends the browser to post_logout_redirect_uri,
// or answers a plain page when there is none.
func (s *OIDCProvider) endSession(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	rec := OIDCRequest{Path: "/end_session", IDTokenHint: q.Get("id_token_hint"),
		PostLogoutRedirectURI: q.Get("post_logout_redirect_uri")}
	defer s.record(&rec)
	if back, err := url.Parse(rec.PostLogoutRedirectURI); rec.PostLogoutRedirectURI != "" && err == nil && back.IsAbs() {
		rec.Status = http.StatusFound
		http.Redirect(w, r, back.String(), rec.Status)
		return
	}
	rec.Status = http.StatusOK
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.WriteHeader(rec.Status)
	_, _ = w.Write([]byte("signed out\n"))
}

func (s *OIDCProvider) record(rec *OIDCRequest) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.log = append(s.log, *rec)
}

func oidcError(w http.ResponseWriter, rec *OIDCRequest, status int, code string) {
	rec.Status, rec.Error = status, code
	writeOAuthError(w, status, code)
}
