package handlers_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/oauth2-proxy/mockoidc"
	"github.com/uptrace/bun/dialect/pgdialect"

	"tally/app/apptest"
	"tally/models"
	"tally/sso/ssotest"
	"tally/testkit"
)

// adminEnv is a server with database providers, a super admin signed in, and room for the
// many admin requests a test makes.
func adminEnv(t *testing.T) (*apptest.Server, *testkit.Client, *models.User) {
	t.Helper()
	srv := apptest.StartServer(t, apptest.ServerOptions{Env: map[string]string{"AUTH_PROVIDERS_SOURCE": "db", "ADMIN_RATE_LIMIT_PER_MINUTE": "1000"}})
	root := testkit.MustCreateUser(t, srv.DB, testkit.UserOpts{Role: models.RoleSuperAdmin})
	c := testkit.NewClient(t, srv.URL)
	c.SignIn(root.Email, testkit.Password)
	return srv, c, root
}

func TestAdminPagesAreForSuperAdminsOnly(t *testing.T) {
	t.Parallel()
	srv, root, _ := adminEnv(t)
	admin := testkit.MustCreateUser(t, srv.DB, testkit.UserOpts{Role: models.RoleAdmin})
	member := testkit.MustCreateUser(t, srv.DB, testkit.UserOpts{Role: models.RoleMember, FamilyID: admin.FamilyID})
	clients := map[string]*testkit.Client{"super_admin": root, "admin": testkit.NewClient(t, srv.URL), "member": testkit.NewClient(t, srv.URL), "anonymous": testkit.NewClient(t, srv.URL)}
	clients["admin"].SignIn(admin.Email, testkit.Password)
	clients["member"].SignIn(member.Email, testkit.Password)
	for _, path := range []string{"/admin/sso_providers", "/admin/sso_providers/new", "/admin/users", "/admin/sso_audit_logs"} {
		for who, c := range clients {
			r := c.Get(path)
			want := http.StatusNotFound
			switch who {
			case "super_admin":
				want = http.StatusOK
			case "anonymous":
				want = http.StatusSeeOther
			}
			if r.Status != want {
				t.Errorf("%s GET %s: %d, want %d", who, path, r.Status, want)
			}
		}
	}
	// Nor can a family admin or a member act: every action is a 404 for them, and changes nothing.
	victim := testkit.MustCreateUser(t, srv.DB, testkit.UserOpts{Email: "victim@example.com", Role: models.RoleMember})
	someID := victim.ID.String()
	actions := []string{"/admin/sso_providers", "/admin/sso_providers/" + someID, "/admin/sso_providers/" + someID + "/toggle",
		"/admin/sso_providers/" + someID + "/delete", "/admin/users/" + someID + "/role", "/admin/users/" + someID + "/suspend",
		"/admin/users/" + someID + "/reactivate", "/admin/users/" + someID + "/delete", "/admin/users/" + someID + "/sync_roles"}
	for _, who := range []string{"admin", "member"} {
		clients[who].Get("/")
		for _, path := range actions {
			r := clients[who].PostForm(path, url.Values{"strategy": {"openid_connect"}, "name": {"x"}, "role": {"super_admin"}, "confirm": {"victim@example.com"}})
			if r.Status != http.StatusNotFound {
				t.Errorf("%s POST %s: %d, want 404", who, path, r.Status)
			}
		}
	}
	if u, err := models.UserByID(t.Context(), srv.DB, victim.ID); err != nil || u.Role != models.RoleMember || !u.Active() {
		t.Fatalf("the refused actions changed the user: %+v %v", u, err)
	}
}

func TestAddTestEnableAndUseAnOIDCProvider(t *testing.T) {
	t.Parallel()
	m := startMockOIDC(t)
	srv, c, root := adminEnv(t)
	cfg := m.Config()
	form := url.Values{"strategy": {"openid_connect"}, "name": {"corp"}, "label": {"Corp SSO"}, "default_role": {"member"},
		"issuer": {cfg.Issuer + "/"}, "client_id": {cfg.ClientID}, "client_secret": {cfg.ClientSecret}, "scopes": {"openid email profile groups"},
		"token_endpoint_auth_method": {"client_secret_post"}, "mapping_group": {"finance", ""}, "mapping_role": {"admin", "member"}}
	c.Get("/admin/sso_providers/new?strategy=openid_connect")
	// A trailing slash on the issuer is caught by the discovery check, and the form says so.
	r := c.PostForm("/admin/sso_providers", form)
	if r.Status != http.StatusUnprocessableEntity || !strings.Contains(r.TestID(t, "error-issuer"), "trailing slash") {
		t.Fatalf("issuer with a trailing slash: %d %s %s", r.Status, r.TestID(t, "error-issuer"), r.Body[strings.Index(r.Body, "<main"):])
	}
	form.Set("issuer", cfg.Issuer)
	r = c.PostForm("/admin/sso_providers", form)
	if r.Status != http.StatusSeeOther || !strings.HasSuffix(r.Location(), "/edit") {
		t.Fatalf("create: %d %s", r.Status, r.Body)
	}
	edit := c.Get(r.Location())
	if got := edit.Doc(t).Find(`[data-testid="provider-callback"]`).AttrOr("value", ""); got != srv.URL+"/auth/corp/callback" {
		t.Fatalf("callback URL shown: %q", got)
	}
	testURL := strings.TrimSuffix(r.Location(), "/edit") + "/test"

	// Test login while the provider is still disabled: claims and the role, nobody signed in.
	m.QueueUser(&mockoidc.MockUser{Subject: "tester", Email: "tester@example.com", EmailVerified: true, Groups: []string{"finance"}})
	start := c.Get(testURL)
	noFollow := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := noFollow.Get(start.Location())
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	back, _ := url.Parse(resp.Header.Get("Location"))
	result := c.Get(back.RequestURI())
	if result.Status != http.StatusOK || result.TestID(t, "test-role") != "Admin" || result.TestID(t, "test-groups") != "finance" {
		t.Fatalf("test login: %d role %q groups %q", result.Status, result.TestID(t, "test-role"), result.TestID(t, "test-groups"))
	}
	if n := testkitStrings(t, srv, "SELECT email FROM users WHERE email = 'tester@example.com'"); len(n) != 0 {
		t.Fatal("a test login created a user")
	}

	// Enable it: its button appears, and someone signs in with it.
	id := strings.Split(strings.TrimPrefix(r.Location(), "/admin/sso_providers/"), "/")[0]
	if r := c.PostForm("/admin/sso_providers/"+id+"/toggle", nil); r.Status != http.StatusSeeOther {
		t.Fatalf("enable: %d", r.Status)
	}
	visitor := testkit.NewClient(t, srv.URL)
	if visitor.Get("/sessions/new").TestID(t, "sso-corp") != "Corp SSO" {
		t.Fatal("no button after enabling")
	}
	m.QueueUser(&mockoidc.MockUser{Subject: "user-1", Email: "user@example.com", EmailVerified: true, Groups: []string{"finance"}})
	if r := ssoLogin(t, visitor, "corp"); r.Status != http.StatusSeeOther || r.Location() != "/" {
		t.Fatalf("sign-in through the new provider: %d %s", r.Status, r.Body)
	}
	actions := testkitStrings(t, srv, "SELECT metadata->>'action' FROM sso_audit_logs WHERE event_type = 'provider_changed' AND user_id = ? ORDER BY created_at", root.ID)
	if strings.Join(actions, ",") != "created,enabled" {
		t.Fatalf("provider changes audited: %v", actions)
	}
}

// TestProviderFormSecondFactorSetting sets "its sign-in counts as the second factor" on the
// provider form: off on a new provider, saved with its values and audited, shown again on
// the edit page, told on a test login, bounded, and not offered for plain OAuth2.
func TestProviderFormSecondFactorSetting(t *testing.T) {
	t.Parallel()
	op := ssotest.NewOIDCProvider(t)
	srv, c, _ := adminEnv(t)
	page := c.Get("/admin/sso_providers/new?strategy=openid_connect")
	if !page.Has(t, "provider-second-factor") || page.Doc(t).Find(`input[name="trust_second_factor"]:checked`).Length() != 0 {
		t.Fatal("a new OIDC provider's form has no second-factor setting, or it is on")
	}
	if c.Get("/admin/sso_providers/new?strategy=oauth2").Has(t, "provider-second-factor") {
		t.Error("a plain OAuth2 provider is offered the setting")
	}
	form := url.Values{"strategy": {"openid_connect"}, "name": {"corp"}, "label": {"Corp"}, "default_role": {"member"}, "issuer": {op.URL},
		"client_id": {op.ClientID}, "client_secret": {op.ClientSecret}, "token_endpoint_auth_method": {"client_secret_post"},
		"_submitted": {"1"}, "trust_second_factor": {"1"}, "second_factor_values": {strings.TrimSpace(strings.Repeat("v ", 21))}}
	if r := c.PostForm("/admin/sso_providers", form); r.Status != http.StatusUnprocessableEntity || r.TestID(t, "error-second_factor_values") != "At most 20 values" {
		t.Fatalf("21 values: %d %q", r.Status, r.TestID(t, "error-second_factor_values"))
	}
	form.Set("second_factor_values", " mfa   gold ")
	r := c.PostForm("/admin/sso_providers", form)
	if r.Status != http.StatusSeeOther {
		t.Fatalf("create: %d %s", r.Status, r.Body)
	}
	var trust bool
	var values []string
	if err := srv.DB.NewRaw("SELECT trust_second_factor, second_factor_values FROM sso_providers WHERE name = 'corp'").Scan(t.Context(), &trust, pgdialect.Array(&values)); err != nil ||
		!trust || strings.Join(values, ",") != "mfa,gold" {
		t.Fatalf("stored: %v %v %v", trust, values, err)
	}
	edit := c.Get(r.Location())
	if edit.Doc(t).Find(`input[name="trust_second_factor"]:checked`).Length() != 1 || edit.Doc(t).Find(`input[name="second_factor_values"]`).AttrOr("value", "") != "mfa gold" {
		t.Fatal("the edit page does not show the setting as saved")
	}
	changes := testkitStrings(t, srv, "SELECT metadata->>'changes' FROM sso_audit_logs WHERE event_type = 'provider_changed'")
	if len(changes) != 1 || !strings.Contains(changes[0], "trust_second_factor") || !strings.Contains(changes[0], "second_factor_values") {
		t.Fatalf("audited changes %v", changes)
	}

	// A test login says whether the sign-in would count, and what the provider said.
	op.SetUser(map[string]any{"sub": "tester", "email": "tester@example.com", "email_verified": true, "amr": []string{"pwd", "otp"}, "acr": "gold"})
	start := c.Get(strings.TrimSuffix(r.Location(), "/edit") + "/test")
	back, err := url.Parse(op.Follow(t, start.Location()))
	if err != nil {
		t.Fatal(err)
	}
	if got := c.Get(back.RequestURI()).TestID(t, "test-second-factor"); got != "Counts: the provider said pwd, otp, gold" {
		t.Fatalf("test login: %q", got)
	}
}

// TestEditingAProviderSavesIt changes a database provider's label and group mapping through
// its edit form: the change is stored, its secret kept, and the change audited.
func TestEditingAProviderSavesIt(t *testing.T) {
	t.Parallel()
	op := ssotest.NewOIDCProvider(t)
	srv, c, _ := adminEnv(t)
	form := url.Values{"strategy": {"openid_connect"}, "name": {"corp"}, "label": {"Corp"}, "default_role": {"member"}, "issuer": {op.URL},
		"client_id": {op.ClientID}, "client_secret": {op.ClientSecret}, "token_endpoint_auth_method": {"client_secret_post"},
		"mapping_group": {"finance"}, "mapping_role": {"member"}}
	c.Get("/admin/sso_providers/new?strategy=openid_connect")
	r := c.PostForm("/admin/sso_providers", form)
	if r.Status != http.StatusSeeOther {
		t.Fatalf("create: %d", r.Status)
	}
	c.Get(r.Location())
	form.Del("client_secret")
	form.Set("label", "Corp SSO")
	form.Set("mapping_role", "admin")
	if r := c.PostForm(strings.TrimSuffix(r.Location(), "/edit"), form); r.Status != http.StatusSeeOther {
		t.Fatalf("save the edit: %d", r.Status)
	}
	got := testkitStrings(t, srv, "SELECT label || ' ' || (group_mappings->0->>'role') FROM sso_providers WHERE name = 'corp'")
	if len(got) != 1 || got[0] != "Corp SSO admin" {
		t.Fatalf("stored after the edit: %v", got)
	}
	// The secret left blank is kept: a test login's code exchange still authenticates.
	op.SetUser(map[string]any{"sub": "tester", "email": "tester@example.com", "email_verified": true})
	start := c.Get(strings.TrimSuffix(r.Location(), "/edit") + "/test")
	back, err := url.Parse(op.Follow(t, start.Location()))
	if err != nil {
		t.Fatal(err)
	}
	if result := c.Get(back.RequestURI()); !result.Has(t, "test-ok") {
		t.Fatalf("test login after the edit: %s", result.TestID(t, "test-error"))
	}
	changes := testkitStrings(t, srv, "SELECT metadata->>'changes' FROM sso_audit_logs WHERE event_type = 'provider_changed' AND metadata->>'action' = 'updated'")
	if len(changes) != 1 || !strings.Contains(changes[0], "label") || !strings.Contains(changes[0], "group_mappings") || strings.Contains(changes[0], "client_secret") {
		t.Fatalf("audited changes %v", changes)
	}
}
