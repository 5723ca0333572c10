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

// checkpointsOf formats a reconciliation's checkpoints as "day:bank/tally status" with days
// counted from base, newest first.
func checkpointsOf(r *models.Reconciliation, base time.Time) string {
	var parts []string
	for _, c := range r.Checkpoints {
		parts = append(parts, fmt.Sprintf("%d:%s/%s %s", int(c.Date.Sub(base).Hours()/24), c.Bank.StringFixed(2), c.Tally.StringFixed(2), c.Status))
	}
	return strings.Join(parts, " ")
}

// mustWriteTransactions writes transactions of the given amounts into the account, dated the
// given number of days from base.
func mustWriteTransactions(t *testing.T, d *db.DB, a *models.Account, base time.Time, amounts map[int]string) {
	t.Helper()
	for day, amount := range amounts {
		mustWriteLedger(t, d, a, base, []ledgerEntry{{day: day, kind: "transaction", amount: amount}})
	}
}

// TestHistoryWalksFromTheTypedBalance is the household of the issue: a balance typed today,
// three older transactions imported after it, a transaction added by hand later today, a
// statement that agrees and one that does not, and each fix with its undo.
func TestHistoryWalksFromTheTypedBalance(t *testing.T) {
	ctx := context.Background()
	d := testkit.MustOpenDB(t)
	u := testkit.MustCreateUser(t, d, testkit.UserOpts{})
	other := testkit.MustCreateUser(t, d, testkit.UserOpts{})
	today := time.Now().UTC().Truncate(24 * time.Hour)
	acct := testkit.MustCreateAccount(t, d, u.FamilyID, "Checking", "Depository", "1000")
	// Imported after the balance was typed, dated before it: −100, −50 and +200 in balance terms.
	mustWriteTransactions(t, d, acct, today, map[int]string{-40: "100", -30: "50", -20: "-200"})
	if err := models.RecomputeBalances(ctx, d, []uuid.UUID{acct.ID}); err != nil {
		t.Fatal(err)
	}
	series := func(t *testing.T) string {
		t.Helper()
		got, err := models.DailyBalances(ctx, d, models.FamilyViewer(u.FamilyID), acct.ID, today.AddDate(0, 0, -41), today)
		if err != nil {
			t.Fatal(err)
		}
		// Only the days it changes, and the last.
		var parts []string
		for i, p := range got {
			if i == 0 || i == len(got)-1 || !p.Balance.Equal(got[i-1].Balance) {
				parts = append(parts, fmt.Sprintf("%d:%s", int(p.Date.Sub(today).Hours()/24), p.Balance.StringFixed(2)))
			}
		}
		return strings.Join(parts, " ")
	}
	stored := func(t *testing.T) string {
		t.Helper()
		a, err := models.AccountByID(ctx, d, models.FamilyViewer(u.FamilyID), acct.ID)
		if err != nil {
			t.Fatal(err)
		}
		return a.Balance.StringFixed(2)
	}
	reconcile := func(t *testing.T) *models.Reconciliation {
		t.Helper()
		r, err := models.ReconcileAccount(ctx, d, u.FamilyID, acct.ID)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}

	t.Run("the history ends at the typed balance, with no jump", func(t *testing.T) {
		if got, want := series(t), "-41:950.00 -40:850.00 -30:800.00 -20:1000.00 0:1000.00"; got != want {
			t.Errorf("history\n got %s\nwant %s", got, want)
		}
		if got := stored(t); got != "1000.00" {
			t.Errorf("balance %s, want the typed 1000.00", got)
		}
	})
	t.Run("a transaction added today after the balance was typed moves it", func(t *testing.T) {
		mustWriteTransactions(t, d, acct, today, map[int]string{0: "25"})
		if err := models.RecomputeBalances(ctx, d, []uuid.UUID{acct.ID}); err != nil {
			t.Fatal(err)
		}
		if got, want := series(t), "-41:950.00 -40:850.00 -30:800.00 -20:1000.00 0:975.00"; got != want {
			t.Errorf("history\n got %s\nwant %s", got, want)
		}
		if got := stored(t); got != "975.00" {
			t.Errorf("balance %s, want 975.00", got)
		}
	})

	// Two statements' closing balances: one agrees with the ledger, one is 100.00 above it.
	mustWriteLedger(t, d, acct, today, []ledgerEntry{
		{day: -35, kind: "checkpoint", amount: "850"},
		{day: -25, kind: "checkpoint", amount: "900"},
	})
	t.Run("a checkpoint that differs is named with the days that explain it", func(t *testing.T) {
		r := reconcile(t)
		if got, want := checkpointsOf(r, today), "-25:900.00/800.00 differs -35:850.00/850.00 matches"; got != want {
			t.Fatalf("checkpoints\n got %s\nwant %s", got, want)
		}
		c := r.Checkpoints[0]
		if !c.Difference.Equal(decimal.NewFromInt(100)) || !c.GapAfter.Equal(today.AddDate(0, 0, -25)) || !c.GapThrough.Equal(today) {
			t.Errorf("difference %s over (%s, %s], want 100 over (-25, today]", c.Difference, c.GapAfter, c.GapThrough)
		}
		if r.Anchor == nil || !r.Anchor.Amount.Equal(decimal.NewFromInt(1000)) || r.Differences() != 1 {
			t.Errorf("anchor %+v, %d differences", r.Anchor, r.Differences())
		}
	})
	fix := func(t *testing.T, how string) *models.Entry {
		t.Helper()
		e, err := models.FixCheckpoint(ctx, d, u.FamilyID, acct.ID, reconcile(t).Checkpoints[0].EntryID, how)
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	undo := func(t *testing.T, e *models.Entry) {
		t.Helper()
		if err := models.UndoReconciliationFix(ctx, d, u.FamilyID, acct.ID, e.ID); err != nil {
			t.Fatal(err)
		}
		if got, want := checkpointsOf(reconcile(t), today), "-25:900.00/800.00 differs -35:850.00/850.00 matches"; got != want {
			t.Errorf("after the undo\n got %s\nwant %s", got, want)
		}
		if got := stored(t); got != "975.00" {
			t.Errorf("balance %s after the undo, want 975.00", got)
		}
	}
	t.Run("an adjustment in the gap meets the bank, is left out of spending, and is undone", func(t *testing.T) {
		e := fix(t, models.FixAdjust)
		// The earlier statement agreed only because two gaps cancelled out: the 100.00 came in
		// between the two statements, and 100.00 went out between the later one and today.
		r := reconcile(t)
		if got, want := checkpointsOf(r, today), "-25:900.00/900.00 matches -35:850.00/950.00 differs"; got != want {
			t.Errorf("after the adjustment\n got %s\nwant %s", got, want)
		}
		if c := r.Checkpoints[1]; !c.GapAfter.Equal(today.AddDate(0, 0, -35)) || !c.GapThrough.Equal(today.AddDate(0, 0, -25)) {
			t.Errorf("the earlier statement's gap (%s, %s], want the days between the two statements", c.GapAfter, c.GapThrough)
		}
		var row struct {
			Date     time.Time       `bun:"date"`
			Amount   decimal.Decimal `bun:"amount"`
			Excluded bool            `bun:"excluded"`
			Category string          `bun:"category"`
		}
		if err := d.NewRaw(`SELECT e.date, e.amount, e.excluded, c.name AS category FROM entries e JOIN categories c ON c.id = e.category_id
			WHERE e.id = ?`, e.ID).Scan(ctx, &row); err != nil {
			t.Fatal(err)
		}
		if !row.Date.Equal(today.AddDate(0, 0, -24)) || !row.Amount.Equal(decimal.NewFromInt(100)) || !row.Excluded || row.Category != models.BalanceAdjustmentCategory {
			t.Errorf("adjustment %+v, want 100.00 out on day -24, excluded, in %q", row, models.BalanceAdjustmentCategory)
		}
		if got := stored(t); got != "975.00" {
			t.Errorf("balance %s: an adjustment before the anchor moves the past, not today", got)
		}
		undo(t, e)
	})
	t.Run("trusting the bank makes its balance the anchor, keeps the typed one as a checkpoint, and is undone", func(t *testing.T) {
		e := fix(t, models.FixTrust)
		r := reconcile(t)
		if r.Anchor == nil || !r.Anchor.Date.Equal(today.AddDate(0, 0, -25)) || !r.Anchor.Amount.Equal(decimal.NewFromInt(900)) {
			t.Fatalf("anchor %+v, want the bank's 900.00 on day -25", r.Anchor)
		}
		if got, want := checkpointsOf(r, today), "0:1000.00/1100.00 differs -25:900.00/900.00 matches -35:850.00/950.00 differs"; got != want {
			t.Errorf("after trusting the bank\n got %s\nwant %s", got, want)
		}
		if got := stored(t); got != "1075.00" {
			t.Errorf("balance %s, want 1075.00", got)
		}
		undo(t, e)
	})
	t.Run("a balance typed anew moves the anchor, and the old one is a checkpoint", func(t *testing.T) {
		if _, err := models.SetBalance(ctx, d, u.FamilyID, acct.ID, decimal.NewFromInt(2000), today); err != nil {
			t.Fatal(err)
		}
		r := reconcile(t)
		if got, want := checkpointsOf(r, today), "0:1000.00/2025.00 differs -25:900.00/1825.00 differs -35:850.00/1875.00 differs"; got != want {
			t.Errorf("after typing 2000\n got %s\nwant %s", got, want)
		}
		if got := stored(t); got != "2000.00" {
			t.Errorf("balance %s, want 2000.00", got)
		}
	})
	t.Run("only a fix is undone, and only in its family", func(t *testing.T) {
		var plain uuid.UUID
		if err := d.NewRaw("SELECT id FROM entries WHERE account_id = ? AND kind = 'transaction' LIMIT 1", acct.ID).Scan(ctx, &plain); err != nil {
			t.Fatal(err)
		}
		if err := models.UndoReconciliationFix(ctx, d, u.FamilyID, acct.ID, plain); apperr.CodeOf(err) != apperr.NotFound {
			t.Errorf("undoing a transaction that is no fix: %v", err)
		}
		if _, err := models.ReconcileAccount(ctx, d, other.FamilyID, acct.ID); apperr.CodeOf(err) != apperr.NotFound {
			t.Errorf("another family's account: %v", err)
		}
		if _, err := models.FixCheckpoint(ctx, d, other.FamilyID, acct.ID, reconcile(t).Checkpoints[0].EntryID, models.FixTrust); apperr.CodeOf(err) != apperr.NotFound {
			t.Errorf("fixing another family's checkpoint: %v", err)
		}
	})
}

// TestReconcileABankFedAccount checks the checkpoints of an account whose balance the
// provider reports: earlier reported balances are set against the walk back from today's.
func TestReconcileABankFedAccount(t *testing.T) {
	ctx := context.Background()
	d := testkit.MustOpenDB(t)
	u := testkit.MustCreateUser(t, d, testkit.UserOpts{})
	base := time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)
	bank := testkit.MustCreateAccount(t, d, u.FamilyID, "Bank", "Depository", "")
	if _, err := d.NewRaw("UPDATE accounts SET source = 'simplefin', balance = 500 WHERE id = ?", bank.ID).Exec(ctx); err != nil {
		t.Fatal(err)
	}
	mustWriteLedger(t, d, bank, base, []ledgerEntry{
		{day: 1, kind: "checkpoint", amount: "480"},
		{day: 2, kind: "transaction", amount: "-20"},
		{day: 3, kind: "transaction", amount: "9", pending: true}, // not in the bank's balance yet
		{day: 3, kind: "checkpoint", amount: "500"},
		{day: 5, kind: "checkpoint", amount: "450"}, // the bank said 450 that day: 50 is missing after it
	})
	r, err := models.ReconcileAccount(ctx, d, u.FamilyID, bank.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := checkpointsOf(r, base), "5:450.00/500.00 differs 3:500.00/500.00 matches 1:480.00/480.00 matches"; got != want {
		t.Fatalf("checkpoints\n got %s\nwant %s", got, want)
	}
	if c := r.Checkpoints[0]; !c.GapAfter.Equal(base.AddDate(0, 0, 5)) || !c.GapThrough.IsZero() || r.Anchor != nil {
		t.Errorf("gap (%s, %s], anchor %+v: the gap of a bank-fed account runs to today", c.GapAfter, c.GapThrough, r.Anchor)
	}
	if _, err := models.FixCheckpoint(ctx, d, u.FamilyID, bank.ID, r.Checkpoints[0].EntryID, models.FixTrust); apperr.CodeOf(err) != apperr.Conflict {
		t.Errorf("trusting a checkpoint of a bank-fed account: %v", err)
	}
}
