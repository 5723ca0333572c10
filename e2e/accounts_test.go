package e2e

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"tally/app/apptest"
	"tally/testkit"
)

// TestDeleteAnAccount is a person deleting an account from its edit page: a name typed wrong
// is refused with what would go and deletes nothing, and the exact name deletes the account
// with its history and goes back to the accounts, saying so.
func TestDeleteAnAccount(t *testing.T) {
	t.Parallel()
	ctx := newTab(t)
	srv := startServer(t, apptest.ServerOptions{NoWorker: true})
	bg := context.Background()
	u := testkit.MustCreateUser(t, srv.DB, testkit.UserOpts{})
	checking := testkit.MustCreateAccount(t, srv.DB, u.FamilyID, "Checking", "Depository", "1000").ID
	testkit.MustCreateAccount(t, srv.DB, u.FamilyID, "Savings", "Depository", "50")
	if _, err := srv.DB.NewRaw(`INSERT INTO entries (id, family_id, account_id, kind, date, amount, currency, name)
		VALUES (gen_random_uuid(), ?, ?, 'transaction', current_date, 12.5, 'USD', 'Groceries')`, u.FamilyID, checking).Exec(bg); err != nil {
		t.Fatal(err)
	}
	entries := func(t *testing.T) int {
		t.Helper()
		var n int
		if err := srv.DB.NewRaw("SELECT count(*) FROM entries WHERE account_id = ?", checking).Scan(bg, &n); err != nil {
			t.Fatal(err)
		}
		return n
	}

	step(t, "a name typed wrong is refused, saying what would go", func(t *testing.T) {
		signInAs(t, ctx, srv, u.Email)
		visit(t, ctx, srv.URL+"/accounts/"+checking.String())
		click(t, ctx, "edit-account")
		visible(t, ctx, "delete-account-form")
		fill(t, ctx, "field-confirm", "checking")
		click(t, ctx, "delete-account")
		visible(t, ctx, "error-confirm")
		want := "Deleting “Checking” deletes its 1 transaction (2 entries in all) and cannot be undone: confirm with the account's exact name"
		if got := text(t, ctx, "error-confirm"); got != want {
			t.Errorf("the error says %q, want %q", got, want)
		}
		if got := inputValue(t, ctx, "field-confirm"); got != "checking" {
			t.Errorf("the field holds %q after the refusal", got)
		}
		if got := inputValue(t, ctx, "field-name"); got != "Checking" {
			t.Errorf("the account form shows the name %q", got)
		}
		if n := entries(t); n != 2 {
			t.Errorf("%d entries left after a refused delete, want 2", n)
		}
		shot(t, ctx, "account-delete-refused")
	})
	step(t, "the exact name deletes it and its history", func(t *testing.T) {
		run(t, ctx, "clear the confirmation", chromedp.Clear(testID("field-confirm")))
		fill(t, ctx, "field-confirm", "Checking")
		click(t, ctx, "delete-account")
		waitText(t, ctx, "flash-success", "Account “Checking” deleted, with its 1 transaction.", 10*time.Second)
		wantPath(t, ctx, "/accounts")
		if groups := text(t, ctx, "account-groups"); strings.Contains(groups, "Checking") || !strings.Contains(groups, "Savings") {
			t.Errorf("the accounts page lists %q", groups)
		}
		if n := entries(t); n != 0 {
			t.Errorf("%d entries of the deleted account are left", n)
		}
	})
}
