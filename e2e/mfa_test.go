package e2e

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/pquerna/otp/totp"

	"tally/app/apptest"
	"tally/models"
	"tally/testkit"
)

// TestTurnOnTwoFactorAndSignIn is a person turning on an authenticator app from the security
// page, keeping the recovery codes, and signing in again with the password and a code.
func TestTurnOnTwoFactorAndSignIn(t *testing.T) {
	t.Parallel()
	ctx := newTab(t)
	srv := startServer(t, apptest.ServerOptions{})
	u := testkit.MustCreateUser(t, srv.DB, testkit.UserOpts{})
	var secret string
	code := func(at time.Time) string {
		c, err := totp.GenerateCode(secret, at)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	var recovery []string

	step(t, "the security page sets up an authenticator app", func(t *testing.T) {
		signInAs(t, ctx, srv, u.Email)
		visit(t, ctx, srv.URL+"/settings/security")
		visible(t, ctx, "mfa-off")
		click(t, ctx, "totp-setup")
		visible(t, ctx, "totp-qr")
		secret = strings.ReplaceAll(text(t, ctx, "totp-secret"), " ", "")
		shot(t, ctx, "totp-enrol")
		fill(t, ctx, "field-code", "000000")
		if code(time.Now()) == "000000" {
			t.Skip("the clock's code is 000000")
		}
		click(t, ctx, "totp-confirm")
		visible(t, ctx, "error-code")
		if got := text(t, ctx, "totp-secret"); strings.ReplaceAll(got, " ", "") != secret {
			t.Errorf("a wrong code changed the secret to %q", got)
		}
		fill(t, ctx, "field-code", code(time.Now()))
		click(t, ctx, "totp-confirm")
		visible(t, ctx, "mfa-on")
		for _, c := range strings.Split(text(t, ctx, "recovery-codes"), "\n") {
			if c = strings.TrimSpace(c); c != "" {
				recovery = append(recovery, c)
			}
		}
		if len(recovery) != 10 {
			t.Fatalf("recovery codes shown: %q", recovery)
		}
		if !strings.HasPrefix(attr(t, ctx, "recovery-download", "href"), "data:text/plain") {
			t.Error("no download of the codes")
		}
		shot(t, ctx, "recovery-codes")
		click(t, ctx, "recovery-done")
		wantText(t, ctx, "mfa-status", "On since "+time.Now().UTC().Format("2006-01-02")+", with an authenticator app. 10 recovery codes are left.")
	})
	step(t, "signing in asks for a code after the password", func(t *testing.T) {
		click(t, ctx, "sign-out")
		visible(t, ctx, "sign-in-form")
		fill(t, ctx, "field-email", u.Email)
		fill(t, ctx, "field-password", testkit.Password)
		click(t, ctx, "sign-in-submit")
		visible(t, ctx, "mfa-form")
		wantPath(t, ctx, "/sessions/mfa")
		visit(t, ctx, srv.URL+"/accounts")
		wantPath(t, ctx, "/sessions/mfa")
		shot(t, ctx, "mfa-challenge")
		fill(t, ctx, "field-code", recovery[0])
		click(t, ctx, "mfa-submit")
		visible(t, ctx, "current-user")
		waitText(t, ctx, "flash-error", "You signed in with a recovery code; 9 are left.", 10*time.Second)
	})
}

// TestSuperAdminResetsASecondFactor is a member who lost their phone: a super admin finds
// them by their second factor, resets it with a reason, and the member is told by mail and
// signs in with the password alone.
func TestSuperAdminResetsASecondFactor(t *testing.T) {
	t.Parallel()
	ctx := newTab(t)
	srv, root := adminServer(t)
	member := testkit.MustCreateUser(t, srv.DB, testkit.UserOpts{Email: "member@example.com", Role: models.RoleMember})
	testkit.MustCreateUser(t, srv.DB, testkit.UserOpts{Email: "plain@example.com", Role: models.RoleMember})
	apptest.MustEnrolTOTP(t, srv, member)
	bg := context.Background()

	step(t, "the users page filters by second factor", func(t *testing.T) {
		signInAs(t, ctx, srv, root.Email)
		visit(t, ctx, srv.URL+"/admin/users?second_factor=totp")
		if n := count(t, ctx, "user-row"); n != 1 {
			t.Fatalf("%d users with an authenticator app listed, want the member", n)
		}
		wantText(t, ctx, "user-second-factor", "Authenticator app")
		shot(t, ctx, "admin-users-second-factor")
	})
	step(t, "the reset asks for a reason, and tells the member", func(t *testing.T) {
		click(t, ctx, "user-link")
		visible(t, ctx, "reset-mfa-form")
		fill(t, ctx, "field-reason", "Lost phone, confirmed by a call")
		click(t, ctx, "reset-mfa")
		waitText(t, ctx, "flash-success", "The second factor of member@example.com is removed: their password alone signs them in until they set one up again. They were told by mail.", 10*time.Second)
		visible(t, ctx, "user-mfa-none")
		m, ok := srv.Outbox.Last()
		if !ok || m.To != member.Email || !strings.Contains(m.Body, "Reason given: Lost phone, confirmed by a call") || !strings.Contains(m.Body, root.Email) {
			t.Errorf("mail to the member: %+v", m)
		}
		var reason string
		if err := srv.DB.NewRaw(`SELECT metadata->>'reason' FROM sso_audit_logs WHERE user_id = ? AND event_type = 'mfa_disabled'`, member.ID).Scan(bg, &reason); err != nil || reason != "Lost phone, confirmed by a call" {
			t.Errorf("audit reason %q (%v)", reason, err)
		}
	})
	step(t, "the member signs in with the password alone", func(t *testing.T) {
		click(t, ctx, "sign-out")
		visible(t, ctx, "sign-in-form")
		signInAs(t, ctx, srv, member.Email)
	})
}

// TestRequiredSecondFactor is AUTH_REQUIRE_MFA=admins: an admin without a second factor
// reaches nothing but its set-up until they have one; a member is not asked.
func TestRequiredSecondFactor(t *testing.T) {
	t.Parallel()
	ctx := newTab(t)
	srv := startServer(t, apptest.ServerOptions{Env: map[string]string{"AUTH_REQUIRE_MFA": "admins"}})
	admin := testkit.MustCreateUser(t, srv.DB, testkit.UserOpts{Role: models.RoleAdmin})
	member := testkit.MustCreateUser(t, srv.DB, testkit.UserOpts{Role: models.RoleMember})

	step(t, "a member signs in as before", func(t *testing.T) {
		signInAs(t, ctx, srv, member.Email)
		visit(t, ctx, srv.URL+"/accounts")
		wantPath(t, ctx, "/accounts")
		click(t, ctx, "sign-out")
		visible(t, ctx, "sign-in-form")
	})
	step(t, "an admin must set up a second factor first", func(t *testing.T) {
		signInAs(t, ctx, srv, admin.Email)
		visible(t, ctx, "totp-qr")
		wantPath(t, ctx, "/settings/mfa/totp/new")
		waitText(t, ctx, "flash-error", "Your administrator requires two-factor sign-in: set up an authenticator app to go on.", 10*time.Second)
		visit(t, ctx, srv.URL+"/accounts")
		wantPath(t, ctx, "/settings/mfa/totp/new")
		shot(t, ctx, "mfa-required")
		secret := strings.ReplaceAll(text(t, ctx, "totp-secret"), " ", "")
		code, _ := totp.GenerateCode(secret, time.Now())
		fill(t, ctx, "field-code", code)
		click(t, ctx, "totp-confirm")
		visible(t, ctx, "recovery-codes")
		visit(t, ctx, srv.URL+"/accounts")
		wantPath(t, ctx, "/accounts")
	})
}

// TestStepUpBeforeAnAPIKey is a user whose last code is older than 10 minutes creating an
// API key: Tally asks for a code first, refuses a wrong one, then creates the key with what
// the form said, and asks nothing more for the next one.
func TestStepUpBeforeAnAPIKey(t *testing.T) {
	t.Parallel()
	ctx := newTab(t)
	srv := startServer(t, apptest.ServerOptions{})
	u := testkit.MustCreateUser(t, srv.DB, testkit.UserOpts{})
	step(t, "sign in, then the authenticator is turned on elsewhere", func(t *testing.T) {
		signInAs(t, ctx, srv, u.Email)
	})
	secret := apptest.MustEnrolTOTP(t, srv, u) // from another session: this one gave no code
	bg := context.Background()

	step(t, "creating an API key asks for a code", func(t *testing.T) {
		visit(t, ctx, srv.URL+"/settings/api_keys")
		fill(t, ctx, "field-name", "Budget script")
		choose(t, ctx, "field-scope", models.ScopeReadWrite)
		click(t, ctx, "create-api-key")
		visible(t, ctx, "step-up-form")
		wantText(t, ctx, "step-up-what", "To create an API key, confirm it is you with a code from your authenticator app (or a recovery code). Tally asks again when you last did more than 10 minutes ago.")
		shot(t, ctx, "step-up")
		fill(t, ctx, "field-step_up_code", "12345")
		click(t, ctx, "step-up-submit")
		visible(t, ctx, "error-step_up_code")
		var n int
		if err := srv.DB.NewRaw("SELECT count(*) FROM api_keys WHERE user_id = ?", u.ID).Scan(bg, &n); err != nil || n != 0 {
			t.Fatalf("%d keys before the code (%v)", n, err)
		}
		code, _ := totp.GenerateCode(secret, time.Now())
		fill(t, ctx, "field-step_up_code", code)
		click(t, ctx, "step-up-submit")
		visible(t, ctx, "new-api-key")
		var name, scope string
		if err := srv.DB.NewRaw("SELECT name, scope FROM api_keys WHERE user_id = ?", u.ID).Scan(bg, &name, &scope); err != nil || name != "Budget script" || scope != models.ScopeReadWrite {
			t.Errorf("the key made after the code: %q %q (%v)", name, scope, err)
		}
	})
	step(t, "the next key within 10 minutes asks nothing", func(t *testing.T) {
		visit(t, ctx, srv.URL+"/settings/api_keys")
		fill(t, ctx, "field-name", "Second script")
		click(t, ctx, "create-api-key")
		visible(t, ctx, "new-api-key")
		if n := count(t, ctx, "api-key-row"); n != 2 {
			t.Errorf("%d keys listed", n)
		}
	})
}
