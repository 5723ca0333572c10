package models

import (
	"context"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"tally/internal/apperr"
)

// DeleteTag deletes one of the family's tags and takes it off every entry that carries it.
// Entries hold their tags in an array, which no foreign key can clean up.
func DeleteTag(ctx context.Context, db bun.IDB, familyID, id uuid.UUID) error {
	return db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		res, err := tx.NewRaw("DELETE FROM tags WHERE id = ? AND family_id = ?", id, familyID).Exec(ctx)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return apperr.New(apperr.NotFound, "tag not found")
		}
		_, err = tx.NewRaw(`UPDATE entries SET tag_ids = array_remove(tag_ids, ?), updated_at = now()
			WHERE family_id = ? AND tag_ids @> ARRAY[?::uuid]`, id, familyID, id).Exec(ctx)
		return err
	})
}
