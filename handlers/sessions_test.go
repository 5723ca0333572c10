package handlers_test

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/pquerna/otp/totp"

	"tally/app/apptest"
	"tally/models"
	"tally/testkit"
)

// signInCase is one sign-in attempt under a configuration.
type signInCase struct {
	name       string
	env        map[string]string
	role       models.Role // the user who tries; "" means an unknown email
	suspended  bool
	password   string
	wantStatus int
	wantText   string // in the body when not a redirect
}

func TestSignIn(t *testing.T) {
	t.Parallel()
	off := map[string]string{"AUTH_LOCAL_LOGIN_ENABLED": "false"}
	override := map[string]string{"AUTH_LOCAL_LOGIN_ENABLED": "false", "AUTH_LOCAL_ADMIN_OVERRIDE_ENABLED": "true"}
	cases := []signInCase{
		{name: "right password signs in", role: models.RoleMember, password: testkit.Password, wantStatus: http.StatusSeeOther},
		{name: "wrong password is refused", role: models.RoleMember, password: "wrong password!", wantStatus: http.StatusUnprocessableEntity, wantText: "Invalid email or password."},
		{name: "unknown email fails like a wrong password", role: "", password: testkit.Password, wantStatus: http.StatusUnprocessableEntity, wantText: "Invalid email or password."},
		{name: "suspended user cannot sign in", role: models.RoleAdmin, suspended: true, password: testkit.Password, wantStatus: http.StatusForbidden, wantText: "suspended"},
		{name: "local login off refuses everyone", env: off, role: models.RoleSuperAdmin, password: testkit.Password, wantStatus: http.StatusForbidden, wantText: "Local password login is disabled. Please use single sign-on."},
		{name: "override lets a super admin in", env: override, role: models.RoleSuperAdmin, password: testkit.Password, wantStatus: http.StatusSeeOther},
		{name: "override refuses a family admin", env: override, role: models.RoleAdmin, password: testkit.Password, wantStatus: http.StatusForbidden, wantText: "Local password login is disabled. Please use single sign-on."},
		{name: "override refuses an unknown email the same way", env: override, role: "", password: testkit.Password, wantStatus: http.StatusForbidden, wantText: "Local password login is disabled."},
		{name: "override still checks the super admin's password", env: override, role: models.RoleSuperAdmin, password: "wrong password!", wantStatus: http.StatusUnprocessableEntity, wantText: "Invalid email or password."},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := apptest.StartServer(t, apptest.ServerOptions{Env: tc.env})
			email := "nobody@example.com"
			if tc.role != "" {
				u := testkit.MustCreateUser(t, srv.DB, testkit.UserOpts{Role: tc.role})
				email = u.Email
				if tc.suspended {
					testkit.MustSuspend(t, srv.DB, u.ID)
				}
			} else {
				testkit.MustCreateUser(t, srv.DB, testkit.UserOpts{}) // so that the instance is set up
			}
			c := apptest.NewClient(t, srv)
			r := c.PostForm("/sessions", url.Values{"email": {strings.ToUpper(email)}, "password": {tc.password}})
			if r.Status != tc.wantStatus {
				t.Fatalf("status %d, want %d; body: %s", r.Status, tc.wantStatus, r.Body)
			}
			if tc.wantText != "" && !strings.Contains(r.Body, tc.wantText) {
				t.Fatalf("body does not say %q:\n%s", tc.wantText, r.Body)
			}
			// Only a successful sign-in opens the dashboard.
			dash := c.Get("/")
			if signedIn := dash.Status == http.StatusOK; signedIn != (tc.wantStatus == http.StatusSeeOther) {
				t.Fatalf("after the attempt GET / answered %d (%s)", dash.Status, dash.Location())
			}
		})
	}
}

func TestSignInPageFollowsTheFlags(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name                            string
		env                             map[string]string
		form, adminNote, forgot, noAuth bool
	}{
		{"local login on", nil, true, false, true, false},
		{"local login off", map[string]string{"AUTH_LOCAL_LOGIN_ENABLED": "false"}, false, false, false, true},
		{"local login off with admin override", map[string]string{"AUTH_LOCAL_LOGIN_ENABLED": "false", "AUTH_LOCAL_ADMIN_OVERRIDE_ENABLED": "true"}, true, true, false, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := apptest.StartServer(t, apptest.ServerOptions{Env: tc.env})
			testkit.MustCreateUser(t, srv.DB, testkit.UserOpts{})
			r := apptest.NewClient(t, srv).Get("/sessions/new")
			if r.Status != http.StatusOK {
				t.Fatalf("status %d", r.Status)
			}
			for id, want := range map[string]bool{"sign-in-form": tc.form, "admin-only-note": tc.adminNote, "forgot-password": tc.forgot, "no-auth-methods": tc.noAuth} {
				if got := r.Has(t, id); got != want {
					t.Errorf("%s shown = %v, want %v", id, got, want)
				}
			}
		})
	}
}

func TestSignInRenewsTheSessionAndSignOutEndsIt(t *testing.T) {
	t.Parallel()
	srv := apptest.StartServer(t, apptest.ServerOptions{})
	u := testkit.MustCreateUser(t, srv.DB, testkit.UserOpts{})
	c := apptest.NewClient(t, srv)
	c.Get("/sessions/new")
	before := c.Cookie("tally_session")
	if before == "" {
		t.Fatal("no session cookie before sign-in")
	}
	c.SignIn(u.Email, testkit.Password)
	during := c.Cookie("tally_session")
	if during == "" || during == before {
		t.Fatalf("session token not renewed at sign-in (%q → %q)", before, during)
	}
	if r := c.Get("/"); r.Status != http.StatusOK || r.TestID(t, "current-user") != u.Email {
		t.Fatalf("dashboard after sign-in: %d, user %q", r.Status, r.TestID(t, "current-user"))
	}
	r := c.PostForm("/sign_out", nil)
	if r.Status != http.StatusSeeOther || r.Location() != "/sessions/new" {
		t.Fatalf("sign out: %d → %q", r.Status, r.Location())
	}
	after := c.Cookie("tally_session")
	if after == during {
		t.Fatal("session token not renewed at sign-out")
	}
	if r := c.Get("/sessions/new"); r.TestID(t, "flash-success") != "You have signed out successfully." {
		t.Fatalf("sign-out message missing: %q", r.TestID(t, "flash-success"))
	}
	if r := c.Get("/"); r.Status != http.StatusSeeOther || r.Location() != "/sessions/new" {
		t.Fatalf("dashboard after sign-out: %d → %q", r.Status, r.Location())
	}
	// The old token is dead in the database too, not just forgotten by this browser.
	var n int
	if err := srv.DB.NewRaw("SELECT count(*) FROM sessions WHERE token = ?", during).Scan(t.Context(), &n); err != nil || n != 0 {
		t.Fatalf("signed-in session row still stored (n=%d, err=%v)", n, err)
	}
}

func TestSuspendingAUserEndsTheirSessions(t *testing.T) {
	t.Parallel()
	srv := apptest.StartServer(t, apptest.ServerOptions{})
	u := testkit.MustCreateUser(t, srv.DB, testkit.UserOpts{})
	c := apptest.NewClient(t, srv)
	c.SignIn(u.Email, testkit.Password)
	testkit.MustSuspend(t, srv.DB, u.ID)
	if r := c.Get("/"); r.Status != http.StatusSeeOther || r.Location() != "/sessions/new" {
		t.Fatalf("suspended user still sees the dashboard: %d %q", r.Status, r.Location())
	}
}

func TestFormsNeedTheCSRFToken(t *testing.T) {
	t.Parallel()
	srv := apptest.StartServer(t, apptest.ServerOptions{})
	u := testkit.MustCreateUser(t, srv.DB, testkit.UserOpts{})
	c := apptest.NewClient(t, srv)
	for name, token := range map[string]string{"missing": "", "wrong": "not-the-token"} {
		t.Run(name, func(t *testing.T) {
			r := c.PostForm("/sessions", url.Values{"email": {u.Email}, "password": {testkit.Password}, "_csrf": {token}})
			if r.Status != http.StatusForbidden || !strings.Contains(r.Body, "This form has expired") {
				t.Fatalf("status %d, body %s", r.Status, r.Body)
			}
		})
	}
	r := c.Do(http.MethodPost, "/sessions", strings.NewReader(url.Values{"email": {u.Email}, "password": {testkit.Password}}.Encode()),
		map[string]string{"Content-Type": "application/x-www-form-urlencoded", "Sec-Fetch-Site": "cross-site"})
	if r.Status != http.StatusForbidden {
		t.Fatalf("cross-site POST answered %d", r.Status)
	}
}

func TestSignInReturnsToTheRequestedPage(t *testing.T) {
	t.Parallel()
	srv := apptest.StartServer(t, apptest.ServerOptions{})
	u := testkit.MustCreateUser(t, srv.DB, testkit.UserOpts{})
	c := apptest.NewClient(t, srv)
	if r := c.Get("/settings/api_keys"); r.Location() != "/sessions/new" {
		t.Fatalf("anonymous GET went to %q", r.Location())
	}
	// What a browser fetches on its own (an icon, an image) is not where the person wanted to go.
	c.Do(http.MethodGet, "/apple-touch-icon.png", nil, map[string]string{"Accept": "image/avif,image/webp,*/*"})
	r := c.PostForm("/sessions", url.Values{"email": {u.Email}, "password": {testkit.Password}})
	if r.Location() != "/settings/api_keys" {
		t.Fatalf("after sign-in went to %q, want the page asked for", r.Location())
	}
}

// TestWrongPasswordsPerAccount is the per-account limit on password guessing, from many
// addresses (the per-address limit does not hold them). Past ten wrong passwords, a guess no
// longer learns whether it was right: an account with a second factor goes on to it whatever
// the password, and that step takes a right password with a right code only, a right code
// after a wrong password included; the owner, with both, still gets in from a new browser.
// An account without one is refused, but from the browsers its owner signed in from.
func TestWrongPasswordsPerAccount(t *testing.T) {
	t.Parallel()
	srv := apptest.StartServer(t, apptest.ServerOptions{Env: map[string]string{"TRUSTED_PROXIES": "127.0.0.1/32"}})
	withCode := testkit.MustCreateUser(t, srv.DB, testkit.UserOpts{})
	secret, recovery := apptest.MustEnrolTOTPWithCodes(t, srv, withCode)
	plain := testkit.MustCreateUser(t, srv.DB, testkit.UserOpts{})
	guesses := 0
	browser := func() *testkit.Client {
		guesses++
		b := apptest.NewClient(t, srv)
		b.Headers = map[string]string{"X-Forwarded-For": fmt.Sprintf("203.0.113.%d", guesses), "User-Agent": "guesser/1.0"}
		return b
	}
	// The owner without a second factor signed in from this browser before the guessing.
	home := apptest.NewClient(t, srv)
	home.Headers = map[string]string{"X-Forwarded-For": "192.0.2.1"}
	home.SignIn(plain.Email, testkit.Password)
	home.PostForm("/sign_out", nil)

	for _, u := range []*models.User{withCode, plain} {
		for i := range 10 {
			r := browser().PostForm("/sessions", url.Values{"email": {u.Email}, "password": {fmt.Sprintf("guess %d", i)}})
			if r.Status != http.StatusUnprocessableEntity || !strings.Contains(r.Body, "Invalid email or password.") {
				t.Fatalf("guess %d at %s: %d", i+1, u.Email, r.Status)
			}
		}
	}

	// With a second factor: the eleventh guess goes on to the code, and a right code does not
	// make up for the wrong password; the answer is the one a wrong code gets there.
	code := func(at time.Time) string { s, _ := totp.GenerateCode(secret, at); return s }
	thief := browser()
	if r := thief.PostForm("/sessions", url.Values{"email": {withCode.Email}, "password": {"guess 11"}}); r.Status != http.StatusSeeOther || r.Location() != "/sessions/mfa" {
		t.Fatalf("a guess past the limit: %d → %q, want the code step whatever the password", r.Status, r.Location())
	}
	wrongPassword := thief.PostForm("/sessions/mfa", url.Values{"code": {code(time.Now())}})
	if wrongPassword.Status != http.StatusUnprocessableEntity || thief.Get("/").Status == http.StatusOK {
		t.Fatalf("a right code after a wrong password: %d", wrongPassword.Status)
	}
	// More strangers than the user's code limit allows (20), each with a guessed password
	// and a code: held, they use up only their own addresses' counts, never the owner's.
	for i := range 21 {
		s := browser()
		s.PostForm("/sessions", url.Values{"email": {withCode.Email}, "password": {fmt.Sprintf("stranger %d", i)}})
		if r := s.PostForm("/sessions/mfa", url.Values{"code": {"123456"}}); r.Status != http.StatusUnprocessableEntity {
			t.Fatalf("stranger %d's code: %d", i+1, r.Status)
		}
	}
	right := browser()
	right.PostForm("/sessions", url.Values{"email": {withCode.Email}, "password": {testkit.Password}})
	wrongCode := right.PostForm("/sessions/mfa", url.Values{"code": {"000000"}})
	if wrongCode.Status != http.StatusUnprocessableEntity || wrongCode.TestID(t, "error-code") != wrongPassword.TestID(t, "error-code") {
		t.Fatalf("a wrong code after the right password: %d %q, and after a wrong one %q: they must not differ",
			wrongCode.Status, wrongCode.TestID(t, "error-code"), wrongPassword.TestID(t, "error-code"))
	}
	if r := right.PostForm("/sessions/mfa", url.Values{"code": {recovery[0]}}); r.Status != http.StatusSeeOther || right.Get("/").Status != http.StatusOK {
		t.Fatalf("the owner's right password and right code past the limit: %d", r.Status)
	}

	// Without one: refused from a new browser, even with the right password; not at home.
	if r := browser().PostForm("/sessions", url.Values{"email": {plain.Email}, "password": {testkit.Password}}); r.Status != http.StatusTooManyRequests ||
		!strings.Contains(r.Body, "Too many wrong passwords for this account") {
		t.Fatalf("past the limit, without a second factor, from a new browser: %d", r.Status)
	}
	home.Get("/sessions/new")
	if r := home.PostForm("/sessions", url.Values{"email": {plain.Email}, "password": {testkit.Password}}); r.Status != http.StatusSeeOther || r.Location() != "/" {
		t.Fatalf("the owner from the browser they signed in from: %d → %q", r.Status, r.Location())
	}

	// Every refusal and every sign-in is in the audit log, with the address and user agent.
	var rows []struct {
		EventType string `bun:"event_type"`
		Reason    string `bun:"reason"`
		IP        string `bun:"ip"`
		UA        string `bun:"ua"`
	}
	if err := srv.DB.NewRaw(`SELECT event_type, coalesce(metadata->>'reason', '') AS reason, coalesce(ip_address, '') AS ip, coalesce(user_agent, '') AS ua
		FROM sso_audit_logs WHERE user_id = ? AND metadata->>'method' = 'password' ORDER BY created_at, id`, withCode.ID).Scan(t.Context(), &rows); err != nil {
		t.Fatal(err)
	}
	if len(rows) != 33 || rows[0].EventType != "login_failed" || rows[0].Reason != "invalid_credentials" || rows[0].IP != "203.0.113.1" ||
		rows[0].UA != "guesser/1.0" || rows[32].EventType != "login" {
		t.Fatalf("audit of the account with a code: %+v", rows)
	}
}
