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
	// AddTagIDs are tags added to those a transaction has (a bulk edit's "add a tag").
	AddTagIDs []uuid.UUID
	Notes     *string
	Excluded  *bool
	// Name renames any transaction; an imported or synced one keeps its bank's text as its
	// original name, which the next import or sync compares with the bank's.
	Name *string
	// Date and Amount change only on a manual transaction: an imported or synced one keeps
	// what its bank said, so that the next import or sync still recognises it.
	Date   *time.Time
	Amount *decimal.Decimal
}

// Empty reports whether the patch changes nothing.
func (p Patch) Empty() bool {
	return p.Category == nil && p.Merchant == nil && p.TagIDs == nil && len(p.AddTagIDs) == 0 && p.Notes == nil &&
		p.Excluded == nil && p.Date == nil && p.Amount == nil && p.Name == nil
}

// MaxBatch is the most transactions UpdateMany changes at once; MaxMatching the most that
// UpdateMatching does (a person's "all that match this filter").
const (
	MaxBatch    = 1000
	MaxMatching = 10_000
)

// Update changes one of the family's transactions that the viewer may see, in one database transaction, and returns
// it as it now is. A changed date or amount moves the account's balance, and a transaction in
// no transfer is matched again.
func Update(ctx context.Context, d *db.DB, viewer models.Viewer, id uuid.UUID, p Patch) (*Transaction, error) {
	err := d.InTx(ctx, func(ctx context.Context, tx db.Tx) error {
		e, err := locked(ctx, tx, viewer, id)
		if err != nil {
			return err
		}
		if err := p.check(ctx, tx, viewer.FamilyID, e); err != nil {
			return err
		}
		if err := apply(ctx, tx, viewer.FamilyID, []uuid.UUID{id}, p); err != nil {
			return err
		}
		if p.Date == nil && p.Amount == nil {
			return nil
		}
		if _, err := transfers.Match(ctx, tx, viewer.FamilyID, transfers.Scope{EntryIDs: []uuid.UUID{id}}); err != nil {
			return err
		}
		return models.RecomputeBalances(ctx, tx, []uuid.UUID{e.AccountID})
	})
	if err != nil {
		return nil, err
	}
	return Get(ctx, d, viewer, id)
}

// UpdateMany sets the category, merchant, tags or "excluded" of up to MaxBatch of the
// family's transactions at once: all of them, or none when any id is not one of the family's
// transactions. What they were is kept for models.UndoWindow (the returned change).
func UpdateMany(ctx context.Context, d *db.DB, viewer models.Viewer, ids []uuid.UUID, p Patch) (*models.Change, error) {
	var v apperr.Validation
	switch {
	case len(ids) == 0:
		v.Add("ids", "ids is required: the transactions to change")
	case len(ids) > MaxBatch:
		v.Add("ids", fmt.Sprintf("ids holds %d transactions; at most %d change in one request", len(ids), MaxBatch))
	}
	v.Merge(p.checkBatch())
	if err := v.Err(); err != nil {
		return nil, err
	}
	ids = slices.Compact(slices.SortedFunc(slices.Values(ids), func(a, b uuid.UUID) int { return strings.Compare(a.String(), b.String()) }))
	return updateBatch(ctx, d, viewer, ids, p)
}

// UpdateMatching is UpdateMany for every transaction of the family that f selects, up to
// MaxMatching of them, but those of except (a person's ticks taken off rows of the list).
func UpdateMatching(ctx context.Context, d *db.DB, viewer models.Viewer, f Filter, p Patch, except ...uuid.UUID) (*models.Change, error) {
	if err := p.checkBatch(); err != nil {
		return nil, err
	}
	q := d.NewSelect().TableExpr("entries AS e").Column("e.id").
		Where("e.family_id = ? AND e.kind = 'transaction' AND e.parent_id IS NULL", viewer.FamilyID).
		OrderExpr("e.id").Limit(MaxMatching + 1)
	viewer.VisibleAccounts(q.QueryBuilder(), "e.account_id")
	if len(except) > 0 {
		q.Where("e.id NOT IN (?)", bun.In(except))
	}
	if err := f.apply(ctx, d, q, viewer); err != nil {
		return nil, err
	}
	var ids []uuid.UUID
	if err := q.Scan(ctx, &ids); err != nil {
		return nil, fmt.Errorf("transactions to change: %w", err)
	}
	switch {
	case len(ids) == 0:
		return nil, apperr.New(apperr.Invalid, "No transaction matches these filters: nothing changed.")
	case len(ids) > MaxMatching:
		return nil, apperr.New(apperr.Invalid, fmt.Sprintf("More than %d transactions match these filters: narrow them to change at most %d at once.", MaxMatching, MaxMatching))
	}
	return updateBatch(ctx, d, viewer, ids, p)
}

// checkBatch refuses what a change of many transactions cannot set.
func (p Patch) checkBatch() error {
	var v apperr.Validation
	if p.Date != nil || p.Amount != nil || p.Name != nil || p.Notes != nil {
		v.Add("set", "a batch sets only category_id, merchant_id, tag_ids and excluded")
	}
	if p.Empty() {
		v.Add("set", "set names nothing to change: give category_id, merchant_id, tag_ids or excluded")
	}
	return v.Err()
}

// updateBatch locks the transactions ids (sorted), checks that each is the family's and in an
// account the viewer may see, keeps
// them as they are for undo and applies p, in one database transaction.
func updateBatch(ctx context.Context, d *db.DB, viewer models.Viewer, ids []uuid.UUID, p Patch) (*models.Change, error) {
	var change *models.Change
	familyID := viewer.FamilyID
	err := d.InTx(ctx, func(ctx context.Context, tx db.Tx) error {
		var found []uuid.UUID
		visible, args := viewer.VisibleSQL("account_id")
		if err := tx.NewRaw(`SELECT id FROM entries WHERE family_id = ? AND kind = 'transaction' AND id IN (?) AND `+visible+` ORDER BY id FOR UPDATE`,
			append([]any{familyID, bun.In(ids)}, args...)...).Scan(ctx, &found); err != nil {
			return err
		}
		if missing := missingIDs(ids, found); len(missing) > 0 {
			return apperr.New(apperr.Invalid, fmt.Sprintf("%d of the ids are not this family's transactions; nothing changed", len(ids)-len(found))).
				WithFields(map[string][]string{"ids": missing})
		}
		if err := p.check(ctx, tx, familyID, nil); err != nil {
			return err
		}
		var err error
		if change, err = models.RecordChange(ctx, tx, familyID, nil, "entries e WHERE e.family_id = ? AND e.id IN (?)", familyID, bun.In(ids)); err != nil {
			return err
		}
		return apply(ctx, tx, familyID, ids, p)
	})
	return change, err
}

// locked is the family's transaction id, if the viewer may see it, locked for the rest of tx.
func locked(ctx context.Context, tx db.Tx, viewer models.Viewer, id uuid.UUID) (*models.Entry, error) {
	var e models.Entry
	q := tx.NewSelect().Model(&e).Where("e.id = ? AND e.family_id = ? AND e.kind = 'transaction'", id, viewer.FamilyID)
	viewer.VisibleAccounts(q.QueryBuilder(), "e.account_id")
	err := q.For("UPDATE").Scan(ctx)
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
	if e != nil && !e.Manual() {
		from := "an import"
		if e.ImportID == nil {
			from = "a bank sync"
		}
		for _, f := range []struct {
			name string
			set  bool
		}{{"date", p.Date != nil}, {"amount", p.Amount != nil}} {
			if f.set {
				v.Add(f.name, fmt.Sprintf("%s can change only on a transaction added by hand; this one came from %s and keeps what the bank said", f.name, from))
			}
		}
	}
	if p.Name != nil {
		if *p.Name = strings.TrimSpace(*p.Name); *p.Name == "" {
			v.Add("name", "name cannot be empty")
		}
	}
	models.CheckEntryText(&v, deref(p.Name), deref(p.Notes))
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
	refs.Tags = append(refs.Tags, p.AddTagIDs...)
	v.Merge(refs.check(ctx, idb, familyID))
	return v.Err()
}

// apply writes the patch to the transactions ids, locking what it sets, with who set it.
func apply(ctx context.Context, idb bun.IDB, familyID uuid.UUID, ids []uuid.UUID, p Patch) error {
	actor := models.ActorOf(ctx)
	q := idb.NewUpdate().Model((*models.Entry)(nil)).Where("family_id = ? AND id IN (?)", familyID, bun.In(ids)).
		Set("updated_at = now()").Set(models.SetActorSQL, actor.UserID, actor.ViaOrNil())
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
	} else if len(p.AddTagIDs) > 0 {
		q.Set("tag_ids = ARRAY(SELECT DISTINCT t FROM unnest(tag_ids || ?::uuid[]) AS t ORDER BY t)", pgdialect.Array(p.AddTagIDs))
		locks = append(locks, rules.FieldTags)
	}
	if p.Excluded != nil {
		q.Set("excluded = ?", *p.Excluded)
		locks = append(locks, rules.FieldExcluded)
	}
	if p.Name != nil {
		// The bank's text stays beside the new name (a rule's rename may have kept it already);
		// a transaction added by hand has none.
		q.Set("name = ?", *p.Name)
		q.Set("original_name = CASE WHEN source IS DISTINCT FROM ? THEN coalesce(original_name, name) END", models.SourceManual)
		locks = append(locks, rules.FieldName)
	}
	if p.Notes != nil {
		q.Set("notes = ?", *p.Notes)
		locks = append(locks, rules.FieldNotes)
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

// Delete deletes one of the family's transactions that the viewer may see. A transfer it is a side of goes with it,
// and the other side becomes a standard transaction again; the account's balance follows.
// A part of a split is not deleted alone: its split is changed instead.
func Delete(ctx context.Context, d *db.DB, viewer models.Viewer, id uuid.UUID) error {
	familyID := viewer.FamilyID
	return d.InTx(ctx, func(ctx context.Context, tx db.Tx) error {
		e, err := locked(ctx, tx, viewer, id)
		if err != nil {
			return err
		}
		if e.ParentID != nil {
			return apperr.New(apperr.Conflict, "This transaction is a part of a split: delete or change the split transaction "+e.ParentID.String()+" instead")
		}
		if err := transfers.Release(ctx, tx, familyID, id); err != nil {
			return err
		}
		if _, err := tx.NewDelete().Model((*models.Entry)(nil)).Where("id = ? AND family_id = ?", id, familyID).Exec(ctx); err != nil {
			return err
		}
		return models.RecomputeBalances(ctx, tx, []uuid.UUID{e.AccountID})
	})
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
