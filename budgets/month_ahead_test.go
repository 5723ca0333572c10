package budgets_test

import (
	"context"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"tally/budgets"
	"tally/models"
	"tally/recurring"
	"tally/reports"
	"tally/testkit"
)

// TestAYearOfHistoryPlansTheMonth is the "done means", on the real recurring series
// rather than a stand-in: a family with a year of history finds its series, confirms rent,
// the car insurance and the salary, fills November from its 3-month averages in one step,
// and sees Groceries heading over while rent, the insurance and the salary are still to come.
// The month's spending is the spending report's.
func TestAYearOfHistoryPlansTheMonth(t *testing.T) {
	ctx := context.Background()
	d := testkit.MustOpenDB(t)
	h := newHousehold(t, d)
	today := time.Date(2026, 11, 10, 0, 0, 0, 0, time.UTC)
	write := func(date time.Time, amount, name, category string) {
		h.exec(t, `INSERT INTO entries (id, family_id, account_id, kind, date, amount, currency, name, category_id, transaction_kind)
			VALUES (gen_random_uuid(), ?, ?, 'transaction', ?, ?, 'USD', ?, ?, 'standard')`,
			h.fam.ID, h.acct.ID, date.Format(time.DateOnly), amount, name, h.cats[category].ID)
	}
	groceries3 := decimal.Zero // August to October
	// Twelve months of bills and pay, November's not yet due; groceries at shops of their
	// own, amounts that follow no rule, about 400 a month.
	for m := 12; m >= 0; m-- {
		first := time.Date(2026, 11-time.Month(m), 1, 0, 0, 0, 0, time.UTC)
		if m > 0 {
			write(first.AddDate(0, 0, 14), "1200.00", "Oak Street Rentals", "Rent")
			write(first.AddDate(0, 0, 19), "80.00", "Harbor Car Insurance", "Insurance")
			write(recurring.LastWorkingDay(first.Year(), first.Month()), "-3000.00", "ACME Payroll", "Salary")
			// Each month's amounts 3 % or more apart from any other month's: no series.
			swing := decimal.NewFromInt(int64([]int{0, 9, 18, 4, 13, 22, 8, 17, 2, 11, 20, 6}[m%12])).Mul(decimal.RequireFromString("0.03"))
			for i, base := range []string{"61.20", "118.45", "87.10", "133.25"} {
				amt := decimal.RequireFromString(base).Mul(decimal.NewFromInt(1).Add(swing)).Round(2)
				if m <= 3 {
					groceries3 = groceries3.Add(amt)
				}
				write(first.AddDate(0, 0, 3+7*i+m%3), amt.String(), []string{"Corner Market", "FreshCo", "Bio Shop", "Farmers Hall"}[i], "Groceries")
			}
		}
	}
	average := groceries3.Div(decimal.NewFromInt(3)).Round(2)
	// November so far: 430 of groceries in ten days, at a pace well past the average.
	for i, amt := range []string{"140.00", "150.00", "140.00"} {
		write(today.AddDate(0, 0, -8+3*i), amt, "Corner Market", "Groceries")
	}

	var series recurring.Service
	if _, err := series.Detect(ctx, d, h.fam.ID, today); err != nil {
		t.Fatal(err)
	}
	found, err := models.RecurringByStatus(ctx, d, models.FamilyViewer(h.fam.ID), models.RecurringProposed)
	if err != nil {
		t.Fatal(err)
	}
	confirmed := map[string]bool{}
	for _, r := range found {
		if _, err := models.UpdateRecurring(ctx, d, models.FamilyViewer(h.fam.ID), r.ID, models.RecurringInput{Status: testkit.Ptr(models.RecurringConfirmed)}); err != nil {
			t.Fatal(err)
		}
		confirmed[r.Name] = true
	}
	if len(confirmed) != 3 {
		t.Fatalf("found the series %v, want rent, the car insurance and the salary", confirmed)
	}

	svc := &budgets.Service{DB: d, Bills: &series}
	nov := reports.MonthOf(today)
	if err := svc.Fill(ctx, h.fam, models.FamilyViewer(h.fam.ID), nov, budgets.Fill{Strategy: budgets.FillAverage3}, today); err != nil {
		t.Fatal(err)
	}
	m, err := svc.Month(ctx, h.fam, models.FamilyViewer(h.fam.ID), nov, today)
	if err != nil {
		t.Fatal(err)
	}
	want := func(name string, budgeted decimal.Decimal, upcoming string) *budgets.Category {
		t.Helper()
		c := m.Category(h.cats[name].ID)
		if c == nil {
			t.Fatalf("%s is not in the month", name)
		}
		if !c.Budgeted.Equal(budgeted) || !c.Upcoming.Equal(decimal.RequireFromString(upcoming)) {
			t.Errorf("%s: budgeted %s, upcoming %s; want %s and %s", name, c.Budgeted, c.Upcoming, budgeted, upcoming)
		}
		return c
	}
	groceries := want("Groceries", average, "0")
	if groceries.Status != budgets.StatusNear || !groceries.Forecast.GreaterThan(groceries.Limit()) {
		t.Errorf("Groceries at 430 of about 400 by the 10th: status %q, forecast %s; want heading over", groceries.Status, groceries.Forecast)
	}
	want("Rent", decimal.NewFromInt(1200), "1200")
	want("Insurance", decimal.NewFromInt(80), "80")
	want("Salary", decimal.Zero, "-3000")
	if !m.Bills.Equal(decimal.NewFromInt(1280)) {
		t.Errorf("bills still to come %s, want 1280 (rent and insurance; the salary comes in)", m.Bills)
	}

	report, err := reports.MonthSpending(ctx, d, models.FamilyViewer(h.fam.ID), nov)
	if err != nil || len(report) != 1 {
		t.Fatalf("spending report: %v, %d currencies", err, len(report))
	}
	if !m.Spent.Equal(report[0].Total) {
		t.Errorf("the budget spent %s, the spending report %s", m.Spent, report[0].Total)
	}
}

// TestBillsPaidInAnotherCurrencyExplainTheirSpending pins the one rule of conversion: a
// confirmed weekly series paid in euros in October, the family's currency dollars. October's
// budget converts the category's spending at its last day's rate, each category's sum at once;
// what the series paid must be converted the same way, so that it explains the spending to the
// cent and the category, whose bills are all paid, is on track. Converted at today's rate (the
// euro fell since), or payment by payment (13.01 four times is 52.04, 40.04 at once is 52.05),
// the bills would explain less than was spent, and the category would show as nearly over.
func TestBillsPaidInAnotherCurrencyExplainTheirSpending(t *testing.T) {
	ctx := context.Background()
	d := testkit.MustOpenDB(t)
	h := newHousehold(t, d)
	h.exec(t, `INSERT INTO exchange_rates (id, family_id, date, base, quote, rate, source) VALUES
		(gen_random_uuid(), ?0, '2026-10-30', 'EUR', 'USD', 1.3, 'family'),
		(gen_random_uuid(), ?0, '2026-11-02', 'EUR', 'USD', 1.1, 'family')`, h.fam.ID)
	for _, date := range []string{"2026-10-05", "2026-10-12", "2026-10-19", "2026-10-26"} {
		h.spend(t, date, "10.01", "Insurance", "EUR")
	}
	h.exec(t, `INSERT INTO recurring_transactions (id, family_id, name, amount, currency, interval, category_id,
			expected_day_of_month, last_occurrence_date, next_expected_date, status, match_key)
		VALUES (gen_random_uuid(), ?, 'spend', 10.01, 'EUR', 'weekly', ?, 26, '2026-10-26', '2026-11-02', ?, recurring_key(NULL, 'spend'))`,
		h.fam.ID, h.cats["Insurance"].ID, models.RecurringConfirmed)
	svc := &budgets.Service{DB: d, Bills: &recurring.Service{}}
	h.put(t, svc, "2026-10", "", "Insurance", "55")

	m, err := svc.Month(ctx, h.fam, models.FamilyViewer(h.fam.ID), month("2026-10"), day("2026-11-15"))
	if err != nil {
		t.Fatal(err)
	}
	c := m.Category(h.cats["Insurance"].ID)
	if c == nil || c.Spent.StringFixed(2) != "52.05" || c.Status != budgets.StatusOnTrack {
		t.Fatalf("Insurance in October: %+v; want 52.05 spent (40.04 EUR at 1.3), on track: the series paid all of it", c)
	}
}
