package imports

import (
	"context"
	"fmt"
	"slices"

	"github.com/uptrace/bun"
)

// DuplicateChecked are the types whose publish skips rows that repeat a transaction already in
// their account (DECISIONS 6), so that they are counted before publishing too.
var DuplicateChecked = []Type{TransactionImport, ExternalAppAImport, ExternalAppBImport, ExternalAppCImport, QifImport, PdfImport}

// AlreadyThere counts the valid rows of a pending (or failed) import that are already in their
// account, and that publishing will skip; 0 for imports of other states or types.
func AlreadyThere(ctx context.Context, idb bun.IDB, d *Detail) (int, error) {
	if d.Status != StatusPending && d.Status != StatusFailed || !slices.Contains(DuplicateChecked, d.Type) || d.Stats.ValidRowsCount == 0 {
		return 0, nil
	}
	return PendingDuplicates(ctx, idb, d.Import)
}

// DuplicatesNotice says in words what an import's rows come to beside what is already in its
// account (named where, "" for rows that name their accounts): before publishing, how many
// of them publishing will skip (alreadyThere, from AlreadyThere); after a publish that found
// every row already there, that nothing was new. "" when there is nothing to say.
func DuplicatesNotice(d *Detail, alreadyThere int, where string) string {
	if where == "" {
		where = "their accounts"
	}
	valid := d.Stats.ValidRowsCount
	switch {
	case d.Status == StatusComplete && valid > 0 && d.Stats.DuplicateRowsCount == valid:
		return fmt.Sprintf("Nothing new: all %s already in %s.", rowsWere(valid, "was", "were"), where)
	case alreadyThere == 0:
		return ""
	case alreadyThere == valid:
		return fmt.Sprintf("Nothing new: all %s already in %s, and publishing will skip them.", rowsWere(valid, "is", "are"), where)
	case alreadyThere == 1:
		return fmt.Sprintf("1 of the %d rows is already in %s: publishing will skip it.", valid, where)
	}
	return fmt.Sprintf("%d of the %d rows are already in %s: publishing will skip them.", alreadyThere, valid, where)
}

// rowsWere is "1 row was" or "3 rows were".
func rowsWere(n int, one, many string) string {
	if n == 1 {
		return "1 row " + one
	}
	return fmt.Sprintf("%d rows %s", n, many)
}
