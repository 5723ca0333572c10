package handlers_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/pquerna/otp/totp"

	"tally/app/apptest"
	"tally/models"
	"tally/testkit"
)

// TestSignInAdministrationTakesTheSecondFactor is a super admin whose session gave its last
// code 27 minutes ago (a stolen session, say): every change to who signs in, or with what
// role, asks for the code again and changes nothing, and with the code, typed into the page
// that asks, it is made and audited.
func TestSignInAdministrationTakesTheSecondFactor(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	m := startMockOIDC(t)
	var mu sync.Mutex
	now := time.Now()
	later := func(d time.Duration) { mu.Lock(); now = now.Add(d); mu.Unlock() }
	srv := apptest.StartServer(t, apptest.ServerOptions{Now: func() time.Time { mu.Lock(); defer mu.Unlock(); return now },
		Env: map[string]string{"AUTH_PROVIDERS_SOURCE": "db", "ADMIN_RATE_LIMIT_PER_MINUTE": "1000"}})
	root := testkit.MustCreateUser(t, srv.DB, testkit.UserOpts{Role: models.RoleSuperAdmin})
	secret, recovery := apptest.MustEnrolTOTPWithCodes(t, srv, root)
	c := apptest.NewClient(t, srv)
	c.PostForm("/sessions", url.Values{"email": {root.Email}, "password": {testkit.Password}})
	code, _ := totp.GenerateCode(secret, time.Now())
	if r := c.PostForm("/sessions/mfa", url.Values{"code": {code}}); r.Status != http.StatusSeeOther {
		t.Fatalf("sign in with the code: %d", r.Status)
	}

	// While the code is fresh, a provider maps a group to admins, and a user has signed in
	// through it with that group.
	cfg := m.Config()
	oidc := func(name, group, role string) url.Values {
		return url.Values{"strategy": {"openid_connect"}, "name": {name}, "label": {name}, "default_role": {"member"},
			"issuer": {cfg.Issuer}, "client_id": {cfg.ClientID}, "client_secret": {cfg.ClientSecret}, "scopes": {"openid email groups"},
			"token_endpoint_auth_method": {"client_secret_post"}, "mapping_group": {group}, "mapping_role": {role}}
	}
	c.Get("/admin/sso_providers/new?strategy=openid_connect")
	if r := c.PostForm("/admin/sso_providers", oidc("corp", "finance", "admin")); r.Status != http.StatusSeeOther {
		t.Fatalf("add a provider with a fresh code: %d", r.Status)
	}
	corp := testkitStrings(t, srv, "SELECT id::text FROM sso_providers WHERE name = 'corp'")[0]
	grouped := testkit.MustCreateUser(t, srv.DB, testkit.UserOpts{Role: models.RoleMember})
	if _, err := srv.DB.NewRaw(`INSERT INTO sso_identities (id, user_id, provider, subject, email, groups) VALUES (gen_random_uuid(), ?, 'corp', 'g', ?, '{finance}')`,
		grouped.ID, grouped.Email).Exec(ctx); err != nil {
		t.Fatal(err)
	}
	member := testkit.MustCreateUser(t, srv.DB, testkit.UserOpts{Role: models.RoleMember})
	doomed := testkit.MustCreateUser(t, srv.DB, testkit.UserOpts{Role: models.RoleMember})

	userRole := func(u *models.User) func() bool {
		return func() bool {
			return testkitStrings(t, srv, "SELECT role FROM users WHERE id = ?", u.ID)[0] != string(models.RoleMember)
		}
	}
	suspended := func() bool {
		return testkitStrings(t, srv, "SELECT (suspended_at IS NOT NULL)::text FROM users WHERE id = ?", member.ID)[0] == "true"
	}
	evil := func() string {
		ids := testkitStrings(t, srv, "SELECT id::text FROM sso_providers WHERE name = 'evil'")
		if len(ids) == 0 {
			return "00000000-0000-0000-0000-000000000000"
		}
		return ids[0]
	}
	corpUpdate := oidc("corp", "finance", "super_admin")
	corpUpdate.Del("client_secret")
	steps := []struct {
		name    string
		path    func() string
		form    url.Values
		event   string
		changed func() bool
	}{
		{"add a provider that maps a group to super admin", func() string { return "/admin/sso_providers" }, oidc("evil", "evil", "super_admin"),
			"provider_changed", func() bool {
				return len(testkitStrings(t, srv, "SELECT name FROM sso_providers WHERE name = 'evil'")) == 1
			}},
		{"map a provider's group to super admin", func() string { return "/admin/sso_providers/" + corp }, corpUpdate,
			"provider_changed", func() bool {
				return strings.Contains(testkitStrings(t, srv, "SELECT group_mappings::text FROM sso_providers WHERE id = ?", corp)[0], "super_admin")
			}},
		{"enable a provider", func() string { return "/admin/sso_providers/" + corp + "/toggle" }, nil,
			"provider_changed", func() bool {
				return testkitStrings(t, srv, "SELECT enabled::text FROM sso_providers WHERE id = ?", corp)[0] == "true"
			}},
		{"make a member super admin", func() string { return "/admin/users/" + member.ID.String() + "/role" }, url.Values{"role": {"super_admin"}},
			"role_changed", userRole(member)},
		{"sync a role from the groups", func() string { return "/admin/users/" + grouped.ID.String() + "/sync_roles" }, nil,
			"role_changed", userRole(grouped)},
		{"suspend a user", func() string { return "/admin/users/" + member.ID.String() + "/suspend" }, nil,
			"user_suspended", suspended},
		{"reactivate a user", func() string { return "/admin/users/" + member.ID.String() + "/reactivate" }, nil,
			"user_reactivated", func() bool { return !suspended() }},
		{"delete a user", func() string { return "/admin/users/" + doomed.ID.String() + "/delete" }, url.Values{"confirm": {doomed.Email}},
			"user_deleted", func() bool {
				return len(testkitStrings(t, srv, "SELECT email FROM users WHERE id = ?", doomed.ID)) == 0
			}},
		{"delete a provider", func() string { return "/admin/sso_providers/" + evil() + "/delete" }, nil,
			"provider_changed", func() bool {
				return len(testkitStrings(t, srv, "SELECT name FROM sso_providers WHERE name = 'evil'")) == 0
			}},
	}
	audited := func(event string) int {
		return len(testkitStrings(t, srv, "SELECT id::text FROM sso_audit_logs WHERE event_type = ? AND metadata->>'actor_user_id' = ?", event, root.ID.String()))
	}
	for i, s := range steps {
		later(27 * time.Minute)
		before := audited(s.event)
		c.Get("/admin/users")
		page := c.PostForm(s.path(), s.form)
		if page.Status != http.StatusOK || !page.Has(t, "step-up-form") {
			t.Fatalf("%s, 27 minutes after the last code: %d, step-up form %v", s.name, page.Status, page.Has(t, "step-up-form"))
		}
		if s.changed() || audited(s.event) != before {
			t.Fatalf("%s: done without the code", s.name)
		}
		clientSecret := s.form.Get("client_secret")
		if clientSecret != "" &&
			(strings.Contains(page.Body, clientSecret) || page.Doc(t).Find(`[data-testid="step-up-form"] input[name="client_secret"][type="password"]`).Length() != 1) {
			t.Fatalf("%s: the step-up page carries the client secret, or does not ask for it again", s.name)
		}
		// The browser posts the page's form as it is, with a code (one recovery code per step:
		// a code of the app is good once per 30 seconds) and the secret typed again.
		form := url.Values{}
		page.Doc(t).Find(`[data-testid="step-up-form"] input[type="hidden"]`).Each(func(_ int, in *goquery.Selection) {
			form.Add(in.AttrOr("name", ""), in.AttrOr("value", ""))
		})
		if clientSecret != "" {
			form.Set("client_secret", clientSecret)
		}
		form.Set("step_up_code", recovery[i])
		if r := c.PostForm(page.Doc(t).Find(`[data-testid="step-up-form"]`).AttrOr("action", ""), form); r.Status != http.StatusSeeOther {
			t.Fatalf("%s with the code: %d %s", s.name, r.Status, r.Body)
		}
		if !s.changed() || audited(s.event) != before+1 {
			t.Fatalf("%s with the code: changed %v, %s events %d (before %d)", s.name, s.changed(), s.event, audited(s.event), before)
		}
	}

	// The toggle is an htmx request from the providers' list: the question is a page, swapped
	// in whole rather than into the provider's row.
	later(27 * time.Minute)
	c.Get("/admin/sso_providers")
	c.Headers = map[string]string{"HX-Request": "true"}
	r := c.PostForm("/admin/sso_providers/"+corp+"/toggle", nil)
	c.Headers = nil
	if r.Status != http.StatusOK || !r.Has(t, "step-up-form") || r.Header.Get("HX-Retarget") != "body" {
		t.Fatalf("an htmx toggle 27 minutes after the last code: %d, step-up form %v, HX-Retarget %q", r.Status, r.Has(t, "step-up-form"), r.Header.Get("HX-Retarget"))
	}
}
