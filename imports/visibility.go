package imports

import (
	"context"

	"github.com/google/uuid"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"

	"tally/internal/apperr"
	"tally/models"
)

// An import tells of the accounts it reads into: its rows, amounts and statements are theirs.
// One that touches a private account kept from a viewer is not theirs to see, list, change or
// revert (models.Viewer): its own account, an account its rows were published into, one it
// created, or one it maps a name of the file to. So a member's import into their private
// account is seen only by those who can see that account.

// visibleImports adds to q (over imports AS i) the condition that v may see the import. The
// ids of the imports that wrote into the hidden accounts are read once per query, from those
// accounts' entries (entries_account_date_idx): a list costs what the hidden accounts hold,
// not what every import on the page wrote. Nothing is added when v is kept from no account.
func visibleImports(q *bun.SelectQuery, v models.Viewer) *bun.SelectQuery {
	if !v.HidesAny() {
		return q
	}
	hidden := pgdialect.Array(v.Hidden)
	return q.Where("i.account_id IS NULL OR i.account_id <> ALL(?::uuid[])", hidden).
		Where(`i.id <> ALL(ARRAY(SELECT DISTINCT e.import_id FROM entries e
			WHERE e.account_id = ANY(?0::uuid[]) AND e.import_id IS NOT NULL
			UNION SELECT a.import_id FROM accounts a WHERE a.id = ANY(?0::uuid[]) AND a.import_id IS NOT NULL))`, hidden).
		Where(`NOT EXISTS (SELECT 1 FROM import_mappings m WHERE m.import_id = i.id AND m.kind = 'account'
			AND m.target_id = ANY(?::uuid[]))`, hidden)
}

// GetFor returns the family's import with id as Get does, if v may see it: one that touches a
// private account kept from v is not found, as another family's.
func GetFor(ctx context.Context, idb bun.IDB, v models.Viewer, id uuid.UUID) (*Import, error) {
	im, err := Get(ctx, idb, v.FamilyID, id)
	if err != nil || !v.HidesAny() {
		return im, err
	}
	n, err := visibleImports(idb.NewSelect().TableExpr("imports AS i").Where("i.id = ?", id), v).Count(ctx)
	if err != nil {
		return nil, err
	}
	if n == 0 {
		return nil, importNotFound()
	}
	return im, nil
}

// importNotFound is what every read of an import answers for one of another family, or one
// its reader may not see.
func importNotFound() error {
	return apperr.New(apperr.NotFound, "Import not found").WithSlug("not_found")
}
