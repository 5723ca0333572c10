// Package ledger writes and reads a family's transactions one at a time, as a person or an
// API client makes them, with what every new transaction gets: the family's rules, and a
// transfer proposed when its other side is in another account.
package ledger

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"
	"github.com/uptrace/bun"

	"tally/internal/apperr"
	"tally/internal/db"
	"tally/models"
	"tally/rules"
	"tally/transfers"
)

// NewTransaction is a transaction to add by hand. Amount is positive for money out.
type NewTransaction struct {
	AccountID  uuid.UUID
	Date       time.Time
	Amount     decimal.Decimal
	Currency   string // the account's when empty
	Name       string
	Notes      string
	CategoryID *uuid.UUID
	MerchantID *uuid.UUID
	TagIDs     []uuid.UUID
	Excluded   *bool
}

// Create adds a transaction to one of the family's accounts that the viewer may see, in one database transaction:
// the family's rules run over it, leaving alone every field the caller set (the name, and the
// notes, category, merchant, tags and "excluded" it gave are set by hand and locked), a
// transfer is proposed with its other side, and the account's balance follows. It returns the
// transaction's id.
func Create(ctx context.Context, d *db.DB, log *slog.Logger, viewer models.Viewer, in NewTransaction) (uuid.UUID, error) {
	familyID := viewer.FamilyID
	var v apperr.Validation
	acct, err := models.AccountByID(ctx, d, viewer, in.AccountID)
	if apperr.Is(err, apperr.NotFound) {
		v.Add("account_id", "account_id is not one of this family's accounts")
	} else if err != nil {
		return uuid.Nil, err
	}
	in.Name = strings.TrimSpace(in.Name)
	if in.Name == "" {
		v.Add("name", "name is required")
	}
	models.CheckEntryText(&v, in.Name, in.Notes)
	if in.Date.IsZero() {
		v.Add("date", "date is required (YYYY-MM-DD)")
	}
	if acct != nil {
		if in.Currency == "" {
			in.Currency = acct.Currency
		}
		if acct.Status == models.AccountDisabled {
			v.Add("account_id", "the account is closed: reopen it to add transactions")
		}
	}
	in.Currency = strings.ToUpper(strings.TrimSpace(in.Currency))
	if !models.ValidCurrency(in.Currency) {
		v.Add("currency", fmt.Sprintf("currency %q is not a three-letter ISO code such as USD", in.Currency))
	} else if err := models.CheckDecimals(in.Amount, in.Currency); err != nil {
		v.Add("amount", "amount: "+err.Error()+"; it is never rounded")
	}
	if in.Amount.IsZero() {
		v.Add("amount", "amount is required and not zero: positive for money out, negative for money in")
	}
	v.Merge(refs{Category: in.CategoryID, Merchant: in.MerchantID, Tags: in.TagIDs}.check(ctx, d, familyID))
	if err := v.Err(); err != nil {
		return uuid.Nil, err
	}

	e := &models.Entry{ID: uuid.Must(uuid.NewV7()), FamilyID: familyID, AccountID: in.AccountID, Kind: models.EntryTransaction,
		Date: in.Date, Amount: in.Amount, Currency: in.Currency, Name: in.Name, Notes: in.Notes, CategoryID: in.CategoryID,
		MerchantID: in.MerchantID, TagIDs: in.TagIDs, TransactionKind: models.KindStandard, Source: ptr(models.SourceManual)}
	actor := models.ActorOf(ctx)
	e.UpdatedBy, e.UpdatedVia = actor.UserID, actor.ViaOrNil()
	e.LockedFields = []string{rules.FieldName}
	if in.Notes != "" {
		e.LockedFields = append(e.LockedFields, rules.FieldNotes)
	}
	if in.CategoryID != nil {
		e.LockedFields = append(e.LockedFields, rules.FieldCategory)
	}
	if in.MerchantID != nil {
		e.LockedFields = append(e.LockedFields, rules.FieldMerchant)
	}
	if in.TagIDs != nil {
		e.LockedFields = append(e.LockedFields, rules.FieldTags)
	}
	if in.Excluded != nil {
		e.Excluded = *in.Excluded
		e.LockedFields = append(e.LockedFields, rules.FieldExcluded)
	}
	slices.Sort(e.LockedFields) // in the order an edit leaves them
	err = d.InTx(ctx, func(ctx context.Context, tx db.Tx) error {
		if _, err := tx.NewInsert().Model(e).Exec(ctx); err != nil {
			return err
		}
		scope := []uuid.UUID{e.ID}
		if _, err := (rules.Runner{Log: log}).Run(ctx, tx, familyID, rules.Scope{EntryIDs: scope}); err != nil {
			return err
		}
		if _, err := transfers.Match(ctx, tx, familyID, transfers.Scope{EntryIDs: scope}); err != nil {
			return err
		}
		return models.RecomputeBalances(ctx, tx, []uuid.UUID{in.AccountID})
	})
	return e.ID, err
}

func ptr[T any](v T) *T { return &v }

// refs are the category, merchant and tags a transaction is given.
type refs struct {
	Category, Merchant *uuid.UUID
	Tags               []uuid.UUID
}

// check checks that the category, merchant and tags are the family's, naming the field of any
// that is not.
func (r refs) check(ctx context.Context, idb bun.IDB, familyID uuid.UUID) error {
	var v apperr.Validation
	var failed error
	one := func(field, table string, id *uuid.UUID) {
		if id == nil || failed != nil {
			return
		}
		var ok bool
		if err := idb.NewRaw("SELECT EXISTS (SELECT 1 FROM ? WHERE id = ? AND family_id = ?)", bun.Ident(table), *id, familyID).Scan(ctx, &ok); err != nil {
			failed = err
		} else if !ok {
			v.Add(field, fmt.Sprintf("%s %s is not one of this family's %s", field, id, table))
		}
	}
	one("category_id", "categories", r.Category)
	one("merchant_id", "merchants", r.Merchant)
	for i := range r.Tags {
		one(fmt.Sprintf("tag_ids[%d]", i), "tags", &r.Tags[i])
	}
	if failed != nil {
		return failed
	}
	return v.Err()
}

// Transaction is a transaction as the API shows it, with its transfer.
type Transaction struct {
	models.Entry `bun:",extend"`
	Transfer     *TransferSide `bun:"-"`
	// Splits are the parts of a split transaction; Get fills them, List does not.
	Splits []models.Entry `bun:"-"`
}

// TransferSide is the transfer a transaction is one side of.
type TransferSide struct {
	ID           uuid.UUID `bun:"id"`
	Status       string    `bun:"status"`
	OtherEntryID uuid.UUID `bun:"other_entry_id"`
	OtherAccount uuid.UUID `bun:"other_account_id"`
	// OtherPrivate says the other side is in an account the viewer may not see: its ids are
	// then zero, and nothing names it.
	OtherPrivate bool `bun:"-"`
}

// Get is one of the family's transactions with its transfer and splits; another family's, one
// in an account the viewer may not see, a trade or a valuation is not found.
func Get(ctx context.Context, idb bun.IDB, viewer models.Viewer, id uuid.UUID) (*Transaction, error) {
	t := []Transaction{{}}
	q := idb.NewSelect().Model(&t[0].Entry).Where("e.id = ? AND e.family_id = ? AND e.kind = 'transaction'", id, viewer.FamilyID)
	viewer.VisibleAccounts(q.QueryBuilder(), "e.account_id")
	err := q.Scan(ctx)
	if db.IsNoRows(err) {
		return nil, apperr.New(apperr.NotFound, "Transaction not found")
	}
	if err != nil {
		return nil, err
	}
	if err := withTransfers(ctx, idb, viewer, t); err != nil {
		return nil, err
	}
	err = idb.NewSelect().Model(&t[0].Splits).Where("e.parent_id = ? AND e.family_id = ?", id, viewer.FamilyID).
		OrderExpr("e.amount DESC, e.id").Scan(ctx)
	return &t[0], err
}
