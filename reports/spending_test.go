package reports_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"tally/internal/apperr"
	"tally/internal/db"
	"tally/models"
	"tally/reports"
	"tally/testkit"
)

func TestMain(m *testing.M) { os.Exit(testkit.Main(m)) }

// spend is a transaction for a spending test.
type spend struct {
	account  *models.Account
	date     string
	amount   string
	category *models.Category
	kind     string // transaction_kind; standard when empty
	excluded bool
	currency string // USD when empty
	parent   *uuid.UUID
}

// mustSpend writes the transaction and returns its id.
func mustSpend(t *testing.T, d *db.DB, s spend) uuid.UUID {
	t.Helper()
	id := uuid.Must(uuid.NewV7())
	var category *uuid.UUID
	if s.category != nil {
		category = &s.category.ID
	}
	kind, currency := s.kind, s.currency
	if kind == "" {
		kind = "standard"
	}
	if currency == "" {
		currency = "USD"
	}
	if _, err := d.NewRaw(`INSERT INTO entries (id, family_id, account_id, kind, date, amount, currency, name, category_id, transaction_kind, excluded, parent_id)
		VALUES (?, ?, ?, 'transaction', ?, ?, ?, 'spend', ?, ?, ?, ?)`,
		id, s.account.FamilyID, s.account.ID, s.date, s.amount, currency, category, kind, s.excluded, s.parent).Exec(context.Background()); err != nil {
		t.Fatal(err)
	}
	return id
}

func mustCategory(t *testing.T, d *db.DB, familyID uuid.UUID, name, classification string, parent *models.Category) *models.Category {
	t.Helper()
	in := models.CategoryInput{Name: &name, Classification: &classification}
	if parent != nil {
		p := &parent.ID
		in.ParentID = &p
		in.Classification = nil
	}
	c, err := models.CreateCategory(context.Background(), d, familyID, in)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// spendingOf writes a report as "name this/previous, ..." with "-" for no category.
func spendingOf(s reports.Spending) string {
	var parts []string
	for _, c := range s.Categories {
		name := c.Name
		if c.CategoryID == nil {
			name = "-"
		}
		parts = append(parts, fmt.Sprintf("%s %s/%s", name, c.Amount.StringFixed(2), c.Previous.StringFixed(2)))
	}
	return strings.Join(parts, ", ")
}

// TestMonthSpending checks a month's spending by category beside the month before: money out
// less refunds in expense categories, transfers, excluded transactions, income, split parts
// and other months left out, the uncategorised in a bucket of their own, a category spent on
// only the month before listed at zero, one report per currency and no other family's money.
func TestMonthSpending(t *testing.T) {
	ctx := context.Background()
	d := testkit.MustOpenDB(t)
	u := testkit.MustCreateUser(t, d, testkit.UserOpts{})
	other := testkit.MustCreateUser(t, d, testkit.UserOpts{})
	checking := testkit.MustCreateAccount(t, d, u.FamilyID, "Checking", "Depository", "")
	card := testkit.MustCreateAccount(t, d, u.FamilyID, "Visa", "CreditCard", "")
	old := testkit.MustCreateAccount(t, d, u.FamilyID, "Old account", "Depository", "")
	if err := models.SetAccountStatus(ctx, d, models.FamilyViewer(u.FamilyID), old.ID, models.AccountDisabled); err != nil {
		t.Fatal(err)
	}
	theirs := testkit.MustCreateAccount(t, d, other.FamilyID, "Theirs", "Depository", "")

	groceries := mustCategory(t, d, u.FamilyID, "Groceries", models.CategoryExpense, nil)
	food := mustCategory(t, d, u.FamilyID, "Food", models.CategoryExpense, nil)
	restaurants := mustCategory(t, d, u.FamilyID, "Restaurants", "", food)
	travel := mustCategory(t, d, u.FamilyID, "Travel", models.CategoryExpense, nil)
	salary := mustCategory(t, d, u.FamilyID, "Salary", models.CategoryIncome, nil)
	theirCategory := mustCategory(t, d, other.FamilyID, "Groceries", models.CategoryExpense, nil)

	for _, s := range []spend{
		// October 2026, the month of the report.
		{account: checking, date: "2026-10-01", amount: "100", category: groceries},
		{account: card, date: "2026-10-31", amount: "50", category: groceries},
		{account: checking, date: "2026-10-12", amount: "-30", category: groceries}, // a refund
		{account: card, date: "2026-10-05", amount: "40", category: restaurants},
		{account: checking, date: "2026-10-06", amount: "25"},
		{account: old, date: "2026-10-07", amount: "5", kind: "one_time"}, // a closed account's, one-time: spent all the same
		{account: checking, date: "2026-10-08", amount: "-1000"},          // income without a category
		{account: checking, date: "2026-10-09", amount: "-3000", category: salary},
		{account: checking, date: "2026-10-10", amount: "500", kind: "cc_payment"},
		{account: card, date: "2026-10-10", amount: "-500", kind: "cc_payment", category: groceries},
		{account: checking, date: "2026-10-11", amount: "200", kind: "funds_movement"},
		{account: checking, date: "2026-10-11", amount: "300", kind: "loan_payment", category: groceries},
		{account: checking, date: "2026-10-11", amount: "400", kind: "investment_contribution"},
		{account: checking, date: "2026-10-13", amount: "999", category: groceries, excluded: true},
		{account: checking, date: "2026-10-14", amount: "12", category: groceries, currency: "EUR"},
		{account: theirs, date: "2026-10-15", amount: "777", category: theirCategory},
		// September: the month before.
		{account: checking, date: "2026-09-01", amount: "80", category: groceries},
		{account: checking, date: "2026-09-30", amount: "10"},
		{account: card, date: "2026-09-20", amount: "300", category: travel},
		// Outside both months.
		{account: checking, date: "2026-08-31", amount: "1000", category: groceries},
		{account: checking, date: "2026-11-01", amount: "1000", category: groceries},
	} {
		mustSpend(t, d, s)
	}
	// A split transaction counts through its parts, each in its own category, and not again
	// in its own.
	parent := mustSpend(t, d, spend{account: checking, date: "2026-10-20", amount: "60", category: food})
	mustSpend(t, d, spend{account: checking, date: "2026-10-20", amount: "45", category: restaurants, parent: &parent})
	mustSpend(t, d, spend{account: checking, date: "2026-10-20", amount: "15", category: travel, parent: &parent})
	if _, err := d.NewRaw(`INSERT INTO entries (id, family_id, account_id, kind, date, amount, currency, name)
		VALUES (gen_random_uuid(), ?, ?, 'valuation', '2026-10-02', 5000, 'USD', 'balance')`, u.FamilyID, checking.ID).Exec(ctx); err != nil {
		t.Fatal(err)
	}

	got, err := reports.MonthSpending(ctx, d, models.FamilyViewer(u.FamilyID), reports.Month{Year: 2026, Month: time.October})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].Currency != "EUR" || got[1].Currency != "USD" {
		t.Fatalf("reports %+v, want EUR and USD", got)
	}
	if s := spendingOf(got[0]); s != "Groceries 12.00/0.00" {
		t.Errorf("EUR: %s", s)
	}
	usd := got[1]
	want := "Groceries 120.00/80.00, Food › Restaurants 85.00/0.00, - 30.00/10.00, Travel 15.00/300.00"
	if s := spendingOf(usd); s != want {
		t.Errorf("USD by category\n got %s\nwant %s", s, want)
	}
	if usd.Total.StringFixed(2) != "250.00" || usd.PreviousTotal.StringFixed(2) != "390.00" {
		t.Errorf("totals %s and %s, want 250.00 and 390.00", usd.Total, usd.PreviousTotal)
	}
	for _, c := range usd.Categories {
		if c.CategoryID != nil && c.Color == "" {
			t.Errorf("%s has no colour", c.Name)
		}
	}

	t.Run("a month of nothing", func(t *testing.T) {
		got, err := reports.MonthSpending(ctx, d, models.FamilyViewer(u.FamilyID), reports.Month{Year: 2020, Month: time.January})
		if err != nil || len(got) != 0 {
			t.Fatalf("%+v, %v", got, err)
		}
	})
	t.Run("January compares with the December before", func(t *testing.T) {
		mustSpend(t, d, spend{account: checking, date: "2026-12-31", amount: "7", category: travel})
		mustSpend(t, d, spend{account: checking, date: "2027-01-01", amount: "9", category: travel})
		got, err := reports.MonthSpending(ctx, d, models.FamilyViewer(u.FamilyID), reports.Month{Year: 2027, Month: time.January})
		if err != nil || len(got) != 1 || spendingOf(got[0]) != "Travel 9.00/7.00" {
			t.Fatalf("%+v, %v", got, err)
		}
	})
}

// TestMonths checks how a month is read, written and stepped.
func TestMonths(t *testing.T) {
	for _, tc := range []struct {
		in               string
		want, prev, next string
		last             string
	}{
		{"2026-10", "2026-10", "2026-09", "2026-11", "2026-10-31"},
		{"2026-01", "2026-01", "2025-12", "2026-02", "2026-01-31"},
		{"2028-02", "2028-02", "2028-01", "2028-03", "2028-02-29"},
		{"2026-12", "2026-12", "2026-11", "2027-01", "2026-12-31"},
		{"1970-01", "1970-01", "1969-12", "1970-02", "1970-01-31"},
		{"2100-12", "2100-12", "2100-11", "2101-01", "2100-12-31"},
	} {
		t.Run(tc.in, func(t *testing.T) {
			m, err := reports.ParseMonth("month", tc.in)
			if err != nil {
				t.Fatal(err)
			}
			if m.String() != tc.want || m.Prev().String() != tc.prev || m.Next().String() != tc.next || m.Last().Format(time.DateOnly) != tc.last {
				t.Errorf("%s: prev %s, next %s, last %s", m, m.Prev(), m.Next(), m.Last().Format(time.DateOnly))
			}
		})
	}
	// Years 0 and 1, and any outside 1970 to 2100, are refused as the ones that are no month.
	for _, bad := range []string{"", "2026-13", "2026-1", "October", "2026-10-01", "0000-01", "0001-01", "1969-12", "2101-01", "9999-12"} {
		if _, err := reports.ParseMonth("month", bad); apperr.CodeOf(err) != apperr.Invalid || len(apperr.As(err).Fields["month"]) == 0 {
			t.Errorf("%q: %v, want a problem with month", bad, err)
		}
	}
}
