package ledger

import (
	"context"
	"encoding/base64"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"
	"github.com/uptrace/bun"

	"tally/internal/apperr"
	"tally/models"
)

// Filter selects a family's transactions. Zero fields select everything.
type Filter struct {
	AccountIDs []uuid.UUID
	// Start and End bound the date, both included.
	Start, End *time.Time
	// CategoryID selects the category's transactions and its subcategories', as its budget
	// line and the spending report count them; Uncategorized those without a category.
	CategoryID    *uuid.UUID
	Uncategorized bool
	TagID         *uuid.UUID
	MerchantID    *uuid.UUID
	ImportID      *uuid.UUID
	// Query's words are each found in the name, the notes or the merchant's name, in any
	// order and whatever the case and accents, or in the amount when they read as money.
	Query string
	// MinAmount and MaxAmount bound the ledger amount (positive for money out), both included.
	MinAmount, MaxAmount *decimal.Decimal
	Pending              *bool
	Kind                 string // a transaction_kind such as funds_movement
	// ChangedBy selects the transactions whose last change a member made (updated_by); another
	// family's user matches nothing, as another family's merchant does.
	ChangedBy *uuid.UUID
}

// Cursor is the place in a list after which the next page starts: the last transaction of the
// page before, in the lists' order (date, then id, both descending).
type Cursor struct {
	Date time.Time
	ID   uuid.UUID
}

// String is the cursor as clients hold it: opaque, URL-safe.
func (c Cursor) String() string {
	return base64.RawURLEncoding.EncodeToString([]byte(c.Date.Format(time.DateOnly) + "_" + c.ID.String()))
}

// ParseCursor reads a cursor made by Cursor.String.
func ParseCursor(s string) (Cursor, error) {
	bad := apperr.New(apperr.Invalid, "cursor is not one this API gave: pass meta.next_cursor of the page before, unchanged").
		WithFields(map[string][]string{"cursor": {"cursor is not a cursor from meta.next_cursor"}})
	raw, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return Cursor{}, bad
	}
	date, id, ok := strings.Cut(string(raw), "_")
	if !ok {
		return Cursor{}, bad
	}
	var c Cursor
	// A cursor's date is a transaction's, which imports take back to 1900, so the range of
	// dates.Day is not its; but year 0, a day PostgreSQL does not have, no page ever gave.
	if c.Date, err = time.Parse(time.DateOnly, date); err != nil || c.Date.Year() < 1 {
		return Cursor{}, bad
	}
	if c.ID, err = uuid.Parse(id); err != nil {
		return Cursor{}, bad
	}
	return c, nil
}

// MaxPage is the most transactions one page holds.
const MaxPage = 500

// List returns up to limit of the family's transactions the viewer may see matching f, newest first, that come
// after the cursor (from the first when it is nil), and the cursor of the next page (nil on
// the last). Each page is read off the (family, date, id) index from its cursor, so every
// page costs the same however deep the client has walked.
func List(ctx context.Context, idb bun.IDB, viewer models.Viewer, f Filter, after *Cursor, limit int) ([]Transaction, *Cursor, error) {
	var rows []Transaction
	next, err := page(ctx, idb, idb.NewSelect().Model(&rows), &rows, viewer, f, after, limit, func(t *Transaction) *models.Entry { return &t.Entry })
	if err != nil {
		return nil, nil, err
	}
	if err := withTransfers(ctx, idb, viewer, rows); err != nil {
		return nil, nil, err
	}
	return rows, next, nil
}

// Rows is List as pages show it: each transaction with the names of its account, category and
// merchant, and its transfer.
func Rows(ctx context.Context, idb bun.IDB, viewer models.Viewer, f Filter, after *Cursor, limit int) ([]models.EntryRow, *Cursor, error) {
	var rows []models.EntryRow
	next, err := page(ctx, idb, models.EntryRows(idb, viewer, &rows), &rows, viewer, f, after, limit, func(r *models.EntryRow) *models.Entry { return &r.Entry })
	return rows, next, err
}

// page reads into rows, through q (a select of entries as e), one page of the family's
// transactions the viewer may see matching f after the cursor, and returns the next page's cursor. It reads one
// row more than the page to know whether another follows.
func page[T any](ctx context.Context, idb bun.IDB, q *bun.SelectQuery, rows *[]T, viewer models.Viewer, f Filter, after *Cursor, limit int, entry func(*T) *models.Entry) (*Cursor, error) {
	limit = min(max(limit, 1), MaxPage)
	q.Where("e.family_id = ? AND e.kind = 'transaction' AND e.parent_id IS NULL", viewer.FamilyID).
		OrderExpr("e.date DESC, e.id DESC").Limit(int64(limit + 1))
	viewer.VisibleAccounts(q.QueryBuilder(), "e.account_id")
	if after != nil {
		// A row comparison in the index's order: the scan starts at the cursor.
		q.Where("(e.date, e.id) < (?::date, ?::uuid)", after.Date, after.ID)
	}
	if err := f.apply(ctx, idb, q, viewer); err != nil {
		return nil, err
	}
	if err := q.Scan(ctx); err != nil {
		return nil, fmt.Errorf("list transactions: %w", err)
	}
	if len(*rows) <= limit {
		return nil, nil
	}
	*rows = (*rows)[:limit]
	last := entry(&(*rows)[limit-1])
	return &Cursor{Date: last.Date, ID: last.ID}, nil
}

// ownOrParts is cond, on an entry's columns unqualified, of the entry e, or of any of its parts
// when it is split: a split transaction is counted through its parts (as budgets and spending
// count it), so it is listed under each of its parts' categories, not its own.
func ownOrParts(cond string) string {
	return "(NOT e.split AND e." + cond + ") OR (e.split AND EXISTS (SELECT 1 FROM entries p WHERE p.parent_id = e.id AND p." + cond + "))"
}

// apply narrows q, a select of the family's entries e, to f as the viewer sees them.
func (f Filter) apply(ctx context.Context, idb bun.IDB, q *bun.SelectQuery, viewer models.Viewer) error {
	familyID := viewer.FamilyID
	if len(f.AccountIDs) > 0 {
		q.Where("e.account_id IN (?)", bun.In(f.AccountIDs))
	}
	if f.Start != nil {
		q.Where("e.date >= ?::date", *f.Start)
	}
	if f.End != nil {
		q.Where("e.date <= ?::date", *f.End)
	}
	if f.CategoryID != nil {
		q.Where(ownOrParts("category_id IN (SELECT c.id FROM categories c WHERE c.family_id = ?0 AND ?1 IN (c.id, c.parent_id))"), familyID, *f.CategoryID)
	}
	if f.Uncategorized {
		q.Where(ownOrParts("category_id IS NULL"))
	}
	if f.TagID != nil {
		q.Where("e.tag_ids @> ARRAY[?::uuid]", *f.TagID)
	}
	if f.MerchantID != nil {
		q.Where("e.merchant_id = ?", *f.MerchantID)
	}
	if f.ImportID != nil {
		q.Where("e.import_id = ?", *f.ImportID)
	}
	words, err := searchWords(ctx, idb, familyID, f.Query)
	if err != nil {
		return err
	}
	words.where(q)
	if f.MinAmount != nil {
		q.Where("e.amount >= ?", *f.MinAmount)
	}
	if f.MaxAmount != nil {
		q.Where("e.amount <= ?", *f.MaxAmount)
	}
	if f.Pending != nil {
		q.Where("e.pending = ?", *f.Pending)
	}
	if f.Kind != "" {
		kind, args := viewer.KindSQL("e")
		q.Where(kind+" = ?", append(args, f.Kind)...)
	}
	if f.ChangedBy != nil {
		q.Where("e.updated_by = ?", *f.ChangedBy)
	}
	return nil
}

// Total is how many transactions a filter selects, and the money in and out among them, in
// one currency.
type Total struct {
	Currency string          `bun:"currency"`
	Count    int             `bun:"count"`
	Inflow   decimal.Decimal `bun:"inflow"`
	Outflow  decimal.Decimal `bun:"outflow"`
}

// Totals sums the family's transactions the viewer may see matching f, per currency, the most used first.
func Totals(ctx context.Context, idb bun.IDB, viewer models.Viewer, f Filter) ([]Total, error) {
	var out []Total
	q := idb.NewSelect().TableExpr("entries AS e").
		ColumnExpr("e.currency, count(*) AS count").
		ColumnExpr("coalesce(-sum(e.amount) FILTER (WHERE e.amount < 0), 0) AS inflow").
		ColumnExpr("coalesce(sum(e.amount) FILTER (WHERE e.amount > 0), 0) AS outflow").
		Where("e.family_id = ? AND e.kind = 'transaction' AND e.parent_id IS NULL", viewer.FamilyID).
		GroupExpr("e.currency").OrderExpr("count(*) DESC, e.currency")
	viewer.VisibleAccounts(q.QueryBuilder(), "e.account_id")
	if err := f.apply(ctx, idb, q, viewer); err != nil {
		return nil, err
	}
	if err := q.Scan(ctx, &out); err != nil {
		return nil, fmt.Errorf("total transactions: %w", err)
	}
	return out, nil
}

// withTransfers sets the transfer each of the transactions is a side of, in one query. A side
// whose other side is in an account the viewer may not see says only that (OtherPrivate).
func withTransfers(ctx context.Context, idb bun.IDB, viewer models.Viewer, rows []Transaction) error {
	if len(rows) == 0 {
		return nil
	}
	ids := make([]uuid.UUID, len(rows))
	at := make(map[uuid.UUID]int, len(rows))
	for i := range rows {
		ids[i], at[rows[i].ID] = rows[i].ID, i
	}
	var sides []struct {
		TransferSide
		EntryID uuid.UUID `bun:"entry_id"`
	}
	err := idb.NewRaw(`SELECT t.id, t.status, s.entry_id, o.id AS other_entry_id, o.account_id AS other_account_id
		FROM transfers t
		CROSS JOIN LATERAL (VALUES (t.inflow_entry_id, t.outflow_entry_id), (t.outflow_entry_id, t.inflow_entry_id)) AS s (entry_id, other_id)
		JOIN entries o ON o.id = s.other_id
		WHERE t.family_id = ? AND s.entry_id IN (?)
			AND (t.inflow_entry_id IN (?) OR t.outflow_entry_id IN (?))`,
		viewer.FamilyID, bun.In(ids), bun.In(ids), bun.In(ids)).Scan(ctx, &sides)
	if err != nil {
		return fmt.Errorf("transfers of transactions: %w", err)
	}
	for _, s := range sides {
		side, row := s.TransferSide, &rows[at[s.EntryID]]
		if !viewer.CanSee(side.OtherAccount) {
			side = TransferSide{ID: side.ID, Status: side.Status, OtherPrivate: true}
			row.TransactionKind = models.SeenKind(row.TransactionKind, true)
		}
		row.Transfer = &side
	}
	return nil
}
