package models

import (
	"fmt"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/schema"
)

// VisibleQuery is VisibleSQL as one argument of a query written by hand, for queries whose
// placeholders are numbered (?0, ?1…): the condition's own bare placeholders would take the
// wrong arguments there, so it goes in whole, as "AND ?5".
func (v Viewer) VisibleQuery(column string) schema.QueryWithArgs {
	cond, args := v.VisibleSQL(column)
	return bun.SafeQuery(cond, args...)
}

// VisibleNumbered is VisibleSQL for a query sent to pgx as written, whose placeholders are
// $1, $2…: the condition's one argument, when it has one, is $n. "TRUE" and no argument when
// nothing is hidden.
func (v Viewer) VisibleNumbered(column string, n int) (string, []any) {
	if !v.HidesAny() {
		return "TRUE", nil
	}
	return fmt.Sprintf("%s <> ALL($%d::uuid[])", column, n), []any{v.Hidden}
}
