package e2e

import (
	"context"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"tally/app/apptest"
	"tally/models"
	"tally/reports"
	"tally/testkit"
)

// TestBudgetJourney is a person planning this month on the budget page: an amount typed in
// place, every category filled from its 3-month average in one click, and a category cut
// below what it spent marked over.
func TestBudgetJourney(t *testing.T) {
	t.Parallel()
	ctx := newTab(t)
	srv := startServer(t, apptest.ServerOptions{NoWorker: true})
	u := testkit.MustCreateUser(t, srv.DB, testkit.UserOpts{})
	acct := testkit.MustCreateAccount(t, srv.DB, u.FamilyID, "Checking", "Depository", "5000")
	bg := context.Background()
	ids := map[string]string{}
	for _, name := range []string{"Groceries", "Rent"} {
		cat, err := models.CreateCategory(bg, srv.DB, u.FamilyID, models.CategoryInput{Name: testkit.Ptr(name)})
		if err != nil {
			t.Fatal(err)
		}
		ids[name] = cat.ID.String()
	}
	month := reports.MonthOf(u.Family.Today())
	// Groceries took 240, 300 and 360 in the three months before (300 on average); 120 this month.
	for i, amount := range []string{"360", "300", "240"} {
		m := month
		for range i + 1 {
			m = m.Prev()
		}
		if _, err := srv.DB.NewRaw(`INSERT INTO entries (id, family_id, account_id, kind, date, amount, currency, name, category_id)
			VALUES (gen_random_uuid(), ?, ?, 'transaction', ?, ?, 'USD', 'Market', ?)`, u.FamilyID, acct.ID, m.First().AddDate(0, 0, 9), amount, ids["Groceries"]).Exec(bg); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := srv.DB.NewRaw(`INSERT INTO entries (id, family_id, account_id, kind, date, amount, currency, name, category_id)
		VALUES (gen_random_uuid(), ?, ?, 'transaction', ?, 120, 'USD', 'Market', ?)`, u.FamilyID, acct.ID, month.First(), ids["Groceries"]).Exec(bg); err != nil {
		t.Fatal(err)
	}

	step(t, "open this month's budget from the sidebar", func(t *testing.T) {
		signInAs(t, ctx, srv, u.Email)
		clickNav(t, ctx, "budgets")
		visible(t, ctx, "budget-table")
		wantPath(t, ctx, "/budgets/"+month.String())
		wantText(t, ctx, "spent", "$120.00")
	})
	step(t, "type Rent's amount in place", func(t *testing.T) {
		refill(t, ctx, "budgeted-"+ids["Rent"], "1,250")
		run(t, ctx, "press Enter", chromedp.SendKeys(testID("budgeted-"+ids["Rent"]), kb.Enter))
		waitText(t, ctx, "available-"+ids["Rent"], "$1,250.00", 10*time.Second)
		wantPath(t, ctx, "/budgets/"+month.String())
	})
	step(t, "fill every category from its 3-month average", func(t *testing.T) {
		choose(t, ctx, "fill-strategy", "average_3")
		click(t, ctx, "fill-submit")
		waitText(t, ctx, "available-"+ids["Groceries"], "$180.00", 10*time.Second)
		if got := inputValue(t, ctx, "budgeted-"+ids["Groceries"]); got != "300.00" {
			t.Errorf("Groceries is budgeted %q, want 300.00", got)
		}
		shot(t, ctx, "budget-filled")
	})
	step(t, "cut Groceries below what it spent: marked over", func(t *testing.T) {
		refill(t, ctx, "budgeted-"+ids["Groceries"], "100")
		run(t, ctx, "press Enter", chromedp.SendKeys(testID("budgeted-"+ids["Groceries"]), kb.Enter))
		waitText(t, ctx, "available-"+ids["Groceries"], "-$20.00", 10*time.Second)
		if got := text(t, ctx, "status-"+ids["Groceries"]); len(got) < 4 || got[:4] != "Over" {
			t.Errorf("Groceries' status reads %q", got)
		}
		js := `document.querySelector('[data-testid="budget-row"][data-status="over"]').dataset.id`
		if got := run(t, ctx, "find the row marked over", chromedp.Evaluate[string](js)); got != ids["Groceries"] {
			t.Errorf("the row marked over is %s", got)
		}
	})
}
