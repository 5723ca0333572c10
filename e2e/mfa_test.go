package e2e

import (
	"strings"
	"testing"
	"time"

	"github.com/pquerna/otp/totp"

	"tally/internal/apptest"
	"tally/internal/testkit"
)

// TestTurnOnTwoFactorAndSignIn is a person turning on an authenticator app from the security
// page, keeping the recovery codes, and signing in again with the password and a code.
func TestTurnOnTwoFactorAndSignIn(t *testing.T) {
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
		wantText(t, ctx, "mfa-status", "On since "+time.Now().Format("2 January 2006")+", with an authenticator app. 10 recovery codes are left.")
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
