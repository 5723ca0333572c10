package sso_test

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"tally/sso"
	"tally/sso/ssotest"
)

// oidcHarness is a provider configured against an in-process OpenID Connect provider, with
// its own strategy: the strategy caches discovery per issuer, so none is shared between
// tests (and their servers).
type oidcHarness struct {
	op  *ssotest.OIDCProvider
	s   sso.Strategy
	p   *sso.Provider
	env sso.Env
}

func newOIDCHarness(t *testing.T, method string) *oidcHarness {
	t.Helper()
	op := ssotest.NewOIDCProvider(t)
	op.AuthMethod = method
	return &oidcHarness{
		op: op,
		s:  sso.OIDC(),
		p: &sso.Provider{Strategy: sso.StrategyOIDC, Name: "acme", Label: "Acme", Issuer: op.URL,
			ClientID: op.ClientID, ClientSecret: op.ClientSecret, TokenAuthMethod: method},
		env: sso.Env{AppURL: "http://tally.test", HTTP: op.Client(), Now: time.Now},
	}
}

// begin starts a flow, returning the authorization URL and the flow to keep.
func (h *oidcHarness) begin(t *testing.T) (string, sso.Flow) {
	t.Helper()
	authURL, f, err := h.s.Begin(context.Background(), h.p, h.env, sso.PurposeLogin)
	if err != nil {
		t.Fatalf("Begin: %v", err)
	}
	return authURL, f
}

// callback starts a flow and plays the browser at the provider, returning the callback
// request and the flow.
func (h *oidcHarness) callback(t *testing.T) (*http.Request, sso.Flow) {
	t.Helper()
	authURL, f := h.begin(t)
	return httptest.NewRequest(http.MethodGet, h.op.Follow(t, authURL), nil), f
}

func (h *oidcHarness) complete(r *http.Request, f sso.Flow) (*sso.Identity, error) {
	return h.s.Complete(context.Background(), h.p, h.env, r, f)
}

// login is a whole sign-in: Begin, the provider, Complete.
func (h *oidcHarness) login(t *testing.T) (*sso.Identity, error) {
	t.Helper()
	r, f := h.callback(t)
	return h.complete(r, f)
}

// wantFailure checks err is a Failure for reason, for the person to read, and without the
// client secret.
func (h *oidcHarness) wantFailure(t *testing.T, id *sso.Identity, err error, reason string) *sso.Failure {
	t.Helper()
	if id != nil {
		t.Errorf("identity %+v despite the failure", *id)
	}
	f, ok := sso.AsFailure(err)
	if !ok {
		t.Fatalf("error %v is not a Failure, want reason %s", err, reason)
	}
	if f.Reason != reason {
		t.Fatalf("reason %s (%v), want %s", f.Reason, err, reason)
	}
	if f.Message == "" {
		t.Error("no message for the person")
	}
	if strings.Contains(err.Error(), h.p.ClientSecret) {
		t.Errorf("the error carries the client secret: %v", err)
	}
	return f
}

// oidcChallenge is the PKCE S256 challenge for a verifier (RFC 7636 §4.2).
func oidcChallenge(verifier string) string {
	sum := sha256.Sum256([]byte(verifier))
	return base64.RawURLEncoding.EncodeToString(sum[:])
}

// oidcWithQuery returns a copy of r with the query parameter key set to value.
func oidcWithQuery(r *http.Request, key, value string) *http.Request {
	u := *r.URL
	q := u.Query()
	q.Set(key, value)
	u.RawQuery = q.Encode()
	return httptest.NewRequest(r.Method, u.String(), nil)
}

func TestOIDCLogin(t *testing.T) {
	for _, method := range []string{sso.AuthClientSecretPost, sso.AuthClientSecretBasic} {
		t.Run(method, func(t *testing.T) {
			h := newOIDCHarness(t, method)
			h.op.SetUser(map[string]any{"sub": "u-42", "email": " Ada.Lovelace@Example.COM ", "email_verified": true,
				"name": "Ada Lovelace", "given_name": "Ada", "family_name": "Lovelace",
				"groups": []string{"family", "admins"}})

			id, err := h.login(t)
			if err != nil {
				t.Fatalf("login: %v", err)
			}
			tokens := h.op.Requests("/token")
			if len(tokens) != 1 || tokens[0].ClientAuth != method || tokens[0].Status != http.StatusOK {
				t.Fatalf("token requests = %+v, want one answered with %s", tokens, method)
			}
			want := sso.Identity{Provider: "acme", Issuer: h.op.URL, Subject: "u-42", Email: "ada.lovelace@example.com",
				EmailVerified: true, Name: "Ada Lovelace", FirstName: "Ada", LastName: "Lovelace",
				Groups: []string{"family", "admins"}, IDToken: tokens[0].IDToken}
			if id.Provider != want.Provider || id.Issuer != want.Issuer || id.Subject != want.Subject ||
				id.Email != want.Email || id.EmailVerified != want.EmailVerified || id.Name != want.Name ||
				id.FirstName != want.FirstName || id.LastName != want.LastName || !slices.Equal(id.Groups, want.Groups) {
				t.Errorf("identity = %+v\nwant %+v", *id, want)
			}
			if id.IDToken == "" || id.IDToken != want.IDToken {
				t.Errorf("IDToken %q, want the token issued %q", id.IDToken, want.IDToken)
			}
			if id.Claims["sub"] != "u-42" || id.Claims["iss"] != h.op.URL || id.Claims["email_verified"] != true ||
				id.Claims["nonce"] == nil {
				t.Errorf("claims = %v, want the ID token's", id.Claims)
			}
		})
	}
}

// A provider strict about its auth method refuses the other one; the client neither passes
// nor retries the other way.
func TestOIDCWrongAuthMethodRefused(t *testing.T) {
	h := newOIDCHarness(t, sso.AuthClientSecretBasic)
	h.p.TokenAuthMethod = sso.AuthClientSecretPost
	id, err := h.login(t)
	h.wantFailure(t, id, err, sso.ReasonInvalidResponse)
	tokens := h.op.Requests("/token")
	if len(tokens) != 1 || tokens[0].Error != "invalid_client" || tokens[0].ClientAuth != sso.AuthClientSecretPost {
		t.Errorf("token requests = %+v, want one refused as invalid_client", tokens)
	}
}

func TestOIDCEmailVerified(t *testing.T) {
	for _, tc := range []struct {
		name     string
		verified any // nil: no claim
		want     bool
	}{
		{"verified", true, true},
		{"unverified", false, false},
		{"no claim", nil, false},
		{"only a boolean vouches", "true", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newOIDCHarness(t, sso.AuthClientSecretPost)
			h.p.TrustEmail = true // OIDC believes the provider's claim, not the setting
			user := map[string]any{"sub": "u-1", "email": "ada@example.com"}
			if tc.verified != nil {
				user["email_verified"] = tc.verified
			}
			h.op.SetUser(user)
			id, err := h.login(t)
			if err != nil {
				t.Fatalf("login: %v", err)
			}
			if id.EmailVerified != tc.want {
				t.Errorf("EmailVerified = %v, want %v", id.EmailVerified, tc.want)
			}
		})
	}
}

// Begin asks for what the flow will check: PKCE S256 of the flow's verifier, the flow's
// nonce and state, the scopes, and the redirect URI.
func TestOIDCBeginParameters(t *testing.T) {
	h := newOIDCHarness(t, sso.AuthClientSecretPost)
	r, f := h.callback(t)
	if f.Provider != "acme" || f.Purpose != sso.PurposeLogin || f.State == "" || f.Nonce == "" || f.Verifier == "" ||
		f.Nonce == f.State || f.StartedAt.IsZero() {
		t.Errorf("flow = %+v", f)
	}
	authz := h.op.Requests("/authorize")
	if len(authz) != 1 {
		t.Fatalf("authorize requests = %+v, want one", authz)
	}
	a := authz[0]
	if a.ClientID != h.op.ClientID || a.RedirectURI != "http://tally.test/auth/acme/callback" || a.State != f.State {
		t.Errorf("authorize request = %+v, want client %s, the callback and the flow's state", a, h.op.ClientID)
	}
	if a.Nonce != f.Nonce {
		t.Errorf("nonce %q, want the flow's %q", a.Nonce, f.Nonce)
	}
	if a.Scope != "openid email profile" {
		t.Errorf("scope %q, want the default %q", a.Scope, "openid email profile")
	}
	if a.Prompt != "" || a.Claims != "" {
		t.Errorf("prompt %q, claims %q: want neither unless configured", a.Prompt, a.Claims)
	}
	if a.CodeChallengeMethod != "S256" || a.CodeChallenge != oidcChallenge(f.Verifier) {
		t.Errorf("challenge %q (%s), want S256 of the flow's verifier", a.CodeChallenge, a.CodeChallengeMethod)
	}

	if _, err := h.complete(r, f); err != nil {
		t.Fatalf("Complete: %v", err)
	}
	tokens := h.op.Requests("/token")
	if len(tokens) != 1 || tokens[0].CodeVerifier != f.Verifier || !tokens[0].PKCEVerified {
		t.Errorf("token requests = %+v, want one with the flow's verifier, verified", tokens)
	}
}

// A code taken to another flow (another verifier) is refused by the provider.
func TestOIDCPKCEOtherVerifierRefused(t *testing.T) {
	h := newOIDCHarness(t, sso.AuthClientSecretPost)
	r, f := h.callback(t)
	f.Verifier = strings.Repeat("x", 43)
	id, err := h.complete(r, f)
	h.wantFailure(t, id, err, sso.ReasonInvalidResponse)
	if tokens := h.op.Requests("/token"); len(tokens) != 1 || tokens[0].Error != "invalid_grant" {
		t.Errorf("token requests = %+v, want one refused as invalid_grant", tokens)
	}
}

func TestOIDCBeginOptions(t *testing.T) {
	for _, tc := range []struct {
		name       string
		configure  func(p *sso.Provider)
		wantScope  string
		wantPrompt string
		wantClaims bool
	}{
		{
			name:      "defaults",
			wantScope: "openid email profile",
		},
		{
			name:       "prompt",
			configure:  func(p *sso.Provider) { p.Prompt = "select_account" },
			wantScope:  "openid email profile",
			wantPrompt: "select_account",
		},
		{
			name: "group mappings ask for groups",
			configure: func(p *sso.Provider) {
				p.GroupMappings = []sso.GroupMapping{{Group: "admins", Role: "admin"}}
			},
			wantScope:  "openid email profile",
			wantClaims: true,
		},
		{
			name:       "a groups scope asks for groups",
			configure:  func(p *sso.Provider) { p.Scopes = []string{"openid", "email", "groups"} },
			wantScope:  "openid email groups",
			wantClaims: true,
		},
		{
			name:      "other scopes do not",
			configure: func(p *sso.Provider) { p.Scopes = []string{"openid", "email", "offline_access"} },
			wantScope: "openid email offline_access",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newOIDCHarness(t, sso.AuthClientSecretPost)
			if tc.configure != nil {
				tc.configure(h.p)
			}
			h.callback(t)
			a := h.op.Requests("/authorize")[0]
			if a.Scope != tc.wantScope || a.Prompt != tc.wantPrompt {
				t.Errorf("scope %q, prompt %q; want %q, %q", a.Scope, a.Prompt, tc.wantScope, tc.wantPrompt)
			}
			if !tc.wantClaims {
				if a.Claims != "" {
					t.Errorf("claims parameter %q, want none", a.Claims)
				}
				return
			}
			// OIDC Core §5.5: {"id_token": {"groups": null}, "userinfo": {"groups": null}}.
			var req map[string]map[string]any
			if err := json.Unmarshal([]byte(a.Claims), &req); err != nil {
				t.Fatalf("claims parameter %q is not a claims request: %v", a.Claims, err)
			}
			for _, member := range []string{"id_token", "userinfo"} {
				if _, ok := req[member]["groups"]; !ok {
					t.Errorf("claims parameter %s does not ask for groups in %s", a.Claims, member)
				}
			}
		})
	}
}

// Providers that keep groups out of the ID token answer them at userinfo: they are fetched
// there when the provider's groups matter, and not otherwise.
// When the groups that set the user's role come from userinfo, a userinfo outage refuses the
// sign-in rather than signing the user in without groups (which would demote them).
func TestOIDCUserinfoOutageRefusesRatherThanDemotes(t *testing.T) {
	h := newOIDCHarness(t, sso.AuthClientSecretPost)
	h.p.GroupMappings = []sso.GroupMapping{{Group: "admins", Role: "admin"}}
	h.op.GroupsInUserinfoOnly = true
	h.op.UserinfoStatus = http.StatusServiceUnavailable
	h.op.SetUser(map[string]any{"sub": "u-1", "email": "ada@example.com", "groups": []string{"admins"}})
	_, err := h.login(t)
	if f, ok := sso.AsFailure(err); !ok || f.Reason != sso.ReasonProviderUnavailable {
		t.Fatalf("login during a userinfo outage: %v", err)
	}
}

func TestOIDCGroupsFromUserinfo(t *testing.T) {
	for _, tc := range []struct {
		name         string
		mappings     []sso.GroupMapping
		wantGroups   []string
		wantUserinfo int
	}{
		{"wanted", []sso.GroupMapping{{Group: "admins", Role: "admin"}}, []string{"staff", "admins"}, 1},
		{"not wanted", nil, nil, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newOIDCHarness(t, sso.AuthClientSecretPost)
			h.p.GroupMappings = tc.mappings
			h.op.GroupsInUserinfoOnly = true
			h.op.SetUser(map[string]any{"sub": "u-1", "email": "ada@example.com", "groups": []string{"staff", "admins"}})
			id, err := h.login(t)
			if err != nil {
				t.Fatalf("login: %v", err)
			}
			if !slices.Equal(id.Groups, tc.wantGroups) {
				t.Errorf("groups %q, want %q", id.Groups, tc.wantGroups)
			}
			if n := len(h.op.Requests("/userinfo")); n != tc.wantUserinfo {
				t.Errorf("%d userinfo requests, want %d", n, tc.wantUserinfo)
			}
			if id.Subject != "u-1" || id.Email != "ada@example.com" {
				t.Errorf("identity = %+v", *id)
			}
		})
	}
}

// An ID token that does not hold is refused, although the token endpoint answered: each
// case checks the refusal names what was wrong, so that it cannot pass for another reason.
func TestOIDCIDTokenRejections(t *testing.T) {
	for _, tc := range []struct {
		name   string
		tamper ssotest.OIDCTamper
		cause  string // in the Failure's error
	}{
		{"wrong issuer", ssotest.OIDCTamper{Issuer: "https://evil.example"}, "issued by a different provider"},
		{"wrong audience", ssotest.OIDCTamper{Audience: "someone-else"}, "audience"},
		{"bad nonce", ssotest.OIDCTamper{Nonce: "replayed-nonce"}, "nonce"},
		{"expired", ssotest.OIDCTamper{Expired: true}, "expired"},
		{"alg none", ssotest.OIDCTamper{AlgNone: true}, `"none"`},
		{"signed by another key", ssotest.OIDCTamper{OtherKey: true}, "signature"},
		{"no id_token", ssotest.OIDCTamper{OmitIDToken: true}, "no id_token"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newOIDCHarness(t, sso.AuthClientSecretPost)
			r, f := h.callback(t)
			h.op.Tamper = tc.tamper
			id, err := h.complete(r, f)
			fl := h.wantFailure(t, id, err, sso.ReasonInvalidResponse)
			if fl.Err == nil || !strings.Contains(fl.Err.Error(), tc.cause) {
				t.Errorf("failure %v, want its cause to mention %q", err, tc.cause)
			}
			if tokens := h.op.Requests("/token"); len(tokens) != 1 || tokens[0].Status != http.StatusOK || !tokens[0].Tampered {
				t.Errorf("token requests = %+v, want one answered with the tampered token", tokens)
			}
		})
	}
}

// Callbacks that do not belong to the flow, or come too late, or carry the provider's error,
// are refused before any token call.
func TestOIDCCallbackRejections(t *testing.T) {
	for _, tc := range []struct {
		name   string
		setup  func(h *oidcHarness)
		tamper func(h *oidcHarness, r *http.Request, f sso.Flow) *http.Request
		reason string
	}{
		{
			name: "wrong state",
			tamper: func(_ *oidcHarness, r *http.Request, _ sso.Flow) *http.Request {
				return oidcWithQuery(r, "state", "forged")
			},
			reason: sso.ReasonInvalidState,
		},
		{
			name: "flow older than its lifetime",
			tamper: func(h *oidcHarness, r *http.Request, f sso.Flow) *http.Request {
				h.env.Now = func() time.Time { return f.StartedAt.Add(16 * time.Minute) }
				return r
			},
			reason: sso.ReasonExpired,
		},
		{
			name:   "access denied",
			setup:  func(h *oidcHarness) { h.op.Deny("access_denied") },
			reason: sso.ReasonDenied,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newOIDCHarness(t, sso.AuthClientSecretPost)
			if tc.setup != nil {
				tc.setup(h)
			}
			r, f := h.callback(t)
			if tc.tamper != nil {
				r = tc.tamper(h, r, f)
			}
			id, err := h.complete(r, f)
			fl := h.wantFailure(t, id, err, tc.reason)
			if tc.reason == sso.ReasonDenied && !strings.Contains(fl.Message, "access_denied") {
				t.Errorf("message %q does not name the provider's error code", fl.Message)
			}
			if n := len(h.op.Requests("/token")); n != 0 {
				t.Errorf("%d token requests, want none", n)
			}
		})
	}
}

// The same callback completed twice spends the code the first time: the provider refuses
// the second exchange.
func TestOIDCCodeReplay(t *testing.T) {
	h := newOIDCHarness(t, sso.AuthClientSecretPost)
	r, f := h.callback(t)
	if _, err := h.complete(r, f); err != nil {
		t.Fatalf("first Complete: %v", err)
	}
	id, err := h.complete(r, f)
	h.wantFailure(t, id, err, sso.ReasonInvalidResponse)
	tokens := h.op.Requests("/token")
	if len(tokens) != 2 || tokens[1].Error != "invalid_grant" {
		t.Errorf("token requests = %+v, want the second refused as invalid_grant", tokens)
	}
}

// One strategy serves every provider: discovery is cached per issuer, so that each provider
// keeps its own endpoints and keys, and is fetched again once the cache is stale.
func TestOIDCDiscoveryCachedPerIssuer(t *testing.T) {
	now := time.Now()
	acme, globex := newOIDCHarness(t, sso.AuthClientSecretPost), newOIDCHarness(t, sso.AuthClientSecretBasic)
	globex.p.Name = "globex"
	globex.s = acme.s // one strategy for both
	for _, h := range []*oidcHarness{acme, globex} {
		h.env.Now = func() time.Time { return now }
	}
	discoveries := func(h *oidcHarness) int { return len(h.op.Requests("/.well-known/openid-configuration")) }

	for range 2 {
		for _, h := range []*oidcHarness{acme, globex} {
			id, err := h.login(t)
			if err != nil {
				t.Fatalf("login at %s: %v", h.p.Name, err)
			}
			if id.Issuer != h.op.URL || id.Provider != h.p.Name {
				t.Errorf("login at %s: issuer %q, provider %q", h.p.Name, id.Issuer, id.Provider)
			}
		}
	}
	if a, g := discoveries(acme), discoveries(globex); a != 1 || g != 1 {
		t.Errorf("discovery fetched %d and %d times over two logins each, want once each", a, g)
	}

	now = now.Add(6 * time.Minute) // past the cache's five minutes
	if _, err := acme.login(t); err != nil {
		t.Fatalf("login after the cache went stale: %v", err)
	}
	if n := discoveries(acme); n != 2 {
		t.Errorf("discovery fetched %d times, want it fetched again once stale", n)
	}
}

func TestOIDCDiscoveryUnavailable(t *testing.T) {
	// A server that is gone: nothing listens at its address any more.
	gone := httptest.NewServer(http.NotFoundHandler())
	gone.Close()
	live := ssotest.NewOIDCProvider(t)

	for _, tc := range []struct{ name, issuer string }{
		{"unreachable", gone.URL},
		{"not an issuer", live.URL + "/tenant"}, // 404 at its discovery URL
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newOIDCHarness(t, sso.AuthClientSecretPost)
			h.p.Issuer = tc.issuer
			authURL, _, err := h.s.Begin(context.Background(), h.p, h.env, sso.PurposeLogin)
			if authURL != "" {
				t.Errorf("Begin returned %q despite the failure", authURL)
			}
			h.wantFailure(t, nil, err, sso.ReasonProviderUnavailable)

			// A callback for a flow started before the provider went away.
			f := sso.Flow{Provider: "acme", State: "s", Nonce: "n", Verifier: strings.Repeat("v", 43),
				Purpose: sso.PurposeLogin, StartedAt: time.Now()}
			r := httptest.NewRequest(http.MethodGet, "http://tally.test/auth/acme/callback?code=c&state=s", nil)
			id, err := h.complete(r, f)
			h.wantFailure(t, id, err, sso.ReasonProviderUnavailable)
		})
	}
}

func TestOIDCEndSessionURL(t *testing.T) {
	h := newOIDCHarness(t, sso.AuthClientSecretPost)
	id, err := h.login(t)
	if err != nil {
		t.Fatalf("login: %v", err)
	}
	es, ok := h.s.(sso.EndSessioner)
	if !ok {
		t.Fatalf("the OIDC strategy (%T) is not an EndSessioner", h.s)
	}
	const back = "http://tally.test/login?signed_out=1"
	got := es.EndSessionURL(context.Background(), h.p, h.env, id.IDToken, back)
	u, err := url.Parse(got)
	if err != nil {
		t.Fatalf("end session URL %q: %v", got, err)
	}
	q := u.Query()
	if base := u.Scheme + "://" + u.Host + u.Path; base != h.op.EndSessionURL() {
		t.Errorf("end session URL %q, want the provider's endpoint %q", got, h.op.EndSessionURL())
	}
	if q.Get("id_token_hint") != id.IDToken || q.Get("post_logout_redirect_uri") != back {
		t.Errorf("end session query %v, want the ID token and %q", q, back)
	}

	// The provider takes it: it logs the hint and sends the browser back.
	if cb := h.op.Follow(t, got); cb != back {
		t.Errorf("the provider sent the browser to %q, want %q", cb, back)
	}
	ends := h.op.Requests("/end_session")
	if len(ends) != 1 || ends[0].IDTokenHint != id.IDToken || ends[0].PostLogoutRedirectURI != back {
		t.Errorf("end session requests = %+v", ends)
	}

	// Without discovery there is no logout URL to give.
	h.p.Issuer = "http://127.0.0.1:1"
	if got := sso.OIDC().(sso.EndSessioner).EndSessionURL(context.Background(), h.p, h.env, id.IDToken, back); got != "" {
		t.Errorf("end session URL %q for an unreachable provider, want none", got)
	}
}
