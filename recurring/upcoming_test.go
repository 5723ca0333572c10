package recurring_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"

	"tally/internal/apperr"
	"tally/models"
	"tally/recurring"
	"tally/reports"
	"tally/testkit"
)

// TestExpectedAndForecast confirms some of a household's series and reads what they still
// bring: by category for this month (paid so far, and still to come) and next month, the bills
// of the next days, and an account's balance over a year with the day it goes below zero.
// Proposed and ignored series bring nothing.
func TestExpectedAndForecast(t *testing.T) {
	t.Parallel()
	d := testkit.MustOpenDB(t)
	ctx := context.Background()
	today := day("2026-11-20") // a Friday
	f, txns, _ := mustHousehold(t, d, 1, today)
	var svc recurring.Service
	if _, err := svc.Detect(ctx, d, f.user.FamilyID, today); err != nil {
		t.Fatal(err)
	}
	series, err := models.RecurringByStatus(ctx, d, models.FamilyViewer(f.user.FamilyID), models.RecurringProposed)
	if err != nil {
		t.Fatal(err)
	}
	confirm := func(names ...string) {
		for _, n := range names {
			r := seriesNamed(t, series, n)
			if _, err := models.UpdateRecurring(ctx, d, models.FamilyViewer(f.user.FamilyID), r.ID, models.RecurringInput{Status: testkit.Ptr(models.RecurringConfirmed)}); err != nil {
				t.Fatal(err)
			}
		}
	}
	confirm("Rent flat 3B 11", "ACME Corp salary 10/2026", "Netflix", "City Power")
	if _, err := models.UpdateRecurring(ctx, d, models.FamilyViewer(f.user.FamilyID), seriesNamed(t, series, "Water Works").ID,
		models.RecurringInput{Status: testkit.Ptr(models.RecurringIgnored)}); err != nil {
		t.Fatal(err)
	}
	power, powerAvg := decimal.Zero, seriesNamed(t, series, "City Power").Amount
	for _, x := range txns {
		if x.merchant == "City Power" && x.date.Equal(today) {
			power = x.amount
		}
	}
	if power.IsZero() {
		t.Fatal("the history has no power bill today")
	}
	cat := func(name string) uuid.UUID { return f.categories[name] }
	dec := decimal.RequireFromString
	for _, c := range []struct {
		name  string
		month reports.Month
		want  map[uuid.UUID]recurring.Expected
	}{
		{"this month: rent, Netflix and power paid, the salary to come", reports.MonthOf(today), map[uuid.UUID]recurring.Expected{
			cat("Rent & mortgage"):    {Paid: dec("1200")},
			cat("Salary"):             {Upcoming: dec("-3200")},
			cat("Subscriptions"):      {Paid: dec("15.49")},
			cat("Energy & utilities"): {Paid: power},
		}},
		{"next month: all to come, power at its average", reports.MonthOf(today).Next(), map[uuid.UUID]recurring.Expected{
			cat("Rent & mortgage"):    {Upcoming: dec("1200")},
			cat("Salary"):             {Upcoming: dec("-3200")},
			cat("Subscriptions"):      {Upcoming: dec("15.49")},
			cat("Energy & utilities"): {Upcoming: powerAvg},
		}},
		{"a month past: only what was paid", reports.MonthOf(today).Prev(), map[uuid.UUID]recurring.Expected{
			cat("Rent & mortgage"): {Paid: dec("1200")},
			cat("Salary"):          {Paid: dec("-3200")},
			cat("Subscriptions"):   {Paid: dec("15.49")},
			cat("Energy & utilities"): {Paid: func() decimal.Decimal {
				for _, x := range txns {
					if x.merchant == "City Power" && x.date.Month() == time.October && x.date.Year() == 2026 {
						return x.amount
					}
				}
				return decimal.Zero
			}()},
		}},
	} {
		got, err := svc.ExpectedByCategory(ctx, d, models.FamilyViewer(f.user.FamilyID), c.month, today)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(c.want) {
			t.Errorf("%s: %d categories %v, want %d", c.name, len(got), got, len(c.want))
		}
		for k, w := range c.want {
			if g := got[k]; !g.Paid.Equal(w.Paid) || !g.Upcoming.Equal(w.Upcoming) {
				t.Errorf("%s: category %s paid %s upcoming %s, want %s and %s", c.name, k, g.Paid, g.Upcoming, w.Paid, w.Upcoming)
			}
		}
	}

	// This month's rent split into the rent and a share of the power: each part is paid in
	// its own category, as the budget's spent counts it.
	if _, err := d.NewRaw(`INSERT INTO entries (id, family_id, account_id, kind, date, amount, currency, name, category_id, parent_id)
		SELECT gen_random_uuid(), e.family_id, e.account_id, 'transaction', e.date, x.amount, e.currency, e.name, x.category, e.id
		FROM entries e, (VALUES (1000::numeric, ?::uuid), (200, ?::uuid)) x(amount, category)
		WHERE e.family_id = ? AND e.amount = 1200 AND e.date >= '2026-11-01' AND e.parent_id IS NULL`,
		cat("Rent & mortgage"), cat("Energy & utilities"), f.user.FamilyID).Exec(ctx); err != nil {
		t.Fatal(err)
	}
	split, err := svc.ExpectedByCategory(ctx, d, models.FamilyViewer(f.user.FamilyID), reports.MonthOf(today), today)
	if err != nil {
		t.Fatal(err)
	}
	if rent, energy := split[cat("Rent & mortgage")].Paid, split[cat("Energy & utilities")].Paid; !rent.Equal(dec("1000")) || !energy.Equal(power.Add(dec("200"))) {
		t.Errorf("the split rent: rent paid %s, power paid %s; want 1000 and %s", rent, energy, power.Add(dec("200")))
	}

	bills, err := svc.Upcoming(ctx, d, models.FamilyViewer(f.user.FamilyID), today, 14)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, b := range bills {
		names = append(names, b.Date.Format(time.DateOnly)+" "+b.Name+" "+b.Amount.String())
	}
	if want := []string{"2026-11-30 ACME Corp salary 10/2026 -3200", "2026-12-01 Rent flat 3B 11 1200"}; !slices.Equal(names, want) {
		t.Errorf("the next 14 days bring %v, want %v", names, want)
	}

	// The gym, 12 every Monday from the card account's 500, and nothing else on that account.
	gym := seriesNamed(t, series, "Fit Gym")
	if _, err := models.UpdateRecurring(ctx, d, models.FamilyViewer(f.user.FamilyID), gym.ID, models.RecurringInput{Status: testkit.Ptr(models.RecurringConfirmed)}); err != nil {
		t.Fatal(err)
	}
	if _, err := models.UpdateRecurring(ctx, d, models.FamilyViewer(f.user.FamilyID), seriesNamed(t, series, "Netflix").ID,
		models.RecurringInput{Status: testkit.Ptr(models.RecurringProposed)}); err != nil {
		t.Fatal(err)
	}
	fc, err := svc.Forecast(ctx, d, models.FamilyViewer(f.user.FamilyID), f.accounts[1].ID, today, 365)
	if err != nil {
		t.Fatal(err)
	}
	if len(fc.Days) != 365 || !fc.Balance.Equal(dec("500")) || !fc.Days[0].Balance.Equal(dec("500")) {
		t.Fatalf("%d days from %s (%s today)", len(fc.Days), fc.Balance, fc.Days[0].Balance)
	}
	if nov23 := fc.Days[3]; nov23.Date.Format(time.DateOnly) != "2026-11-23" || !nov23.Balance.Equal(dec("488")) || len(nov23.Bills) != 1 {
		t.Errorf("Monday the 23rd: %s %s %d bills, want 488 after the gym", nov23.Date, nov23.Balance, len(nov23.Bills))
	}
	if fc.BelowZero == nil || fc.BelowZero.Format(time.DateOnly) != "2027-09-06" {
		t.Errorf("below zero on %v, want 2027-09-06, the 42nd Monday", fc.BelowZero)
	}

	for _, c := range []struct {
		name    string
		account uuid.UUID
		days    int
		field   string
	}{
		{"no days", f.accounts[0].ID, 0, "days"},
		{"more than a year", f.accounts[0].ID, 366, "days"},
		{"a credit card", testkit.MustCreateAccount(t, d, f.user.FamilyID, "Card", "CreditCard", "0").ID, 30, "account_id"},
	} {
		_, err := svc.Forecast(ctx, d, models.FamilyViewer(f.user.FamilyID), c.account, today, c.days)
		if ae := apperr.As(err); ae == nil || ae.Fields[c.field] == nil {
			t.Errorf("%s: %v, want a problem on %s", c.name, err, c.field)
		}
	}
	other := testkit.MustCreateUser(t, d, testkit.UserOpts{})
	if _, err := svc.Forecast(ctx, d, models.FamilyViewer(other.FamilyID), f.accounts[0].ID, today, 30); !apperr.Is(err, apperr.NotFound) {
		t.Errorf("another family's account: %v, want not found", err)
	}
}
