package e2e

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/google/uuid"
	"github.com/shopspring/decimal"

	"tally/app/apptest"
	"tally/budgets"
	"tally/models"
	"tally/recurring"
	"tally/reports"
	"tally/testkit"
)

// TestTheSecondMonth is a household in its second month: rent found as a series before its
// payments were categorised and paid on the 1st, Kita and Kindergeld still to come without a
// category, and "Essen & Trinken" whose groceries carry a surplus while eating out is
// overspent. The person confirms the rent on the recurring page, which shows the category it
// takes; the dashboard then names only eating out as over, not the rent, and shows the bills
// and the income to come apart; the budget shows the group's available as its parts' and which is overspent.
func TestTheSecondMonth(t *testing.T) {
	t.Parallel()
	ctx := newTab(t)
	srv := startServer(t, apptest.ServerOptions{NoWorker: true})
	bg := context.Background()
	u := testkit.MustCreateUser(t, srv.DB, testkit.UserOpts{})
	acct := testkit.MustCreateAccount(t, srv.DB, u.FamilyID, "Girokonto", "Depository", "9000")
	today := u.Family.Today()
	first := time.Date(today.Year(), today.Month(), 1, 0, 0, 0, 0, time.UTC)
	due := min(today.Day(), 28)
	cats := map[string]uuid.UUID{}
	for _, c := range []struct{ name, parent string }{{"Wohnen", ""}, {"Essen & Trinken", ""}, {"Lebensmittel", "Essen & Trinken"}, {"Restaurant", "Essen & Trinken"}} {
		in := models.CategoryInput{Name: testkit.Ptr(c.name)}
		if c.parent != "" {
			p := testkit.Ptr(cats[c.parent])
			in.ParentID = &p
		}
		cat, err := models.CreateCategory(bg, srv.DB, u.FamilyID, in)
		if err != nil {
			t.Fatal(err)
		}
		cats[c.name] = cat.ID
	}
	pay := func(date time.Time, amount, name, category string) {
		var cat *uuid.UUID
		if category != "" {
			cat = testkit.Ptr(cats[category])
		}
		if _, err := srv.DB.NewRaw(`INSERT INTO entries (id, family_id, account_id, kind, date, amount, currency, name, category_id, transaction_kind)
			VALUES (gen_random_uuid(), ?, ?, 'transaction', ?, ?, 'USD', ?, ?, 'standard')`,
			u.FamilyID, acct.ID, date.Format(time.DateOnly), amount, name, cat).Exec(bg); err != nil {
			t.Fatal(err)
		}
	}
	for m := 4; m >= 1; m-- {
		pay(first.AddDate(0, -m, 0), "1200.00", "Hausverwaltung Berg", "")
		pay(first.AddDate(0, -m, due-1), "720.00", "Kita Sonnenschein", "")
		pay(first.AddDate(0, -m, due-1), "-259.00", "Familienkasse Kindergeld", "")
	}
	// What the job after an import does; then the household categorises the rent.
	var series recurring.Service
	if _, err := series.Detect(bg, srv.DB, u.FamilyID, today); err != nil {
		t.Fatal(err)
	}
	if _, err := srv.DB.NewRaw(`UPDATE entries SET category_id = ? WHERE name = 'Hausverwaltung Berg'`, cats["Wohnen"]).Exec(bg); err != nil {
		t.Fatal(err)
	}
	pay(first, "1200.00", "Hausverwaltung Berg", "Wohnen")
	pay(first.AddDate(0, -1, 14), "400.00", "Markt", "Lebensmittel")
	pay(first.AddDate(0, -1, 14), "150.00", "Pizzeria", "Restaurant")
	pay(first, "100.00", "Markt", "Lebensmittel")
	pay(first, "80.00", "Pizzeria", "Restaurant")
	plans := &budgets.Service{DB: srv.DB}
	month := reports.MonthOf(today)
	for _, m := range []reports.Month{month.Prev(), month} {
		for name, amount := range map[string]int64{"Wohnen": 1200, "Lebensmittel": 600, "Restaurant": 100} {
			b := decimal.NewFromInt(amount)
			if err := plans.SetCategory(bg, u.Family, m, cats[name], budgets.Change{Budgeted: &b}); err != nil {
				t.Fatal(err)
			}
		}
	}
	for name, rollover := range map[string]string{"Lebensmittel": budgets.RolloverSurplus, "Restaurant": budgets.RolloverBoth} {
		if err := plans.SetCategory(bg, u.Family, month, cats[name], budgets.Change{Rollover: &rollover}); err != nil {
			t.Fatal(err)
		}
	}

	step(t, "the rent shows the category it takes, and is confirmed with the others", func(t *testing.T) {
		signInAs(t, ctx, srv, u.Email)
		clickNav(t, ctx, "recurring")
		visible(t, ctx, "recurring-proposed")
		if !pageContains(t, ctx, "Wohnen") {
			t.Error("the proposed rent does not show the category its payments carry")
		}
		for _, name := range []string{"Hausverwaltung Berg", "Kita Sonnenschein", "Familienkasse Kindergeld"} {
			run(t, ctx, "confirm "+name, chromedp.Click(chromedp.CSS(`button[aria-label="Confirm `+name+`"]`)))
			run(t, ctx, name+" turns confirmed", chromedp.WaitVisible(chromedp.CSS(`tr[data-status="confirmed"] button[aria-label="Ignore `+name+`"]`)))
		}
	})
	step(t, "the dashboard: the rent paid is not heading over, bills and income to come apart", func(t *testing.T) {
		clickNav(t, ctx, "dashboard")
		visible(t, ctx, "this-month-over")
		if over := text(t, ctx, "this-month-over"); strings.Contains(over, "Wohnen") || !strings.Contains(over, "Restaurant") {
			t.Errorf("over or heading over: %q; want eating out alone", over)
		}
		wantText(t, ctx, "this-month-bills", "$720.00 in bills still to come")
		wantText(t, ctx, "this-month-income", "$259.00 in income still to come")
		shot(t, ctx, "second-month-dashboard")
	})
	step(t, "the budget: the group's available is its parts', eating out overspent", func(t *testing.T) {
		clickNav(t, ctx, "budgets")
		visible(t, ctx, "budget-table")
		wantText(t, ctx, "available-"+cats["Essen & Trinken"].String(), "$670.00")
		parts := text(t, ctx, "available-parts-"+cats["Essen & Trinken"].String())
		if !strings.Contains(parts, "Restaurant") || !strings.Contains(parts, "overspent") {
			t.Errorf("the group's parts read %q", parts)
		}
		wantText(t, ctx, "income-to-come", "$259.00")
		shot(t, ctx, "second-month-budget")
	})
}
