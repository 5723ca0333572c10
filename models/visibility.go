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

// A side of a transfer takes its kind from where the money went: a card's payment, a loan's,
// an investment contribution (transfers.KindTo). Seen from a side whose other side is in an
// account kept from the viewer, that kind would tell the hidden account's type, so the viewer
// sees it as a plain movement of funds, as "a transfer to a private account" says no more.

// SeenKind is the transaction kind as the viewer sees it: otherPrivate says the other side of
// the transaction's transfer is in an account kept from them.
func SeenKind(kind string, otherPrivate bool) string {
	if otherPrivate && slices.Contains(kindsNamingTheOtherSide, kind) {
		return KindFundsMovement
	}
	return kind
}

// KindSQL is SeenKind of the transaction alias (entries AS alias), as SQL text and its
// arguments: its transaction_kind when nothing is hidden. The transfer and its other side are
// found through their unique indexes, and only for a side of a kind that names the other.
func (v Viewer) KindSQL(alias string) (string, []any) {
	kind := alias + ".transaction_kind"
	if !v.HidesAny() {
		return kind, nil
	}
	return "CASE WHEN " + kind + " IN (?) AND EXISTS (SELECT 1 FROM transfers kt JOIN entries ko ON ko.id = CASE WHEN kt.inflow_entry_id = " +
			alias + ".id THEN kt.outflow_entry_id ELSE kt.inflow_entry_id END WHERE (kt.inflow_entry_id = " + alias +
			".id OR kt.outflow_entry_id = " + alias + ".id) AND ko.account_id = ANY(?::uuid[])) THEN '" + KindFundsMovement +
			"' ELSE " + kind + " END",
		[]any{bun.In(kindsNamingTheOtherSide), pgdialect.Array(v.Hidden)}
}

// kindsNamingTheOtherSide are the transfer kinds that say what the other side is: all but a
// plain movement of funds.
var kindsNamingTheOtherSide = slices.DeleteFunc(slices.Clone(TransferKinds), func(k string) bool { return k == KindFundsMovement })
