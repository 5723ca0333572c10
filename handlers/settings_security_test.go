package handlers_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/google/uuid"
	"github.com/oauth2-proxy/mockoidc"
	"github.com/pquerna/otp/totp"

	"tally/app/apptest"
	"tally/models"
	"tally/testkit"
)

// securityServer starts Tally with three providers: corp, an OpenID Connect provider running
// in the test; forge, an OAuth2 provider nobody signs in with here; and retired, which is
// disabled. env is added to the server's environment.
func securityServer(t *testing.T, env map[string]string) (*apptest.Server, *mockoidc.MockOIDC) {
	t.Helper()
	m := startMockOIDC(t)
	cfg := m.Config()
	oauth2 := func(name string, enabled bool) string {
		return `    - id: ` + name + `
      strategy: oauth2
      name: ` + name + `
      label: Sign in with ` + strings.ToUpper(name[:1]) + name[1:] + `
      enabled: ` + map[bool]string{true: "true", false: "false"}[enabled] + `
      authorization_url: https://` + name + `.example.com/oauth/authorize
      token_url: https://` + name + `.example.com/oauth/token
      userinfo_url: https://` + name + `.example.com/api/user
      client_id: tally
      client_secret: ` + name + `-secret
`
	}
	yaml := `default: &default
  providers:
    - id: corp
      strategy: openid_connect
      name: corp
      label: Sign in with Corp
      issuer: ` + cfg.Issuer + `
      client_id: ` + cfg.ClientID + `
      client_secret: ` + cfg.ClientSecret + `
` + oauth2("forge", true) + oauth2("retired", false) + `
production:
  <<: *default
`
	all := map[string]string{"AUTH_CONFIG_FILE": authFile(t, yaml)}
	for k, v := range env {
		all[k] = v
	}
	return apptest.StartServer(t, apptest.ServerOptions{Env: all}), m
}

// mustCreateSSOOnlyUser creates a user without a password, in a family of their own.
func mustCreateSSOOnlyUser(t *testing.T, srv *apptest.Server) *models.User {
	t.Helper()
	ctx := context.Background()
	email := "sso-" + uuid.NewString()[:8] + "@example.com"
	f, err := models.CreateFamily(ctx, srv.DB, "Family of "+email, "USD", "", "UTC")
	if err != nil {
		t.Fatal(err)
	}
	u, err := models.CreateUser(ctx, srv.DB, models.NewUser{FamilyID: f.ID, Email: email, FamilyCreator: true, Role: models.RoleAdmin})
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// mustAddIdentity connects the user to provider as subject, and returns the identity's id.
func mustAddIdentity(t *testing.T, srv *apptest.Server, userID uuid.UUID, provider, subject, email string, lastUsed *time.Time) uuid.UUID {
	t.Helper()
	id := uuid.New()
	if _, err := srv.DB.NewRaw(`INSERT INTO sso_identities (id, user_id, provider, subject, email, last_used_at) VALUES (?, ?, ?, ?, ?, ?)`,
		id, userID, provider, subject, email, lastUsed).Exec(context.Background()); err != nil {
		t.Fatalf("add %s identity: %v", provider, err)
	}
	return id
}

// ssoSignInAs signs c in through corp as the identity with subject.
func ssoSignInAs(t *testing.T, c *testkit.Client, m *mockoidc.MockOIDC, subject string) {
	t.Helper()
	m.QueueUser(&mockoidc.MockUser{Subject: subject, Email: subject + "@corp.example", EmailVerified: true})
	if r := ssoLogin(t, c, "corp"); r.Status != http.StatusSeeOther || r.Location() != "/" {
		t.Fatalf("sign in through corp as %s: %d %s %s", subject, r.Status, r.Location(), r.Body)
	}
}

func identityExists(t *testing.T, srv *apptest.Server, id uuid.UUID) bool {
	t.Helper()
	n, err := srv.DB.NewSelect().Table("sso_identities").Where("id = ?", id).Count(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return n == 1
}

func TestSecurityPageListsConnectedAccounts(t *testing.T) {
	t.Parallel()
	srv, _ := securityServer(t, nil)
	u := testkit.MustCreateUser(t, srv.DB, testkit.UserOpts{})
	used := time.Date(2026, 1, 5, 9, 30, 0, 0, time.UTC)
	mustAddIdentity(t, srv, u.ID, "corp", "ada-1", "ada@corp.example", &used)
	mustAddIdentity(t, srv, u.ID, "gone", "ada-2", "", nil) // its provider was removed since
	c := testkit.NewClient(t, srv.URL)
	c.SignIn(u.Email, testkit.Password)

	r := c.Get("/settings/security")
	if r.Status != http.StatusOK {
		t.Fatalf("GET /settings/security: %d %s", r.Status, r.Body)
	}
	doc := r.Doc(t)
	if got := doc.Find(`[data-testid="nav-security"][aria-current="page"]`).Length(); got != 1 {
		t.Error("Security is not highlighted in the navigation")
	}
	var rows []string
	doc.Find(`[data-testid="identity-row"]`).Each(func(_ int, row *goquery.Selection) {
		cell := func(id string) string { return strings.TrimSpace(row.Find(`[data-testid="` + id + `"]`).Text()) }
		rows = append(rows, cell("identity-provider")+" | "+cell("identity-email")+" | "+cell("identity-last-used"))
	})
	want := []string{"Corp | ada@corp.example | 2026-01-05", "gone | No email | Never"}
	if strings.Join(rows, "\n") != strings.Join(want, "\n") {
		t.Errorf("connected accounts:\n%s\nwant:\n%s", strings.Join(rows, "\n"), strings.Join(want, "\n"))
	}
	if n := doc.Find(`[data-testid="disconnect-identity"]`).Length(); n != 2 {
		t.Errorf("%d disconnect buttons, want 2: the password is another way in", n)
	}
	if action, _ := doc.Find(`[data-testid="connect-forge"]`).Closest("form").Attr("action"); action != "/auth/forge/link" {
		t.Errorf("connect forge posts to %q", action)
	}
	for _, name := range []string{"corp", "retired"} {
		if r.Has(t, "connect-"+name) {
			t.Errorf("%s is offered for connecting, but it is connected or disabled", name)
		}
	}
}

func TestSecurityPageStates(t *testing.T) {
	t.Parallel()
	srv, m := securityServer(t, nil)
	for _, tc := range []struct {
		name    string
		setup   func(t *testing.T, c *testkit.Client)
		present []string
		absent  []string
		// text has words each element must show.
		text map[string]string
	}{
		{
			name: "no identities: the empty state says what to do",
			setup: func(t *testing.T, c *testkit.Client) {
				c.SignIn(testkit.MustCreateUser(t, srv.DB, testkit.UserOpts{}).Email, testkit.Password)
			},
			present: []string{"connect-corp", "connect-forge", "sessions-only-this"},
			absent:  []string{"identities-table", "connect-retired", "sign-out-others", "apps-table"},
			text: map[string]string{
				"identities-empty": "No single sign-on accounts connected. Connect one below, then sign in with it next time.",
				"apps-empty": "No applications have access to your account. " +
					"When you allow an application to use Tally, it is listed here, and you can take its access back.",
			},
		},
		{
			name: "an SSO-only user's last identity cannot be disconnected, and the page says why",
			setup: func(t *testing.T, c *testkit.Client) {
				u := mustCreateSSOOnlyUser(t, srv)
				mustAddIdentity(t, srv, u.ID, "corp", "only-"+u.ID.String(), u.Email, nil)
				ssoSignInAs(t, c, m, "only-"+u.ID.String())
			},
			present: []string{"identity-refusal", "connect-forge"},
			absent:  []string{"disconnect-identity"},
			text: map[string]string{"identity-refusal": "This is your only way to sign in, so it can't be disconnected. " +
				"Connect another provider first, so that you are not locked out of your account."},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := testkit.NewClient(t, srv.URL)
			tc.setup(t, c)
			r := c.Get("/settings/security")
			if r.Status != http.StatusOK {
				t.Fatalf("GET: %d %s", r.Status, r.Body)
			}
			for _, id := range tc.present {
				if !r.Has(t, id) {
					t.Errorf("%s is missing", id)
				}
			}
			for _, id := range tc.absent {
				if r.Has(t, id) {
					t.Errorf("%s is shown", id)
				}
			}
			for id, want := range tc.text {
				// Paragraphs are read one at a time, so that their sentences stay apart.
				el := r.Doc(t).Find(`[data-testid="` + id + `"]`)
				if el.Find("p").Length() > 0 {
					el = el.Find("p")
				}
				got := normalizeSpace(strings.Join(el.Map(func(_ int, s *goquery.Selection) string { return s.Text() }), " "))
				if got != want {
					t.Errorf("%s says %q, want %q", id, got, want)
				}
			}
		})
	}
}

func TestSecurityDisconnect(t *testing.T) {
	t.Parallel()
	localOff := map[string]string{"AUTH_LOCAL_LOGIN_ENABLED": "false"}
	override := map[string]string{"AUTH_LOCAL_LOGIN_ENABLED": "false", "AUTH_LOCAL_ADMIN_OVERRIDE_ENABLED": "true"}
	for _, tc := range []struct {
		name     string
		env      map[string]string
		role     models.Role
		password bool
		// identities are the user's providers; the first is corp, which the user signs in
		// with when not with a password, and the one disconnected.
		identities []string
		// foreign disconnects another user's corp identity instead.
		foreign    bool
		wantStatus int
		// wantMessage is the flash after a redirect, or the refusal on the page.
		wantMessage string
	}{
		{
			name: "a password is another way in", password: true, identities: []string{"corp"},
			wantStatus: http.StatusSeeOther, wantMessage: "Your Corp account has been disconnected.",
		},
		{
			name: "another identity is another way in", identities: []string{"corp", "forge"},
			wantStatus: http.StatusSeeOther, wantMessage: "Your Corp account has been disconnected.",
		},
		{
			name: "the last way in of an SSO-only user stays", identities: []string{"corp"},
			wantStatus: http.StatusConflict,
			wantMessage: "This is your only way to sign in, so it can't be disconnected. " +
				"Connect another provider first, so that you are not locked out of your account.",
		},
		{
			name: "an identity at a disabled provider is no way in", identities: []string{"corp", "retired"},
			wantStatus: http.StatusConflict,
			wantMessage: "This is your only way to sign in that works now: the providers of your other connected accounts are not available, so it can't be disconnected. " +
				"Connect another provider first, so that you are not locked out of your account.",
		},
		{
			name: "with local login off, a member's password is no way in", env: localOff, role: models.RoleMember, password: true, identities: []string{"corp"},
			wantStatus: http.StatusConflict,
			wantMessage: "This is your only way to sign in: password sign-in is turned off on this Tally, so your password can't be used instead. " +
				"Connect another provider first, so that you are not locked out of your account.",
		},
		{
			name: "with the admin override, a member's password is no way in", env: override, role: models.RoleAdmin, password: true, identities: []string{"corp"},
			wantStatus: http.StatusConflict,
			wantMessage: "This is your only way to sign in: on this Tally only super admins may sign in with a password, so yours can't be used instead. " +
				"Connect another provider first, so that you are not locked out of your account.",
		},
		{
			name: "with the admin override, a super admin's password is a way in", env: override, role: models.RoleSuperAdmin, password: true, identities: []string{"corp"},
			wantStatus: http.StatusSeeOther, wantMessage: "Your Corp account has been disconnected.",
		},
		{
			name: "another user's identity is not found", password: true, identities: []string{"corp"}, foreign: true,
			wantStatus: http.StatusNotFound,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv, m := securityServer(t, tc.env)
			var u *models.User
			if tc.password {
				u = testkit.MustCreateUser(t, srv.DB, testkit.UserOpts{Role: tc.role})
			} else {
				u = mustCreateSSOOnlyUser(t, srv)
			}
			var target uuid.UUID
			for i, provider := range tc.identities {
				id := mustAddIdentity(t, srv, u.ID, provider, provider+"-"+u.ID.String(), u.Email, nil)
				if i == 0 {
					target = id
				}
			}
			if tc.foreign {
				other := testkit.MustCreateUser(t, srv.DB, testkit.UserOpts{})
				target = mustAddIdentity(t, srv, other.ID, "corp", "other-"+other.ID.String(), other.Email, nil)
			}
			c := testkit.NewClient(t, srv.URL)
			if tc.password && (tc.env == nil || tc.role == models.RoleSuperAdmin) {
				c.SignIn(u.Email, testkit.Password)
			} else {
				ssoSignInAs(t, c, m, "corp-"+u.ID.String())
			}
			c.Get("/settings/security")

			r := c.PostForm("/settings/security/identities/"+target.String()+"/disconnect", nil)
			if r.Status != tc.wantStatus {
				t.Fatalf("disconnect: %d, want %d\n%s", r.Status, tc.wantStatus, r.Body)
			}
			unlinks := testkitStrings(t, srv, "SELECT provider FROM sso_audit_logs WHERE event_type = 'unlink'")
			switch tc.wantStatus {
			case http.StatusSeeOther:
				if r.Location() != "/settings/security" {
					t.Errorf("redirected to %s", r.Location())
				}
				if identityExists(t, srv, target) {
					t.Error("the identity is still there")
				}
				if got := strings.Join(testkitStrings(t, srv, "SELECT provider FROM sso_audit_logs WHERE event_type = 'unlink' AND user_id = ?", u.ID), ","); got != "corp" {
					t.Errorf("unlink events for the user: %q, want corp", got)
				}
				page := c.Get("/settings/security")
				if got := page.TestID(t, "flash-success"); got != tc.wantMessage {
					t.Errorf("flash %q, want %q", got, tc.wantMessage)
				}
				if n := page.Doc(t).Find(`[data-testid="identity-row"]`).Length(); n != len(tc.identities)-1 {
					t.Errorf("%d connected accounts listed after the disconnect, want %d", n, len(tc.identities)-1)
				}
			default:
				if !identityExists(t, srv, target) {
					t.Error("the identity was deleted")
				}
				if len(unlinks) != 0 {
					t.Errorf("unlink events %v after a refusal", unlinks)
				}
				if tc.wantMessage != "" {
					if got := normalizeSpace(r.TestID(t, "security-error")); got != tc.wantMessage {
						t.Errorf("refusal %q, want %q", got, tc.wantMessage)
					}
				}
			}
		})
	}
}

func TestSecurityDisconnectNeedsTheFormsToken(t *testing.T) {
	t.Parallel()
	srv, _ := securityServer(t, nil)
	u := testkit.MustCreateUser(t, srv.DB, testkit.UserOpts{})
	id := mustAddIdentity(t, srv, u.ID, "corp", "ada", u.Email, nil)
	c := testkit.NewClient(t, srv.URL)
	c.SignIn(u.Email, testkit.Password)
	r := c.PostForm("/settings/security/identities/"+id.String()+"/disconnect", url.Values{"_csrf": {"forged"}})
	if r.Status != http.StatusForbidden || !identityExists(t, srv, id) {
		t.Fatalf("a forged disconnect: %d, identity kept %v", r.Status, identityExists(t, srv, id))
	}
}

func TestSecurityConnectAnotherProviderComesBackHere(t *testing.T) {
	t.Parallel()
	srv, m := securityServer(t, nil)
	u := testkit.MustCreateUser(t, srv.DB, testkit.UserOpts{})
	c := testkit.NewClient(t, srv.URL)
	c.SignIn(u.Email, testkit.Password)
	action, _ := c.Get("/settings/security").Doc(t).Find(`[data-testid="connect-corp"]`).Closest("form").Attr("action")

	m.QueueUser(&mockoidc.MockUser{Subject: "ada-link", Email: "ada@corp.example", EmailVerified: true})
	start := c.PostForm(action, nil)
	if start.Status != http.StatusSeeOther {
		t.Fatalf("start %s: %d %s", action, start.Status, start.Body)
	}
	noFollow := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := noFollow.Get(start.Location())
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	back, err := url.Parse(resp.Header.Get("Location"))
	if err != nil {
		t.Fatal(err)
	}
	r := c.Get(back.RequestURI())
	if r.Status != http.StatusSeeOther || r.Location() != "/settings/security" {
		t.Fatalf("callback: %d %s", r.Status, r.Location())
	}
	page := c.Get("/settings/security")
	if got := page.TestID(t, "flash-success"); got != "Sign in with Corp is now connected to your account." {
		t.Errorf("flash %q", got)
	}
	if got := page.TestID(t, "identity-email"); got != "ada@corp.example" {
		t.Errorf("connected account's email %q", got)
	}
	if page.Has(t, "connect-corp") {
		t.Error("corp is still offered for connecting")
	}
}

// TestLinkingAProviderAsksForTheSecondFactor is a session whose second factor is not fresh
// (a stolen cookie, say) trying to connect a provider to a user with an authenticator app:
// the old GET ?link=1 starts nothing, the form asks for a code before it goes to the
// provider, and a right code lets it through.
func TestLinkingAProviderAsksForTheSecondFactor(t *testing.T) {
	t.Parallel()
	srv, m := securityServer(t, nil)
	u := testkit.MustCreateUser(t, srv.DB, testkit.UserOpts{})
	c := testkit.NewClient(t, srv.URL)
	c.SignIn(u.Email, testkit.Password)
	secret := apptest.MustEnrolTOTP(t, srv, u)
	m.QueueUser(&mockoidc.MockUser{Subject: "mallory", Email: "mallory@corp.example", EmailVerified: true})

	if r := c.Get("/auth/corp?link=1"); r.Status != http.StatusSeeOther || r.Location() != "/settings/security" {
		t.Fatalf("GET ?link=1: %d to %q, want back to the security page", r.Status, r.Location())
	}
	c.Get("/settings/security")
	r := c.PostForm("/auth/corp/link", nil)
	if r.Status != http.StatusOK || !r.Has(t, "step-up-form") {
		t.Fatalf("connecting without a code: %d %q, want the step-up form", r.Status, r.Location())
	}
	if r := c.PostForm("/auth/corp/link", url.Values{"step_up_code": {"000000"}}); r.Status != http.StatusUnprocessableEntity {
		t.Fatalf("with a wrong code: %d", r.Status)
	}
	code, _ := totp.GenerateCode(secret, time.Now())
	r = c.PostForm("/auth/corp/link", url.Values{"step_up_code": {code}})
	if r.Status != http.StatusSeeOther || !strings.HasPrefix(r.Location(), m.Config().Issuer) {
		t.Fatalf("with a right code: %d to %q, want the provider", r.Status, r.Location())
	}
}

func TestSecuritySignOutOtherSessions(t *testing.T) {
	t.Parallel()
	srv, _ := securityServer(t, nil)
	u := testkit.MustCreateUser(t, srv.DB, testkit.UserOpts{})
	here, there := testkit.NewClient(t, srv.URL), testkit.NewClient(t, srv.URL)
	here.SignIn(u.Email, testkit.Password)
	there.SignIn(u.Email, testkit.Password)
	someoneElse := testkit.NewClient(t, srv.URL)
	someoneElse.SignIn(testkit.MustCreateUser(t, srv.DB, testkit.UserOpts{}).Email, testkit.Password)

	page := here.Get("/settings/security")
	doc := page.Doc(t)
	if n := doc.Find(`[data-testid="session-row"]`).Length(); n != 2 {
		t.Fatalf("%d sessions listed, want 2", n)
	}
	if n := doc.Find(`[data-testid="session-current"]`).Length(); n != 1 {
		t.Fatalf("%d sessions marked current, want 1", n)
	}
	if !doc.Find(`[data-testid="session-row"]`).First().Find(`[data-testid="session-current"]`).Is("*") {
		t.Error("the current session is not listed first")
	}
	if got := page.TestID(t, "session-ip"); got != "127.0.0.1" {
		t.Errorf("IP %q", got)
	}

	r := here.PostForm("/settings/security/sessions/sign_out_others", nil)
	if r.Status != http.StatusSeeOther || r.Location() != "/settings/security" {
		t.Fatalf("sign out other sessions: %d %s", r.Status, r.Location())
	}
	page = here.Get("/settings/security")
	if page.Status != http.StatusOK {
		t.Fatalf("this session was signed out too: %d %s", page.Status, page.Location())
	}
	if got := page.TestID(t, "flash-success"); got != "Signed out of 1 other session." {
		t.Errorf("flash %q", got)
	}
	if n := page.Doc(t).Find(`[data-testid="session-row"]`).Length(); n != 1 || !page.Has(t, "sessions-only-this") {
		t.Errorf("%d sessions listed after signing out the others, want this one alone", n)
	}
	if r := there.Get("/settings/security"); r.Status != http.StatusSeeOther || r.Location() != "/sessions/new" {
		t.Errorf("the other session still works: %d %s", r.Status, r.Location())
	}
	if r := someoneElse.Get("/"); r.Status != http.StatusOK {
		t.Errorf("another user's session was signed out: %d %s", r.Status, r.Location())
	}
}

func TestSecuritySessionDevices(t *testing.T) {
	t.Parallel()
	srv, _ := securityServer(t, nil)
	u := testkit.MustCreateUser(t, srv.DB, testkit.UserOpts{})
	c := testkit.NewClient(t, srv.URL)
	c.SignIn(u.Email, testkit.Password)
	for _, tc := range []struct{ userAgent, want string }{
		{"Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36", "Chrome on Linux"},
		{"Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 Edg/131.0.0.0", "Edge on Windows"},
		{"Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Safari/605.1.15", "Safari on macOS"},
		{"Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1", "Safari on iOS"},
		{"Mozilla/5.0 (Android 14; Mobile; rv:125.0) Gecko/125.0 Firefox/125.0", "Firefox on Android"},
		{"curl/8.5.0", "curl"},
		{"<script>alert(1)</script>", "Unknown device"},
	} {
		t.Run(tc.want, func(t *testing.T) {
			h := map[string]string{"User-Agent": tc.userAgent}
			c.Do(http.MethodGet, "/", nil, h) // the session keeps the user agent it was last seen with
			r := c.Do(http.MethodGet, "/settings/security", nil, h)
			if got := r.TestID(t, "session-device"); got != tc.want {
				t.Errorf("%q is shown as %q, want %q", tc.userAgent, got, tc.want)
			}
			if strings.Contains(r.Body, "<script>alert") {
				t.Error("the user agent reached the page unescaped")
			}
		})
	}
}

func normalizeSpace(s string) string { return strings.Join(strings.Fields(s), " ") }

// appRows returns the authorized applications a security page lists, one line each:
// name | access | scopes.
func appRows(t *testing.T, page *testkit.Response) []string {
	t.Helper()
	var rows []string
	page.Doc(t).Find(`[data-testid="app-row"]`).Each(func(_ int, row *goquery.Selection) {
		cell := func(id string) string { return strings.TrimSpace(row.Find(`[data-testid="` + id + `"]`).Text()) }
		rows = append(rows, cell("app-name")+" | "+cell("app-access")+" | "+cell("app-scopes"))
	})
	return rows
}

// revokeAction returns where the confirmation dialog for revoking clientID posts, failing t
// when the page has no such dialog.
func revokeAction(t *testing.T, page *testkit.Response, clientID string) string {
	t.Helper()
	action, ok := page.Doc(t).Find(`dialog[data-testid="revoke-app-` + clientID + `"] form`).Attr("action")
	if !ok {
		t.Fatalf("no dialog to revoke %s on the page:\n%s", clientID, page.Body)
	}
	return action
}

// revokeEvents returns the user's oauth_revoke audit events as "client_id by".
func revokeEvents(t *testing.T, e *oauthEnv, userID uuid.UUID) []string {
	t.Helper()
	return testkitStrings(t, e.srv, `SELECT (metadata->>'client_id') || ' ' || (metadata->>'by') FROM sso_audit_logs
		WHERE event_type = 'oauth_revoke' AND user_id = ? ORDER BY created_at`, userID)
}

func TestSecurityListsAndRevokesAuthorizedApplications(t *testing.T) {
	t.Parallel()
	e := newOAuthEnv(t)
	cli := e.token(e.conf) // CLI, read_write
	bot := e.register("Budget bot", "https://bot.example/cb")
	bot.Scopes = []string{"read"}
	botToken := e.token(bot)

	page := e.c.Get("/settings/security")
	if page.Status != http.StatusOK {
		t.Fatalf("GET /settings/security: %d %s", page.Status, page.Body)
	}
	want := []string{"Budget bot | Read only | read", "CLI | Read and write | read_write"}
	if got := appRows(t, page); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("authorized applications:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	granted, err := time.Parse("2006-01-02", page.TestID(t, "app-granted"))
	if err != nil || time.Since(granted) > 48*time.Hour {
		t.Errorf("authorized on %q", page.TestID(t, "app-granted"))
	}
	if got := page.TestID(t, "app-last-issued"); got == "" || got == "Never" {
		t.Errorf("last used %q", got)
	}
	action := revokeAction(t, page, e.conf.ClientID)
	if want := "/settings/security/applications/" + e.conf.ClientID + "/revoke"; action != want {
		t.Fatalf("the dialog posts to %s, want %s", action, want)
	}
	// Without JavaScript the Revoke button submits its own form, to the same place.
	var rowActions []string
	page.Doc(t).Find(`[data-testid="app-row"] form`).Each(func(_ int, f *goquery.Selection) {
		rowActions = append(rowActions, f.AttrOr("action", ""))
	})
	if len(rowActions) != 2 || rowActions[1] != action {
		t.Fatalf("the rows' Revoke forms post to %v", rowActions)
	}

	t.Run("a forged request revokes nothing", func(t *testing.T) {
		r := e.c.PostForm(action, url.Values{"_csrf": {"forged"}})
		if r.Status != http.StatusForbidden {
			t.Errorf("forged revoke: %d", r.Status)
		}
		if r := e.api(http.MethodGet, "/api/v1/accounts", cli.AccessToken, ""); r.Status != http.StatusOK {
			t.Errorf("the token after a forged revoke: %d", r.Status)
		}
	})

	t.Run("another user cannot revoke it", func(t *testing.T) {
		other := testkit.NewClient(t, e.srv.URL)
		other.SignIn(testkit.MustCreateUser(t, e.srv.DB, testkit.UserOpts{}).Email, testkit.Password)
		if p := other.Get("/settings/security"); !p.Has(t, "apps-empty") || len(appRows(t, p)) != 0 {
			t.Errorf("another user sees applications: %v", appRows(t, p))
		}
		if r := other.PostForm(action, nil); r.Status != http.StatusNotFound {
			t.Errorf("another user's revoke: %d %s", r.Status, r.Location())
		}
		if r := other.PostForm("/settings/security/applications/no-such-client/revoke", nil); r.Status != http.StatusNotFound {
			t.Errorf("an unknown application: %d", r.Status)
		}
		if r := e.api(http.MethodGet, "/api/v1/accounts", cli.AccessToken, ""); r.Status != http.StatusOK {
			t.Errorf("the token after another user's revoke: %d", r.Status)
		}
		if n := len(testkitStrings(t, e.srv, "SELECT id::text FROM sso_audit_logs WHERE event_type = 'oauth_revoke'")); n != 0 {
			t.Errorf("%d revocations audited, want none", n)
		}
	})

	r := e.c.PostForm(action, nil)
	if r.Status != http.StatusSeeOther || r.Location() != "/settings/security" {
		t.Fatalf("revoke: %d %s %s", r.Status, r.Location(), r.Body)
	}
	page = e.c.Get("/settings/security")
	if got := page.TestID(t, "flash-success"); got != "CLI no longer has access to your account." {
		t.Errorf("flash %q", got)
	}
	if got := appRows(t, page); strings.Join(got, "\n") != "Budget bot | Read only | read" {
		t.Errorf("after revoking CLI: %v", got)
	}
	if r := e.api(http.MethodGet, "/api/v1/accounts", cli.AccessToken, ""); r.Status != http.StatusUnauthorized {
		t.Errorf("the revoked access token: %d %s", r.Status, r.Body)
	}
	if s, code := e.tokenError(url.Values{"grant_type": {"refresh_token"}, "client_id": {e.conf.ClientID},
		"refresh_token": {cli.RefreshToken}}); s != http.StatusBadRequest || code != "invalid_grant" {
		t.Errorf("the revoked refresh token: %d %s", s, code)
	}
	if r := e.api(http.MethodGet, "/api/v1/accounts", botToken.AccessToken, ""); r.Status != http.StatusOK {
		t.Errorf("the other application's token: %d", r.Status)
	}
	if got := revokeEvents(t, e, e.user.ID); strings.Join(got, ",") != e.conf.ClientID+" user" {
		t.Errorf("revocations audited: %v", got)
	}
	if r := e.c.PostForm(action, nil); r.Status != http.StatusNotFound {
		t.Errorf("revoking it again: %d", r.Status)
	}

	// The last one: the list is empty.
	if r := e.c.PostForm(revokeAction(t, page, bot.ClientID), nil); r.Status != http.StatusSeeOther {
		t.Fatalf("revoke Budget bot: %d", r.Status)
	}
	page = e.c.Get("/settings/security")
	if !page.Has(t, "apps-empty") || page.Has(t, "apps-table") {
		t.Errorf("no empty state after revoking every application: %v", appRows(t, page))
	}
	if r := e.api(http.MethodGet, "/api/v1/accounts", botToken.AccessToken, ""); r.Status != http.StatusUnauthorized {
		t.Errorf("Budget bot's revoked token: %d", r.Status)
	}
}

// Two users authorize the same application: each one's revocation ends their own grant only.
func TestSecurityRevokeEndsOnlyTheUsersOwnGrant(t *testing.T) {
	t.Parallel()
	e := newOAuthEnv(t)
	mine := e.token(e.conf)
	u := testkit.MustCreateUser(t, e.srv.DB, testkit.UserOpts{})
	c := testkit.NewClient(t, e.srv.URL)
	c.SignIn(u.Email, testkit.Password)
	other := &oauthEnv{t: t, srv: e.srv, c: c, user: u, conf: e.conf}
	theirs := other.token(e.conf)

	page := c.Get("/settings/security")
	if r := c.PostForm(revokeAction(t, page, e.conf.ClientID), nil); r.Status != http.StatusSeeOther {
		t.Fatalf("revoke: %d %s", r.Status, r.Body)
	}
	if r := e.api(http.MethodGet, "/api/v1/accounts", theirs.AccessToken, ""); r.Status != http.StatusUnauthorized {
		t.Errorf("the revoking user's token: %d", r.Status)
	}
	if r := e.api(http.MethodGet, "/api/v1/accounts", mine.AccessToken, ""); r.Status != http.StatusOK {
		t.Errorf("the first user's token after another user's revoke: %d", r.Status)
	}
	if got := appRows(t, e.c.Get("/settings/security")); strings.Join(got, ",") != "CLI | Read and write | read_write" {
		t.Errorf("the first user's applications after another user's revoke: %v", got)
	}
	if got := revokeEvents(t, e, u.ID); strings.Join(got, ",") != e.conf.ClientID+" user" {
		t.Errorf("the revoking user's audit: %v", got)
	}
	if got := revokeEvents(t, e, e.user.ID); len(got) != 0 {
		t.Errorf("revocations audited for the first user: %v", got)
	}
}
