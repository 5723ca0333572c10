package e2e

import (
	"context"
	"strings"
	"testing"
	"time"

	"tally/app/apptest"
	"tally/testkit"
)

// TestReconcileAnAccount is a person typing today's balance for a new account, older
// transactions arriving after it, and a bank statement that disagrees: the account's page
// names the difference, the days to look at and the fixes; an adjustment and trusting the
// bank each settle it and each is undone; and a balance typed anew on the edit page becomes
// what the history is walked from.
func TestReconcileAnAccount(t *testing.T) {
	t.Parallel()
	ctx := newTab(t)
	srv := startServer(t, apptest.ServerOptions{NoWorker: true})
	u := testkit.MustCreateUser(t, srv.DB, testkit.UserOpts{})
	bg := context.Background()
	var account string

	step(t, "a new account with today's balance", func(t *testing.T) {
		signInAs(t, ctx, srv, u.Email)
		visit(t, ctx, srv.URL+"/accounts/new")
		fill(t, ctx, "field-name", "Everyday checking")
		fill(t, ctx, "field-balance", "1000.00")
		click(t, ctx, "save-account")
		visible(t, ctx, "balance-anchor")
		account = strings.TrimPrefix(path(t, ctx), "/accounts/")
		if got := text(t, ctx, "balance-anchor"); !strings.Contains(got, "$1,000.00") {
			t.Errorf("the anchor is described as %q", got)
		}
	})
	step(t, "older transactions and a statement that disagrees are named on the page", func(t *testing.T) {
		// As an import would write them: two older transactions, and the bank's closing balance
		// of the day between them, 250.00 above what the ledger gives.
		if _, err := srv.DB.NewRaw(`
			WITH tx AS (
				INSERT INTO entries (id, family_id, account_id, kind, date, amount, currency, name)
				VALUES (gen_random_uuid(), ?0, ?1, 'transaction', current_date - 20, 100, 'USD', 'Rent share'),
					(gen_random_uuid(), ?0, ?1, 'transaction', current_date - 10, -300, 'USD', 'Salary')),
			cp AS (
				INSERT INTO entries (id, family_id, account_id, kind, date, amount, currency, name, source, external_id)
				VALUES (gen_random_uuid(), ?0, ?1, 'valuation', current_date - 15, 950, 'USD', 'Statement closing balance', 'camt', 'balance:x')
				RETURNING id)
			INSERT INTO valuations (entry_id, kind) SELECT id, 'checkpoint' FROM cp`, u.FamilyID, account).Exec(bg); err != nil {
			t.Fatal(err)
		}
		visit(t, ctx, srv.URL+"/accounts/"+account)
		wantText(t, ctx, "balance-differences", "1 balance differs from the bank")
		// Walked back from today's 1,000.00 through the salary: 700.00 on that day.
		wantText(t, ctx, "checkpoint-bank", "$950.00")
		wantText(t, ctx, "checkpoint-tally", "$700.00")
		wantText(t, ctx, "checkpoint-difference", "$250.00")
		if n := count(t, ctx, "chart-mark"); n != 1 {
			t.Errorf("%d marks on the chart, want the statement's day", n)
		}
		shot(t, ctx, "reconciliation-differs")
	})
	undo := func(t *testing.T) {
		t.Helper()
		click(t, ctx, "fix-undo")
		waitText(t, ctx, "flash-success", "The fix was undone.", 10*time.Second)
		wantText(t, ctx, "checkpoint-difference", "$250.00")
	}
	step(t, "a balance adjustment settles it, and is undone", func(t *testing.T) {
		click(t, ctx, "fix-adjust")
		waitText(t, ctx, "flash-success", "A balance adjustment of $250.00 was added on "+
			time.Now().UTC().AddDate(0, 0, -14).Format(time.DateOnly)+", left out of spending. Undo it under “Fixes you made”.", 10*time.Second)
		if n := count(t, ctx, "checkpoint-difference"); n != 0 {
			t.Errorf("%d differences left", n)
		}
		if n := count(t, ctx, "reconciliation-fix"); n != 1 {
			t.Errorf("%d fixes listed", n)
		}
		undo(t)
	})
	step(t, "trusting the bank makes its balance the anchor, and is undone", func(t *testing.T) {
		click(t, ctx, "fix-trust")
		waitText(t, ctx, "flash-success", "The bank's balance of "+time.Now().UTC().AddDate(0, 0, -15).Format(time.DateOnly)+
			" is now the one the history is walked from. Undo it under “Fixes you made”.", 10*time.Second)
		if got := text(t, ctx, "balance-anchor"); !strings.Contains(got, "$950.00") || !strings.Contains(got, "Balance from the bank") {
			t.Errorf("the anchor is described as %q", got)
		}
		// The balance typed at the start is now the one that differs: 250.00 the other way.
		wantText(t, ctx, "checkpoint-difference", "-$250.00")
		undo(t)
	})
	step(t, "a balance typed anew moves the anchor", func(t *testing.T) {
		click(t, ctx, "edit-account")
		refill(t, ctx, "field-balance", "1250.00")
		click(t, ctx, "save-account")
		visible(t, ctx, "balance-anchor")
		wantText(t, ctx, "account-balance", "$1,250.00")
		if n := count(t, ctx, "checkpoint-difference"); n != 1 {
			t.Errorf("%d differences: the first typed balance should differ from the new one", n)
		}
	})
}
