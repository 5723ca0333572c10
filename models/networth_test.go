package models_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"

	"tally/internal/apperr"
	"tally/models"
	"tally/testkit"
)

// TestDailyNetWorthSumsTheAccountsBalances checks that the family's net worth on every day is
// the sum of its open accounts' DailyBalances, assets added and liabilities taken away, per
// currency: with a valuation in the middle of the range, a credit card, a bank-fed account, a
// closed account left out and another family's account never counted.
func TestDailyNetWorthSumsTheAccountsBalances(t *testing.T) {
	ctx := context.Background()
	d := testkit.MustOpenDB(t)
	u := testkit.MustCreateUser(t, d, testkit.UserOpts{})
	other := testkit.MustCreateUser(t, d, testkit.UserOpts{})
	base := time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC)

	checking := testkit.MustCreateAccount(t, d, u.FamilyID, "Checking", "Depository", "")
	mustWriteLedger(t, d, checking, base, []ledgerEntry{
		{day: -10, kind: "anchor", amount: "1000"},
		{day: -3, kind: "transaction", amount: "100"}, // before the range: in the opening balance
		{day: 2, kind: "transaction", amount: "50"},
		{day: 2, kind: "transaction", amount: "20", split: true},
		{day: 4, kind: "checkpoint", amount: "2000"}, // mid-range: compared, never a reset
		{day: 6, kind: "transaction", amount: "-300"},
	})
	card := testkit.MustCreateAccount(t, d, u.FamilyID, "Visa", "CreditCard", "")
	mustWriteLedger(t, d, card, base, []ledgerEntry{
		{day: -1, kind: "anchor", amount: "400"},
		{day: 1, kind: "transaction", amount: "60"},
		{day: 5, kind: "transaction", amount: "-400", pending: true},
	})
	bank := testkit.MustCreateAccount(t, d, u.FamilyID, "Bank", "Depository", "")
	if _, err := d.NewRaw("UPDATE accounts SET source = 'simplefin', balance = 700 WHERE id = ?", bank.ID).Exec(ctx); err != nil {
		t.Fatal(err)
	}
	mustWriteLedger(t, d, bank, base, []ledgerEntry{
		{day: 3, kind: "transaction", amount: "25"},
		{day: 9, kind: "transaction", amount: "-40"}, // after the range: walked back from
		{day: 5, kind: "transaction", amount: "5", pending: true},
	})
	closed := testkit.MustCreateAccount(t, d, u.FamilyID, "Old savings", "Depository", "5000")
	if err := models.SetAccountStatus(ctx, d, models.FamilyViewer(u.FamilyID), closed.ID, models.AccountDisabled); err != nil {
		t.Fatal(err)
	}
	euro, err := models.CreateAccount(ctx, d, u.FamilyID, models.AccountInput{Name: "Girokonto", AccountableType: "Depository", Currency: "EUR", Balance: testkit.Ptr(decimal.RequireFromString("80")), BalanceDate: base.AddDate(0, 0, 3)})
	if err != nil {
		t.Fatal(err)
	}
	testkit.MustCreateAccount(t, d, other.FamilyID, "Theirs", "Depository", "999999")
	for _, a := range []*models.Account{checking, card} {
		if err := models.RecomputeBalances(ctx, d, []uuid.UUID{a.ID}); err != nil {
			t.Fatal(err)
		}
	}

	start, end := base, base.AddDate(0, 0, 7)
	got, err := models.DailyNetWorth(ctx, d, models.FamilyViewer(u.FamilyID), start, end)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].Currency != "EUR" || got[1].Currency != "USD" {
		t.Fatalf("series %+v, want EUR and USD", got)
	}

	// The sum of the accounts' own series, day by day.
	want := map[string][]decimal.Decimal{}
	for _, a := range []*models.Account{checking, card, bank, euro} {
		series, err := models.DailyBalances(ctx, d, models.FamilyViewer(u.FamilyID), a.ID, start, end)
		if err != nil {
			t.Fatal(err)
		}
		if want[a.Currency] == nil {
			want[a.Currency] = make([]decimal.Decimal, len(series))
		}
		for i, p := range series {
			if a.Type().Liability {
				want[a.Currency][i] = want[a.Currency][i].Sub(p.Balance)
			} else {
				want[a.Currency][i] = want[a.Currency][i].Add(p.Balance)
			}
		}
	}
	for _, s := range got {
		if len(s.Points) != 8 {
			t.Fatalf("%s: %d days, want 8", s.Currency, len(s.Points))
		}
		for i, p := range s.Points {
			if !p.Date.Equal(start.AddDate(0, 0, i)) || !p.Balance.Equal(want[s.Currency][i]) {
				t.Errorf("%s day %d (%s): net worth %s, the accounts' balances sum to %s", s.Currency, i, p.Date.Format(time.DateOnly), p.Balance, want[s.Currency][i])
			}
		}
	}
	// And what the ledger says, so that the sum is not merely equal to itself: checking 900,
	// then 850 from day 2 and 1150 from day 6; the card owes 400, then 460 from day 1 and 60
	// from day 5; the bank is 700 less the 40 that comes in on day 9, and 25 more before it
	// spent 25 on day 3. The euro account's balance, typed on day 3, is its balance before.
	usd := "0:1185.00 1:1125.00 2:1075.00 3:1050.00 4:1050.00 5:1450.00 6:1750.00 7:1750.00"
	if s := balancesOf(got[1].Points, base); s != usd {
		t.Errorf("USD net worth\n got %s\nwant %s", s, usd)
	}
	if s := balancesOf(got[0].Points, base); s != "0:80.00 1:80.00 2:80.00 3:80.00 4:80.00 5:80.00 6:80.00 7:80.00" {
		t.Errorf("EUR net worth %s", s)
	}

	t.Run("a family without accounts has no series", func(t *testing.T) {
		empty := testkit.MustCreateUser(t, d, testkit.UserOpts{})
		got, err := models.DailyNetWorth(ctx, d, models.FamilyViewer(empty.FamilyID), start, end)
		if err != nil || len(got) != 0 {
			t.Fatalf("%+v, %v", got, err)
		}
	})
	t.Run("the range is bounded as DailyBalances bounds it", func(t *testing.T) {
		_, err := models.DailyNetWorth(ctx, d, models.FamilyViewer(u.FamilyID), end, start)
		if apperr.CodeOf(err) != apperr.Invalid {
			t.Fatalf("a reversed range: %v", err)
		}
	})
}

// TestHistoryStart checks where "all" of a chart starts: the earliest entry of the family or
// of the account, at most ten years back, and the last day when there is nothing.
func TestHistoryStart(t *testing.T) {
	ctx := context.Background()
	d := testkit.MustOpenDB(t)
	u := testkit.MustCreateUser(t, d, testkit.UserOpts{})
	end := time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC)

	if got, err := models.HistoryStart(ctx, d, models.FamilyViewer(u.FamilyID), nil, end); err != nil || !got.Equal(end) {
		t.Fatalf("a family without entries starts on %s (%v), want the last day", got, err)
	}
	old := testkit.MustCreateAccount(t, d, u.FamilyID, "Old", "Depository", "")
	mustWriteLedger(t, d, old, end, []ledgerEntry{{day: -40, kind: "transaction", amount: "1"}})
	recent := testkit.MustCreateAccount(t, d, u.FamilyID, "Recent", "Depository", "")
	mustWriteLedger(t, d, recent, end, []ledgerEntry{{day: -5, kind: "transaction", amount: "1"}})

	for _, tc := range []struct {
		name    string
		account *uuid.UUID
		want    time.Time
	}{
		{"the family's earliest entry", nil, end.AddDate(0, 0, -40)},
		{"the account's earliest entry", &recent.ID, end.AddDate(0, 0, -5)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := models.HistoryStart(ctx, d, models.FamilyViewer(u.FamilyID), tc.account, end)
			if err != nil || !got.Equal(tc.want) {
				t.Fatalf("%s (%v), want %s", got, err, tc.want)
			}
		})
	}
	mustWriteLedger(t, d, old, end, []ledgerEntry{{day: -365 * 12, kind: "transaction", amount: "1"}})
	if got, _ := models.HistoryStart(ctx, d, models.FamilyViewer(u.FamilyID), nil, end); !got.Equal(end.AddDate(-10, 0, 0)) {
		t.Errorf("twelve years of history start on %s, want ten years back", got)
	}
}

// TestALongRangeIsWalkedAtMonthEnds checks the net worth of a range longer than ChartDays:
// only its month ends and its last day, each equal to what the daily walk says that day, for
// an anchored account, a valued one whose value changes mid-range, a bank-fed one with a
// pending entry, and entries dated after the last day in its month.
func TestALongRangeIsWalkedAtMonthEnds(t *testing.T) {
	ctx := context.Background()
	d := testkit.MustOpenDB(t)
	u := testkit.MustCreateUser(t, d, testkit.UserOpts{})
	base := time.Date(2025, 1, 10, 0, 0, 0, 0, time.UTC)
	checking := testkit.MustCreateAccount(t, d, u.FamilyID, "Checking", "Depository", "")
	var ledger []ledgerEntry
	for i := 0; i < 500; i += 7 {
		ledger = append(ledger, ledgerEntry{day: i, kind: "transaction", amount: fmt.Sprintf("%d.25", i%90-40)})
	}
	ledger = append(ledger, ledgerEntry{day: 300, kind: "typed", amount: "5000"}, ledgerEntry{day: 460, kind: "transaction", amount: "77"})
	mustWriteLedger(t, d, checking, base, ledger)
	house := testkit.MustCreateAccount(t, d, u.FamilyID, "House", "Property", "")
	mustWriteLedger(t, d, house, base, []ledgerEntry{{day: 20, kind: "value", amount: "300000"}, {day: 250, kind: "value", amount: "310000"}})
	bank := testkit.MustCreateAccount(t, d, u.FamilyID, "Bank", "CreditCard", "")
	if _, err := d.NewRaw("UPDATE accounts SET source = 'simplefin', balance = 900 WHERE id = ?", bank.ID).Exec(ctx); err != nil {
		t.Fatal(err)
	}
	mustWriteLedger(t, d, bank, base, []ledgerEntry{{day: 40, kind: "transaction", amount: "120"}, {day: 430, kind: "transaction", amount: "33", pending: true},
		{day: 443, kind: "transaction", amount: "-50"}})
	if err := models.RecomputeBalances(ctx, d, []uuid.UUID{checking.ID, house.ID}); err != nil {
		t.Fatal(err)
	}
	start, end := base, base.AddDate(0, 0, 440) // 2026-03-26: before the entries of days 443 (its month) and 460
	got, err := models.DailyNetWorth(ctx, d, models.FamilyViewer(u.FamilyID), start, end)
	if err != nil || len(got) != 1 || !got[0].Monthly {
		t.Fatalf("net worth %+v, %v: want one monthly series", got, err)
	}
	want := map[time.Time]decimal.Decimal{}
	for _, a := range []*models.Account{checking, house, bank} {
		daily, err := models.DailyBalances(ctx, d, models.FamilyViewer(u.FamilyID), a.ID, start, end)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range daily {
			if a.Type().Liability {
				want[p.Date] = want[p.Date].Sub(p.Balance)
			} else {
				want[p.Date] = want[p.Date].Add(p.Balance)
			}
		}
	}
	points := got[0].Points
	if len(points) != 15 || !points[0].Date.Equal(time.Date(2025, 1, 31, 0, 0, 0, 0, time.UTC)) || !points[14].Date.Equal(end) {
		t.Fatalf("%d points from %s to %s: want each month end from January 2025, then %s", len(points), points[0].Date, points[len(points)-1].Date, end)
	}
	for _, p := range points {
		if next := p.Date.AddDate(0, 0, 1); next.Day() != 1 && !p.Date.Equal(end) {
			t.Errorf("%s is neither a month end nor the last day", p.Date.Format(time.DateOnly))
		}
		if !p.Balance.Equal(want[p.Date]) {
			t.Errorf("%s: %s at month ends, %s day by day", p.Date.Format(time.DateOnly), p.Balance, want[p.Date])
		}
	}
}
