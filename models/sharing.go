package models

import (
	"context"
	"fmt"
	"slices"

	"github.com/google/uuid"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"

	"tally/internal/apperr"
)

// Sharing is who sees an account: the whole family (Private false, as every account did
// before owners were recorded), or its owner and the members of SharedWith.
type Sharing struct {
	Private bool
	// SharedWith are members of the family, besides the owner, who see a private account.
	SharedWith []uuid.UUID
}

// maxShares bounds the members a client may name at once; a household is a few people.
const maxShares = 50

// MayShare says whether by may change who sees the account: its owner may, and nobody else,
// family admins included. An account without an owner (made before owners were recorded, or
// by an import or a bank sync) is shared with the family; a family admin may make it private,
// and becomes its owner by doing so.
func MayShare(by *User, a *Account) bool {
	if a.OwnerID == nil {
		return by.IsAdmin()
	}
	return *a.OwnerID == by.ID
}

// AccountShares returns, for each of the accounts ids, the members its owner shares it with,
// in one query.
func AccountShares(ctx context.Context, db bun.IDB, ids []uuid.UUID) (map[uuid.UUID][]uuid.UUID, error) {
	out := map[uuid.UUID][]uuid.UUID{}
	if len(ids) == 0 {
		return out, nil
	}
	var rows []struct {
		AccountID uuid.UUID `bun:"account_id"`
		UserID    uuid.UUID `bun:"user_id"`
	}
	err := db.NewRaw("SELECT account_id, user_id FROM account_shares WHERE account_id IN (?) ORDER BY account_id, user_id",
		bun.In(ids)).Scan(ctx, &rows)
	if err != nil && !isNoRows(err) {
		return nil, err
	}
	for _, r := range rows {
		out[r.AccountID] = append(out[r.AccountID], r.UserID)
	}
	return out, nil
}

// lockVisibleAccount reads the family's account id into a, if the viewer sees it, locked until
// tx ends.
func lockVisibleAccount(ctx context.Context, tx bun.Tx, v Viewer, id uuid.UUID, a *Account) error {
	q := tx.NewSelect().Model(a).Where("a.id = ? AND a.family_id = ?", id, v.FamilyID)
	v.VisibleAccounts(q.QueryBuilder(), "a.id")
	return notFound(q.For("UPDATE").Scan(ctx), "account")
}

// share writes s as who sees a (locked in tx), after checking that by may say so and that every
// member named is one of the family's: a private account's owner is by from then on.
func share(ctx context.Context, tx bun.Tx, by *User, a *Account, s Sharing) error {
	if !MayShare(by, a) {
		msg := "Only the account's owner can make it private or share it"
		if a.OwnerID == nil {
			msg = "Only an admin of the family can make an account without an owner private"
		}
		return apperr.New(apperr.Forbidden, msg)
	}
	members := slices.DeleteFunc(slices.Clone(s.SharedWith), func(m uuid.UUID) bool { return m == by.ID })
	var v apperr.Validation
	switch {
	case !s.Private && len(members) > 0:
		v.Add("shared_with", "shared_with names the members who see a private account; a shared account is seen by the whole family")
	case len(members) > maxShares:
		v.Add("shared_with", fmt.Sprintf("shared_with names at most %d members", maxShares))
	case len(members) > 0:
		var found []uuid.UUID
		if err := tx.NewRaw("SELECT id FROM users WHERE family_id = ? AND id IN (?)", a.FamilyID, bun.In(members)).Scan(ctx, &found); err != nil && !isNoRows(err) {
			return err
		}
		for i, m := range members {
			if !slices.Contains(found, m) {
				v.Add(fmt.Sprintf("shared_with[%d]", i), fmt.Sprintf("%s is not a member of this family", m))
			}
		}
	}
	if err := v.Err(); err != nil {
		return err
	}
	if s.Private {
		a.OwnerID = &by.ID
	}
	a.Private = s.Private
	if err := tx.NewUpdate().Model(a).Set("private = ?", a.Private).Set("owner_id = ?", a.OwnerID).Set("updated_at = now()").
		WherePK().Returning("*").Scan(ctx); err != nil {
		return err
	}
	if _, err := tx.NewRaw("DELETE FROM account_shares WHERE account_id = ?", a.ID).Exec(ctx); err != nil {
		return err
	}
	if len(members) == 0 {
		return nil
	}
	_, err := tx.NewRaw("INSERT INTO account_shares (account_id, user_id) SELECT DISTINCT ?::uuid, unnest(?::uuid[])",
		a.ID, pgdialect.Array(members)).Exec(ctx)
	return err
}

// PrivateAccountsOf counts the family's accounts private to userID: what becomes the family's
// when they leave it (ShareWhenLeaving).
func PrivateAccountsOf(ctx context.Context, db bun.IDB, familyID, userID uuid.UUID) (int, error) {
	var n int
	err := db.NewRaw("SELECT count(*) FROM accounts WHERE family_id = ? AND owner_id = ? AND private", familyID, userID).Scan(ctx, &n)
	return n, err
}

// ShareWhenLeaving hands the family what userID keeps in it as they leave it (removed, deleted,
// or joining another family), in the caller's transaction, so that nothing is lost and nothing
// is left private to nobody: their private accounts become shared accounts of the family
// without an owner (and without the members they were shared with), the other accounts they
// own lose their owner (so that an admin may make one private again), the family's accounts
// shared with them forget them, and any bank connection of theirs still standing becomes the
// family's, its admins' to manage (the callers disconnect them first: banksync.Service.Leave). The accounts record the change as the actor of ctx's. It returns how many
// private accounts became shared.
func ShareWhenLeaving(ctx context.Context, db bun.IDB, familyID, userID uuid.UUID) (int, error) {
	actor := ActorOf(ctx)
	var shared []uuid.UUID
	err := db.NewRaw(`UPDATE accounts SET private = false, owner_id = NULL, updated_at = now(), `+SetActorSQL+`
		WHERE family_id = ? AND owner_id = ? AND private RETURNING id`, actor.UserID, actor.ViaOrNil(), familyID, userID).Scan(ctx, &shared)
	if err != nil && !isNoRows(err) {
		return 0, err
	}
	if len(shared) > 0 {
		if _, err := db.NewRaw("DELETE FROM account_shares WHERE account_id IN (?)", bun.In(shared)).Exec(ctx); err != nil {
			return 0, err
		}
	}
	for _, q := range []string{
		"UPDATE accounts SET owner_id = NULL WHERE family_id = ? AND owner_id = ?",
		"DELETE FROM account_shares s USING accounts a WHERE s.account_id = a.id AND a.family_id = ? AND s.user_id = ?",
		"UPDATE bank_connections SET user_id = NULL, updated_at = now() WHERE family_id = ? AND user_id = ?",
	} {
		if _, err := db.NewRaw(q, familyID, userID).Exec(ctx); err != nil {
			return 0, err
		}
	}
	return len(shared), nil
}
