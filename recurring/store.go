package recurring

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
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

// Result says what a detection did. Dropped is how many new series it found but did not add:
// the family had no room for them below models.MaxRecurringSeries.
type Result struct {
	Read, Found, Created, Updated, Removed, Dropped int
}

// utilityPattern finds, in a category's folded name or its parent's, the words of energy,
// water and the like in the languages of the starter categories: their bills vary, so their
// series take the utility tolerance.
const utilityPattern = `(utilit|energ|electri|strom|nebenkosten|heiz|heating|gas|water|wasser|suministro|utenze|charges|eau)`

// ledgerFilter is which transactions a series is made of: payments as the bank shows them
// (a split transaction is one payment, its parts none), no transfers between the family's own
// accounts, nothing excluded, posted.
// Its statement's argument ?1 is models.TransferKinds.
const ledgerFilter = `e.kind = 'transaction' AND e.parent_id IS NULL AND NOT e.excluded AND NOT e.pending
	AND e.transaction_kind NOT IN (?1)`

// utilityCategories is, as a CTE, whether each of the family's categories (?0) is a utility's,
// by its name or its parent's, computed once per category rather than per transaction.
const utilityCategories = `cats AS MATERIALIZED (
	SELECT c.id, search_fold(c.name || ' ' || coalesce(p.name, '')) ~ '` + utilityPattern + `' AS utility
	FROM categories c LEFT JOIN categories p ON p.id = c.parent_id WHERE c.family_id = ?0
)`

// txnColumns reads an entry (e) as a Txn, its category's kind read per row from cats. Its
// name, merchant and category are left out: detection needs them only for the series it
// finds, which described reads after.
const txnColumns = `e.id, e.account_id, recurring_key(e.merchant_id, e.name) AS key, e.date, e.amount, e.currency,
	coalesce((SELECT k.utility FROM cats k WHERE k.id = e.category_id), false) AS utility`

// readTxns runs a detection's statement, whose columns are txnColumns (after a probe when
// probed), and reads its rows by hand: through bun's reflection, scanning ten thousand rows
// took as long as running the statement. It returns the transactions with a key (a name
// without letters belongs to no group), the probe of each when probed, and how many rows it
// read.
func readTxns(ctx context.Context, db bun.IDB, probed bool, query string, args ...any) (txns []Txn, probes []int64, read int, err error) {
	rows, err := db.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, nil, 0, err
	}
	defer rows.Close()
	var (
		t     Txn
		probe int64
		key   sql.NullString
	)
	dest := []any{&t.ID, &t.AccountID, &key, &t.Date, &t.Amount, &t.Currency, &t.Utility}
	if probed {
		dest = append([]any{&probe}, dest...)
	}
	for rows.Next() {
		if err := rows.Scan(dest...); err != nil {
			return nil, nil, 0, err
		}
		read++
		if !key.Valid {
			continue
		}
		t.Key, t.Date = key.String, t.Date.UTC()
		txns = append(txns, t)
		if probed {
			probes = append(probes, probe)
		}
	}
	return txns, probes, read, rows.Err()
}

// windowStart is the first day detection reads as of today.
func windowStart(today time.Time) string {
	return today.AddDate(0, -Window, 0).Format(time.DateOnly)
}

// Detect finds every series in the family's history as of today and records them
// (see record). It reads the family's transactions of the window once.
func (s *Service) Detect(ctx context.Context, db bun.IDB, familyID uuid.UUID, today time.Time) (Result, error) {
	txns, _, read, err := readTxns(ctx, db, false, `WITH `+utilityCategories+` SELECT `+txnColumns+` FROM entries e
		WHERE e.family_id = ?0 AND `+ledgerFilter+` AND e.date >= ?2::date AND e.date <= ?3::date`,
		familyID, bun.In(models.TransferKinds), windowStart(today), today.Format(time.DateOnly))
	if err != nil {
		return Result{}, fmt.Errorf("read history: %w", err)
	}
	found, err := described(ctx, db, familyID, Detect(txns, today))
	if err != nil {
		return Result{}, err
	}
	res, err := s.record(ctx, db, familyID, found, true)
	res.Read = read
	return res, err
}

// described gives each series found the name, merchant and category of its last payment (the
// name its merchant's, or else the transaction's). Detection reads these for the series it
// finds only, not for every row.
func described(ctx context.Context, db bun.IDB, familyID uuid.UUID, found []Found) ([]Found, error) {
	if len(found) == 0 {
		return found, nil
	}
	ids := make([]uuid.UUID, len(found))
	for i, f := range found {
		ids[i] = f.lastID
	}
	var rows []struct {
		ID         uuid.UUID  `bun:"id,type:uuid"`
		Name       string     `bun:"name"`
		MerchantID *uuid.UUID `bun:"merchant_id,type:uuid"`
		CategoryID *uuid.UUID `bun:"category_id,type:uuid"`
	}
	if err := db.NewRaw(`SELECT e.id, coalesce(m.name, e.name) AS name, e.merchant_id, e.category_id
		FROM entries e LEFT JOIN merchants m ON m.id = e.merchant_id
		WHERE e.family_id = ? AND e.id IN (?)`, familyID, bun.In(ids)).Scan(ctx, &rows); err != nil && !errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("describe series: %w", err)
	}
	byID := make(map[uuid.UUID]int, len(rows))
	for i, r := range rows {
		byID[r.ID] = i
	}
	for i := range found {
		if j, ok := byID[found[i].lastID]; ok {
			r := rows[j]
			found[i].Name, found[i].MerchantID, found[i].CategoryID = r.Name, r.MerchantID, r.CategoryID
		}
	}
	return found, nil
}

// DetectNew finds the series that the scope's new transactions may belong to, and records
// them (see record). For each new transaction it reads the transactions of the window of its
// group whose amount could share a series with its own (twice its tolerance apart at most):
// its merchant's through entries_merchant_idx (merchant, amount, date), which holds every
// column this read needs (an index-only scan of the rows vacuum has marked visible), or
// without a merchant its account's through entries_transfer_match_idx (family, amount,
// date). The new transactions' ranges of one group are merged first, so that no row is read
// twice. Its cost follows the new rows and their
// look-alikes, not the size of the history. It removes nothing: a group's other series are
// not all read.
func (s *Service) DetectNew(ctx context.Context, db bun.IDB, familyID uuid.UUID, scope Scope, today time.Time) (Result, error) {
	var fresh string
	args := []any{familyID, bun.In(models.TransferKinds), windowStart(today), today.Format(time.DateOnly), spread(fixedPercent), spread(utilityPercent)}
	switch {
	case scope.ImportID != nil:
		fresh, args = `e.import_id = ?6`, append(args, *scope.ImportID, nil)
	case len(scope.AccountIDs) > 0:
		fresh, args = `e.account_id IN (?6) AND e.created_at >= ?7`, append(args, bun.In(scope.AccountIDs), scope.Since)
	default:
		return Result{}, nil
	}
	txns, probes, _, err := readTxns(ctx, db, true, `WITH `+utilityCategories+`, probes AS (
			-- each new transaction's group (a merchant's across accounts, a name's in its
			-- account) and the range of amounts that could share a series with it
			SELECT CASE WHEN e.merchant_id IS NULL THEN e.account_id END AS account_id, e.merchant_id,
				CASE WHEN e.merchant_id IS NULL THEN recurring_key(NULL, e.name) END AS name_key,
				least(e.amount / x.spread, e.amount * x.spread) AS lo, greatest(e.amount / x.spread, e.amount * x.spread) AS hi
			FROM entries e LEFT JOIN cats k ON k.id = e.category_id
			CROSS JOIN LATERAL (SELECT CASE WHEN coalesce(k.utility, false) THEN ?5::numeric ELSE ?4::numeric END AS spread) x
			WHERE e.family_id = ?0 AND `+ledgerFilter+` AND `+fresh+`
		), islands AS (
			-- a range starts an island unless an earlier one of its group reaches it
			SELECT *, count(*) FILTER (WHERE NOT joined) OVER (PARTITION BY account_id, merchant_id, name_key ORDER BY lo, hi) AS island
			FROM (SELECT *, coalesce(lo <= max(hi) OVER (PARTITION BY account_id, merchant_id, name_key ORDER BY lo, hi
				ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), false) AS joined FROM probes) p
		), fresh AS MATERIALIZED (
			SELECT row_number() OVER () AS probe, account_id, merchant_id, name_key, min(lo) AS lo, max(hi) AS hi FROM islands
			WHERE merchant_id IS NOT NULL OR name_key IS NOT NULL
			GROUP BY account_id, merchant_id, name_key, island
		)
		SELECT f.probe, `+txnColumns+` FROM fresh f
		JOIN LATERAL (
			-- a merchant's, from entries_merchant_idx alone (no name: the merchant is the group;
			-- no family: the merchant is one of the family's new transactions', so its entries
			-- are the family's)
			(SELECT e.id, e.account_id, e.merchant_id, NULL::text AS name, e.date, e.amount, e.currency, e.category_id
				FROM entries e WHERE f.merchant_id IS NOT NULL AND e.merchant_id = f.merchant_id AND e.amount BETWEEN f.lo AND f.hi
				AND `+ledgerFilter+` AND e.date >= ?2::date AND e.date <= ?3::date LIMIT ?8)
			UNION ALL
			(SELECT e.id, e.account_id, e.merchant_id, e.name, e.date, e.amount, e.currency, e.category_id
				FROM entries e WHERE f.merchant_id IS NULL AND e.family_id = ?0 AND e.account_id = f.account_id AND e.merchant_id IS NULL
				AND e.date >= ?2::date AND e.date <= ?3::date AND e.amount BETWEEN f.lo AND f.hi
				AND `+ledgerFilter+` AND recurring_key(NULL, e.name) = f.name_key LIMIT ?8)
		) e ON true`,
		append(args[:8:8], crowded+1)...)
	if err != nil {
		return Result{}, fmt.Errorf("read new transactions' groups: %w", err)
	}
	perProbe := map[int64]int{}
	for _, p := range probes {
		perProbe[p]++
	}
	// Each entry once, however many ranges read it.
	kept, seen := txns[:0], make(map[uuid.UUID]bool, len(txns))
	for i, t := range txns {
		if perProbe[probes[i]] <= crowded && !seen[t.ID] {
			seen[t.ID] = true
			kept = append(kept, t)
		}
	}
	found, err := described(ctx, db, familyID, Detect(kept, today))
	if err != nil {
		return Result{}, err
	}
	res, err := s.record(ctx, db, familyID, found, false)
	res.Read = len(kept)
	return res, err
}

// crowded is how many look-alikes of a new transaction (its group's transactions of about its
// amount in the window) are too many to be a series: more than two for each week of the window,
// as many as a card used at one shop every few days, among which no interval can fit. Detection
// after an import reads no more than this of them, and finds no series there, as detection of
// the whole history would not.
const crowded = 250

// spread is how far apart two amounts of one series can be, with a tolerance of pct per cent:
// each within the tolerance of their middle.
func spread(pct int64) decimal.Decimal {
	return decimal.NewFromInt(100 + pct).Div(decimal.NewFromInt(100 - pct)).Round(6)
}

// record merges what detection found into the family's series, under a lock of the family's
// series so that two detections never add the same one twice:
//   - a series found that matches a kept one (same account, currency, direction and group,
//     an amount within the tolerance) moves that one on: its last payment, next date, counts
//     and confidence; a proposed one not edited by a person takes the found name, amount,
//     interval and category too; an ignored one stays as it is, so it is never proposed
//     again;
//   - a series found that matches none is added, proposed;
//   - after a detection of the whole history (all), a proposed series never edited that was
//     not found again has stopped, and is removed;
//   - no more series are added than the family has room for below models.MaxRecurringSeries,
//     the most confident first.
func (s *Service) record(ctx context.Context, db bun.IDB, familyID uuid.UUID, found []Found, all bool) (Result, error) {
	res := Result{Found: len(found)}
	if err := models.LockRecurringSeries(ctx, db, familyID); err != nil {
		return res, err
	}
	var kept []models.Recurring
	if err := db.NewSelect().Model(&kept).Where("family_id = ?", familyID).Order("created_at", "id").Scan(ctx); err != nil {
		return res, err
	}
	taken := make([]bool, len(kept))
	var added, moved []models.Recurring
	for _, f := range found {
		i := matchKept(kept, taken, f)
		if i < 0 {
			added = append(added, *newSeries(familyID, f))
			continue
		}
		taken[i] = true
		if r := &kept[i]; r.Status != models.RecurringIgnored {
			moveOn(r, f)
			moved = append(moved, *r)
		}
	}
	var gone []uuid.UUID
	for i, r := range kept {
		if all && !taken[i] && r.Status == models.RecurringProposed && !r.Manual && r.MatchKey != nil {
			gone = append(gone, r.ID)
		}
	}
	// The stopped series removed below make room for new ones.
	added, res.Dropped = withinRoom(added, models.MaxRecurringSeries-len(kept)+len(gone))
	// One statement each for all the series added and all those moved on.
	if len(added) > 0 {
		if _, err := db.NewInsert().Model(&added).Exec(ctx); err != nil {
			return res, fmt.Errorf("add series: %w", err)
		}
	}
	if len(moved) > 0 {
		if _, err := db.NewUpdate().Model(&moved).Column(movedColumns...).Bulk().Exec(ctx); err != nil {
			return res, fmt.Errorf("update series: %w", err)
		}
	}
	res.Created, res.Updated = len(added), len(moved)
	if len(gone) > 0 {
		if _, err := db.NewDelete().Model((*models.Recurring)(nil)).Where("id IN (?)", bun.In(gone)).Exec(ctx); err != nil {
			return res, err
		}
		res.Removed = len(gone)
	}
	return res, nil
}

// withinRoom keeps the room most confident of the new series (in the order found among
// equals), and says how many it dropped.
func withinRoom(added []models.Recurring, room int) ([]models.Recurring, int) {
	room = max(room, 0)
	if len(added) <= room {
		return added, 0
	}
	slices.SortStableFunc(added, func(a, b models.Recurring) int { return b.Confidence.Cmp(a.Confidence) })
	return added[:room], len(added) - room
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

// movedColumns are the columns moveOn may change.
var movedColumns = []string{"last_occurrence_date", "last_amount", "occurrence_count", "expected_amount_min", "expected_amount_max",
	"expected_amount_avg", "match_key", "updated_at", "confidence", "name", "amount", "interval", "expected_day_of_month",
	"category_id", "merchant_id", "tolerance", "next_expected_date"}

// moveOn brings a series up to what detection found. A person's edits (Manual) keep their
// name, amount, interval, day and category; their next date moves only once a later payment
// is seen. A confirmed series keeps its confidence.
func moveOn(r *models.Recurring, f Found) {
	later := f.LastDate.After(r.LastOccurrence)
	r.LastOccurrence, r.OccurrenceCount, r.UpdatedAt = f.LastDate, f.Count, time.Now()
	last, lo, hi, avg, key := f.Last, f.Min, f.Max, f.Avg, f.Key
	r.LastAmount, r.AmountMin, r.AmountMax, r.AmountAvg, r.MatchKey = &last, &lo, &hi, &avg, &key
	if r.Status != models.RecurringConfirmed {
		r.Confidence = f.Confidence
	}
	switch {
	case !r.Manual:
		r.Name, r.Amount, r.Interval, r.DayOfMonth, r.CategoryID = f.Name, f.Amount, f.Interval, f.Day, f.CategoryID
		r.MerchantID, r.Tolerance, r.NextExpected = f.MerchantID, f.Tolerance, f.Next
	case later:
		r.NextExpected = NextDate(r.Interval, r.DayOfMonth, f.LastDate)
	}
}
