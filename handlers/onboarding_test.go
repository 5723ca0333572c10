package handlers_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"tally/internal/apptest"
	"tally/models"
)

func TestOnboarding(t *testing.T) {
	t.Parallel()
	srv := apptest.StartServer(t, apptest.ServerOptions{})
	c := apptest.NewClient(t, srv)

	for _, path := range []string{"/", "/sessions/new", "/accounts"} {
		if r := c.Get(path); r.Status != http.StatusSeeOther || r.Location() != "/onboarding" {
			t.Fatalf("GET %s on a new instance: %d → %q, want /onboarding", path, r.Status, r.Location())
		}
	}
	page := c.Get("/onboarding")
	if page.Status != http.StatusOK || !page.Has(t, "onboarding-form") || !page.Has(t, "field-timezone") {
		t.Fatalf("onboarding page: %d", page.Status)
	}
	// A login is a sign-in here: an account is a bank account.
	if text := page.Doc(t).Find("main").Text(); strings.Contains(strings.ToLower(text), "account;") ||
		strings.Contains(text, "Create family and account") || !strings.Contains(text, "sign in") {
		t.Errorf("the onboarding calls the login an account: %q", strings.Join(strings.Fields(text), " "))
	}

	// Every problem is reported at once, and nothing is created.
	r := c.PostForm("/onboarding", url.Values{"family_name": {" "}, "email": {"not-an-email"}, "password": {"short"}})
	if r.Status != http.StatusUnprocessableEntity {
		t.Fatalf("invalid onboarding: %d", r.Status)
	}
	for id, want := range map[string]string{
		"error-family_name": "Family name can't be blank",
		"error-password":    "Password must be at least 8 characters",
	} {
		if got := r.TestID(t, id); got != want {
			t.Errorf("%s = %q, want %q", id, got, want)
		}
	}
	if v, _ := r.Doc(t).Find(`[data-testid="field-email"]`).Attr("value"); v != "not-an-email" {
		t.Errorf("typed email not kept: %q", v)
	}
	if n, _ := models.CountUsers(t.Context(), srv.DB); n != 0 {
		t.Fatalf("%d users after a refused onboarding", n)
	}

	r = c.PostForm("/onboarding", url.Values{"family_name": {"The Smiths"}, "first_name": {"Ada"}, "email": {"Ada@Example.com"},
		"password": {"a long enough password"}, "currency": {"EUR"}, "timezone": {"Europe/Paris"}})
	if r.Status != http.StatusSeeOther || r.Location() != "/" {
		t.Fatalf("onboarding: %d → %q\n%s", r.Status, r.Location(), r.Body)
	}
	dash := c.Get("/")
	if dash.Status != http.StatusOK || dash.TestID(t, "family-name") != "The Smiths" || dash.TestID(t, "current-user") != "Ada" {
		t.Fatalf("dashboard after onboarding: %d family %q user %q", dash.Status, dash.TestID(t, "family-name"), dash.TestID(t, "current-user"))
	}
	u, err := models.UserByEmail(t.Context(), srv.DB, "ada@example.com")
	if err != nil || u.Role != models.RoleSuperAdmin || !u.FamilyCreator || u.Family.Currency != "EUR" || u.Family.Timezone != "Europe/Paris" {
		t.Fatalf("first user: %+v (err %v)", u, err)
	}

	// Once set up, onboarding is closed.
	other := apptest.NewClient(t, srv)
	if r := other.Get("/onboarding"); r.Status != http.StatusSeeOther || r.Location() != "/sessions/new" {
		t.Fatalf("onboarding after setup: %d → %q", r.Status, r.Location())
	}
	r = other.PostForm("/onboarding", url.Values{"family_name": {"Intruders"}, "email": {"eve@example.com"}, "password": {"a long enough password"}})
	if r.Status != http.StatusSeeOther || r.Location() != "/sessions/new" {
		t.Fatalf("second onboarding: %d → %q", r.Status, r.Location())
	}
	if n, _ := models.CountUsers(t.Context(), srv.DB); n != 1 {
		t.Fatalf("second onboarding created a user: %d users", n)
	}
}

// TestOnboardingUnderRequiredMFA is a new instance with AUTH_REQUIRE_MFA=admins: its first
// user, a super admin, sets up a second factor before anything else.
func TestOnboardingUnderRequiredMFA(t *testing.T) {
	t.Parallel()
	srv := apptest.StartServer(t, apptest.ServerOptions{Env: map[string]string{"AUTH_REQUIRE_MFA": "admins"}})
	c := apptest.NewClient(t, srv)
	c.Get("/onboarding")
	r := c.PostForm("/onboarding", url.Values{"family_name": {"The Smiths"}, "email": {"ada@example.com"}, "password": {"a long enough password"}})
	if r.Status != http.StatusSeeOther {
		t.Fatalf("onboarding: %d", r.Status)
	}
	if r := c.Get("/"); r.Status != http.StatusSeeOther || r.Location() != "/settings/mfa/totp/new" {
		t.Fatalf("after onboarding, GET / → %d %q, want the second factor's set-up", r.Status, r.Location())
	}
}
