package models

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"tally/internal/apperr"
)

// UndoWindow is how long a change of many transactions at once (a rule applied to the
// history, a person's bulk edit) can be taken back.
const UndoWindow = 10 * time.Second

// Change is a change of many of a family's transactions, kept until UndoUntil so that it can
// be taken back. RuleID is the rule that made it, nil for a person's edit.
type Change struct {
	ID        uuid.UUID  `bun:"id"`
	RuleID    *uuid.UUID `bun:"rule_id"`
	Changed   int        `bun:"changed"`
	UndoUntil time.Time  `bun:"undo_until"`
}

// RecordChange keeps, in tx, the transactions that from selects as they are now, before the
// caller changes them: from is the rest of a query after "SELECT … FROM", naming the entries
// e (with its arguments). It returns the change, or nil when from selects nothing.
func RecordChange(ctx context.Context, tx bun.IDB, familyID uuid.UUID, ruleID *uuid.UUID, from string, args ...any) (*Change, error) {
	c := &Change{ID: uuid.Must(uuid.NewV7()), RuleID: ruleID}
	head := []any{c.ID, familyID, ruleID}
	tail := []any{fmt.Sprintf("%d milliseconds", UndoWindow.Milliseconds())}
	err := tx.NewRaw(`INSERT INTO transaction_changes (id, family_id, rule_id, changed, previous, undo_until)
		SELECT ?, ?, ?, count(*), jsonb_agg(jsonb_build_object('id', e.id, 'name', e.name, 'original_name', e.original_name,
			'category_id', e.category_id, 'merchant_id', e.merchant_id, 'tag_ids', e.tag_ids, 'excluded', e.excluded,
			'transaction_kind', e.transaction_kind, 'locked_fields', e.locked_fields)),
			now() + ?::interval
		FROM `+from+`
		HAVING count(*) > 0
		RETURNING changed, undo_until`, append(append(head, tail...), args...)...).Scan(ctx, &c.Changed, &c.UndoUntil)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("record change: %w", err)
	}
	return c, nil
}

// UndoChange puts the family's change id back: each transaction as it was before, while the
// change is open (Conflict after UndoWindow, or a second time).
func UndoChange(ctx context.Context, idb bun.IDB, familyID, id uuid.UUID) error {
	return idb.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		var c struct {
			Open   bool       `bun:"open"`
			Undone *time.Time `bun:"undone_at"`
		}
		err := tx.NewRaw("SELECT undo_until > now() AS open, undone_at FROM transaction_changes WHERE family_id = ? AND id = ? FOR UPDATE",
			familyID, id).Scan(ctx, &c)
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
			return apperr.New(apperr.Conflict, fmt.Sprintf("Too late to undo: a change can be taken back for %d seconds.", int(UndoWindow.Seconds())))
		}
		// Older records have no locked_fields: those keep the current ones.
		if _, err := tx.NewRaw(`UPDATE entries e SET name = p.name, original_name = p.original_name, category_id = p.category_id,
				merchant_id = p.merchant_id, tag_ids = p.tag_ids, excluded = p.excluded,
				transaction_kind = coalesce(p.transaction_kind, e.transaction_kind),
				locked_fields = coalesce(p.locked_fields, e.locked_fields), updated_at = now()
			FROM transaction_changes tc, jsonb_to_recordset(tc.previous) AS p(id uuid, name text, original_name text, category_id uuid,
				merchant_id uuid, tag_ids uuid[], excluded boolean, transaction_kind text, locked_fields text[])
			WHERE tc.id = ? AND tc.family_id = ? AND e.id = p.id AND e.family_id = tc.family_id`, id, familyID).Exec(ctx); err != nil {
			return err
		}
		_, err = tx.NewRaw("UPDATE transaction_changes SET undone_at = now(), previous = '[]' WHERE id = ? AND family_id = ?", id, familyID).Exec(ctx)
		return err
	})
}

// OpenChange is the family's change id while it can still be undone; nil otherwise.
func OpenChange(ctx context.Context, idb bun.IDB, familyID, id uuid.UUID) (*Change, error) {
	c := new(Change)
	err := idb.NewRaw(`SELECT id, rule_id, changed, undo_until FROM transaction_changes
		WHERE family_id = ? AND id = ? AND undone_at IS NULL AND undo_until > now()`, familyID, id).Scan(ctx, c)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	return c, err
}

// PruneChanges deletes the changes that can no longer be undone, a day after.
func PruneChanges(ctx context.Context, idb bun.IDB, now time.Time) (int64, error) {
	res, err := idb.NewRaw("DELETE FROM transaction_changes WHERE undo_until < ?", now.Add(-24*time.Hour)).Exec(ctx)
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}
