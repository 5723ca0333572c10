package sso_test

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"tally/sso"
	"tally/sso/ssotest"
)

// oauth2Harness is a provider configured against an in-process OAuth2 server, and a clock.
type oauth2Harness struct {
	srv *ssotest.OAuth2Server
	p   *sso.Provider
	env sso.Env
	now time.Time
}

func newOAuth2Harness(t *testing.T, method string) *oauth2Harness {
	t.Helper()
	srv := ssotest.NewOAuth2Server(t)
	srv.AuthMethod = method
	h := &oauth2Harness{srv: srv, now: time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC)}
	h.p = &sso.Provider{Strategy: sso.StrategyOAuth2, Name: "acme", Label: "Acme",
		AuthorizationURL: srv.AuthorizeURL(), TokenURL: srv.TokenURL(), UserinfoURL: srv.UserinfoURL(),
		ClientID: srv.ClientID, ClientSecret: srv.ClientSecret, TokenAuthMethod: method,
		Scopes: []string{"read:user", "user:email"}}
	h.env = sso.Env{AppURL: "https://tally.example", HTTP: srv.Client(), Now: func() time.Time { return h.now }}
	return h
}

// begin starts a flow and plays the browser at the provider, returning the callback request.
func (h *oauth2Harness) begin(t *testing.T) (*http.Request, sso.Flow) {
	t.Helper()
	authURL, f, err := sso.OAuth2().Begin(context.Background(), h.p, h.env, sso.PurposeLogin)
	if err != nil {
		t.Fatalf("Begin: %v", err)
	}
	return httptest.NewRequest(http.MethodGet, h.srv.Follow(t, authURL), nil), f
}

func (h *oauth2Harness) complete(r *http.Request, f sso.Flow) (*sso.Identity, error) {
	return sso.OAuth2().Complete(context.Background(), h.p, h.env, r, f)
}

func (h *oauth2Harness) login(t *testing.T) (*sso.Identity, error) {
	t.Helper()
	r, f := h.begin(t)
	return h.complete(r, f)
}

// wantFailure checks err is a Failure for reason, and that it does not carry the client secret.
func wantFailure(t *testing.T, h *oauth2Harness, err error, reason string) *sso.Failure {
	t.Helper()
	f, ok := sso.AsFailure(err)
	if !ok {
		t.Fatalf("error %v is not a Failure, want reason %s", err, reason)
	}
	if f.Reason != reason {
		t.Fatalf("reason %s (%v), want %s", f.Reason, err, reason)
	}
	if strings.Contains(err.Error(), h.p.ClientSecret) {
		t.Errorf("the error carries the client secret: %v", err)
	}
	return f
}

func TestOAuth2Login(t *testing.T) {
	for _, method := range []string{sso.AuthClientSecretPost, sso.AuthClientSecretBasic} {
		t.Run(method, func(t *testing.T) {
			h := newOAuth2Harness(t, method)
			h.p.Prompt = "consent"
			h.srv.SetUser(map[string]any{"sub": "u-1", "email": "  Ada@Example.COM ", "name": "Ada Lovelace",
				"given_name": "Ada", "family_name": "Lovelace", "groups": []string{"family", "admins"}})

			r, f := h.begin(t)
			if f.Provider != "acme" || f.Purpose != sso.PurposeLogin || !f.StartedAt.Equal(h.now) {
				t.Errorf("flow = %+v", f)
			}
			if len(f.State) != 43 || f.Verifier == "" { // 32 bytes, base64url without padding
				t.Errorf("state %q, verifier %q", f.State, f.Verifier)
			}
			id, err := h.complete(r, f)
			if err != nil {
				t.Fatalf("Complete: %v", err)
			}
			want := sso.Identity{Provider: "acme", Issuer: h.srv.URL, Subject: "u-1", Email: "ada@example.com",
				Name: "Ada Lovelace", FirstName: "Ada", LastName: "Lovelace", Groups: []string{"family", "admins"}}
			if id.Provider != want.Provider || id.Issuer != want.Issuer || id.Subject != want.Subject ||
				id.Email != want.Email || id.EmailVerified || id.Name != want.Name || id.FirstName != want.FirstName ||
				id.LastName != want.LastName || !slices.Equal(id.Groups, want.Groups) || id.Claims["sub"] != "u-1" {
				t.Errorf("identity = %+v\nwant %+v", *id, want)
			}

			authz := h.srv.Requests("/authorize")
			if len(authz) != 1 || authz[0].RedirectURI != "https://tally.example/auth/acme/callback" ||
				authz[0].Scope != "read:user user:email" || authz[0].Prompt != "consent" {
				t.Errorf("authorize requests = %+v", authz)
			}
			tokens := h.srv.Requests("/token")
			if len(tokens) != 1 || tokens[0].ClientAuth != method || tokens[0].Status != http.StatusOK {
				t.Errorf("token requests = %+v, want one with %s", tokens, method)
			}
		})
	}
}

// A server strict about its auth method refuses the other one, and the client does not
// retry with the secret sent the other way (which would also spend the code).
func TestOAuth2WrongAuthMethodRefused(t *testing.T) {
	for _, tc := range []struct{ server, client string }{
		{sso.AuthClientSecretBasic, sso.AuthClientSecretPost},
		{sso.AuthClientSecretPost, sso.AuthClientSecretBasic},
	} {
		t.Run("server "+tc.server, func(t *testing.T) {
			h := newOAuth2Harness(t, tc.server)
			h.p.TokenAuthMethod = tc.client
			_, err := h.login(t)
			wantFailure(t, h, err, sso.ReasonInvalidResponse)
			tokens := h.srv.Requests("/token")
			if len(tokens) != 1 || tokens[0].Error != "invalid_client" || tokens[0].ClientAuth != tc.client {
				t.Errorf("token requests = %+v, want one refused as invalid_client", tokens)
			}
		})
	}
}

func TestOAuth2PKCE(t *testing.T) {
	h := newOAuth2Harness(t, sso.AuthClientSecretPost)
	r, f := h.begin(t)
	if _, err := h.complete(r, f); err != nil {
		t.Fatalf("Complete: %v", err)
	}
	sum := sha256.Sum256([]byte(f.Verifier))
	authz, tokens := h.srv.Requests("/authorize"), h.srv.Requests("/token")
	if authz[0].CodeChallengeMethod != "S256" || authz[0].CodeChallenge != base64.RawURLEncoding.EncodeToString(sum[:]) {
		t.Errorf("challenge %q (%s), want S256 of the flow's verifier", authz[0].CodeChallenge, authz[0].CodeChallengeMethod)
	}
	if !tokens[0].PKCEVerified || tokens[0].CodeVerifier != f.Verifier {
		t.Errorf("token request = %+v, want the flow's verifier, verified", tokens[0])
	}

	// A code taken to another flow (another verifier) is refused by the provider.
	r, f = h.begin(t)
	f.Verifier = strings.Repeat("x", 43)
	_, err := h.complete(r, f)
	wantFailure(t, h, err, sso.ReasonInvalidResponse)
	if got := h.srv.Requests("/token")[1].Error; got != "invalid_grant" {
		t.Errorf("the server answered %q, want invalid_grant", got)
	}
}

func TestOAuth2ClaimPaths(t *testing.T) {
	for _, tc := range []struct {
		name      string
		configure func(p *sso.Provider)
		user      map[string]any
		want      sso.Identity
	}{
		{
			name: "github style: numeric id, login, no groups",
			user: map[string]any{"id": 583231, "login": "octocat", "name": nil, "email": "octocat@github.com"},
			want: sso.Identity{Subject: "583231", Name: "octocat", Email: "octocat@github.com"},
		},
		{
			name: "large numeric id keeps every digit",
			user: map[string]any{"id": int64(9007199254740993), "preferred_username": "big"},
			want: sso.Identity{Subject: "9007199254740993", Name: "big"},
		},
		{
			name: "sub wins over id",
			user: map[string]any{"sub": "s-1", "id": 5, "groups": "admins,users"},
			want: sso.Identity{Subject: "s-1", Groups: []string{"admins", "users"}},
		},
		{
			name: "groups as a space-separated string",
			user: map[string]any{"sub": "s-1", "groups": "admins users  staff"},
			want: sso.Identity{Subject: "s-1", Groups: []string{"admins", "users", "staff"}},
		},
		{
			name: "custom claim names and nested paths",
			configure: func(p *sso.Provider) {
				p.SubjectClaim, p.EmailClaim, p.NameClaim, p.GroupsClaim = "user.uuid", "data.attributes.mail", "profile.display", "memberships"
			},
			user: map[string]any{
				"sub":         "not-this-one",
				"user":        map[string]any{"uuid": "abc-123"},
				"data":        map[string]any{"attributes": map[string]any{"mail": "Grace@Example.com"}},
				"profile":     map[string]any{"display": "Grace Hopper"},
				"memberships": []any{map[string]any{"name": "navy"}, map[string]any{"name": "admins"}},
			},
			want: sso.Identity{Subject: "abc-123", Email: "grace@example.com", Name: "Grace Hopper", Groups: []string{"navy", "admins"}},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newOAuth2Harness(t, sso.AuthClientSecretBasic)
			if tc.configure != nil {
				tc.configure(h.p)
			}
			h.srv.SetUser(tc.user)
			id, err := h.login(t)
			if err != nil {
				t.Fatalf("login: %v", err)
			}
			if id.Subject != tc.want.Subject || id.Email != tc.want.Email || id.Name != tc.want.Name || !slices.Equal(id.Groups, tc.want.Groups) {
				t.Errorf("identity = %+v\nwant %+v", *id, tc.want)
			}
		})
	}
}

func TestOAuth2EmailVerified(t *testing.T) {
	for _, tc := range []struct {
		name     string
		trust    bool
		verified any
		want     bool
	}{
		{"not trusted", false, nil, false},
		{"trusted", true, nil, true},
		{"provider vouches", false, true, true},
		{"only a boolean vouches", false, "true", false},
		{"provider says unverified", true, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newOAuth2Harness(t, sso.AuthClientSecretPost)
			h.p.TrustEmail = tc.trust
			user := map[string]any{"sub": "u-1", "email": "ada@example.com"}
			if tc.verified != nil {
				user["email_verified"] = tc.verified
			}
			h.srv.SetUser(user)
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

func TestOAuth2IssuerSetting(t *testing.T) {
	h := newOAuth2Harness(t, sso.AuthClientSecretPost)
	h.p.Issuer = "https://accounts.acme.example"
	id, err := h.login(t)
	if err != nil {
		t.Fatalf("login: %v", err)
	}
	if id.Issuer != h.p.Issuer {
		t.Errorf("issuer %q, want the setting %q", id.Issuer, h.p.Issuer)
	}
}

func TestOAuth2Rejections(t *testing.T) {
	for _, tc := range []struct {
		name   string
		setup  func(h *oauth2Harness)
		tamper func(h *oauth2Harness, r *http.Request, f *sso.Flow) *http.Request
		reason string
	}{
		{
			name: "wrong state",
			tamper: func(_ *oauth2Harness, r *http.Request, _ *sso.Flow) *http.Request {
				return withQuery(r, "state", "forged")
			},
			reason: sso.ReasonInvalidState,
		},
		{
			name: "flow of another provider",
			tamper: func(_ *oauth2Harness, r *http.Request, f *sso.Flow) *http.Request {
				f.Provider = "other"
				return r
			},
			reason: sso.ReasonInvalidState,
		},
		{
			name: "expired flow",
			tamper: func(h *oauth2Harness, r *http.Request, _ *sso.Flow) *http.Request {
				h.now = h.now.Add(sso.FlowLifetime + time.Second)
				return r
			},
			reason: sso.ReasonExpired,
		},
		{
			name:   "access denied",
			setup:  func(h *oauth2Harness) { h.srv.Deny("access_denied") },
			reason: sso.ReasonDenied,
		},
		{
			name: "token endpoint down",
			setup: func(h *oauth2Harness) {
				h.srv.Override("/token", http.StatusServiceUnavailable, "text/html", "<h1>down</h1>")
			},
			reason: sso.ReasonProviderUnavailable,
		},
		{
			name:   "token endpoint unreachable",
			setup:  func(h *oauth2Harness) { h.p.TokenURL = "http://127.0.0.1:1/token" },
			reason: sso.ReasonProviderUnavailable,
		},
		{
			name: "token answer without access token",
			setup: func(h *oauth2Harness) {
				h.srv.Override("/token", http.StatusOK, "application/json", `{"token_type":"Bearer"}`)
			},
			reason: sso.ReasonInvalidResponse,
		},
		{
			name:   "userinfo 500",
			setup:  func(h *oauth2Harness) { h.srv.Override("/userinfo", http.StatusInternalServerError, "", "") },
			reason: sso.ReasonProviderUnavailable,
		},
		{
			name:   "userinfo 401",
			setup:  func(h *oauth2Harness) { h.srv.Override("/userinfo", http.StatusUnauthorized, "", "") },
			reason: sso.ReasonInvalidResponse,
		},
		{
			name: "userinfo not JSON",
			setup: func(h *oauth2Harness) {
				h.srv.Override("/userinfo", http.StatusOK, "text/html", "<html>sign in</html>")
			},
			reason: sso.ReasonInvalidResponse,
		},
		{
			name: "userinfo a JSON array",
			setup: func(h *oauth2Harness) {
				h.srv.Override("/userinfo", http.StatusOK, "application/json", `[{"sub":"u-1"}]`)
			},
			reason: sso.ReasonInvalidResponse,
		},
		{
			name:   "userinfo null",
			setup:  func(h *oauth2Harness) { h.srv.Override("/userinfo", http.StatusOK, "application/json", `null`) },
			reason: sso.ReasonInvalidResponse,
		},
		{
			name: "userinfo with trailing data",
			setup: func(h *oauth2Harness) {
				h.srv.Override("/userinfo", http.StatusOK, "application/json", `{"sub":"u-1"}{"sub":"u-2"}`)
			},
			reason: sso.ReasonInvalidResponse,
		},
		{
			name: "userinfo over 1 MB",
			setup: func(h *oauth2Harness) {
				h.srv.Override("/userinfo", http.StatusOK, "application/json", `{"sub":"u-1","pad":"`+strings.Repeat("a", 1<<20)+`"}`)
			},
			reason: sso.ReasonInvalidResponse,
		},
		{
			name:   "missing subject",
			setup:  func(h *oauth2Harness) { h.srv.SetUser(map[string]any{"email": "ada@example.com", "sub": "  "}) },
			reason: sso.ReasonInvalidResponse,
		},
		{
			name: "configured subject claim missing, no fallback",
			setup: func(h *oauth2Harness) {
				h.p.SubjectClaim = "uuid"
				h.srv.SetUser(map[string]any{"sub": "u-1"})
			},
			reason: sso.ReasonInvalidResponse,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newOAuth2Harness(t, sso.AuthClientSecretPost)
			if tc.setup != nil {
				tc.setup(h)
			}
			r, f := h.begin(t)
			if tc.tamper != nil {
				r = tc.tamper(h, r, &f)
			}
			id, err := h.complete(r, f)
			if id != nil {
				t.Errorf("identity %+v despite the failure", *id)
			}
			fl := wantFailure(t, h, err, tc.reason)
			if fl.Message == "" {
				t.Error("no message for the person")
			}
		})
	}
}

func TestOAuth2DeniedMessage(t *testing.T) {
	h := newOAuth2Harness(t, sso.AuthClientSecretPost)
	h.srv.Deny("access_denied")
	r, f := h.begin(t)
	_, err := h.complete(r, f)
	fl := wantFailure(t, h, err, sso.ReasonDenied)
	if !strings.Contains(fl.Message, "access_denied") {
		t.Errorf("message %q does not name the provider's error code", fl.Message)
	}
	if n := len(h.srv.Requests("/token")); n != 0 {
		t.Errorf("%d token requests after a denial, want none", n)
	}

	// Whatever the callback carries, the message only repeats a short, harmless code.
	r = withQuery(r, "error", `<script>alert("x")</script> `+strings.Repeat("z", 500))
	r = withQuery(r, "error_description", "Call +1 555 0100 to unlock your account")
	_, err = h.complete(r, f)
	fl = wantFailure(t, h, err, sso.ReasonDenied)
	if strings.ContainsAny(fl.Message, `<>"`) || strings.Contains(fl.Message, "555") || len(fl.Message) > 200 {
		t.Errorf("message echoes the provider's text: %q", fl.Message)
	}
}

func TestOAuth2CodeReplay(t *testing.T) {
	h := newOAuth2Harness(t, sso.AuthClientSecretPost)
	r, f := h.begin(t)
	if _, err := h.complete(r, f); err != nil {
		t.Fatalf("first Complete: %v", err)
	}
	_, err := h.complete(r, f)
	wantFailure(t, h, err, sso.ReasonInvalidResponse)
	tokens := h.srv.Requests("/token")
	if len(tokens) != 2 || tokens[1].Error != "invalid_grant" {
		t.Errorf("token requests = %+v, want the second refused as invalid_grant", tokens)
	}
}

// withQuery returns a copy of r with the query parameter key set to value.
func withQuery(r *http.Request, key, value string) *http.Request {
	u := *r.URL
	q := u.Query()
	q.Set(key, value)
	u.RawQuery = q.Encode()
	return httptest.NewRequest(r.Method, u.String(), nil)
}
