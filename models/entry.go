package models

import (
	"context"
	"database/sql"
	"time"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"
	"github.com/uptrace/bun"
)

// Entry kinds.
const (
	EntryTransaction = "transaction"
	EntryTrade       = "trade"
	EntryValuation   = "valuation"
)

// The kinds of transaction (entries.transaction_kind).
const (
	KindStandard = "standard"
	// KindOneTime is an expense set apart from the usual spending.
	KindOneTime = "one_time"
	// The kinds of a transfer's sides, TransferKinds.
	KindFundsMovement          = "funds_movement"
	KindCCPayment              = "cc_payment"
	KindLoanPayment            = "loan_payment"
	KindInvestmentContribution = "investment_contribution"
)

// TransferKinds are the kinds of a transfer's sides, money moving between the family's own
// accounts, which is neither spending nor income: a card's payment, a loan's, a contribution
// to an investment account, any other movement of funds.
var TransferKinds = []string{KindFundsMovement, KindCCPayment, KindLoanPayment, KindInvestmentContribution}

// TransactionKinds are every kind of transaction: standard, one-time, or one of TransferKinds.
var TransactionKinds = append([]string{KindStandard, KindOneTime}, TransferKinds...)

// Entry is one line of an account's ledger. Amount is signed: positive is an outflow.
type Entry struct {
	bun.BaseModel `bun:"table:entries,alias:e"`

	ID              uuid.UUID       `bun:"id,pk,type:uuid"`
	FamilyID        uuid.UUID       `bun:"family_id,type:uuid"`
	AccountID       uuid.UUID       `bun:"account_id,type:uuid"`
	Kind            string          `bun:"kind"`
	Date            time.Time       `bun:"date,type:date"`
	Amount          decimal.Decimal `bun:"amount,type:numeric(19,4)"`
	Currency        string          `bun:"currency"`
	Name            string          `bun:"name"`
	Notes           string          `bun:"notes"`
	Excluded        bool            `bun:"excluded"`
	CategoryID      *uuid.UUID      `bun:"category_id,type:uuid"`
	MerchantID      *uuid.UUID      `bun:"merchant_id,type:uuid"`
	TagIDs          []uuid.UUID     `bun:"tag_ids,type:uuid[],array,nullzero,default:'{}'"`
	TransactionKind string          `bun:"transaction_kind"`
	Pending         bool            `bun:"pending"`
	ParentID        *uuid.UUID      `bun:"parent_id,type:uuid"`
	ImportID        *uuid.UUID      `bun:"import_id,type:uuid"`
	ExternalID      *string         `bun:"external_id"`
	Source          *string         `bun:"source"`
	// LockedFields were set by hand, and rules leave them alone (package rules).
	LockedFields []string `bun:"locked_fields,array,nullzero,default:'{}'"`
	// OriginalName is the source's name (the bank's text) of a transaction that a rule or a
	// person renamed, which imports and syncs compare with the bank's; nil while the name is the
	// source's, and for a transaction a person renamed that was added by hand.
	OriginalName *string   `bun:"original_name"`
	CreatedAt    time.Time `bun:"created_at,nullzero,default:now()"`
	UpdatedAt    time.Time `bun:"updated_at,nullzero,default:now()"`
	// UpdatedBy and UpdatedVia are who made the last change (Actor); see LastChange.
	UpdatedBy  *uuid.UUID `bun:"updated_by,type:uuid"`
	UpdatedVia *string    `bun:"updated_via"`
}

// LastChange is who made the entry's last change. What an import published or a bank sync
// added records nobody (the publish writes nothing more per row): its import or source says.
func (e *Entry) LastChange() Actor {
	switch {
	case e.UpdatedBy != nil || e.UpdatedVia != nil:
		return RecordedActor(e.UpdatedBy, e.UpdatedVia)
	case e.ImportID != nil:
		return Actor{Via: ViaImport}
	case e.Source != nil && !e.Manual():
		return Actor{Via: ViaBankSync}
	}
	return Actor{}
}

// EntryRow is an entry as lists show it, with the names of what it refers to.
type EntryRow struct {
	Entry        `bun:",extend"`
	AccountName  string `bun:"account_name,scanonly"`
	CategoryName string `bun:"category_name,scanonly"`
	MerchantName string `bun:"merchant_name,scanonly"`
	// The transfer the entry is a side of, with the other side's account; nil when none.
	TransferID       *uuid.UUID `bun:"transfer_id,scanonly"`
	TransferStatus   string     `bun:"transfer_status,scanonly"`
	OtherAccountName string     `bun:"other_account_name,scanonly"`
	// OtherPrivate says the other side is in an account the viewer may not see: its name is
	// then empty, and pages say "a private account" without linking to it.
	OtherPrivate bool `bun:"other_private,scanonly"`
}

// entryColumns selects an Entry's columns of entries e: not e.*, as the table has columns
// only the database reads (search_text).
const entryColumns = "?TableColumns"

// SourceManual is the source of a transaction a person or an API client added by hand.
const SourceManual = "manual"

// Manual reports whether the entry was added by hand: only those change date and amount,
// since an imported or synced one keeps what the bank said for the next import to recognise.
func (e *Entry) Manual() bool { return e.Source != nil && *e.Source == SourceManual }

// BankText is the source's name of a renamed transaction, "" when it has its source's name.
func (e *Entry) BankText() string {
	if e.OriginalName == nil || *e.OriginalName == e.Name {
		return ""
	}
	return *e.OriginalName
}

// Inflow reports whether the entry brings money in (a negative amount, by the ledger rule).
func (e *Entry) Inflow() bool { return e.Amount.IsNegative() }

// EntryFilter selects entries of a family the viewer may see: all of them, or one account's.
type EntryFilter struct {
	Viewer    Viewer
	AccountID *uuid.UUID
	ID        *uuid.UUID // the one entry
}

// EntryRows selects entries as the viewer's lists show them: with their account's,
// category's and merchant's names and the transfer they are a side of, whose other side's
// account is named only when the viewer may see it. The caller adds where (the viewer's
// accounts among it), order and limit.
func EntryRows(db bun.IDB, v Viewer, rows *[]EntryRow) *bun.SelectQuery {
	visible, args := v.VisibleSQL("t.other_account_id")
	return db.NewSelect().Model(rows).
		ColumnExpr(entryColumns).
		ColumnExpr("a.name AS account_name").
		ColumnExpr("coalesce(c.name, '') AS category_name, coalesce(m.name, '') AS merchant_name").
		ColumnExpr("t.id AS transfer_id, coalesce(t.status, '') AS transfer_status").
		ColumnExpr("CASE WHEN t.id IS NULL OR "+visible+" THEN coalesce(t.other_account_name, '') ELSE '' END AS other_account_name", args...).
		ColumnExpr("(t.id IS NOT NULL AND NOT ("+visible+")) AS other_private", args...).
		Join("JOIN accounts AS a ON a.id = e.account_id").
		Join("LEFT JOIN categories AS c ON c.id = e.category_id").
		Join("LEFT JOIN merchants AS m ON m.id = e.merchant_id").
		Join(`LEFT JOIN LATERAL (SELECT t.id, t.status, oa.id AS other_account_id, oa.name AS other_account_name FROM transfers t
			JOIN entries o ON o.id = CASE WHEN t.inflow_entry_id = e.id THEN t.outflow_entry_id ELSE t.inflow_entry_id END
			JOIN accounts oa ON oa.id = o.account_id
			WHERE t.inflow_entry_id = e.id OR t.outflow_entry_id = e.id) AS t ON true`)
}

// Entries returns one page of the family's entries the viewer may see, newest first, and
// whether more follow.
func Entries(ctx context.Context, db bun.IDB, f EntryFilter, p Page) ([]EntryRow, bool, error) {
	var rows []EntryRow
	q := EntryRows(db, f.Viewer, &rows).
		Where("e.family_id = ?", f.Viewer.FamilyID).
		Where("e.parent_id IS NULL").
		OrderExpr("e.date DESC, e.id DESC").
		Offset(int64(p.Offset())).Limit(int64(p.Size + 1))
	f.Viewer.VisibleAccounts(q.QueryBuilder(), "e.account_id")
	if f.AccountID != nil {
		q = q.Where("e.account_id = ?", *f.AccountID)
	}
	if f.ID != nil {
		q = q.Where("e.id = ?", *f.ID)
	}
	if err := q.Scan(ctx); err != nil {
		return nil, false, err
	}
	more := len(rows) > p.Size
	if more {
		rows = rows[:p.Size]
	}
	return rows, more, nil
}

// TransferCandidates is the family's transaction id and the transactions that could be its
// other side as a person links them: money the other way in another account the viewer may
// see, dated within days, in no transfer. Those of the opposite amount come first, then the nearest dates.
func TransferCandidates(ctx context.Context, db bun.IDB, v Viewer, id uuid.UUID, days, limit int) (*EntryRow, []EntryRow, error) {
	rows, _, err := Entries(ctx, db, EntryFilter{Viewer: v, ID: &id}, Page{Number: 1, Size: 1})
	if err != nil {
		return nil, nil, err
	}
	if len(rows) == 0 || rows[0].Kind != EntryTransaction {
		return nil, nil, notFound(sql.ErrNoRows, "transaction")
	}
	from := rows[0]
	var out []EntryRow
	q := db.NewSelect().Model(&out).
		ColumnExpr(entryColumns).ColumnExpr("a.name AS account_name").
		Join("JOIN accounts AS a ON a.id = e.account_id").
		Where("e.family_id = ? AND e.kind = 'transaction' AND e.parent_id IS NULL", v.FamilyID)
	v.VisibleAccounts(q.QueryBuilder(), "e.account_id")
	err = q.Where("e.account_id <> ? AND sign(e.amount) = -sign(?::numeric)", from.AccountID, from.Amount).
		Where("e.date BETWEEN ?::date - ?::int AND ?::date + ?::int", from.Date, days, from.Date, days).
		Where("NOT EXISTS (SELECT 1 FROM transfers t WHERE t.inflow_entry_id = e.id OR t.outflow_entry_id = e.id)").
		OrderExpr("(e.currency = ? AND e.amount = -?::numeric) DESC, abs(e.date - ?::date), e.id", from.Currency, from.Amount, from.Date).
		Limit(int64(limit)).Scan(ctx)
	return &from, out, err
}
