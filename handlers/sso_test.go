package handlers_test

import (
	"context"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/crewjam/saml"
	"github.com/oauth2-proxy/mockoidc"
	"github.com/pquerna/otp/totp"
	"github.com/uptrace/bun/dialect/pgdialect"

	"tally/app"
	"tally/app/apptest"
	"tally/internal/apperr"
	"tally/internal/db"
	"tally/models"
	"tally/sso"
	"tally/sso/ssotest"
	"tally/testkit"
)

// startMockOIDC runs an OpenID Connect provider for the test.
func startMockOIDC(t *testing.T) *mockoidc.MockOIDC {
	t.Helper()
	m, err := mockoidc.Run()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Shutdown() })
	return m
}

// authFile writes a config/auth.yml for the test and returns its path.
func authFile(t *testing.T, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "auth.yml")
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// oidcYAML configures mockoidc as the provider "corp".
func oidcYAML(m *mockoidc.MockOIDC, extra string) string {
	cfg := m.Config()
	return `default: &default
  providers:
    - id: corp
      strategy: openid_connect
      name: corp
      label: Sign in with Corp
      issuer: ` + cfg.Issuer + `
      client_id: ` + cfg.ClientID + `
      client_secret: ${CORP_SECRET}
` + extra + `
production:
  <<: *default
`
}

// ssoLogin signs in through the provider from the sign-in page's button, as a browser would:
// Tally's start, the provider's authorize endpoint, Tally's callback. It returns Tally's
// answer to the callback.
func ssoLogin(t *testing.T, c *testkit.Client, provider string) *testkit.Response {
	t.Helper()
	start := c.Get("/auth/" + provider)
	if start.Status != http.StatusSeeOther {
		t.Fatalf("start: %d %s", start.Status, start.Body)
	}
	noFollow := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := noFollow.Get(start.Location())
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	back, err := url.Parse(resp.Header.Get("Location"))
	if err != nil || back.Path != "/auth/"+provider+"/callback" {
		t.Fatalf("the provider sent the browser to %q (%d)", resp.Header.Get("Location"), resp.StatusCode)
	}
	return c.Get(back.RequestURI())
}

func TestOIDCSignInCreatesTheUserAndSignsThemIn(t *testing.T) {
	t.Parallel()
	m := startMockOIDC(t)
	srv := apptest.StartServer(t, apptest.ServerOptions{Env: map[string]string{
		"AUTH_CONFIG_FILE": authFile(t, oidcYAML(m, "      scopes: openid email profile groups\n      group_mappings:\n        - {group: finance, role: admin}")),
		"CORP_SECRET":      m.Config().ClientSecret,
	}})
	testkit.MustCreateUser(t, srv.DB, testkit.UserOpts{}) // someone else owns the instance
	c := testkit.NewClient(t, srv.URL)

	page := c.Get("/sessions/new")
	if got := page.TestID(t, "sso-corp"); got != "Sign in with Corp" {
		t.Fatalf("sign-in page button %q", got)
	}
	m.QueueUser(&mockoidc.MockUser{Subject: "ada-123", Email: "Ada@Example.com", EmailVerified: true, Groups: []string{"finance"}})
	r := ssoLogin(t, c, "corp")
	if r.Status != http.StatusSeeOther || r.Location() != "/" {
		t.Fatalf("callback: %d %s %s", r.Status, r.Location(), r.Body)
	}
	if home := c.Get("/"); home.Status != http.StatusOK || !strings.Contains(home.TestID(t, "current-user"), "ada@example.com") {
		t.Fatalf("after sign-in the dashboard says %d %q", home.Status, home.TestID(t, "current-user"))
	}
	u, err := models.UserByEmail(context.Background(), srv.DB, "ada@example.com")
	if err != nil {
		t.Fatal(err)
	}
	var identity struct {
		Issuer string   `bun:"issuer"`
		Groups []string `bun:"groups,array"`
	}
	if err := srv.DB.NewRaw("SELECT issuer, groups FROM sso_identities WHERE user_id = ? AND provider = 'corp' AND subject = 'ada-123'", u.ID).
		Scan(context.Background(), &identity.Issuer, pgdialect.Array(&identity.Groups)); err != nil {
		t.Fatalf("identity: %v", err)
	}
	if identity.Issuer != m.Issuer() || strings.Join(identity.Groups, ",") != "finance" {
		t.Fatalf("identity issuer %q groups %v, want %q and finance", identity.Issuer, identity.Groups, m.Issuer())
	}
	events := strings.Join(testkitStrings(t, srv, "SELECT event_type FROM sso_audit_logs WHERE user_id = ? ORDER BY created_at, event_type", u.ID), ",")
	if events != "jit_account_created,login" {
		t.Fatalf("audit events %s", events)
	}

	// Signing out is audited too.
	if r := c.PostForm("/sign_out", nil); r.Status != http.StatusSeeOther {
		t.Fatalf("sign out: %d", r.Status)
	}
	if n := testkitStrings(t, srv, "SELECT event_type FROM sso_audit_logs WHERE user_id = ? AND event_type IN ('logout', 'logout_idp')", u.ID); len(n) != 1 {
		t.Fatalf("sign-out audit events %v", n)
	}
}

func TestOIDCCallbackOfAnotherBrowserIsRefused(t *testing.T) {
	t.Parallel()
	m := startMockOIDC(t)
	srv := apptest.StartServer(t, apptest.ServerOptions{Env: map[string]string{
		"AUTH_CONFIG_FILE": authFile(t, oidcYAML(m, "")), "CORP_SECRET": m.Config().ClientSecret}})
	testkit.MustCreateUser(t, srv.DB, testkit.UserOpts{})
	victim, attacker := testkit.NewClient(t, srv.URL), testkit.NewClient(t, srv.URL)
	start := attacker.Get("/auth/corp")
	noFollow := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	m.QueueUser(&mockoidc.MockUser{Subject: "mallory", Email: "mallory@example.com", EmailVerified: true})
	resp, err := noFollow.Get(start.Location())
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	back, _ := url.Parse(resp.Header.Get("Location"))
	// The attacker's callback URL, opened in the victim's browser, signs nobody in.
	r := victim.Get(back.RequestURI())
	if r.Status != http.StatusBadRequest || !r.Has(t, "sso-failed") {
		t.Fatalf("cross-browser callback: %d %s", r.Status, r.Body)
	}
	if victim.Get("/").Status != http.StatusSeeOther {
		t.Fatal("the victim's browser is signed in")
	}
	// And it cannot be replayed by the attacker either: the flow was used.
	if r := attacker.Get(back.RequestURI()); r.Status != http.StatusBadRequest {
		t.Fatalf("replayed callback: %d", r.Status)
	}
	if n := testkitStrings(t, srv, "SELECT metadata->>'reason' FROM sso_audit_logs WHERE event_type = 'login_failed'"); len(n) != 2 || n[0] != "invalid_state" {
		t.Fatalf("failures audited: %v", n)
	}
}

func testkitStrings(t *testing.T, srv *apptest.Server, q string, args ...any) []string {
	t.Helper()
	var out []string
	if err := srv.DB.NewRaw(q, args...).Scan(context.Background(), &out); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return out
}

func TestOAuth2SignInWithEitherClientAuthentication(t *testing.T) {
	t.Parallel()
	for _, method := range []string{"client_secret_post", "client_secret_basic"} {
		t.Run(method, func(t *testing.T) {
			t.Parallel()
			idp := ssotest.NewOAuth2Server(t)
			idp.AuthMethod = method
			idp.SetUser(map[string]any{"id": 4242, "email": "grace@example.com", "login": "grace", "teams": "finance, ops"})
			file := `default:
  providers:
    - id: forge
      strategy: oauth2
      name: forge
      label: Sign in with Forge
      authorization_url: ` + idp.AuthorizeURL() + `
      token_url: ` + idp.TokenURL() + `
      userinfo_url: ` + idp.UserinfoURL() + `
      client_id: ` + idp.ClientID + `
      client_secret: ` + idp.ClientSecret + `
      token_endpoint_auth_method: ` + method + `
      subject_claim: id
      groups_claim: teams
      trust_email: true
      group_mappings:
        - {group: ops, role: admin}
`
			srv := apptest.StartServer(t, apptest.ServerOptions{Env: map[string]string{"AUTH_CONFIG_FILE": authFile(t, file)}})
			testkit.MustCreateUser(t, srv.DB, testkit.UserOpts{})
			c := testkit.NewClient(t, srv.URL)
			start := c.Get("/auth/forge")
			back, err := url.Parse(idp.Follow(t, start.Location()))
			if err != nil {
				t.Fatal(err)
			}
			if r := c.Get(back.RequestURI()); r.Status != http.StatusSeeOther || r.Location() != "/" {
				t.Fatalf("callback: %d %s", r.Status, r.Body)
			}
			tokens := idp.Requests("/token")
			if len(tokens) != 1 || tokens[0].ClientAuth != method {
				t.Fatalf("token requests %+v, want one with %s", tokens, method)
			}
			got := testkitStrings(t, srv, "SELECT subject || ' ' || array_to_string(groups, ',') FROM sso_identities WHERE provider = 'forge'")
			if strings.Join(got, "") != "4242 finance,ops" {
				t.Fatalf("identity %v", got)
			}
		})
	}
}

// With AUTH_PROVIDERS_SOURCE=db, a provider saved in the database is on the sign-in page at
// the next request, its secret is stored encrypted, and disabling it takes it away.
func TestDatabaseProvidersApplyAtTheNextRequest(t *testing.T) {
	t.Parallel()
	m := startMockOIDC(t)
	srv := apptest.StartServer(t, apptest.ServerOptions{Env: map[string]string{"AUTH_PROVIDERS_SOURCE": "db"}})
	testkit.MustCreateUser(t, srv.DB, testkit.UserOpts{})
	c := testkit.NewClient(t, srv.URL)
	if c.Get("/sessions/new").Has(t, "sso-buttons") {
		t.Fatal("buttons before any provider exists")
	}
	keys, err := app.EncryptionKeys(srv.Config)
	if err != nil {
		t.Fatal(err)
	}
	reg := &sso.DBRegistry{DB: srv.DB, Keys: keys, Discovery: http.DefaultClient}
	// Saving checks the issuer's discovery document: a trailing slash is caught.
	bad := &sso.Provider{Strategy: sso.StrategyOIDC, Name: "typo", Label: "Typo", Enabled: true, DefaultRole: models.RoleMember,
		Issuer: m.Issuer() + "/", ClientID: "x", ClientSecret: "y", TokenAuthMethod: sso.AuthClientSecretPost}
	err = srv.DB.InTx(context.Background(), func(ctx context.Context, tx db.Tx) error { return reg.Save(ctx, tx, bad) })
	if e := apperr.As(err); e == nil || len(e.Fields["issuer"]) == 0 || !strings.Contains(e.Fields["issuer"][0], "Issuer mismatch") {
		t.Fatalf("saving an issuer with a trailing slash: %v", err)
	}
	p := &sso.Provider{Strategy: sso.StrategyOIDC, Name: "corp", Label: "Corp", Enabled: true, DefaultRole: models.RoleMember,
		Issuer: m.Issuer(), ClientID: m.Config().ClientID, ClientSecret: m.Config().ClientSecret, TokenAuthMethod: sso.AuthClientSecretPost}
	ctx := context.Background()
	if err := srv.DB.InTx(ctx, func(ctx context.Context, tx db.Tx) error { return reg.Save(ctx, tx, p) }); err != nil {
		t.Fatal(err)
	}
	if got := c.Get("/sessions/new").TestID(t, "sso-corp"); got != "Corp" {
		t.Fatalf("button %q after saving the provider", got)
	}
	stored := testkitStrings(t, srv, "SELECT client_secret FROM sso_providers WHERE name = 'corp'")
	if len(stored) != 1 || strings.Contains(stored[0], m.Config().ClientSecret) || !strings.HasPrefix(stored[0], "enc:v1:") {
		t.Fatalf("client secret stored as %q", stored)
	}
	m.QueueUser(&mockoidc.MockUser{Subject: "db-1", Email: "dee@example.com", EmailVerified: true})
	if r := ssoLogin(t, c, "corp"); r.Status != http.StatusSeeOther || r.Location() != "/" {
		t.Fatalf("sign-in through the database provider: %d %s", r.Status, r.Body)
	}
	if _, err := srv.DB.NewRaw("UPDATE sso_providers SET enabled = false").Exec(ctx); err != nil {
		t.Fatal(err)
	}
	other := testkit.NewClient(t, srv.URL)
	if other.Get("/sessions/new").Has(t, "sso-buttons") {
		t.Fatal("a disabled provider is still offered")
	}
	if r := other.Get("/auth/corp"); r.Status != http.StatusNotFound {
		t.Fatalf("starting a disabled provider: %d", r.Status)
	}
}

// samlYAML configures the in-process IdP as the SAML provider "okta", by hand.
func samlYAML(idp *ssotest.SAMLIdP, extra string) string {
	cert := strings.ReplaceAll(strings.TrimSpace(idp.CertificatePEM), "\n", "\n        ")
	return `default:
  providers:
    - id: okta
      strategy: saml
      name: okta
      label: Sign in with Okta
      idp_sso_url: ` + idp.SSOURL + `
      idp_entity_id: ` + idp.EntityID + `
      trust_email: true
      idp_certificate: |
        ` + cert + "\n" + extra
}

func TestSAMLSignIn(t *testing.T) {
	t.Parallel()
	for _, signed := range []bool{false, true} {
		t.Run(map[bool]string{false: "unsigned requests", true: "signed requests"}[signed], func(t *testing.T) {
			t.Parallel()
			idp := ssotest.NewSAMLIdP(t)
			idp.AddUser("grace", "grace@example.com", "hopper", "engineering", "tally-admins")
			extra := "      group_mappings:\n        - {group: tally-admins, role: admin}\n"
			if signed {
				key, cert, err := sso.GenerateSPKey("tally")
				if err != nil {
					t.Fatal(err)
				}
				indent := func(s string) string { return strings.ReplaceAll(strings.TrimSpace(s), "\n", "\n        ") }
				extra += "      sign_requests: true\n      sp_private_key: |\n        " + indent(key) + "\n      sp_certificate: |\n        " + indent(cert) + "\n"
			}
			srv := apptest.StartServer(t, apptest.ServerOptions{Env: map[string]string{"AUTH_CONFIG_FILE": authFile(t, samlYAML(idp, extra))}})
			testkit.MustCreateUser(t, srv.DB, testkit.UserOpts{})
			c := testkit.NewClient(t, srv.URL)
			// The IdP learns Tally from its metadata, as an administrator would set it up.
			idp.RegisterSPFromURL(t, http.DefaultClient, srv.URL+"/auth/saml/okta/metadata")
			if got := c.Get("/auth/saml/okta"); got.Body != srv.URL+"/auth/saml/okta" {
				t.Fatalf("entity id %q", got.Body)
			}

			start := c.Get("/auth/okta")
			post, err := idp.Login(start.Location(), "grace", "hopper")
			if err != nil {
				t.Fatal(err)
			}
			if post.ACSURL != srv.URL+"/auth/saml/okta/callback" {
				t.Fatalf("the IdP posts to %s", post.ACSURL)
			}
			if reqs := idp.Requests(); len(reqs) != 1 || reqs[0].Signed != signed {
				t.Fatalf("AuthnRequests %+v, signed %v", reqs, signed)
			}
			// The IdP's page posts cross-site: the browser sends no session cookie.
			acs, err := http.PostForm(post.ACSURL, post.Form())
			if err != nil {
				t.Fatal(err)
			}
			acs.Body.Close()
			finish := acs.Request.URL // http.PostForm followed the 303 without the session
			if acs.StatusCode != http.StatusBadRequest || !strings.HasPrefix(finish.Path, "/auth/saml/okta/finish") {
				t.Fatalf("ACS → %s %d: the finish must refuse a request without the flow's session", finish, acs.StatusCode)
			}
			// So start again, and let the browser follow the ACS's redirect with its session.
			start = c.Get("/auth/okta")
			if post, err = idp.Login(start.Location(), "grace", "hopper"); err != nil {
				t.Fatal(err)
			}
			noFollow := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
			acs, err = noFollow.PostForm(post.ACSURL, post.Form())
			if err != nil {
				t.Fatal(err)
			}
			acs.Body.Close()
			if acs.StatusCode != http.StatusSeeOther {
				t.Fatalf("ACS: %d", acs.StatusCode)
			}
			done := c.Get(acs.Header.Get("Location"))
			if done.Status != http.StatusSeeOther || done.Location() != "/" {
				t.Fatalf("finish: %d %s", done.Status, done.Body)
			}
			u, err := models.UserByEmail(context.Background(), srv.DB, "grace@example.com")
			if err != nil || u.Role != models.RoleAdmin {
				t.Fatalf("user %+v %v", u, err)
			}
			// The same response again is a replay.
			replay, err := noFollow.PostForm(post.ACSURL, post.Form())
			if err != nil {
				t.Fatal(err)
			}
			replay.Body.Close()
			if replay.StatusCode != http.StatusBadRequest {
				t.Fatalf("replayed response: %d", replay.StatusCode)
			}
		})
	}
}

// opYAML configures the in-process OIDC provider as "corp".
func opYAML(op *ssotest.OIDCProvider) string {
	return `default:
  providers:
    - id: corp
      strategy: openid_connect
      name: corp
      label: Corp
      issuer: ` + op.URL + `
      client_id: ` + op.ClientID + `
      client_secret: ` + op.ClientSecret + `
`
}

// opLogin signs in through the in-process OIDC provider and returns Tally's answer to the
// callback.
func opLogin(t *testing.T, c *testkit.Client, op *ssotest.OIDCProvider) *testkit.Response {
	t.Helper()
	start := c.Get("/auth/corp")
	back, err := url.Parse(op.Follow(t, start.Location()))
	if err != nil {
		t.Fatal(err)
	}
	return c.Get(back.RequestURI())
}

func TestSSOLinksAnExistingUserAfterTheirPassword(t *testing.T) {
	t.Parallel()
	op := ssotest.NewOIDCProvider(t)
	srv := apptest.StartServer(t, apptest.ServerOptions{Env: map[string]string{"AUTH_CONFIG_FILE": authFile(t, opYAML(op))}})
	u := testkit.MustCreateUser(t, srv.DB, testkit.UserOpts{Email: "bob@example.com"})
	op.SetUser(map[string]any{"sub": "bob-at-corp", "email": "bob@example.com", "email_verified": true})
	c := testkit.NewClient(t, srv.URL)
	if r := opLogin(t, c, op); r.Status != http.StatusSeeOther || r.Location() != "/sso/link" {
		t.Fatalf("first SSO sign-in of an existing email: %d %s", r.Status, r.Location())
	}
	page := c.Get("/sso/link")
	if !strings.Contains(page.TestID(t, "sso-link-intro"), "bob@example.com") {
		t.Fatalf("link page: %s", page.Body)
	}
	if r := c.PostForm("/sso/link", url.Values{"password": {"not it"}}); r.Status != http.StatusUnprocessableEntity || !strings.Contains(r.TestID(t, "form-error"), "Invalid email or password") {
		t.Fatalf("wrong password: %d", r.Status)
	}
	if r := c.PostForm("/sso/link", url.Values{"password": {testkit.Password}}); r.Status != http.StatusSeeOther || r.Location() != "/" {
		t.Fatalf("right password: %d %s", r.Status, r.Body)
	}
	if got := testkitStrings(t, srv, "SELECT user_id::text FROM sso_identities WHERE subject = 'bob-at-corp'"); len(got) != 1 || got[0] != u.ID.String() {
		t.Fatalf("identity linked to %v", got)
	}
	// From now on the provider signs Bob in directly.
	other := testkit.NewClient(t, srv.URL)
	if r := opLogin(t, other, op); r.Status != http.StatusSeeOther || r.Location() != "/" {
		t.Fatalf("later sign-in: %d %s", r.Status, r.Location())
	}
}

func TestSSORefusalShowsWhyAndSignsNobodyIn(t *testing.T) {
	t.Parallel()
	op := ssotest.NewOIDCProvider(t)
	srv := apptest.StartServer(t, apptest.ServerOptions{Env: map[string]string{
		"AUTH_CONFIG_FILE": authFile(t, opYAML(op)), "AUTH_JIT_MODE": "link_only"}})
	testkit.MustCreateUser(t, srv.DB, testkit.UserOpts{})
	op.SetUser(map[string]any{"sub": "new-1", "email": "new@example.com", "email_verified": true})
	c := testkit.NewClient(t, srv.URL)
	r := opLogin(t, c, op)
	if r.Status != http.StatusForbidden || !strings.Contains(r.TestID(t, "sso-failed"), "Ask your administrator to create your account") {
		t.Fatalf("link_only refusal: %d %s", r.Status, r.Body)
	}
	if c.Get("/").Status != http.StatusSeeOther {
		t.Fatal("a refused sign-in has a session")
	}
	if got := testkitStrings(t, srv, "SELECT metadata->>'reason' FROM sso_audit_logs WHERE event_type = 'login_failed'"); strings.Join(got, ",") != "link_only" {
		t.Fatalf("audited %v", got)
	}
}

func TestSignOutEndsTheProvidersSessionToo(t *testing.T) {
	t.Parallel()
	op := ssotest.NewOIDCProvider(t)
	srv := apptest.StartServer(t, apptest.ServerOptions{Env: map[string]string{"AUTH_CONFIG_FILE": authFile(t, opYAML(op))}})
	testkit.MustCreateUser(t, srv.DB, testkit.UserOpts{})
	op.SetUser(map[string]any{"sub": "ada-1", "email": "ada@example.com", "email_verified": true})
	c := testkit.NewClient(t, srv.URL)
	if r := opLogin(t, c, op); r.Status != http.StatusSeeOther {
		t.Fatalf("sign-in: %d", r.Status)
	}
	c.Get("/")
	r := c.PostForm("/sign_out", nil)
	end, err := url.Parse(r.Location())
	if err != nil || r.Status != http.StatusSeeOther || !strings.HasPrefix(r.Location(), op.URL) || end.Query().Get("id_token_hint") == "" ||
		end.Query().Get("post_logout_redirect_uri") != srv.URL+"/sessions/new" {
		t.Fatalf("sign out: %d %s", r.Status, r.Location())
	}
	if got := testkitStrings(t, srv, "SELECT event_type FROM sso_audit_logs WHERE event_type LIKE 'logout%'"); strings.Join(got, ",") != "logout_idp" {
		t.Fatalf("audited %v", got)
	}
	if c.Get("/").Status != http.StatusSeeOther {
		t.Fatal("still signed in at Tally")
	}
}

// Every tampered answer is refused through the router, signs nobody in, and is audited.
func TestTamperedOIDCAnswersAreRefusedAndAudited(t *testing.T) {
	t.Parallel()
	op := ssotest.NewOIDCProvider(t)
	srv := apptest.StartServer(t, apptest.ServerOptions{Env: map[string]string{"AUTH_CONFIG_FILE": authFile(t, opYAML(op))}})
	testkit.MustCreateUser(t, srv.DB, testkit.UserOpts{})
	op.SetUser(map[string]any{"sub": "eve", "email": "eve@example.com", "email_verified": true})
	cases := map[string]ssotest.OIDCTamper{
		"wrong issuer": {Issuer: "https://evil.example"}, "wrong audience": {Audience: "someone-else"},
		"bad nonce": {Nonce: "not-this-one"}, "expired": {Expired: true}, "alg none": {AlgNone: true},
		"foreign key": {OtherKey: true}, "no id token": {OmitIDToken: true},
	}
	for name, tamper := range cases {
		op.Tamper = tamper
		c := testkit.NewClient(t, srv.URL)
		r := opLogin(t, c, op)
		if r.Status != http.StatusBadRequest || !r.Has(t, "sso-failed") {
			t.Errorf("%s: %d", name, r.Status)
		}
		if c.Get("/").Status != http.StatusSeeOther {
			t.Errorf("%s: signed in", name)
		}
	}
	got := testkitStrings(t, srv, "SELECT metadata->>'reason' FROM sso_audit_logs WHERE event_type = 'login_failed' AND provider = 'corp'")
	if len(got) != len(cases) || strings.Count(strings.Join(got, ","), "invalid_response") != len(cases) {
		t.Fatalf("audited failures %v", got)
	}
	if n := testkitStrings(t, srv, "SELECT email FROM users WHERE email = 'eve@example.com'"); len(n) != 0 {
		t.Fatal("a tampered answer created the user")
	}
}

// ssotestProvider starts an in-process OIDC provider.
func ssotestProvider(t *testing.T) *ssotest.OIDCProvider { return ssotest.NewOIDCProvider(t) }

// TestAProviderSignInAsksForTheSecondFactor is a user with an authenticator app signing in
// through a connected provider, as a thief who planted their own identity would: the provider
// alone does not sign them in; Tally's code does.
func TestAProviderSignInAsksForTheSecondFactor(t *testing.T) {
	t.Parallel()
	op := ssotest.NewOIDCProvider(t)
	srv := apptest.StartServer(t, apptest.ServerOptions{Env: map[string]string{"AUTH_CONFIG_FILE": authFile(t, opYAML(op))}})
	u := testkit.MustCreateUser(t, srv.DB, testkit.UserOpts{Email: "bob@example.com"})
	secret := apptest.MustEnrolTOTP(t, srv, u)
	mustAddIdentity(t, srv, u.ID, "corp", "planted", "mallory@example.com", nil)
	op.SetUser(map[string]any{"sub": "planted", "email": "mallory@example.com", "email_verified": true})
	c := testkit.NewClient(t, srv.URL)
	if r := opLogin(t, c, op); r.Status != http.StatusSeeOther || r.Location() != "/sessions/mfa" {
		t.Fatalf("a provider sign-in of a user with a second factor: %d to %q, want the code", r.Status, r.Location())
	}
	if r := c.Get("/settings/security"); r.Status != http.StatusSeeOther {
		t.Fatalf("signed in before the code: %d", r.Status)
	}
	c.Get("/sessions/mfa")
	code, _ := totp.GenerateCode(secret, time.Now())
	if r := c.PostForm("/sessions/mfa", url.Values{"code": {code}}); r.Status != http.StatusSeeOther {
		t.Fatalf("the code: %d %s", r.Status, r.Body)
	}
	if r := c.Get("/settings/security"); r.Status != http.StatusOK {
		t.Fatalf("after the code: %d", r.Status)
	}
}

// TestAProviderSecondFactorCanStandForTallys is the per-provider setting "its sign-in counts
// as the second factor", for a user with an authenticator app, through real OIDC and SAML
// peers. Off (the default), Tally asks for its code whatever the provider says; on, it asks
// unless the provider says it checked a second factor: an amr or acr (OIDC) or an
// AuthnContextClassRef (SAML) among the provider's values. A sign-in that counted stands for
// a fresh code: the second factors' pages ask for none for 10 minutes.
func TestAProviderSecondFactorCanStandForTallys(t *testing.T) {
	t.Parallel()
	t.Run("OpenID Connect", func(t *testing.T) {
		t.Parallel()
		for _, tc := range []struct {
			name   string
			yaml   string
			claims map[string]any
			want   string
		}{
			{"off, with mfa in amr", "", map[string]any{"amr": []string{"pwd", "mfa"}}, "/sessions/mfa"},
			{"on, with mfa in amr", "      trust_second_factor: true\n", map[string]any{"amr": []string{"pwd", "mfa"}}, "/"},
			{"on, a password only", "      trust_second_factor: true\n", map[string]any{"amr": []string{"pwd"}}, "/sessions/mfa"},
			{"on, nothing said", "      trust_second_factor: true\n", nil, "/sessions/mfa"},
			{"on, the provider's own acr", "      trust_second_factor: true\n      second_factor_values: [gold]\n", map[string]any{"acr": "gold"}, "/"},
			{"on, a default amr past the provider's own list", "      trust_second_factor: true\n      second_factor_values: [gold]\n", map[string]any{"amr": []string{"mfa"}}, "/sessions/mfa"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				t.Parallel()
				op := ssotest.NewOIDCProvider(t)
				srv := apptest.StartServer(t, apptest.ServerOptions{Env: map[string]string{"AUTH_CONFIG_FILE": authFile(t, opYAML(op)+tc.yaml)}})
				u := testkit.MustCreateUser(t, srv.DB, testkit.UserOpts{Email: "bob@example.com"})
				apptest.MustEnrolTOTP(t, srv, u)
				mustAddIdentity(t, srv, u.ID, "corp", "bob-at-corp", u.Email, nil)
				claims := map[string]any{"sub": "bob-at-corp", "email": u.Email, "email_verified": true}
				maps.Copy(claims, tc.claims)
				op.SetUser(claims)
				c := apptest.NewClient(t, srv)
				r := opLogin(t, c, op)
				if r.Status != http.StatusSeeOther || r.Location() != tc.want {
					t.Fatalf("provider sign-in: %d → %q, want %q", r.Status, r.Location(), tc.want)
				}
				if tc.want != "/" {
					return
				}
				c.Get("/settings/security")
				if r := c.PostForm("/settings/mfa/recovery_codes", nil); r.Status != http.StatusOK || r.Has(t, "step-up-form") || !r.Has(t, "recovery-codes") {
					t.Errorf("new recovery codes right after the provider's second factor: %d, step-up %v", r.Status, r.Has(t, "step-up-form"))
				}
				var data string
				if err := srv.DB.NewRaw("SELECT metadata::text FROM sso_audit_logs WHERE event_type = 'login' AND user_id = ?", u.ID).Scan(t.Context(), &data); err != nil ||
					!strings.Contains(data, `"second_factor": "provider"`) {
					t.Errorf("the sign-in's audit entry %s (%v) does not say why no code was asked", data, err)
				}
			})
		}
	})
	t.Run("SAML", func(t *testing.T) {
		t.Parallel()
		for _, tc := range []struct {
			name  string
			yaml  string
			class string // the assertion's AuthnContextClassRef; "" leaves crewjam's PasswordProtectedTransport
			want  string
		}{
			{"off, with a two-factor class", "", "urn:oasis:names:tc:SAML:2.0:ac:classes:MobileTwoFactorContract", "/sessions/mfa"},
			{"on, with a two-factor class", "      trust_second_factor: true\n", "urn:oasis:names:tc:SAML:2.0:ac:classes:MobileTwoFactorContract", "/"},
			{"on, with the password class", "      trust_second_factor: true\n", "", "/sessions/mfa"},
			{"on, the provider's own class", "      trust_second_factor: true\n      second_factor_values: https://idp.example/acr/strong\n", "https://idp.example/acr/strong", "/"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				t.Parallel()
				idp := ssotest.NewSAMLIdP(t)
				idp.AddUser("grace", "grace@example.com", "hopper")
				if tc.class != "" {
					idp.EditAssertions(func(a *saml.Assertion) {
						for i := range a.AuthnStatements {
							a.AuthnStatements[i].AuthnContext.AuthnContextClassRef = &saml.AuthnContextClassRef{Value: tc.class}
						}
					})
				}
				srv := apptest.StartServer(t, apptest.ServerOptions{Env: map[string]string{"AUTH_CONFIG_FILE": authFile(t, samlYAML(idp, tc.yaml))}})
				u := testkit.MustCreateUser(t, srv.DB, testkit.UserOpts{Email: "grace@example.com"})
				apptest.MustEnrolTOTP(t, srv, u)
				mustAddIdentity(t, srv, u.ID, "okta", "grace@example.com", u.Email, nil)
				idp.RegisterSPFromURL(t, http.DefaultClient, srv.URL+"/auth/saml/okta/metadata")
				c := apptest.NewClient(t, srv)
				post, err := idp.Login(c.Get("/auth/okta").Location(), "grace", "hopper")
				if err != nil {
					t.Fatal(err)
				}
				noFollow := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
				acs, err := noFollow.PostForm(post.ACSURL, post.Form())
				if err != nil {
					t.Fatal(err)
				}
				acs.Body.Close()
				if r := c.Get(acs.Header.Get("Location")); r.Status != http.StatusSeeOther || r.Location() != tc.want {
					t.Fatalf("provider sign-in: %d → %q, want %q", r.Status, r.Location(), tc.want)
				}
			})
		}
	})
}

// TestSSOLinkIsUnderThePasswordLimit is someone at a provider with the email of a Tally user
// guessing the user's password on the page that connects the two: each wrong password is in
// the audit log as a refused sign-in, and they count against the account's limit, which then
// refuses even the right password, there and at the sign-in form alike.
func TestSSOLinkIsUnderThePasswordLimit(t *testing.T) {
	t.Parallel()
	op := ssotest.NewOIDCProvider(t)
	srv := apptest.StartServer(t, apptest.ServerOptions{Env: map[string]string{"AUTH_CONFIG_FILE": authFile(t, opYAML(op)), "TRUSTED_PROXIES": "127.0.0.1/32"}})
	u := testkit.MustCreateUser(t, srv.DB, testkit.UserOpts{Email: "bob@example.com"})
	op.SetUser(map[string]any{"sub": "mallory", "email": "bob@example.com", "email_verified": true})
	c := testkit.NewClient(t, srv.URL)
	if r := opLogin(t, c, op); r.Status != http.StatusSeeOther || r.Location() != "/sso/link" {
		t.Fatalf("provider sign-in: %d %q", r.Status, r.Location())
	}
	c.Get("/sso/link")
	// link posts the password from an address of its own each time, so that the limit per
	// address stays out of the way of the one per account.
	addrs := 0
	link := func(password string) *testkit.Response {
		addrs++
		c.Headers = map[string]string{"X-Forwarded-For": fmt.Sprintf("203.0.113.%d", addrs)}
		return c.PostForm("/sso/link", url.Values{"password": {password}})
	}
	for i := range 10 {
		if r := link(fmt.Sprintf("guess %d", i)); r.Status != http.StatusUnprocessableEntity {
			t.Fatalf("guess %d: %d", i+1, r.Status)
		}
	}
	r := link(testkit.Password)
	if r.Status != http.StatusTooManyRequests || !strings.Contains(r.TestID(t, "form-error"), "Too many wrong passwords for this account") {
		t.Fatalf("the right password after ten wrong ones: %d %q", r.Status, r.TestID(t, "form-error"))
	}
	if got := testkitStrings(t, srv, "SELECT user_id::text FROM sso_identities WHERE subject = 'mallory'"); len(got) != 0 {
		t.Fatal("the identity was linked past the limit")
	}
	form := apptest.NewClient(t, srv)
	form.Headers = map[string]string{"X-Forwarded-For": "198.51.100.1"}
	if r := form.PostForm("/sessions", url.Values{"email": {u.Email}, "password": {testkit.Password}}); r.Status != http.StatusTooManyRequests {
		t.Fatalf("the sign-in form after ten wrong passwords at /sso/link: %d, want 429", r.Status)
	}
	reasons := testkitStrings(t, srv, `SELECT metadata->>'reason' FROM sso_audit_logs WHERE event_type = 'login_failed' AND user_id = ?
		AND provider = 'corp' AND metadata->>'method' = 'password' AND metadata->>'purpose' = 'link' ORDER BY created_at, id`, u.ID)
	if len(reasons) != 11 || reasons[0] != "invalid_credentials" || reasons[10] != "too_many_failures" {
		t.Fatalf("audited refusals at /sso/link: %v", reasons)
	}
}
