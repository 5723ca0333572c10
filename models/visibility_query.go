package models

import (
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
