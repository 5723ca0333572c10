package e2e

import (
	"context"
	"testing"
	"time"

	"github.com/google/uuid"

	"tally/app/apptest"
	"tally/testkit"
)

// TestRulesPage is a person making a rule on Settings › Rules: the live preview counts the
// transactions it matches as they type, a rule that cannot run is refused on its row, and the
// saved rule is applied to existing transactions from the list and undone there, then applied
// as it is saved.
func TestRulesPage(t *testing.T) {
	t.Parallel()
	ctx := newTab(t)
	srv := startServer(t, apptest.ServerOptions{})
	u := testkit.MustCreateUser(t, srv.DB, testkit.UserOpts{})
	acct := testkit.MustCreateAccount(t, srv.DB, u.FamilyID, "Girokonto", "Depository", "")
	bg := context.Background()
	groceries := uuid.Must(uuid.NewV7())
	if _, err := srv.DB.NewRaw("INSERT INTO categories (id, family_id, name) VALUES (?, ?, 'Groceries')", groceries, u.FamilyID).Exec(bg); err != nil {
		t.Fatal(err)
	}
	for i, name := range []string{"REWE Markt 0815", "rewe city", "Cinema", "REWE To Go"} {
		if _, err := srv.DB.NewRaw(`INSERT INTO entries (id, family_id, account_id, kind, date, amount, currency, name)
			VALUES (?, ?, ?, 'transaction', ?, ?, 'EUR', ?)`, uuid.Must(uuid.NewV7()), u.FamilyID, acct.ID,
			time.Date(2026, 3, 1+i, 0, 0, 0, 0, time.UTC), 10+i, name).Exec(bg); err != nil {
			t.Fatal(err)
		}
	}
	categorised := func() int {
		var n int
		if err := srv.DB.NewRaw("SELECT count(*) FROM entries WHERE family_id = ? AND category_id = ?", u.FamilyID, groceries).Scan(bg, &n); err != nil {
			t.Fatal(err)
		}
		return n
	}

	step(t, "open the rules page from the sidebar", func(t *testing.T) {
		signInAs(t, ctx, srv, u.Email)
		clickNav(t, ctx, "rules")
		visible(t, ctx, "rules-empty")
		click(t, ctx, "rule-new")
		visible(t, ctx, "rule-form")
	})
	step(t, "the preview counts what the rule matches while it is typed", func(t *testing.T) {
		fill(t, ctx, "field-name", "Supermarket")
		fill(t, ctx, "field-cond_0_value", "rewe")
		waitText(t, ctx, "preview-count", "3 existing transactions match.", 10*time.Second)
		if n := count(t, ctx, "preview-row"); n != 3 {
			t.Fatalf("the preview lists %d transactions", n)
		}
		shot(t, ctx, "rule-preview")
	})
	step(t, "a rule that cannot run is refused on its row", func(t *testing.T) {
		choose(t, ctx, "field-cond_1_field", "transaction_name")
		choose(t, ctx, "field-cond_1_op", "matches")
		fill(t, ctx, "field-cond_1_value", "(unclosed")
		choose(t, ctx, "field-action_category", groceries.String())
		click(t, ctx, "rule-save")
		visible(t, ctx, "error-cond_1")
		if n := count(t, ctx, "rule-form"); n != 1 {
			t.Fatal("the form is not shown again")
		}
	})
	step(t, "saved, it is listed in words", func(t *testing.T) {
		choose(t, ctx, "field-cond_1_field", "")
		click(t, ctx, "rule-save")
		waitText(t, ctx, "flash-success", "The rule is saved. It runs on every new transaction.", 10*time.Second)
		wantPath(t, ctx, "/settings/rules")
		wantText(t, ctx, "rule-conditions", "When name contains “rewe”")
		wantText(t, ctx, "rule-actions", "Then category Groceries")
		checkAccessible(t, ctx, axeSource(t), "/settings/rules with a rule")
	})
	step(t, "applied to existing transactions from the list, and undone there", func(t *testing.T) {
		click(t, ctx, "rule-apply")
		waitText(t, ctx, "flash-success", "“Supermarket” changed 3 existing transactions; you can undo that below for 30 days.", 10*time.Second)
		if n := categorised(); n != 3 {
			t.Fatalf("%d transactions categorised after apply, want 3", n)
		}
		if n := count(t, ctx, "rule-application"); n != 1 {
			t.Fatalf("%d applications offered to undo, want 1", n)
		}
		shot(t, ctx, "rule-applied")
		click(t, ctx, "rule-undo")
		waitText(t, ctx, "flash-success", "Undone: the transactions are as they were.", 10*time.Second)
		if n := categorised(); n != 0 {
			t.Fatalf("%d transactions still categorised after undo", n)
		}
		if n := count(t, ctx, "rule-application"); n != 0 {
			t.Errorf("an undone application is still offered: %d", n)
		}
	})
	step(t, "applied when saved", func(t *testing.T) {
		click(t, ctx, "rule-name")
		visible(t, ctx, "rule-form")
		click(t, ctx, "field-apply")
		click(t, ctx, "rule-save")
		waitText(t, ctx, "flash-success", "The rule is saved. It runs on every new transaction. “Supermarket” changed 3 existing transactions; you can undo that below for 30 days.", 10*time.Second)
		wantPath(t, ctx, "/settings/rules")
		if n := categorised(); n != 3 {
			t.Fatalf("%d transactions categorised after saving with apply, want 3", n)
		}
		visible(t, ctx, "rule-undo")
	})
}
