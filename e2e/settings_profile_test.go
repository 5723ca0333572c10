package e2e

import (
	"testing"

	"tally/app/apptest"
	"tally/testkit"
)

// TestProfileAndExportPages changes a person's number style, date format and password in the
// browser, and shows an admin what the family's export holds.
func TestProfileAndExportPages(t *testing.T) {
	t.Parallel()
	ctx := newTab(t)
	srv := startServer(t, apptest.ServerOptions{})
	u := testkit.MustCreateUser(t, srv.DB, testkit.UserOpts{})
	acct := testkit.MustCreateAccount(t, srv.DB, u.FamilyID, "Checking", "Depository", "1234.5")

	step(t, "the number style and date format follow the profile", func(t *testing.T) {
		signInAs(t, ctx, srv, u.Email)
		visit(t, ctx, srv.URL+"/settings/profile")
		choose(t, ctx, "field-locale", "de-DE")
		choose(t, ctx, "field-date_format", "%d.%m.%Y")
		click(t, ctx, "profile-save")
		visible(t, ctx, "flash-success")
		visit(t, ctx, srv.URL+"/accounts/"+acct.ID.String())
		wantText(t, ctx, "account-balance", "1.234,50\u00a0$")
		shot(t, ctx, "profile-locale")
	})

	step(t, "a new password signs in", func(t *testing.T) {
		visit(t, ctx, srv.URL+"/settings/profile")
		fill(t, ctx, "field-current_password", testkit.Password)
		fill(t, ctx, "field-password", "a brand new passphrase")
		fill(t, ctx, "field-password_confirmation", "a brand new passphrase")
		click(t, ctx, "password-save")
		wantText(t, ctx, "flash-success", "Your password is changed.")
		click(t, ctx, "sign-out")
		visible(t, ctx, "sign-in-submit")
		fill(t, ctx, "field-email", u.Email)
		fill(t, ctx, "field-password", "a brand new passphrase")
		click(t, ctx, "sign-in-submit")
		visible(t, ctx, "current-user")
	})

	step(t, "the export page says what the file holds", func(t *testing.T) {
		visit(t, ctx, srv.URL+"/settings/export")
		if got := text(t, ctx, "export-counts"); got == "" {
			t.Error("no counts")
		}
		visible(t, ctx, "export-download")
		shot(t, ctx, "export")
	})
}
