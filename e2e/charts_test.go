package e2e

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/google/uuid"
	"github.com/shopspring/decimal"

	"tally/app/apptest"
	"tally/models"
	"tally/testkit"
)

// TestCharts is a person reading the charts: net worth over the last 30 days on the
// dashboard, switched to 90 days in place (the address follows, for the back button and a
// bookmark), its numbers in the table behind "Show data", the month's spending by category a
// link away, and an account's balance on its page, as wide as a phone's screen and no wider.
func TestCharts(t *testing.T) {
	t.Parallel()
	ctx := newTab(t)
	srv := startServer(t, apptest.ServerOptions{NoWorker: true})
	bg := context.Background()
	u := testkit.MustCreateUser(t, srv.DB, testkit.UserOpts{})
	today := (&models.Family{Timezone: "UTC"}).Today()
	checking, err := models.CreateAccount(bg, srv.DB, u.FamilyID, models.AccountInput{Name: "Checking", AccountableType: "Depository",
		Currency: "USD", Balance: testkit.Ptr(decimal.NewFromInt(2500)), BalanceDate: today.AddDate(0, 0, -60)})
	if err != nil {
		t.Fatal(err)
	}
	testkit.MustCreateAccount(t, srv.DB, u.FamilyID, "Visa", "CreditCard", "")
	if _, err := srv.DB.NewRaw(`INSERT INTO entries (id, family_id, account_id, kind, date, amount, currency, name)
		VALUES (gen_random_uuid(), ?, ?, 'transaction', ?, 500, 'USD', 'Rent')`, u.FamilyID, checking.ID, today.AddDate(0, 0, -7)).Exec(bg); err != nil {
		t.Fatal(err)
	}
	if err := models.RecomputeBalances(bg, srv.DB, []uuid.UUID{checking.ID}); err != nil {
		t.Fatal(err)
	}
	rows := func(t *testing.T, card string) int {
		t.Helper()
		js := fmt.Sprintf(`document.querySelectorAll('[data-testid=%q] [data-testid="chart-data-row"]').length`, card)
		return run(t, ctx, "count the rows of "+card, chromedp.Evaluate[int](js))
	}

	step(t, "the dashboard draws net worth over the last 30 days", func(t *testing.T) {
		signInAs(t, ctx, srv, u.Email)
		visit(t, ctx, srv.URL+"/")
		visible(t, ctx, "chart-svg")
		if got := attr(t, ctx, "range-30d", "aria-current"); got != "true" {
			t.Errorf("30 days is not the current range: %q", got)
		}
		if label := attr(t, ctx, "chart-svg", "aria-label"); !strings.Contains(label, "$2,000.00 at the end") {
			t.Errorf("the chart says %q", label)
		}
		if n := rows(t, "net-worth-history"); n != 30 {
			t.Errorf("%d rows of data, want 30", n)
		}
		shot(t, ctx, "charts-dashboard")
	})
	step(t, "90 days swaps the chart in place and puts the range in the address", func(t *testing.T) {
		run(t, ctx, "mark the page", chromedp.Evaluate[bool](`window.notReloaded = true`))
		click(t, ctx, "range-90d")
		deadline := time.Now().Add(10 * time.Second)
		for rows(t, "net-worth-history") != 90 && time.Now().Before(deadline) {
			time.Sleep(100 * time.Millisecond)
		}
		if n := rows(t, "net-worth-history"); n != 90 {
			t.Fatalf("%d rows after choosing 90 days", n)
		}
		if !run(t, ctx, "check the mark", chromedp.Evaluate[bool](`window.notReloaded === true`)) {
			t.Error("the page was loaded again instead of the chart alone")
		}
		if loc := run(t, ctx, "read location", chromedp.Location()); !strings.HasSuffix(loc, "/?range=90d") {
			t.Errorf("the address is %s", loc)
		}
		if got := attr(t, ctx, "range-90d", "aria-current"); got != "true" {
			t.Errorf("90 days is not marked as the current range: %q", got)
		}
	})
	step(t, "Show data opens the table of the same numbers", func(t *testing.T) {
		if n := run(t, ctx, "count visible tables", chromedp.Evaluate[int](`document.querySelector('[data-testid="chart-data-table"]').checkVisibility() ? 1 : 0`)); n != 0 {
			t.Fatal("the data table shows before it is asked for")
		}
		click(t, ctx, "chart-data-toggle")
		visible(t, ctx, "chart-data-table")
		last := run(t, ctx, "read the last row", chromedp.Evaluate[string](
			`[...document.querySelectorAll('[data-testid="chart-data-row"]')].pop().innerText.replace(/\s+/g, " ").trim()`))
		if want := today.Format(time.DateOnly) + " $2,000.00"; last != want {
			t.Errorf("the last row reads %q, want %q", last, want)
		}
		shot(t, ctx, "charts-data")
	})
	step(t, "the dashboard leads to spending by category", func(t *testing.T) {
		click(t, ctx, "spending-link")
		visible(t, ctx, "bar-chart-svg")
		wantText(t, ctx, "spending-month", today.Format("January 2006"))
		// The rent is this month's, or last month's early in a month: either way it is the
		// longest bar, this month's or the thin one of the month before.
		if w, p := attr(t, ctx, "bar", "width"), attr(t, ctx, "bar-previous", "width"); w != "100%" && p != "100%" {
			t.Errorf("the bars are %s and %s wide", w, p)
		}
		click(t, ctx, "chart-data-toggle")
		if row := text(t, ctx, "chart-data-row"); !strings.Contains(row, "Uncategorised") || !strings.Contains(row, "$500.00") {
			t.Errorf("the table's row reads %q", row)
		}
		shot(t, ctx, "charts-spending")
	})
	step(t, "the account's page draws its balance, within a phone's width", func(t *testing.T) {
		run(t, ctx, "use a phone's screen", chromedp.EmulateViewport(390, 844))
		visit(t, ctx, srv.URL+"/accounts/"+checking.ID.String())
		visible(t, ctx, "balance-history")
		if n := rows(t, "balance-history"); n != 90 {
			t.Errorf("%d rows of the account's balance, want 90", n)
		}
		if label := attr(t, ctx, "chart-svg", "aria-label"); !strings.Contains(label, "Balance (USD) daily") || !strings.Contains(label, "highest $2,500.00") {
			t.Errorf("the account's chart says %q", label)
		}
		widths := run(t, ctx, "measure the chart", chromedp.Evaluate[[]int](
			`[Math.round(document.querySelector('[data-testid="chart-svg"]').getBoundingClientRect().right), document.documentElement.scrollWidth]`))
		if widths[0] > 390 || widths[1] > 390 {
			t.Errorf("on a 390 px screen the chart ends at %d px and the page is %d px wide", widths[0], widths[1])
		}
		shot(t, ctx, "charts-account-phone")
	})
}
