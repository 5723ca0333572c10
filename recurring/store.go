package recurring

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"
	"github.com/uptrace/bun"

	"tally/models"
)

// Window is how far back detection reads the history: two years and a month, enough for a
// yearly series' last two payments. A series is judged on the same window however it is
// found, whole or after an import.
const Window = 25 // months

// Service finds and keeps the families' recurring series. Its methods take the database
// they work on, so that they run inside a caller's transaction as well.
type Service struct{}

// Scope is which new transactions an incremental detection looks at: those of an import, or
// those written to some accounts since a moment (a bank sync). The groups they belong to are
// detected again, over their whole window.
type Scope struct {
	ImportID   *uuid.UUID
	AccountIDs []uuid.UUID
	Since      time.Time
}

// Result says what a detection did.
type Result struct {
	Read, Found, Created, Updated, Removed int
}

// utilityPattern finds, in a category's folded name or its parent's, the words of energy,
// water and the like in the languages of the starter categories: their bills vary, so their
// series take the utility tolerance.
const utilityPattern = `(utilit|energ|electri|strom|nebenkosten|heiz|heating|gas|water|wasser|suministro|utenze|charges|eau)`

// ledgerFilter is which transactions a series is made of: those the spending report counts
// (no transfers between the family's own accounts, nothing excluded, no split parts), posted.
const ledgerFilter = `e.kind = 'transaction' AND e.parent_id IS NULL AND NOT e.excluded AND NOT e.pending
	AND e.transaction_kind NOT IN (?)`

// txnColumns reads an entry as a Txn.
const txnColumns = `e.account_id, recurring_key(e.merchant_id, e.name) AS key, e.date, e.amount, e.currency,
	coalesce(m.name, e.name) AS name, e.merchant_id, e.category_id,
	coalesce(search_fold(coalesce(c.name, '') || ' ' || coalesce(p.name, '')) ~ '` + utilityPattern + `', false) AS utility
	FROM entries e
	LEFT JOIN merchants m ON m.id = e.merchant_id
	LEFT JOIN categories c ON c.id = e.category_id
	LEFT JOIN categories p ON p.id = c.parent_id`

type txnRow struct {
	AccountID  uuid.UUID       `bun:"account_id,type:uuid"`
	Key        *string         `bun:"key"`
	Date       time.Time       `bun:"date"`
	Amount     decimal.Decimal `bun:"amount"`
	Currency   string          `bun:"currency"`
	Name       string          `bun:"name"`
	MerchantID *uuid.UUID      `bun:"merchant_id,type:uuid"`
	CategoryID *uuid.UUID      `bun:"category_id,type:uuid"`
	Utility    bool            `bun:"utility"`
}

func toTxns(rows []txnRow) []Txn {
	out := make([]Txn, 0, len(rows))
	for _, r := range rows {
		if r.Key == nil {
			continue
		}
		out = append(out, Txn{AccountID: r.AccountID, Key: *r.Key, Date: r.Date.UTC(), Amount: r.Amount, Currency: r.Currency,
			Name: r.Name, MerchantID: r.MerchantID, CategoryID: r.CategoryID, Utility: r.Utility})
	}
	return out
}

// windowStart is the first day detection reads as of today.
func windowStart(today time.Time) string {
	return today.AddDate(0, -Window, 0).Format(time.DateOnly)
}

// Detect finds every series in the family's history as of today and records them
// (see record). It reads the family's transactions of the window once.
func (s *Service) Detect(ctx context.Context, db bun.IDB, familyID uuid.UUID, today time.Time) (Result, error) {
	var rows []txnRow
	err := db.NewRaw(`SELECT `+txnColumns+` WHERE e.family_id = ? AND `+ledgerFilter+` AND e.date >= ?::date AND e.date <= ?::date`,
		familyID, bun.In(models.TransferKinds), windowStart(today), today.Format(time.DateOnly)).Scan(ctx, &rows)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return Result{}, fmt.Errorf("read history: %w", err)
	}
	txns := toTxns(rows)
	res, err := s.record(ctx, db, familyID, Detect(txns, today), nil, today)
	res.Read = len(rows)
	return res, err
}

// DetectNew finds the series of the groups that the scope's new transactions belong to,
// over each group's whole window, and records them (see record). It reads the new
// transactions' groups only: their merchants' transactions through entries_merchant_idx,
// and the transactions without a merchant of their accounts.
func (s *Service) DetectNew(ctx context.Context, db bun.IDB, familyID uuid.UUID, scope Scope, today time.Time) (Result, error) {
	var fresh string
	args := []any{familyID, bun.In(models.TransferKinds)}
	switch {
	case scope.ImportID != nil:
		fresh, args = `e.import_id = ?`, append(args, *scope.ImportID)
	case len(scope.AccountIDs) > 0:
		fresh, args = `e.account_id IN (?) AND e.created_at >= ?`, append(args, bun.In(scope.AccountIDs), scope.Since)
	default:
		return Result{}, nil
	}
	start, end := windowStart(today), today.Format(time.DateOnly)
	args = append(args, familyID, bun.In(models.TransferKinds), start, end, familyID, bun.In(models.TransferKinds), start, end)
	var rows []txnRow
	err := db.NewRaw(`WITH fresh AS MATERIALIZED (
			SELECT DISTINCT e.account_id, e.merchant_id, CASE WHEN e.merchant_id IS NULL THEN recurring_key(NULL, e.name) END AS name_key
			FROM entries e WHERE e.family_id = ? AND `+ledgerFilter+` AND `+fresh+`
		)
		SELECT `+txnColumns+`
		WHERE e.merchant_id IN (SELECT merchant_id FROM fresh WHERE merchant_id IS NOT NULL)
			AND e.family_id = ? AND `+ledgerFilter+` AND e.date >= ?::date AND e.date <= ?::date
		UNION ALL
		SELECT * FROM (SELECT `+txnColumns+`
			WHERE e.account_id IN (SELECT account_id FROM fresh WHERE name_key IS NOT NULL) AND e.merchant_id IS NULL
				AND e.family_id = ? AND `+ledgerFilter+` AND e.date >= ?::date AND e.date <= ?::date
		) n WHERE n.key IN (SELECT name_key FROM fresh WHERE name_key IS NOT NULL)`,
		args...).Scan(ctx, &rows)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return Result{}, fmt.Errorf("read new transactions' groups: %w", err)
	}
	txns := toTxns(rows)
	scanned := map[groupRef]bool{}
	for _, t := range txns {
		scanned[groupRef{t.AccountID, t.Key}] = true
	}
	res, err := s.record(ctx, db, familyID, Detect(txns, today), scanned, today)
	res.Read = len(rows)
	return res, err
}

// groupRef is a group detection read: an account and a key.
type groupRef struct {
	account uuid.UUID
	key     string
}

// record merges what detection found into the family's series, under a lock of the family's
// series so that two detections never add the same one twice:
//   - a series found that matches a kept one (same account, currency, direction and group,
//     an amount within the tolerance) moves that one on: its last payment, next date, counts
//     and confidence; a proposed one not edited by a person takes the found name, amount,
//     interval and category too; an ignored one stays as it is, so it is never proposed
//     again;
//   - a series found that matches none is added, proposed;
//   - a proposed series, never edited, of a group read (all of them when scanned is nil)
//     that was not found again has stopped, and is removed.
func (s *Service) record(ctx context.Context, db bun.IDB, familyID uuid.UUID, found []Found, scanned map[groupRef]bool, today time.Time) (Result, error) {
	res := Result{Found: len(found)}
	if _, err := db.NewRaw("SELECT pg_advisory_xact_lock(hashtextextended('recurring:' || ?::text, 0))", familyID).Exec(ctx); err != nil {
		return res, err
	}
	var kept []models.Recurring
	if err := db.NewSelect().Model(&kept).Where("family_id = ?", familyID).Order("created_at", "id").Scan(ctx); err != nil {
		return res, err
	}
	taken := make([]bool, len(kept))
	for _, f := range found {
		i := matchKept(kept, taken, f)
		if i < 0 {
			r := newSeries(familyID, f)
			if _, err := db.NewInsert().Model(r).Exec(ctx); err != nil {
				return res, fmt.Errorf("add series: %w", err)
			}
			res.Created++
			continue
		}
		taken[i] = true
		r := &kept[i]
		if r.Status == models.RecurringIgnored {
			continue
		}
		cols := moveOn(r, f)
		if _, err := db.NewUpdate().Model(r).Column(cols...).WherePK().Exec(ctx); err != nil {
			return res, fmt.Errorf("update series: %w", err)
		}
		res.Updated++
	}
	var gone []uuid.UUID
	for i, r := range kept {
		if taken[i] || r.Status != models.RecurringProposed || r.Manual || r.MatchKey == nil || r.AccountID == nil {
			continue
		}
		if scanned == nil || scanned[groupRef{*r.AccountID, *r.MatchKey}] {
			gone = append(gone, r.ID)
		}
	}
	if len(gone) > 0 {
		if _, err := db.NewDelete().Model((*models.Recurring)(nil)).Where("id IN (?)", bun.In(gone)).Exec(ctx); err != nil {
			return res, err
		}
		res.Removed = len(gone)
	}
	return res, nil
}

// matchKept is the index of the kept series f is, or -1: the first not yet taken of the same
// account, currency, direction and group (its key, or for a series from a file its merchant)
// whose amount, or last payment, is within the tolerance of f's.
func matchKept(kept []models.Recurring, taken []bool, f Found) int {
	for i, r := range kept {
		if taken[i] || r.AccountID == nil || *r.AccountID != f.AccountID || r.Currency != f.Currency ||
			r.Amount.IsPositive() != f.Amount.IsPositive() {
			continue
		}
		sameGroup := r.MatchKey != nil && *r.MatchKey == f.Key ||
			r.MatchKey == nil && r.MerchantID != nil && f.MerchantID != nil && *r.MerchantID == *f.MerchantID
		if !sameGroup {
			continue
		}
		tol := decimal.Max(r.Tolerance, f.Tolerance)
		if within(f.Amount, r.Amount, tol) || r.LastAmount != nil && within(f.Amount, *r.LastAmount, tol) {
			return i
		}
	}
	return -1
}

// within reports whether a is within the share tol of b.
func within(a, b, tol decimal.Decimal) bool {
	return a.Sub(b).Abs().LessThanOrEqual(b.Abs().Mul(tol))
}

// newSeries is a proposed series of what detection found.
func newSeries(familyID uuid.UUID, f Found) *models.Recurring {
	r := &models.Recurring{ID: uuid.Must(uuid.NewV7()), FamilyID: familyID, AccountID: &f.AccountID, Currency: f.Currency,
		Status: models.RecurringProposed}
	key := f.Key
	r.MatchKey = &key
	moveOn(r, f)
	return r
}

// moveOn brings a series up to what detection found, and returns the columns it changed. A
// person's edits (Manual) keep their name, amount, interval, day and category; their next
// date moves only once a later payment is seen.
func moveOn(r *models.Recurring, f Found) []string {
	cols := []string{"last_occurrence_date", "last_amount", "occurrence_count", "expected_amount_min", "expected_amount_max",
		"expected_amount_avg", "match_key", "updated_at"}
	later := f.LastDate.After(r.LastOccurrence)
	r.LastOccurrence, r.OccurrenceCount, r.UpdatedAt = f.LastDate, f.Count, time.Now()
	last, lo, hi, avg, key := f.Last, f.Min, f.Max, f.Avg, f.Key
	r.LastAmount, r.AmountMin, r.AmountMax, r.AmountAvg, r.MatchKey = &last, &lo, &hi, &avg, &key
	if r.Status != models.RecurringConfirmed {
		r.Confidence, cols = f.Confidence, append(cols, "confidence")
	}
	if !r.Manual {
		r.Name, r.Amount, r.Interval, r.DayOfMonth, r.CategoryID = f.Name, f.Amount, f.Interval, f.Day, f.CategoryID
		r.MerchantID, r.Tolerance, r.NextExpected = f.MerchantID, f.Tolerance, f.Next
		return append(cols, "name", "amount", "interval", "expected_day_of_month", "category_id", "merchant_id", "tolerance",
			"next_expected_date")
	}
	if later {
		r.NextExpected = NextDate(r.Interval, r.DayOfMonth, f.LastDate)
		cols = append(cols, "next_expected_date")
	}
	return cols
}
