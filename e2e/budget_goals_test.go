package e2e

import (
	"context"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"tally/app/apptest"
	"tally/models"
	"tally/reports"
	"tally/testkit"
)

// TestBudgetGoalJourney is a person giving a category a goal on the budget page: a balance to
// reach in three months, the month budgeted towards it in one click, and the goal removed.
func TestBudgetGoalJourney(t *testing.T) {
	t.Parallel()
	ctx := newTab(t)
	srv := startServer(t, apptest.ServerOptions{NoWorker: true})
	u := testkit.MustCreateUser(t, srv.DB, testkit.UserOpts{})
	cat, err := models.CreateCategory(context.Background(), srv.DB, u.FamilyID, models.CategoryInput{Name: testkit.Ptr("Holiday")})
	if err != nil {
		t.Fatal(err)
	}
	id := cat.ID.String()
	month := reports.MonthOf(u.Family.Today())
	by := month.Next().Next()

	step(t, "set a goal of 1,200 in three months", func(t *testing.T) {
		signInAs(t, ctx, srv, u.Email)
		clickNav(t, ctx, "budgets")
		visible(t, ctx, "budget-table")
		click(t, ctx, "goal-toggle-"+id)
		choose(t, ctx, "goal-kind-"+id, "balance")
		fill(t, ctx, "goal-amount-"+id, "1,200")
		run(t, ctx, "pick the month", chromedp.SetValue(testID("goal-by-"+id), by.String()))
		click(t, ctx, "goal-save-"+id)
		waitText(t, ctx, "goal-"+id, "Goal $1,200.00 by "+by.First().Format("January 2006")+": $0.00 available, $1,200.00 to go", 10*time.Second)
		wantPath(t, ctx, "/budgets/"+month.String())
	})
	step(t, "budget the month towards it", func(t *testing.T) {
		click(t, ctx, "goal-toggle-"+id)
		click(t, ctx, "goal-fill-"+id)
		waitText(t, ctx, "available-"+id, "$400.00", 10*time.Second)
		if got := inputValue(t, ctx, "rollover-"+id); got != "surplus" {
			t.Errorf("Holiday's rollover is %q, want surplus: what it saves carries", got)
		}
		wantText(t, ctx, "goal-"+id, "Goal $1,200.00 by "+by.First().Format("January 2006")+": $400.00 available, $800.00 to go")
		shot(t, ctx, "budget-goal")
	})
	step(t, "remove the goal", func(t *testing.T) {
		click(t, ctx, "goal-toggle-"+id)
		click(t, ctx, "goal-remove-"+id)
		run(t, ctx, "wait for the goal to go", chromedp.WaitNotPresent(testID("goal-"+id)))
		if got := inputValue(t, ctx, "budgeted-"+id); got != "400.00" {
			t.Errorf("removing the goal changed the amount to %q", got)
		}
	})
}
