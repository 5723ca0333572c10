package models_test

import (
	"context"
	"slices"
	"testing"

	"github.com/google/uuid"

	"tally/models"
	"tally/testkit"
)

// A private account is hidden from every member but its owner and those it is shared with,
// and the filter keeps its rows out of a query; a shared account is hidden from no one.
func TestViewerHidesOnlyPrivateAccountsNotSharedWithThem(t *testing.T) {
	ctx := context.Background()
	d := testkit.MustOpenDB(t)
	owner := testkit.MustCreateUser(t, d, testkit.UserOpts{})
	partner := testkit.MustCreateUser(t, d, testkit.UserOpts{FamilyID: owner.FamilyID, Role: models.RoleMember})
	child := testkit.MustCreateUser(t, d, testkit.UserOpts{FamilyID: owner.FamilyID, Role: models.RoleViewer})
	shared := testkit.MustCreateAccount(t, d, owner.FamilyID, "Joint", "Depository", "10")
	private := testkit.MustCreateAccount(t, d, owner.FamilyID, "Mine", "Depository", "20")
	if _, err := d.NewRaw("UPDATE accounts SET private = true, owner_id = ? WHERE id = ?", owner.ID, private.ID).Exec(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := d.NewRaw("INSERT INTO account_shares (account_id, user_id) VALUES (?, ?)", private.ID, partner.ID).Exec(ctx); err != nil {
		t.Fatal(err)
	}

	visible := func(u *models.User) []string {
		t.Helper()
		v, err := models.ViewerOf(ctx, d, u)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		q := d.NewSelect().TableExpr("accounts AS a").Column("a.name").Where("a.family_id = ?", u.FamilyID).OrderExpr("a.name")
		v.VisibleAccounts(q.QueryBuilder(), "a.id")
		if err := q.Scan(ctx, &names); err != nil {
			t.Fatal(err)
		}
		for _, a := range []*models.Account{shared, private} {
			if v.CanSee(a.ID) != slices.Contains(names, a.Name) {
				t.Errorf("%s: CanSee(%s) = %v, but the query lists %v", u.Email, a.Name, v.CanSee(a.ID), names)
			}
		}
		return names
	}
	for _, tc := range []struct {
		who  *models.User
		want []string
	}{
		{owner, []string{"Joint", "Mine"}},
		{partner, []string{"Joint", "Mine"}},
		{child, []string{"Joint"}},
	} {
		if got := visible(tc.who); !slices.Equal(got, tc.want) {
			t.Errorf("%s sees %v, want %v", tc.who.Role, got, tc.want)
		}
	}
	if v := models.FamilyViewer(owner.FamilyID); v.HidesAny() || !v.CanSee(private.ID) || v.UserID != uuid.Nil {
		t.Errorf("the family viewer %+v hides something", v)
	}
}
