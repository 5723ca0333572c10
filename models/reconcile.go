package models

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"
	"github.com/uptrace/bun"

	"tally/internal/apperr"
)

// Reconciliation statuses of a checkpoint.
const (
	CheckpointMatches = "matches"
	CheckpointDiffers = "differs"
)

// SourceReconciliation marks the entries a reconciliation fix wrote (an adjustment, an anchor
// from the bank's balance), which UndoReconciliationFix takes back.
const SourceReconciliation = "reconciliation"

// BalanceAdjustmentCategory is the category of adjustments, which are left out of spending.
const BalanceAdjustmentCategory = "Balance adjustment"

// EventBalanceDiffers is the event that tells whoever listens (the family's webhooks) that
// balances a bank stated for an account differ from the ledger: once an import brings them, or
// a bank sync makes one differ.
const EventBalanceDiffers = "balance.differs"

// DifferenceEvent is what a balance.differs event says: the account, the import that brought
// the balances (nil after a bank sync), and the checkpoints that differ, newest first.
type DifferenceEvent struct {
	AccountID   uuid.UUID         `json:"account_id"`
	ImportID    *uuid.UUID        `json:"import_id"`
	Checkpoints []CheckpointEvent `json:"checkpoints"`
}

// CheckpointEvent is a checkpoint as events and the API give it: amounts in the account's
// terms (what an asset holds, what a liability owes), as decimal strings.
type CheckpointEvent struct {
	ID           uuid.UUID       `json:"id"`
	Date         string          `json:"date"`
	Source       string          `json:"source"`
	BankBalance  decimal.Decimal `json:"bank_balance"`
	TallyBalance decimal.Decimal `json:"tally_balance"`
	Difference   decimal.Decimal `json:"difference"`
	Status       string          `json:"status"`
}

// EventAccounts is the account the event is about (AccountsEvent).
func (d DifferenceEvent) EventAccounts() []uuid.UUID { return []uuid.UUID{d.AccountID} }

// Event returns the checkpoint as events and the API give it.
func (c *Checkpoint) Event() CheckpointEvent {
	return CheckpointEvent{ID: c.EntryID, Date: c.Date.Format(time.DateOnly), Source: c.Source, BankBalance: c.Bank,
		TallyBalance: c.Tally, Difference: c.Difference, Status: c.Status}
}

// Anchor is the balance an account's history is walked from.
type Anchor struct {
	EntryID uuid.UUID
	Date    time.Time
	Amount  decimal.Decimal
	Name    string
	Source  string // as Checkpoint.Source
}

// Checkpoint is a balance a bank stated for an account (or an anchor a later one replaced),
// set against Tally's balance of the same moment.
type Checkpoint struct {
	EntryID  uuid.UUID
	Date     time.Time
	Name     string
	Source   string // the format or provider that stated it ("camt053", "simplefin"), "manual" when typed
	ImportID *uuid.UUID
	Bank     decimal.Decimal // what the bank said the account held (or owed)
	Tally    decimal.Decimal // what the ledger says
	// Difference is Bank less Tally: what entries Tally lacks would add.
	Difference decimal.Decimal
	Status     string // CheckpointMatches or CheckpointDiffers
	// The days whose entries explain a difference: after GapAfter up to GapThrough, between
	// this checkpoint and the nearest balance towards the anchor that agrees (the anchor
	// itself when none does). GapAfter is zero when the gap reaches back to the first entry.
	GapAfter, GapThrough time.Time
}

// Differs reports whether the bank and Tally disagree.
func (c *Checkpoint) Differs() bool { return c.Status == CheckpointDiffers }

// Reconciliation is an account's anchor and checkpoints.
type Reconciliation struct {
	Account *Account
	// Anchor is nil for a bank-fed account (its reported balance is the anchor) and for an
	// account whose balance is not known: its history starts from zero.
	Anchor      *Anchor
	Checkpoints []Checkpoint // newest first
	// Fixes are the entries reconciliation fixes wrote into the account, newest first, each
	// of which can be undone; ReconcileAccount reads them.
	Fixes []Entry
}

// Differences counts the checkpoints that differ.
func (r *Reconciliation) Differences() int {
	n := 0
	for i := range r.Checkpoints {
		if r.Checkpoints[i].Differs() {
			n++
		}
	}
	return n
}

// Checkpoint returns the checkpoint written as entry id, or nil.
func (r *Reconciliation) Checkpoint(id uuid.UUID) *Checkpoint {
	for i := range r.Checkpoints {
		if r.Checkpoints[i].EntryID == id {
			return &r.Checkpoints[i]
		}
	}
	return nil
}

// checkpointsQuery sets each checkpoint of the accounts against the walk of balancePoints at
// its moment: the constant governing its day plus the sign times the flow up to the day before
// and what it takes in of its own day. A checkpoint is every valuation of a bank-fed account,
// a Valued account's checkpoint valuations, and any other account's valuations but its anchor.
var checkpointsQuery = balancePoints + `
SELECT a.account, e.id, e.date, e.name, coalesce(e.source, 'manual') AS source, e.import_id, e.amount AS bank,
	coalesce(
		(SELECT off FROM offsets o WHERE o.account = a.account AND o.date <= e.date ORDER BY o.date DESC LIMIT 1),
		(SELECT off FROM offsets o WHERE o.account = a.account ORDER BY o.date LIMIT 1),
		(SELECT off FROM governing g WHERE g.account = a.account AND g.provider),
		0)
	+ a.sign * (` + flowSQL("a.account", "'-infinity'", "e.date - 1", "a.provider") + `
		+ (SELECT coalesce(sum(t.amount), 0) FROM entries t
			WHERE t.account_id = a.account AND t.kind = 'transaction' AND t.parent_id IS NULL AND t.date = e.date
				AND NOT (a.provider AND t.pending) AND (v.as_of IS NULL OR t.created_at <= v.as_of))) AS tally,
	(SELECT max(o.date) FROM offsets o WHERE o.account = a.account AND o.date <= e.date) AS governed_since,
	(SELECT min(o.date) FROM offsets o WHERE o.account = a.account) AS first_point
FROM accts a
JOIN entries e ON e.account_id = a.account AND e.kind = 'valuation'
JOIN valuations v ON v.entry_id = e.id
WHERE CASE WHEN a.provider THEN true
	WHEN a.valued THEN v.kind = 'checkpoint'
	ELSE NOT EXISTS (SELECT 1 FROM points p WHERE p.account = a.account AND p.entry = e.id) END
ORDER BY a.account, e.date DESC, e.created_at DESC`

// checkpointRow is a row of checkpointsQuery.
type checkpointRow struct {
	Account       uuid.UUID       `bun:"account"`
	ID            uuid.UUID       `bun:"id"`
	Date          time.Time       `bun:"date"`
	Name          string          `bun:"name"`
	Source        string          `bun:"source"`
	ImportID      *uuid.UUID      `bun:"import_id"`
	Bank          decimal.Decimal `bun:"bank"`
	Tally         decimal.Decimal `bun:"tally"`
	GovernedSince *time.Time      `bun:"governed_since"`
	FirstPoint    *time.Time      `bun:"first_point"`
}

// ReconcileAccount returns the family's account's anchor and its checkpoints, newest first.
func ReconcileAccount(ctx context.Context, db bun.IDB, familyID, accountID uuid.UUID) (*Reconciliation, error) {
	a, err := AccountByID(ctx, db, FamilyViewer(familyID), accountID)
	if err != nil {
		return nil, err
	}
	all, err := reconcile(ctx, db, []Account{*a})
	if err != nil {
		return nil, err
	}
	r := &all[0]
	err = db.NewSelect().Model(&r.Fixes).Where("account_id = ? AND family_id = ? AND source = ?", a.ID, familyID, SourceReconciliation).
		OrderExpr("created_at DESC, id DESC").Limit(20).Scan(ctx)
	return r, err
}

// ReconcileAccounts returns the reconciliation of each of the family's accounts among ids, in
// the order of their ids.
func ReconcileAccounts(ctx context.Context, db bun.IDB, familyID uuid.UUID, ids []uuid.UUID) ([]Reconciliation, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	var accts []Account
	if err := db.NewSelect().Model(&accts).Where("family_id = ? AND id IN (?)", familyID, bun.In(ids)).OrderExpr("id").Scan(ctx); err != nil {
		return nil, err
	}
	return reconcile(ctx, db, accts)
}

// BalanceKnown reports whether the account's history has a balance to walk from: an anchor, or
// a provider's reported balance. Without one its history starts from zero, and a bank's
// figure cannot be set against it.
func (r *Reconciliation) BalanceKnown() bool {
	return r.Anchor != nil || r.Account.Source != nil || r.Account.Type().Valued
}

// reconcile reads the reconciliation of each account, in the order given.
func reconcile(ctx context.Context, db bun.IDB, accts []Account) ([]Reconciliation, error) {
	out := make([]Reconciliation, len(accts))
	index := map[uuid.UUID]int{}
	for i := range accts {
		out[i].Account = &accts[i]
		index[accts[i].ID] = i
	}
	var rows []checkpointRow
	args := newBalanceArgs(accts, time.Time{}, time.Time{})
	if err := db.NewRaw(checkpointsQuery, args).Scan(ctx, &rows); err != nil && !isNoRows(err) {
		return nil, err
	}
	var anchors []struct {
		Account uuid.UUID `bun:"account"`
		Anchor
	}
	if err := db.NewRaw(balancePoints+`
		SELECT p.account, e.id AS entry_id, e.date, e.amount, e.name, coalesce(e.source, 'manual') AS source
		FROM accts a JOIN points p ON p.account = a.account JOIN entries e ON e.id = p.entry
		WHERE NOT a.valued`, args).Scan(ctx, &anchors); err != nil && !isNoRows(err) {
		return nil, err
	}
	for _, an := range anchors {
		r := &out[index[an.Account]]
		r.Anchor = &an.Anchor
	}
	for _, row := range rows {
		r := &out[index[row.Account]]
		c := Checkpoint{EntryID: row.ID, Date: row.Date, Name: row.Name, Source: row.Source, ImportID: row.ImportID,
			Bank: row.Bank, Tally: row.Tally, Difference: row.Bank.Sub(row.Tally), Status: CheckpointMatches}
		if !c.Difference.IsZero() {
			c.Status = CheckpointDiffers
		}
		r.Checkpoints = append(r.Checkpoints, c)
	}
	for i := range out {
		out[i].findGaps(rows)
	}
	return out, nil
}

// findGaps sets the gap of each checkpoint that differs: towards the anchor, up to the nearest
// checkpoint that agrees or the anchor. A bank-fed account's anchor is today, after every
// checkpoint; an account without an anchor has its history start at zero, before every one.
func (r *Reconciliation) findGaps(rows []checkpointRow) {
	var anchor *time.Time // nil: the anchor lies after every checkpoint
	switch {
	case r.Anchor != nil:
		anchor = &r.Anchor.Date
	case r.Account.Source == nil:
		anchor = &time.Time{} // no balance known: the walk starts at zero before the first entry
	}
	cps := r.Checkpoints // newest first
	for i := range cps {
		c := &cps[i]
		if !c.Differs() {
			continue
		}
		if anchor != nil && !c.Date.Before(*anchor) {
			// After the anchor: back to the latest earlier agreeing checkpoint, or the anchor.
			c.GapAfter = *anchor
			for j := i + 1; j < len(cps); j++ {
				if !cps[j].Differs() && cps[j].Date.After(c.GapAfter) {
					c.GapAfter = cps[j].Date
					break
				}
			}
			c.GapThrough = c.Date
			continue
		}
		// Before the anchor: forward to the earliest later agreeing checkpoint, or the anchor.
		c.GapAfter = c.Date
		if anchor != nil {
			c.GapThrough = *anchor
		}
		for j := i - 1; j >= 0; j-- {
			if !cps[j].Differs() && (c.GapThrough.IsZero() || cps[j].Date.Before(c.GapThrough)) {
				c.GapThrough = cps[j].Date
				break
			}
		}
	}
}

// ImportReconciliations returns the reconciliation of each of the family's accounts the
// import wrote balances into (statements, PDF statements, running balances), by account id.
func ImportReconciliations(ctx context.Context, db bun.IDB, familyID, importID uuid.UUID) ([]Reconciliation, error) {
	var ids []uuid.UUID
	if err := db.NewRaw("SELECT DISTINCT account_id FROM entries WHERE family_id = ? AND import_id = ? AND kind = 'valuation'",
		familyID, importID).Scan(ctx, &ids); err != nil && !isNoRows(err) {
		return nil, err
	}
	return ReconcileAccounts(ctx, db, familyID, ids)
}

// NewDifferences returns, per account, the checkpoints the import wrote that differ from the
// ledger: what a webhook tells a client once the import is published.
func NewDifferences(ctx context.Context, db bun.IDB, familyID uuid.UUID, importID uuid.UUID) ([]DifferenceEvent, error) {
	recs, err := ImportReconciliations(ctx, db, familyID, importID)
	if err != nil {
		return nil, err
	}
	var out []DifferenceEvent
	for _, r := range recs {
		ev := DifferenceEvent{AccountID: r.Account.ID, ImportID: &importID}
		for _, c := range r.Checkpoints {
			if c.Differs() && c.ImportID != nil && *c.ImportID == importID {
				ev.Checkpoints = append(ev.Checkpoints, c.Event())
			}
		}
		if len(ev.Checkpoints) > 0 {
			out = append(out, ev)
		}
	}
	return out, nil
}

// StateBalance records the balance a bank stated for account a at the end of date as a
// checkpoint from source: one a day per source, a later figure of the day replacing the one
// before.
func StateBalance(ctx context.Context, db bun.IDB, a *Account, date time.Time, amount decimal.Decimal, source, name string) error {
	external := "balance:" + date.Format(time.DateOnly)
	res, err := db.NewRaw(`UPDATE entries SET amount = ?, updated_at = now()
		WHERE account_id = ? AND source = ? AND external_id = ? AND kind = 'valuation' AND amount <> ?`,
		amount, a.ID, source, external, amount).Exec(ctx)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n > 0 {
		return nil
	}
	e := &Entry{ID: newID(), FamilyID: a.FamilyID, AccountID: a.ID, Kind: EntryValuation, Date: date, Amount: amount,
		Currency: a.Currency, Name: name, TransactionKind: KindStandard, Source: &source, ExternalID: &external}
	res, err = db.NewInsert().Model(e).On("CONFLICT (account_id, source, external_id) WHERE external_id IS NOT NULL AND source IS NOT NULL DO NOTHING").Exec(ctx)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return nil // the same figure was stated already
	}
	_, err = db.NewRaw("INSERT INTO valuations (entry_id, kind) VALUES (?, ?)", e.ID, ValuationCheckpoint).Exec(ctx)
	return err
}

// DifferingCheckpoints returns the checkpoints of the family's accounts among ids that differ
// now, as a set of their entry ids: what DifferencesSince compares with after a change.
func DifferingCheckpoints(ctx context.Context, db bun.IDB, familyID uuid.UUID, ids []uuid.UUID) (map[uuid.UUID]bool, error) {
	recs, err := ReconcileAccounts(ctx, db, familyID, ids)
	if err != nil {
		return nil, err
	}
	set := map[uuid.UUID]bool{}
	for _, r := range recs {
		for _, c := range r.Checkpoints {
			if c.Differs() {
				set[c.EntryID] = true
			}
		}
	}
	return set, nil
}

// DifferencesSince returns, per account among ids, the checkpoints that differ now and were
// not among before (DifferingCheckpoints taken before a change): the differences the change
// brought, as a balance.differs event says them.
func DifferencesSince(ctx context.Context, db bun.IDB, familyID uuid.UUID, ids []uuid.UUID, before map[uuid.UUID]bool) ([]DifferenceEvent, error) {
	recs, err := ReconcileAccounts(ctx, db, familyID, ids)
	if err != nil {
		return nil, err
	}
	var out []DifferenceEvent
	for _, r := range recs {
		ev := DifferenceEvent{AccountID: r.Account.ID}
		for _, c := range r.Checkpoints {
			if c.Differs() && !before[c.EntryID] {
				ev.Checkpoints = append(ev.Checkpoints, c.Event())
			}
		}
		if len(ev.Checkpoints) > 0 {
			out = append(out, ev)
		}
	}
	return out, nil
}

// SetBalance records that the family's account holds (or owes) amount now, on today, the
// family's day: the account's new anchor, its history walked from it, with the old anchor
// kept as a checkpoint. A Valued account takes it as its value from today on instead. A
// bank-fed account's balance is the bank's, and is refused.
func SetBalance(ctx context.Context, db bun.IDB, familyID, accountID uuid.UUID, amount decimal.Decimal, today time.Time) (*Entry, error) {
	var e *Entry
	err := db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		a := new(Account)
		if err := tx.NewSelect().Model(a).Where("id = ? AND family_id = ?", accountID, familyID).For("UPDATE").Scan(ctx); err != nil {
			return notFound(err, "account")
		}
		var err error
		e, err = setBalance(ctx, tx, a, amount, today)
		return err
	})
	return e, err
}

// setBalance is SetBalance on the account a, locked in tx.
func setBalance(ctx context.Context, tx bun.Tx, a *Account, amount decimal.Decimal, today time.Time) (*Entry, error) {
	if a.Source != nil {
		var v apperr.Validation
		v.Add("balance", "This account's balance comes from its bank connection and cannot be set by hand")
		return nil, v.Err()
	}
	if err := CheckDecimals(amount, a.Currency); err != nil {
		var v apperr.Validation
		v.Add("balance", "Balance: "+err.Error()+"; it is never rounded")
		return nil, v.Err()
	}
	val := Valuation{Date: today, Amount: amount, Name: "Balance set by hand", Kind: ValuationCurrentAnchor, AsOf: true}
	if a.Type().Valued {
		val.Kind, val.Name = ValuationValue, "Value updated"
	}
	e, err := insertValuation(ctx, tx, a, val)
	if err != nil {
		return nil, err
	}
	return e, RecomputeBalances(ctx, tx, []uuid.UUID{a.ID})
}

// Reconciliation fixes of a checkpoint that differs.
const (
	FixAdjust = "adjust" // a visible transaction of the difference, left out of spending
	FixTrust  = "trust"  // the bank's balance becomes the anchor
)

// FixCheckpoint applies fix to the family's account's checkpoint entryID and returns the
// entry it wrote, which UndoReconciliationFix takes back:
//   - FixAdjust adds a transaction of the difference in the "Balance adjustment" category,
//     excluded from spending, dated inside the checkpoint's gap (its own day after the anchor,
//     the next day before it), so that the walk meets the bank's figure there;
//   - FixTrust makes the bank's balance of that day the account's anchor (a Valued account's
//     value from that day on); the anchor before it stays, as a checkpoint.
func FixCheckpoint(ctx context.Context, db bun.IDB, familyID, accountID, entryID uuid.UUID, fix string) (*Entry, error) {
	var e *Entry
	err := db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		a := new(Account)
		if err := tx.NewSelect().Model(a).Where("id = ? AND family_id = ?", accountID, familyID).For("UPDATE").Scan(ctx); err != nil {
			return notFound(err, "account")
		}
		recs, err := reconcile(ctx, tx, []Account{*a})
		if err != nil {
			return err
		}
		c := recs[0].Checkpoint(entryID)
		if c == nil {
			return apperr.New(apperr.NotFound, "checkpoint not found")
		}
		if !c.Differs() {
			return apperr.Errorf(apperr.Conflict, "The balance of %s already matches the bank's: there is nothing to fix", c.Date.Format(time.DateOnly))
		}
		source := SourceReconciliation
		switch fix {
		case FixAdjust:
			if e, err = adjust(ctx, tx, a, recs[0].Anchor, c); err != nil {
				return err
			}
		case FixTrust:
			if a.Source != nil {
				return apperr.New(apperr.Conflict, "This account's balance comes from its bank connection: its reported balance is already the one trusted")
			}
			val := Valuation{Date: c.Date, Amount: c.Bank, Kind: ValuationCurrentAnchor, Source: &source,
				Name: fmt.Sprintf("Balance from the bank (%s, %s)", c.Source, c.Date.Format(time.DateOnly))}
			if a.Type().Valued {
				val.Kind = ValuationValue
			}
			if e, err = insertValuation(ctx, tx, a, val); err != nil {
				return err
			}
		default:
			var v apperr.Validation
			v.Add("fix", "Fix must be adjust or trust")
			return v.Err()
		}
		return RecomputeBalances(ctx, tx, []uuid.UUID{a.ID})
	})
	return e, err
}

// adjust writes the balance adjustment of checkpoint c into account a.
func adjust(ctx context.Context, tx bun.Tx, a *Account, anchor *Anchor, c *Checkpoint) (*Entry, error) {
	category, err := adjustmentCategory(ctx, tx, a.FamilyID)
	if err != nil {
		return nil, err
	}
	// After the anchor, the walk reaches the checkpoint forwards: an entry of its own day moves it
	// by the difference. Before the anchor it is walked back to: an entry of the next day, the
	// other way, moves it (a bank-fed account's anchor is its balance now, after every day).
	date, change := c.Date, c.Difference
	if anchor != nil && c.Date.Before(anchor.Date) || anchor == nil && a.Source != nil {
		date, change = c.Date.AddDate(0, 0, 1), change.Neg()
	}
	source := SourceReconciliation
	actor := ActorOf(ctx)
	e := &Entry{
		UpdatedBy: actor.UserID, UpdatedVia: actor.ViaOrNil(),
		ID: newID(), FamilyID: a.FamilyID, AccountID: a.ID, Kind: EntryTransaction, Date: date,
		// A balance moves by the flow sign times an amount.
		Amount: change.Mul(decimal.NewFromInt(int64(a.flowSign()))), Currency: a.Currency,
		Name:       BalanceAdjustmentCategory,
		Notes:      fmt.Sprintf("Brings the balance to the bank's %s of %s (%s).", c.Bank.StringFixed(2), c.Date.Format(time.DateOnly), c.Source),
		CategoryID: &category, Excluded: true, TransactionKind: KindStandard, Source: &source,
		LockedFields: []string{"category", "excluded", "name"},
	}
	if _, err := tx.NewInsert().Model(e).Exec(ctx); err != nil {
		return nil, err
	}
	return e, nil
}

// adjustmentCategory returns the family's "Balance adjustment" category, made on first use.
func adjustmentCategory(ctx context.Context, tx bun.Tx, familyID uuid.UUID) (uuid.UUID, error) {
	if _, err := tx.NewRaw(`INSERT INTO categories (id, family_id, name, color, lucide_icon, classification)
		VALUES (?, ?, ?, ?, 'scale', ?) ON CONFLICT (family_id, name) DO NOTHING`,
		newID(), familyID, BalanceAdjustmentCategory, DefaultCategoryColor, CategoryExpense).Exec(ctx); err != nil {
		return uuid.Nil, err
	}
	var id uuid.UUID
	err := tx.NewRaw("SELECT id FROM categories WHERE family_id = ? AND name = ?", familyID, BalanceAdjustmentCategory).Scan(ctx, &id)
	return id, err
}

// UndoReconciliationFix takes back the entry a fix wrote into the family's account: the
// adjustment, or the anchor (the one before it governs again). Other entries are not a fix's
// and are refused as not found.
func UndoReconciliationFix(ctx context.Context, db bun.IDB, familyID, accountID, entryID uuid.UUID) error {
	return db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		res, err := tx.NewDelete().TableExpr("entries").
			Where("id = ? AND family_id = ? AND account_id = ? AND source = ?", entryID, familyID, accountID, SourceReconciliation).Exec(ctx)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return apperr.New(apperr.NotFound, "reconciliation fix not found")
		}
		return RecomputeBalances(ctx, tx, []uuid.UUID{accountID})
	})
}
