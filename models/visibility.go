package models

import (
	"context"
	"slices"

	"github.com/google/uuid"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"
)

// Viewer is who reads a family's data, and which of its accounts they may not see.
//
// Every account is shared with its family unless it is private: then only its owner and the
// members it is shared with (account_shares) may see it, or learn that it exists. Hidden
// lists the family's private accounts this viewer may not see; it is empty for most
// households, so the filters below cost nothing there, and it is bounded by the family's
// accounts, never by its transactions.
//
// Pages and API requests read through the Viewer of their user (ViewerOf). Background work
// (publish, sync, detection) reads the whole family through FamilyViewer.
type Viewer struct {
	FamilyID uuid.UUID
	UserID   uuid.UUID // uuid.Nil for the family as a whole
	Hidden   []uuid.UUID
}

// FamilyViewer sees every account of the family: for jobs, never for a person's request.
func FamilyViewer(familyID uuid.UUID) Viewer { return Viewer{FamilyID: familyID} }

// ViewerOf reads which of u's family's accounts u may not see.
func ViewerOf(ctx context.Context, db bun.IDB, u *User) (Viewer, error) {
	v := Viewer{FamilyID: u.FamilyID, UserID: u.ID}
	err := db.NewSelect().TableExpr("accounts AS a").Column("a.id").
		Where("a.family_id = ? AND a.private", u.FamilyID).
		Where("a.owner_id IS DISTINCT FROM ?", u.ID).
		Where("NOT EXISTS (SELECT 1 FROM account_shares s WHERE s.account_id = a.id AND s.user_id = ?)", u.ID).
		OrderExpr("a.id").
		Scan(ctx, &v.Hidden)
	return v, err
}

// HidesAny says whether some of the family's accounts are kept from this viewer: a page's
// totals then say that they count only what the viewer can see.
func (v Viewer) HidesAny() bool { return len(v.Hidden) > 0 }

// CanSee says whether the viewer may see the account with this id (of their family).
func (v Viewer) CanSee(accountID uuid.UUID) bool { return !slices.Contains(v.Hidden, accountID) }

// VisibleAccounts adds to q the condition that column (an account id, such as "e.account_id")
// is one the viewer may see. It adds nothing when nothing is hidden.
func (v Viewer) VisibleAccounts(q bun.QueryBuilder, column string) bun.QueryBuilder {
	if !v.HidesAny() {
		return q
	}
	return q.Where("? <> ALL(?::uuid[])", bun.Ident(column), pgdialect.Array(v.Hidden))
}

// VisibleSQL is the same condition as SQL text and its arguments, for queries written by
// hand: "TRUE" when nothing is hidden.
func (v Viewer) VisibleSQL(column string) (string, []any) {
	if !v.HidesAny() {
		return "TRUE", nil
	}
	return "? <> ALL(?::uuid[])", []any{bun.Ident(column), pgdialect.Array(v.Hidden)}
}

// VisibleAllSQL is the condition that every account id in column, an array (uuid[]), is one
// the viewer may see, as SQL text and its arguments: "TRUE" when nothing is hidden.
func (v Viewer) VisibleAllSQL(column string) (string, []any) {
	if !v.HidesAny() {
		return "TRUE", nil
	}
	return "NOT (? && ?::uuid[])", []any{bun.Ident(column), pgdialect.Array(v.Hidden)}
}
