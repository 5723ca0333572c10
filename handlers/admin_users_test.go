package handlers_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/pquerna/otp/totp"

	"tally/app/apptest"
	"tally/imports"
	"tally/models"
	"tally/testkit"
)

func TestSuspendEndsEverythingAtOnceAndReactivateRestores(t *testing.T) {
	t.Parallel()
	op := ssotestProvider(t)
	srv := apptest.StartServer(t, apptest.ServerOptions{Env: map[string]string{"AUTH_CONFIG_FILE": authFile(t, opYAML(op)), "ADMIN_RATE_LIMIT_PER_MINUTE": "1000"}})
	root := testkit.MustCreateUser(t, srv.DB, testkit.UserOpts{Role: models.RoleSuperAdmin})
	admin := testkit.NewClient(t, srv.URL)
	admin.SignIn(root.Email, testkit.Password)

	// Eve has a password session, an SSO account and an API key.
	eve := testkit.MustCreateUser(t, srv.DB, testkit.UserOpts{Email: "eve@example.com"})
	browser := testkit.NewClient(t, srv.URL)
	browser.SignIn(eve.Email, testkit.Password)
	key := testkit.MustCreateAPIKey(t, srv.DB, eve.ID, models.ScopeRead)
	op.SetUser(map[string]any{"sub": "eve-sso", "email": "eve@example.com", "email_verified": true})
	sso := testkit.NewClient(t, srv.URL)
	if r := opLogin(t, sso, op); r.Status != http.StatusSeeOther {
		t.Fatalf("link eve: %d", r.Status)
	}
	if r := sso.PostForm("/sso/link", url.Values{"password": {testkit.Password}}); r.Status != http.StatusSeeOther {
		t.Fatalf("link eve: %d", r.Status)
	}

	admin.Get("/admin/users/" + eve.ID.String())
	if r := admin.PostForm("/admin/users/"+eve.ID.String()+"/suspend", nil); r.Status != http.StatusSeeOther {
		t.Fatalf("suspend: %d", r.Status)
	}
	if r := browser.Get("/"); r.Status != http.StatusSeeOther {
		t.Fatal("eve's session outlived her suspension")
	}
	if r := browser.API(http.MethodGet, "/api/v1/accounts", key, nil); r.Status != http.StatusUnauthorized {
		t.Fatalf("eve's API key after suspension: %d", r.Status)
	}
	if r := opLogin(t, testkit.NewClient(t, srv.URL), op); r.Status != http.StatusForbidden || !strings.Contains(r.Body, "suspended") {
		t.Fatalf("eve's SSO after suspension: %d", r.Status)
	}
	if r := testkit.NewClient(t, srv.URL).PostForm("/sessions", url.Values{"email": {eve.Email}, "password": {testkit.Password}}); r.Status == http.StatusSeeOther {
		t.Fatal("eve's password works while suspended")
	}

	if r := admin.PostForm("/admin/users/"+eve.ID.String()+"/reactivate", nil); r.Status != http.StatusSeeOther {
		t.Fatalf("reactivate: %d", r.Status)
	}
	if r := browser.API(http.MethodGet, "/api/v1/accounts", key, nil); r.Status != http.StatusOK {
		t.Fatalf("eve's API key after reactivation: %d", r.Status)
	}
	events := strings.Join(testkitStrings(t, srv, "SELECT event_type FROM sso_audit_logs WHERE user_id = ? AND event_type LIKE 'user_%' ORDER BY created_at", eve.ID), ",")
	if events != "user_suspended,user_reactivated" {
		t.Fatalf("audited %s", events)
	}
}

func TestAdminUserActionsAndTheirGuards(t *testing.T) {
	t.Parallel()
	srv, c, root := adminEnv(t)
	bob := testkit.MustCreateUser(t, srv.DB, testkit.UserOpts{Email: "bob@example.com", Role: models.RoleMember})
	base := "/admin/users/" + bob.ID.String()
	c.Get(base)

	// Nobody acts on themselves.
	for _, action := range []string{"/suspend", "/delete"} {
		r := c.PostForm("/admin/users/"+root.ID.String()+action, url.Values{"confirm": {root.Email}})
		if r.Status != http.StatusSeeOther || !strings.Contains(c.Get("/admin/users/"+root.ID.String()).TestID(t, "flash-error"), "cannot") {
			t.Errorf("acting on yourself (%s): %d", action, r.Status)
		}
	}
	if r := c.PostForm("/admin/users/"+root.ID.String()+"/role", url.Values{"role": {"member"}}); r.Status != http.StatusSeeOther {
		t.Fatalf("demote yourself: %d", r.Status)
	}
	if u, _ := models.UserByID(t.Context(), srv.DB, root.ID); u.Role != models.RoleSuperAdmin || !u.Active() {
		t.Fatalf("the admin changed themselves: %+v", u)
	}

	if r := c.PostForm(base+"/role", url.Values{"role": {"admin"}}); r.Status != http.StatusSeeOther {
		t.Fatalf("role: %d", r.Status)
	}
	if u, _ := models.UserByID(t.Context(), srv.DB, bob.ID); u.Role != models.RoleAdmin {
		t.Fatalf("role not changed: %s", u.Role)
	}
	// Delete without the email shows the confirmation; a wrong email deletes nothing.
	if r := c.PostForm(base+"/delete", nil); r.Status != http.StatusOK || !r.Has(t, "delete-user-form") {
		t.Fatalf("delete without confirmation: %d", r.Status)
	}
	c.PostForm(base+"/delete", url.Values{"confirm": {"BOB@example.com"}})
	if _, err := models.UserByID(t.Context(), srv.DB, bob.ID); err != nil {
		t.Fatal("a wrong confirmation deleted the user")
	}
	// Bob's family has an uploaded import: its rows go with the family (through the imports'
	// cascade and their statement trigger).
	acct := testkit.MustCreateAccount(t, srv.DB, bob.FamilyID, "Bob's checking", "Depository", "").ID.String()
	im, err := srv.Imports.Create(t.Context(), imports.Request{FamilyID: bob.FamilyID, UserID: bob.ID, Type: "TransactionImport", AccountID: &acct,
		Upload: imports.Upload{Content: []byte("date,amount,name\n2026-01-02,-5,Coffee\n"), Present: true}})
	if err != nil {
		t.Fatal(err)
	}
	if n := testkitStrings(t, srv, "SELECT row_number::text FROM import_rows WHERE import_id = ?", im.ID); len(n) != 1 {
		t.Fatalf("bob's import has rows %v", n)
	}
	if r := c.PostForm(base+"/delete", url.Values{"confirm": {"bob@example.com"}}); r.Status != http.StatusSeeOther || r.Location() != "/admin/users" {
		t.Fatalf("delete: %d", r.Status)
	}
	if _, err := models.UserByID(t.Context(), srv.DB, bob.ID); err == nil {
		t.Fatal("bob still exists")
	}
	if n := testkitStrings(t, srv, "SELECT name FROM families WHERE id = ?", bob.FamilyID); len(n) != 0 {
		t.Fatal("bob's family, which had nobody else, still exists")
	}
	if n := testkitStrings(t, srv, "SELECT row_number::text FROM import_rows WHERE import_id = ?", im.ID); len(n) != 0 {
		t.Fatalf("rows %v of bob's import outlived his family", n)
	}
	actions := strings.Join(testkitStrings(t, srv, "SELECT event_type FROM sso_audit_logs WHERE metadata->>'actor_user_id' = ? ORDER BY created_at", root.ID.String()), ",")
	if actions != "role_changed,user_deleted" {
		t.Fatalf("audited %s", actions)
	}
}

func TestUsersListFilters(t *testing.T) {
	t.Parallel()
	srv, c, _ := adminEnv(t)
	testkit.MustCreateUser(t, srv.DB, testkit.UserOpts{Email: "m1@example.com", Role: models.RoleMember})
	s := testkit.MustCreateUser(t, srv.DB, testkit.UserOpts{Email: "s1@example.com", Role: models.RoleMember})
	testkit.MustSuspend(t, srv.DB, s.ID)
	r := c.Get("/admin/users?status=suspended")
	if rows := r.Doc(t).Find(`[data-testid="user-row"]`); rows.Length() != 1 || !strings.Contains(rows.Text(), "s1@example.com") {
		t.Fatalf("suspended filter: %d rows", rows.Length())
	}
	r = c.Get("/admin/users?role=member")
	if rows := r.Doc(t).Find(`[data-testid="user-row"]`); rows.Length() != 2 {
		t.Fatalf("member filter: %d rows", rows.Length())
	}
}

// /admin allows 10 requests a minute per IP, counted across every instance.
func TestAdminRateLimitIsSharedAcrossInstances(t *testing.T) {
	t.Parallel()
	first := apptest.StartServer(t, apptest.ServerOptions{})
	second := apptest.StartServer(t, apptest.ServerOptions{DB: first.DB})
	root := testkit.MustCreateUser(t, first.DB, testkit.UserOpts{Role: models.RoleSuperAdmin})
	a, b := testkit.NewClient(t, first.URL), testkit.NewClient(t, second.URL)
	a.SignIn(root.Email, testkit.Password)
	b.SignIn(root.Email, testkit.Password)
	for i := range 10 {
		c := a
		if i%2 == 1 {
			c = b
		}
		if r := c.Get("/admin/users"); r.Status != http.StatusOK {
			t.Fatalf("request %d: %d", i+1, r.Status)
		}
	}
	r := b.Get("/admin/sso_providers")
	if r.Status != http.StatusTooManyRequests || r.Header.Get("Retry-After") == "" {
		t.Fatalf("the 11th admin request: %d, Retry-After %q", r.Status, r.Header.Get("Retry-After"))
	}
	// Pages outside /admin are not counted.
	if r := a.Get("/"); r.Status != http.StatusOK {
		t.Fatalf("dashboard after the admin limit: %d", r.Status)
	}
}

// TestResettingASecondFactorTakesTheAdminsOwn is a super admin with an authenticator app whose
// session gave no code lately, as a stolen one would be: removing another user's second
// factor asks for the admin's code first, and removes nothing until it is right.
func TestResettingASecondFactorTakesTheAdminsOwn(t *testing.T) {
	t.Parallel()
	srv, c, root := adminEnv(t)
	member := testkit.MustCreateUser(t, srv.DB, testkit.UserOpts{Role: models.RoleMember})
	apptest.MustEnrolTOTP(t, srv, member)
	secret := apptest.MustEnrolTOTP(t, srv, root)
	has := func() bool {
		var n int
		if err := srv.DB.NewRaw("SELECT count(*) FROM user_totp WHERE user_id = ?", member.ID).Scan(context.Background(), &n); err != nil {
			t.Fatal(err)
		}
		return n > 0
	}
	path := "/admin/users/" + member.ID.String() + "/reset_mfa"
	c.Get("/admin/users/" + member.ID.String())
	if r := c.PostForm(path, url.Values{"reason": {"Lost phone"}}); r.Status != http.StatusOK || !r.Has(t, "step-up-form") || !has() {
		t.Fatalf("without the admin's code: %d, step-up %v, member's factor kept %v", r.Status, r.Has(t, "step-up-form"), has())
	}
	code, _ := totp.GenerateCode(secret, time.Now())
	if r := c.PostForm(path, url.Values{"reason": {"Lost phone"}, "step_up_code": {code}}); r.Status != http.StatusSeeOther || has() {
		t.Fatalf("with the admin's code: %d, member's factor kept %v", r.Status, has())
	}
}
