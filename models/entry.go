package models

import (
	"context"
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
	// OriginalName is the source's name once a rule has renamed the transaction.
	OriginalName *string   `bun:"original_name"`
	CreatedAt    time.Time `bun:"created_at,nullzero,default:now()"`
	UpdatedAt    time.Time `bun:"updated_at,nullzero,default:now()"`
}

// EntryRow is an entry as lists show it, with the names of what it refers to.
type EntryRow struct {
	Entry        `bun:",extend"`
	AccountName  string `bun:"account_name"`
	CategoryName string `bun:"category_name"`
}

// Inflow reports whether the entry brings money in (a negative amount, by the ledger rule).
func (e *Entry) Inflow() bool { return e.Amount.IsNegative() }

// EntryFilter selects entries of a family: all of them, or one account's.
type EntryFilter struct {
	FamilyID  uuid.UUID
	AccountID *uuid.UUID
}

// Entries returns one page of the family's entries, newest first, and whether more follow.
func Entries(ctx context.Context, db bun.IDB, f EntryFilter, p Page) ([]EntryRow, bool, error) {
	var rows []EntryRow
	q := db.NewSelect().Model(&rows).
		ColumnExpr("e.*").
		ColumnExpr("a.name AS account_name").
		ColumnExpr("coalesce(c.name, '') AS category_name").
		Join("JOIN accounts AS a ON a.id = e.account_id").
		Join("LEFT JOIN categories AS c ON c.id = e.category_id").
		Where("e.family_id = ?", f.FamilyID).
		Where("e.parent_id IS NULL").
		OrderExpr("e.date DESC, e.id DESC").
		Offset(int64(p.Offset())).Limit(int64(p.Size + 1))
	if f.AccountID != nil {
		q = q.Where("e.account_id = ?", *f.AccountID)
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
