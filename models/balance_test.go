package models_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"

	"tally/internal/apperr"
	"tally/internal/db"
	"tally/models"
	"tally/testkit"
)

// ledgerEntry is a row of an account's ledger for a test.
type ledgerEntry struct {
	day     int    // days after the base date
	kind    string // transaction or trade; or a valuation: anchor, typed (an anchor as of its writing), value or checkpoint
	amount  string
	split   bool // a split part of the transaction before it
	pending bool
}

// valuationKinds maps a ledgerEntry's valuation kinds to valuations.kind.
var valuationKinds = map[string]string{"anchor": "opening_anchor", "typed": "current_anchor", "value": "reconciliation", "checkpoint": "checkpoint"}

// mustWriteLedger writes entries into the account, days counted from base, each written a
// millisecond after the one before.
func mustWriteLedger(t testing.TB, d *db.DB, a *models.Account, base time.Time, entries []ledgerEntry) {
	t.Helper()
	ctx := context.Background()
	var parent uuid.UUID
	for i, e := range entries {
		id := uuid.Must(uuid.NewV7())
		var parentID *uuid.UUID
		if e.split {
			parentID = &parent
		} else {
			parent = id
		}
		kind, valuation := e.kind, valuationKinds[e.kind]
		if valuation != "" {
			kind = "valuation"
		}
		if _, err := d.NewRaw(`INSERT INTO entries (id, family_id, account_id, kind, date, amount, currency, name, parent_id, pending, created_at)
			VALUES (?, ?, ?, ?, ?, ?, 'USD', ?, ?, ?, now() + ? * interval '1 ms')`, id, a.FamilyID, a.ID, kind, base.AddDate(0, 0, e.day),
			e.amount, fmt.Sprintf("entry %d", i), parentID, e.pending, i).Exec(ctx); err != nil {
			t.Fatal(err)
		}
		if valuation != "" {
			if _, err := d.NewRaw(`INSERT INTO valuations (entry_id, kind, as_of)
				SELECT id, ?, CASE WHEN ? THEN created_at END FROM entries WHERE id = ?`, valuation, e.kind == "typed", id).Exec(ctx); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// balancesOf formats a series as "day:balance ..." with days counted from base.
func balancesOf(series []models.DailyBalance, base time.Time) string {
	var parts []string
	for _, p := range series {
		parts = append(parts, fmt.Sprintf("%d:%s", int(p.Date.Sub(base).Hours()/24), p.Balance.StringFixed(2)))
	}
	return strings.Join(parts, " ")
}

// TestDailyBalancesFollowTheLedger checks the series of accounts against what their ledgers
// say each day: walked from the anchor both ways, checkpoints never a reset, a balance typed
// during a day, a valued account's values, a credit card, an account whose balance is not
// known and a provider's account; and the manual ones' last day against RecomputeBalances.
func TestDailyBalancesFollowTheLedger(t *testing.T) {
	ctx := context.Background()
	d := testkit.MustOpenDB(t)
	u := testkit.MustCreateUser(t, d, testkit.UserOpts{})
	other := testkit.MustCreateUser(t, d, testkit.UserOpts{})
	base := time.Date(2026, 3, 10, 0, 0, 0, 0, time.UTC)

	checking := testkit.MustCreateAccount(t, d, u.FamilyID, "Checking", "Depository", "")
	mustWriteLedger(t, d, checking, base, []ledgerEntry{
		{day: 0, kind: "anchor", amount: "1000"},
		{day: 1, kind: "transaction", amount: "50"},
		{day: 1, kind: "transaction", amount: "20", split: true}, // a part of the 50: not counted again
		{day: 3, kind: "transaction", amount: "-200"},
		{day: 4, kind: "trade", amount: "5000"}, // trades are not in the cash balance
		{day: 5, kind: "transaction", amount: "30"},
		{day: 5, kind: "checkpoint", amount: "800"}, // a bank's figure is compared, never a reset
		{day: 7, kind: "transaction", amount: "10.25", pending: true},
	})
	savings := testkit.MustCreateAccount(t, d, u.FamilyID, "Savings", "Depository", "")
	mustWriteLedger(t, d, savings, base, []ledgerEntry{
		{day: 1, kind: "transaction", amount: "100"},
		{day: 2, kind: "transaction", amount: "-50"},
		{day: 5, kind: "anchor", amount: "999"},     // replaced by the balance typed after it
		{day: 3, kind: "transaction", amount: "20"}, // written before the balance was typed: in it
		{day: 3, kind: "typed", amount: "500"},
		{day: 3, kind: "transaction", amount: "7"}, // written after: moves it
	})
	house := testkit.MustCreateAccount(t, d, u.FamilyID, "House", "Property", "")
	mustWriteLedger(t, d, house, base, []ledgerEntry{
		{day: 0, kind: "value", amount: "300000"},
		{day: 2, kind: "transaction", amount: "-1000"}, // an improvement paid into it
		{day: 4, kind: "value", amount: "320000"},      // a new appraisal: its value from then on
		{day: 4, kind: "checkpoint", amount: "1"},      // a checkpoint is no value
	})
	card := testkit.MustCreateAccount(t, d, u.FamilyID, "Visa", "CreditCard", "")
	mustWriteLedger(t, d, card, base, []ledgerEntry{
		{day: 0, kind: "anchor", amount: "300"},
		{day: 1, kind: "transaction", amount: "100"},
		{day: 2, kind: "transaction", amount: "-50"},
	})
	unknown := testkit.MustCreateAccount(t, d, u.FamilyID, "Cash", "Depository", "")
	mustWriteLedger(t, d, unknown, base, []ledgerEntry{
		{day: 1, kind: "transaction", amount: "-40"},
		{day: 2, kind: "checkpoint", amount: "75"},
		{day: 3, kind: "transaction", amount: "15"},
	})
	if err := models.RecomputeBalances(ctx, d, []uuid.UUID{checking.ID, savings.ID, house.ID, card.ID, unknown.ID}); err != nil {
		t.Fatal(err)
	}
	bank := testkit.MustCreateAccount(t, d, u.FamilyID, "Bank", "Depository", "")
	if _, err := d.NewRaw("UPDATE accounts SET source = 'simplefin', balance = 500 WHERE id = ?", bank.ID).Exec(ctx); err != nil {
		t.Fatal(err)
	}
	mustWriteLedger(t, d, bank, base, []ledgerEntry{
		{day: 1, kind: "transaction", amount: "20"},
		{day: 3, kind: "transaction", amount: "-100"},
		{day: 4, kind: "anchor", amount: "12345"}, // a provider's balance is the provider's
		{day: 4, kind: "transaction", amount: "5", pending: true},
	})

	for _, tc := range []struct {
		name       string
		account    *models.Account
		start, end int
		want       string
	}{
		{"an asset walks back from its anchor and on through each day's transactions, past a checkpoint",
			checking, -2, 8, "-2:1000.00 -1:1000.00 0:1000.00 1:950.00 2:950.00 3:1150.00 4:1150.00 5:1120.00 6:1120.00 7:1109.75 8:1109.75"},
		{"a range starting after a transaction counts it", checking, 2, 3, "2:950.00 3:1150.00"},
		{"one day", checking, 5, 5, "5:1120.00"},
		{"a balance typed during a day takes in what was written before it, and what came after moves it",
			savings, 0, 4, "0:570.00 1:470.00 2:520.00 3:493.00 4:493.00"},
		{"a valued account is each value from its day on, and walks back from the first",
			house, -1, 5, "-1:300000.00 0:300000.00 1:300000.00 2:301000.00 3:301000.00 4:320000.00 5:320000.00"},
		{"a range starting after a value starts from it", house, 5, 5, "5:320000.00"},
		{"a credit card owes more after a purchase and less after a payment",
			card, -1, 3, "-1:300.00 0:300.00 1:400.00 2:350.00 3:350.00"},
		{"an account whose balance is not known starts from zero",
			unknown, 0, 4, "0:0.00 1:40.00 2:40.00 3:25.00 4:25.00"},
		{"a provider's account walks back from its balance through posted transactions",
			bank, 0, 5, "0:420.00 1:400.00 2:400.00 3:500.00 4:500.00 5:500.00"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := models.DailyBalances(ctx, d, models.FamilyViewer(u.FamilyID), tc.account.ID, base.AddDate(0, 0, tc.start), base.AddDate(0, 0, tc.end))
			if err != nil {
				t.Fatal(err)
			}
			if s := balancesOf(got, base); s != tc.want {
				t.Fatalf("balances\n got %s\nwant %s", s, tc.want)
			}
		})
	}

	// On the day of the latest entry and after, a manual account's series ends on what
	// RecomputeBalances stored.
	for _, a := range []*models.Account{checking, savings, house, card, unknown} {
		stored, err := models.AccountByID(ctx, d, models.FamilyViewer(u.FamilyID), a.ID)
		if err != nil {
			t.Fatal(err)
		}
		series, err := models.DailyBalances(ctx, d, models.FamilyViewer(u.FamilyID), a.ID, base.AddDate(-1, 0, 0), base.AddDate(0, 1, 0))
		if err != nil {
			t.Fatal(err)
		}
		if last := series[len(series)-1].Balance; !last.Equal(stored.Balance) || len(series) != 397 {
			t.Errorf("%s: the series ends on %s after %d days; RecomputeBalances stored %s", a.Name, last, len(series), stored.Balance)
		}
	}

	for _, tc := range []struct {
		name       string
		family     uuid.UUID
		start, end time.Time
		code       apperr.Code
		field      string
	}{
		{"another family's account", other.FamilyID, base, base, apperr.NotFound, ""},
		{"a range that ends before it starts", u.FamilyID, base, base.AddDate(0, 0, -1), apperr.Invalid, "start_date"},
		{"more than ten years", u.FamilyID, base, base.AddDate(10, 0, 1), apperr.Invalid, "end_date"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := models.DailyBalances(ctx, d, models.FamilyViewer(tc.family), checking.ID, tc.start, tc.end)
			if apperr.CodeOf(err) != tc.code || (tc.field != "" && len(apperr.As(err).Fields[tc.field]) == 0) {
				t.Fatalf("error %v, want %s on %q", err, tc.code, tc.field)
			}
		})
	}
	if _, err := models.DailyBalances(ctx, d, models.FamilyViewer(u.FamilyID), checking.ID, base, base.AddDate(10, 0, 0)); err != nil {
		t.Errorf("exactly ten years: %v", err)
	}
}

// BenchmarkDailyBalances measures the series of a manual account with 100,000 transactions
// over ten years and one opening valuation (so every range reads the transactions from the
// first day on), for the default 90 days and for the whole ten years, against the physical
// limit of the same read: a bare sum of the account's transactions in the same run.
func BenchmarkDailyBalances(b *testing.B) {
	ctx := context.Background()
	d := testkit.MustOpenDB(b)
	u := testkit.MustCreateUser(b, d, testkit.UserOpts{})
	a := testkit.MustCreateAccount(b, d, u.FamilyID, "Checking", "Depository", "")
	end := time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC)
	start := end.AddDate(-10, 0, 0)
	if _, err := d.NewRaw(`INSERT INTO entries (id, family_id, account_id, kind, date, amount, currency, name)
		SELECT gen_random_uuid(), ?0, ?1, 'transaction', ?2::date + (i % 3650), (i % 200) - 90, 'USD', 'tx ' || i
		FROM generate_series(1, 100000) i`, u.FamilyID, a.ID, start).Exec(ctx); err != nil {
		b.Fatal(err)
	}
	mustWriteLedger(b, d, a, start, []ledgerEntry{{day: 0, kind: "anchor", amount: "1000"}})
	if _, err := d.NewRaw("ANALYZE entries").Exec(ctx); err != nil {
		b.Fatal(err)
	}
	floor := func() time.Duration {
		t0 := time.Now()
		var sum decimal.Decimal
		if err := d.NewRaw("SELECT sum(amount) FROM entries WHERE account_id = ? AND kind = 'transaction'", a.ID).Scan(ctx, &sum); err != nil {
			b.Fatal(err)
		}
		return time.Since(t0)
	}
	for _, days := range []int{90, 3650} {
		b.Run(fmt.Sprintf("%d days", days), func(b *testing.B) {
			var spent, bare time.Duration
			for range b.N {
				bare += floor()
				t0 := time.Now()
				series, err := models.DailyBalances(ctx, d, models.FamilyViewer(u.FamilyID), a.ID, end.AddDate(0, 0, 1-days), end)
				spent += time.Since(t0)
				if err != nil || len(series) != days {
					b.Fatalf("%d points, %v", len(series), err)
				}
			}
			b.ReportMetric(float64(spent)/float64(b.N)/1e6, "ms/series")
			b.ReportMetric(float64(spent)/float64(bare), "x-bare-sum")
		})
	}
}
