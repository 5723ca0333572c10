package reports_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"

	"tally/internal/db"
	"tally/models"
	"tally/reports"
	"tally/testkit"
)

// mustRate stores an exchange rate: fetched (family nil) or the family's own.
func mustRate(t *testing.T, d *db.DB, family *uuid.UUID, date, base, quote, rate string) {
	t.Helper()
	source := "ecb"
	if family != nil {
		source = "family"
	}
	if _, err := d.NewRaw(`INSERT INTO exchange_rates (id, family_id, date, base, quote, rate, source) VALUES (?, ?, ?, ?, ?, ?, ?)`,
		uuid.Must(uuid.NewV7()), family, date, base, quote, rate, source).Exec(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// mustAccount creates an account in currency with its balance typed on day.
func mustAccount(t *testing.T, d *db.DB, family uuid.UUID, name, typ, currency, balance string, day time.Time) *models.Account {
	t.Helper()
	a, err := models.CreateAccount(context.Background(), d, family, models.AccountInput{Name: name, AccountableType: typ,
		Currency: currency, Balance: testkit.Ptr(decimal.RequireFromString(balance)), BalanceDate: day})
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// TestNetWorthInTheFamilysCurrency is the family with a EUR current account and a USD
// card: one net worth in euros, the dollar part beside it with the rate of each day (the
// latest earlier one on a day without), the family's own rate winning over the ECB's, and a
// currency no rate converts kept apart, never summed one to one.
func TestNetWorthInTheFamilysCurrency(t *testing.T) {
	ctx := context.Background()
	d := testkit.MustOpenDB(t)
	u := testkit.MustCreateUser(t, d, testkit.UserOpts{})
	day := func(n int) time.Time { return time.Date(2026, 11, 2+n, 0, 0, 0, 0, time.UTC) }
	mustAccount(t, d, u.FamilyID, "Girokonto", "Depository", "EUR", "2345.67", day(0))
	mustAccount(t, d, u.FamilyID, "Visa", "CreditCard", "USD", "1234.56", day(0))
	// The ECB publishes on working days: day 2 has none, and uses day 1's.
	mustRate(t, d, nil, "2026-10-30", "EUR", "USD", "1.0000") // before the range: the opening rate
	mustRate(t, d, nil, "2026-11-03", "EUR", "USD", "1.0800")
	mustRate(t, d, nil, "2026-11-05", "EUR", "USD", "1.1000")
	mustRate(t, d, &u.FamilyID, "2026-11-06", "USD", "EUR", "0.5000") // the family's own, from day 4

	nw, err := reports.FamilyNetWorth(ctx, d, models.FamilyViewer(u.FamilyID), "EUR", day(0), day(5))
	if err != nil {
		t.Fatal(err)
	}
	// 2345.67 less 1234.56 dollars: at 1/1.00, 1/1.08 (days 1 and 2), 1/1.10, then 0.5.
	var got []string
	for _, p := range nw.Points {
		got = append(got, fmt.Sprintf("%d:%s", p.Date.Day()-2, p.Balance.StringFixed(2)))
	}
	if want := "0:1111.11 1:1202.56 2:1202.56 3:1223.34 4:1728.39 5:1728.39"; strings.Join(got, " ") != want {
		t.Errorf("net worth in EUR\n got %s\nwant %s", strings.Join(got, " "), want)
	}
	if len(nw.Parts) != 2 || nw.Parts[0].Currency != "EUR" || nw.Parts[1].Currency != "USD" || len(nw.Unconverted) != 0 {
		t.Fatalf("parts %+v, unconverted %+v", nw.Parts, nw.Unconverted)
	}
	usd := nw.Parts[1]
	if !usd.Amount.Equal(decimal.RequireFromString("-1234.56")) || !usd.Converted.Equal(decimal.RequireFromString("-617.28")) ||
		usd.Rate.Source != "family" || usd.Rate.Date.Format(time.DateOnly) != "2026-11-06" {
		t.Errorf("the USD part %+v", usd)
	}

	t.Run("a currency no rate converts stays apart", func(t *testing.T) {
		mustAccount(t, d, u.FamilyID, "Yen savings", "Depository", "JPY", "50000", day(0))
		nw, err := reports.FamilyNetWorth(ctx, d, models.FamilyViewer(u.FamilyID), "EUR", day(5), day(5))
		if err != nil {
			t.Fatal(err)
		}
		if len(nw.Unconverted) != 1 || nw.Unconverted[0].Currency != "JPY" || !nw.Last().Equal(decimal.RequireFromString("1728.39")) {
			t.Errorf("unconverted %+v, total %s: the yen must not be counted", nw.Unconverted, nw.Last())
		}
	})
	t.Run("into another currency, crossed through EUR", func(t *testing.T) {
		mustRate(t, d, nil, "2026-11-05", "EUR", "GBP", "0.8500")
		nw, err := reports.FamilyNetWorth(ctx, d, models.FamilyViewer(u.FamilyID), "GBP", day(3), day(3))
		if err != nil {
			t.Fatal(err)
		}
		// EUR 2345.67 at 0.85, USD -1234.56 at 0.85/1.10.
		if !nw.Last().Equal(decimal.RequireFromString("1039.84")) {
			t.Errorf("net worth in GBP %s (parts %+v)", nw.Last(), nw.Parts)
		}
	})
}

// TestSpendingInTheFamilysCurrency merges a month's spending in euros and dollars into one in
// euros, each month at the rate of its last day, a category's amounts added; yen, which no
// rate converts, stays apart.
func TestSpendingInTheFamilysCurrency(t *testing.T) {
	d := testkit.MustOpenDB(t)
	u := testkit.MustCreateUser(t, d, testkit.UserOpts{})
	eur := mustAccount(t, d, u.FamilyID, "Girokonto", "Depository", "EUR", "0", time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC))
	usd := mustAccount(t, d, u.FamilyID, "Visa", "CreditCard", "USD", "0", time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC))
	jpy := mustAccount(t, d, u.FamilyID, "Yen", "Depository", "JPY", "0", time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC))
	groceries := mustCategory(t, d, u.FamilyID, "Groceries", "expense", nil)
	travel := mustCategory(t, d, u.FamilyID, "Travel", "expense", nil)
	mustSpend(t, d, spend{account: eur, date: "2026-11-10", amount: "100", category: groceries, currency: "EUR"})
	mustSpend(t, d, spend{account: usd, date: "2026-11-12", amount: "110", category: groceries})
	mustSpend(t, d, spend{account: usd, date: "2026-10-12", amount: "120", category: travel})
	mustSpend(t, d, spend{account: jpy, date: "2026-11-12", amount: "5000", category: travel, currency: "JPY"})
	mustRate(t, d, nil, "2026-10-30", "EUR", "USD", "1.2000") // October's last working day
	mustRate(t, d, nil, "2026-11-20", "EUR", "USD", "1.1000")

	out, parts := inEuros(t, d, u.FamilyID, "2026-11", time.Date(2026, 11, 27, 0, 0, 0, 0, time.UTC))
	if len(out) != 2 || out[0].Currency != "EUR" || out[1].Currency != "JPY" {
		t.Fatalf("reports %+v", out)
	}
	if got, want := spendingOf(out[0]), "Groceries 200.00/0.00, Travel 0.00/100.00"; got != want {
		t.Errorf("in euros\n got %s\nwant %s", got, want)
	}
	if len(parts) != 2 || parts[1].Currency != "USD" || !parts[1].Converted.Equal(decimal.NewFromInt(100)) || parts[1].Rate.Date.Format(time.DateOnly) != "2026-11-20" {
		t.Errorf("parts %+v", parts)
	}
}

// TestSpendingOfAMonthToComeConvertsAtTodaysRate converts a month not begun yet (a transaction
// dated ahead) as the budget converts it: this month and the one before, neither over, both at
// today's rate. Their month ends are still to come, and were once asked for as a range that
// ends before it starts, which left every other currency unconverted.
func TestSpendingOfAMonthToComeConvertsAtTodaysRate(t *testing.T) {
	d := testkit.MustOpenDB(t)
	u := testkit.MustCreateUser(t, d, testkit.UserOpts{})
	eur := mustAccount(t, d, u.FamilyID, "Girokonto", "Depository", "EUR", "0", time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC))
	usd := mustAccount(t, d, u.FamilyID, "Visa", "CreditCard", "USD", "0", time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC))
	travel := mustCategory(t, d, u.FamilyID, "Travel", "expense", nil)
	mustSpend(t, d, spend{account: eur, date: "2027-01-05", amount: "10", category: travel, currency: "EUR"})
	mustSpend(t, d, spend{account: usd, date: "2027-01-05", amount: "110", category: travel})
	mustSpend(t, d, spend{account: usd, date: "2026-12-05", amount: "55", category: travel})
	mustRate(t, d, nil, "2026-11-20", "EUR", "USD", "1.1000")

	out, _ := inEuros(t, d, u.FamilyID, "2027-01", time.Date(2026, 11, 27, 0, 0, 0, 0, time.UTC))
	if len(out) != 1 || out[0].Currency != "EUR" {
		t.Fatalf("a month to come in dollars and euros: %+v; want one report in euros", out)
	}
	if got, want := spendingOf(out[0]), "Travel 110.00/50.00"; got != want {
		t.Errorf("in euros\n got %s\nwant %s", got, want)
	}
}

// inEuros is the family's spending of month (YYYY-MM) merged into euros as of today, and the
// parts of it.
func inEuros(t *testing.T, d *db.DB, familyID uuid.UUID, month string, today time.Time) ([]reports.Spending, []reports.SpendingPart) {
	t.Helper()
	m, _ := reports.ParseMonth("month", month)
	list, err := reports.MonthSpending(context.Background(), d, models.FamilyViewer(familyID), m)
	if err != nil {
		t.Fatal(err)
	}
	out, parts, err := reports.InCurrency(context.Background(), d, familyID, "EUR", list, today)
	if err != nil {
		t.Fatal(err)
	}
	return out, parts
}
