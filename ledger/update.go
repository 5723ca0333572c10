package ledger

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"

	"tally/internal/apperr"
	"tally/internal/db"
	"tally/models"
	"tally/rules"
	"tally/transfers"
)

// Ref is a change of a reference: set to ID, or cleared when ID is nil.
type Ref struct{ ID *uuid.UUID }

// Patch is a change of a transaction by hand. A nil field stays as it is. What a patch sets
// is locked against the family's rules, as it is for a transaction created by hand.
type Patch struct {
	Category *Ref
	Merchant *Ref
	TagIDs   *[]uuid.UUID
	Notes    *string
	Excluded *bool
	// Date, Amount and Name change only on a manual transaction: an imported or synced one
	// keeps what its bank said, so that the next import or sync still recognises it.
	Date   *time.Time
	Amount *decimal.Decimal
	Name   *string
}

// Empty reports whether the patch changes nothing.
func (p Patch) Empty() bool { return p == Patch{} }

// MaxBatch is the most transactions UpdateMany changes at once.
const MaxBatch = 1000

// Update changes one of the family's transactions, in one database transaction, and returns
// it as it now is. A changed date or amount moves the account's balance, and a transaction in
// no transfer is matched again.
func Update(ctx context.Context, d *db.DB, familyID, id uuid.UUID, p Patch) (*Transaction, error) {
	err := d.InTx(ctx, func(ctx context.Context, tx db.Tx) error {
		e, err := locked(ctx, tx, familyID, id)
		if err != nil {
			return err
		}
		if err := p.check(ctx, tx, familyID, e); err != nil {
			return err
		}
		if err := apply(ctx, tx, familyID, []uuid.UUID{id}, p); err != nil {
			return err
		}
		if p.Date == nil && p.Amount == nil {
			return nil
		}
		if _, err := transfers.Match(ctx, tx, familyID, transfers.Scope{EntryIDs: []uuid.UUID{id}}); err != nil {
			return err
		}
		return models.RecomputeBalances(ctx, tx, []uuid.UUID{e.AccountID})
	})
	if err != nil {
		return nil, err
	}
	return Get(ctx, d, familyID, id)
}

// UpdateMany sets the category, merchant, tags or "excluded" of up to MaxBatch of the
// family's transactions at once: all of them, or none when any id is not one of the family's
// transactions. It returns how many changed.
func UpdateMany(ctx context.Context, d *db.DB, familyID uuid.UUID, ids []uuid.UUID, p Patch) (int, error) {
	var v apperr.Validation
	switch {
	case len(ids) == 0:
		v.Add("ids", "ids is required: the transactions to change")
	case len(ids) > MaxBatch:
		v.Add("ids", fmt.Sprintf("ids holds %d transactions; at most %d change in one request", len(ids), MaxBatch))
	}
	if p.Date != nil || p.Amount != nil || p.Name != nil || p.Notes != nil {
		v.Add("set", "a batch sets only category_id, merchant_id, tag_ids and excluded")
	}
	if p.Empty() {
		v.Add("set", "set names nothing to change: give category_id, merchant_id, tag_ids or excluded")
	}
	if err := v.Err(); err != nil {
		return 0, err
	}
	ids = slices.Compact(slices.SortedFunc(slices.Values(ids), func(a, b uuid.UUID) int { return strings.Compare(a.String(), b.String()) }))
	err := d.InTx(ctx, func(ctx context.Context, tx db.Tx) error {
		var found []uuid.UUID
		if err := tx.NewRaw(`SELECT id FROM entries WHERE family_id = ? AND kind = 'transaction' AND id IN (?) ORDER BY id FOR UPDATE`,
			familyID, bun.In(ids)).Scan(ctx, &found); err != nil {
			return err
		}
		if missing := missingIDs(ids, found); len(missing) > 0 {
			return apperr.New(apperr.Invalid, fmt.Sprintf("%d of the ids are not this family's transactions; nothing changed", len(missing))).
				WithFields(map[string][]string{"ids": missing})
		}
		if err := p.check(ctx, tx, familyID, nil); err != nil {
			return err
		}
		return apply(ctx, tx, familyID, ids, p)
	})
	if err != nil {
		return 0, err
	}
	return len(ids), nil
}

// locked is the family's transaction id, locked for the rest of tx.
func locked(ctx context.Context, tx db.Tx, familyID, id uuid.UUID) (*models.Entry, error) {
	var e models.Entry
	err := tx.NewSelect().Model(&e).Where("e.id = ? AND e.family_id = ? AND e.kind = 'transaction'", id, familyID).
		For("UPDATE").Scan(ctx)
	if db.IsNoRows(err) {
		return nil, apperr.New(apperr.NotFound, "Transaction not found")
	}
	return &e, err
}

// missingIDs names, at most ten, the ids that are not among found.
func missingIDs(ids, found []uuid.UUID) []string {
	var out []string
	for _, id := range ids {
		if !slices.Contains(found, id) {
			out = append(out, id.String()+" is not one of this family's transactions")
			if len(out) == 10 {
				break
			}
		}
	}
	return out
}

// check validates the patch for e, or for a batch when e is nil.
func (p Patch) check(ctx context.Context, idb bun.IDB, familyID uuid.UUID, e *models.Entry) error {
	var v apperr.Validation
	if e != nil && (e.Source == nil || *e.Source != "manual") {
		from := "an import"
		if e.ImportID == nil {
			from = "a bank sync"
		}
		for field, set := range map[string]bool{"date": p.Date != nil, "amount": p.Amount != nil, "name": p.Name != nil} {
			if set {
				v.Add(field, fmt.Sprintf("%s can change only on a transaction added by hand; this one came from %s and keeps what the bank said", field, from))
			}
		}
	}
	if p.Name != nil {
		if *p.Name = strings.TrimSpace(*p.Name); *p.Name == "" {
			v.Add("name", "name cannot be empty")
		}
	}
	if p.Date != nil && p.Date.IsZero() {
		v.Add("date", "date is required (YYYY-MM-DD)")
	}
	if p.Amount != nil && e != nil {
		if p.Amount.IsZero() {
			v.Add("amount", "amount cannot be zero: positive for money out, negative for money in")
		} else if err := models.CheckDecimals(*p.Amount, e.Currency); err != nil {
			v.Add("amount", "amount: "+err.Error()+"; it is never rounded")
		}
	}
	var refs refs
	if p.Category != nil {
		refs.Category = p.Category.ID
	}
	if p.Merchant != nil {
		refs.Merchant = p.Merchant.ID
	}
	if p.TagIDs != nil {
		refs.Tags = *p.TagIDs
	}
	v.Merge(refs.check(ctx, idb, familyID))
	return v.Err()
}

// apply writes the patch to the transactions ids, locking what it sets.
func apply(ctx context.Context, idb bun.IDB, familyID uuid.UUID, ids []uuid.UUID, p Patch) error {
	q := idb.NewUpdate().Model((*models.Entry)(nil)).Where("family_id = ? AND id IN (?)", familyID, bun.In(ids)).
		Set("updated_at = now()")
	var locks []string
	if p.Category != nil {
		q.Set("category_id = ?", p.Category.ID)
		locks = append(locks, rules.FieldCategory)
	}
	if p.Merchant != nil {
		q.Set("merchant_id = ?", p.Merchant.ID)
		locks = append(locks, rules.FieldMerchant)
	}
	if p.TagIDs != nil {
		q.Set("tag_ids = ?", pgdialect.Array(*p.TagIDs))
		locks = append(locks, rules.FieldTags)
	}
	if p.Excluded != nil {
		q.Set("excluded = ?", *p.Excluded)
		locks = append(locks, rules.FieldExcluded)
	}
	if p.Name != nil {
		// The rules' rename keeps the bank's name aside; a person's rename is final.
		q.Set("name = ?", *p.Name)
		locks = append(locks, rules.FieldName)
	}
	if p.Notes != nil {
		q.Set("notes = ?", *p.Notes)
	}
	if p.Date != nil {
		q.Set("date = ?::date", *p.Date)
	}
	if p.Amount != nil {
		q.Set("amount = ?", *p.Amount)
	}
	if len(locks) > 0 {
		q.Set("locked_fields = ARRAY(SELECT DISTINCT f FROM unnest(locked_fields || ?::text[]) AS f ORDER BY f)", pgdialect.Array(locks))
	}
	_, err := q.Exec(ctx)
	return err
}

// Delete deletes one of the family's transactions. A transfer it is a side of goes with it,
// and the other side becomes a standard transaction again; the account's balance follows.
// A part of a split is not deleted alone: its split is changed instead.
func Delete(ctx context.Context, d *db.DB, familyID, id uuid.UUID) error {
	return d.InTx(ctx, func(ctx context.Context, tx db.Tx) error {
		e, err := locked(ctx, tx, familyID, id)
		if err != nil {
			return err
		}
		if e.ParentID != nil {
			return apperr.New(apperr.Conflict, "This transaction is a part of a split: delete or change the split transaction "+e.ParentID.String()+" instead")
		}
		if err := transfers.Release(ctx, tx, familyID, id); err != nil {
			return err
		}
		if _, err := tx.NewDelete().Model((*models.Entry)(nil)).Where("id = ?", id).Exec(ctx); err != nil {
			return err
		}
		return models.RecomputeBalances(ctx, tx, []uuid.UUID{e.AccountID})
	})
}
