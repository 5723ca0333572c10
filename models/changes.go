package models

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"

	"tally/internal/apperr"
)

// UndoWindow is how long a change of many transactions at once (a rule applied to the
// history, a person's bulk edit) can be taken back: as long as Tally keeps what the
// transactions were (PruneChanges deletes it a day later). An undo never takes back what was
// changed since, so that a late one loses no later edit.
const UndoWindow = 30 * 24 * time.Hour

// Change is a change of many of a family's transactions, kept until UndoUntil so that it can
// be taken back. RuleID is the rule that made it, nil for a person's edit.
//
// A change tells of the accounts it touched (transaction_changes.account_ids): one that
// touched an account kept from a viewer is not theirs to list or undo, and is not found for
// them, as another family's change is.
type Change struct {
	ID        uuid.UUID  `bun:"id"`
	RuleID    *uuid.UUID `bun:"rule_id"`
	Changed   int        `bun:"changed"`
	CreatedAt time.Time  `bun:"created_at"`
	UndoUntil time.Time  `bun:"undo_until"`
}

// RecordChange keeps, in tx, the transactions that from selects as they are now, before the
// caller changes them: from is the rest of a query after "SELECT … FROM", naming the entries
// e (with its arguments), and their accounts. It returns the change, or nil when from selects
// nothing.
func RecordChange(ctx context.Context, tx bun.IDB, familyID uuid.UUID, ruleID *uuid.UUID, from string, args ...any) (*Change, error) {
	c := &Change{ID: uuid.Must(uuid.NewV7()), RuleID: ruleID}
	head := []any{c.ID, familyID, ruleID}
	tail := []any{fmt.Sprintf("%d milliseconds", UndoWindow.Milliseconds())}
	err := tx.NewRaw(`INSERT INTO transaction_changes (id, family_id, rule_id, changed, account_ids, previous, undo_until)
		SELECT ?, ?, ?, count(*), array_agg(DISTINCT e.account_id), jsonb_agg(jsonb_build_object('id', e.id, 'name', e.name, 'original_name', e.original_name,
			'category_id', e.category_id, 'merchant_id', e.merchant_id, 'tag_ids', e.tag_ids, 'excluded', e.excluded,
			'transaction_kind', e.transaction_kind, 'locked_fields', e.locked_fields)),
			now() + ?::interval
		FROM `+from+`
		HAVING count(*) > 0
		RETURNING changed, created_at, undo_until`, append(append(head, tail...), args...)...).Scan(ctx, &c.Changed, &c.CreatedAt, &c.UndoUntil)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("record change: %w", err)
	}
	return c, nil
}

// Undone is what an undo put back: the transactions as they were before the change, and those
// left as they are because they changed since (or are gone).
type Undone struct {
	Restored, Kept int
}

// UndoChange puts the family's change id back while it is open (Conflict after UndoWindow, or
// a second time): each transaction as it was before, unless something changed it since, which
// stays (a transaction's updated_at is the change's own time until then). A change that
// touched an account kept from v is not found.
func UndoChange(ctx context.Context, idb bun.IDB, v Viewer, id uuid.UUID) (Undone, error) {
	var done Undone
	familyID := v.FamilyID
	err := idb.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		var c struct {
			Open    bool       `bun:"open"`
			Undone  *time.Time `bun:"undone_at"`
			Changed int        `bun:"changed"`
		}
		err := visibleChanges(tx.NewSelect().TableExpr("transaction_changes").ColumnExpr("undo_until > now() AS open, undone_at, changed").
			Where("family_id = ? AND id = ?", familyID, id), v).For("UPDATE").Scan(ctx, &c)
		if errors.Is(err, sql.ErrNoRows) {
			return apperr.New(apperr.NotFound, "Change not found")
		}
		if err != nil {
			return err
		}
		if c.Undone != nil {
			return apperr.New(apperr.Conflict, "This change was already undone.")
		}
		if !c.Open {
			return apperr.New(apperr.Conflict, fmt.Sprintf("Too late to undo: a change can be taken back for %d days.", int(UndoWindow.Hours()/24)))
		}
		// Older records have no locked_fields: those keep the current ones.
		actor := ActorOf(ctx)
		res, err := tx.NewRaw(`UPDATE entries e SET name = p.name, original_name = p.original_name, category_id = p.category_id,
				merchant_id = p.merchant_id, tag_ids = p.tag_ids, excluded = p.excluded,
				transaction_kind = coalesce(p.transaction_kind, e.transaction_kind),
				locked_fields = coalesce(p.locked_fields, e.locked_fields), updated_at = now(), `+SetActorSQL+`
			FROM transaction_changes tc, jsonb_to_recordset(tc.previous) AS p(id uuid, name text, original_name text, category_id uuid,
				merchant_id uuid, tag_ids uuid[], excluded boolean, transaction_kind text, locked_fields text[])
			WHERE tc.id = ? AND tc.family_id = ? AND e.id = p.id AND e.family_id = tc.family_id AND e.updated_at <= tc.created_at`,
			actor.UserID, actor.ViaOrNil(), id, familyID).Exec(ctx)
		if err != nil {
			return err
		}
		n, err := res.RowsAffected()
		if err != nil {
			return err
		}
		done = Undone{Restored: int(n), Kept: c.Changed - int(n)}
		_, err = tx.NewRaw("UPDATE transaction_changes SET undone_at = now(), previous = '[]' WHERE id = ? AND family_id = ?", id, familyID).Exec(ctx)
		return err
	})
	return done, err
}

// OpenChange is the family's change id while it can still be undone, if v may see it; nil
// otherwise.
func OpenChange(ctx context.Context, idb bun.IDB, v Viewer, id uuid.UUID) (*Change, error) {
	c := new(Change)
	err := openChanges(idb, v).Where("id = ?", id).Scan(ctx, c)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	return c, err
}

// OpenRuleChanges are the family's changes that rules applied to the history made, that can
// still be undone and that v may see, the newest first, at most limit of them.
func OpenRuleChanges(ctx context.Context, idb bun.IDB, v Viewer, limit int) ([]Change, error) {
	list := []Change{}
	err := openChanges(idb, v).Where("rule_id IS NOT NULL").OrderExpr("created_at DESC, id DESC").Limit(int64(limit)).Scan(ctx, &list)
	return list, err
}

// openChanges selects the family's changes that can still be undone and that v may see.
func openChanges(idb bun.IDB, v Viewer) *bun.SelectQuery {
	return visibleChanges(idb.NewSelect().TableExpr("transaction_changes").Column("id", "rule_id", "changed", "created_at", "undo_until").
		Where("family_id = ? AND undone_at IS NULL AND undo_until > now()", v.FamilyID), v)
}

// visibleChanges adds to q the condition that the change touched no account kept from v: a
// test of the few accounts the change's own row names, nothing when v is kept from none.
func visibleChanges(q *bun.SelectQuery, v Viewer) *bun.SelectQuery {
	if !v.HidesAny() {
		return q
	}
	return q.Where("NOT (account_ids && ?::uuid[])", pgdialect.Array(v.Hidden))
}

// PruneChanges deletes the changes that can no longer be undone, a day after.
func PruneChanges(ctx context.Context, idb bun.IDB, now time.Time) (int64, error) {
	res, err := idb.NewRaw("DELETE FROM transaction_changes WHERE undo_until < ?", now.Add(-24*time.Hour)).Exec(ctx)
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}
