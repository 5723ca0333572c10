package models_test

import (
	"context"
	"io/fs"
	"slices"
	"testing"

	"github.com/google/uuid"

	"tally/internal/db"
	"tally/migrations"
	"tally/models"
	"tally/testkit"
)

// leavingFamily is a family where Mia, a member, keeps Savings private (shared with Ana, its
// admin), owns the shared Joint, is shared Ana's private Pocket, and made her own bank
// connection.
type leavingFamily struct {
	d                      *db.DB
	ana, mia               *models.User
	savings, joint, pocket *models.Account
	conn                   uuid.UUID
}

func newLeavingFamily(t *testing.T) *leavingFamily {
	t.Helper()
	f := &leavingFamily{d: testkit.MustOpenDB(t), conn: uuid.New()}
	f.ana = testkit.MustCreateUser(t, f.d, testkit.UserOpts{})
	f.mia = testkit.MustCreateUser(t, f.d, testkit.UserOpts{FamilyID: f.ana.FamilyID, Role: models.RoleMember})
	f.savings = testkit.MustCreateAccount(t, f.d, f.ana.FamilyID, "Savings", "Depository", "10")
	f.joint = testkit.MustCreateAccount(t, f.d, f.ana.FamilyID, "Joint", "Depository", "20")
	f.pocket = testkit.MustCreateAccount(t, f.d, f.ana.FamilyID, "Pocket", "Depository", "30")
	f.exec(t, "UPDATE accounts SET private = true, owner_id = ? WHERE id = ?", f.mia.ID, f.savings.ID)
	f.exec(t, "UPDATE accounts SET owner_id = ? WHERE id = ?", f.mia.ID, f.joint.ID)
	f.exec(t, "UPDATE accounts SET private = true, owner_id = ? WHERE id = ?", f.ana.ID, f.pocket.ID)
	f.exec(t, "INSERT INTO account_shares (account_id, user_id) VALUES (?, ?), (?, ?)", f.savings.ID, f.ana.ID, f.pocket.ID, f.mia.ID)
	f.exec(t, "INSERT INTO bank_connections (id, family_id, access_url, user_id) VALUES (?, ?, 'sealed', ?)", f.conn, f.ana.FamilyID, f.mia.ID)
	return f
}

func (f *leavingFamily) exec(t *testing.T, q string, args ...any) {
	t.Helper()
	if _, err := f.d.NewRaw(q, args...).Exec(context.Background()); err != nil {
		t.Fatal(err)
	}
}

func (f *leavingFamily) strings(t *testing.T, q string, args ...any) []string {
	t.Helper()
	var out []string
	if err := f.d.NewRaw(q, args...).Scan(context.Background(), &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// handedOver fails the test unless nothing of Mia's is left private to nobody: Savings and
// Joint are shared and without an owner, Ana's Pocket stays hers but no longer shared with
// Mia, and Mia's bank connection is the family's.
func (f *leavingFamily) handedOver(t *testing.T) {
	t.Helper()
	want := []string{"Joint false none", "Pocket true ana", "Savings false none"}
	got := f.strings(t, `SELECT name || ' ' || private || ' ' || CASE WHEN owner_id IS NULL THEN 'none' WHEN owner_id = ? THEN 'ana' ELSE 'mia' END
		FROM accounts WHERE id IN (?, ?, ?) ORDER BY name`, f.ana.ID, f.savings.ID, f.joint.ID, f.pocket.ID)
	if !slices.Equal(got, want) {
		t.Errorf("accounts %v, want %v", got, want)
	}
	if got := f.strings(t, "SELECT a.name FROM account_shares s JOIN accounts a ON a.id = s.account_id"); len(got) != 0 {
		t.Errorf("still shared with named members: %v", got)
	}
	if got := f.strings(t, "SELECT coalesce(user_id::text, 'family') FROM bank_connections"); !slices.Equal(got, []string{"family"}) {
		t.Errorf("the bank connection is %v's", got)
	}
}

// A member leaving hands the family what they kept in it, as the actor records it.
func TestShareWhenLeavingHandsTheFamilyWhatWasPrivate(t *testing.T) {
	t.Parallel()
	f := newLeavingFamily(t)
	ctx := models.WithActor(context.Background(), models.MemberActor(f.ana.ID))
	if n, err := models.PrivateAccountsOf(ctx, f.d, f.ana.FamilyID, f.mia.ID); err != nil || n != 1 {
		t.Fatalf("Mia keeps %d private accounts (%v), want 1", n, err)
	}
	n, err := models.ShareWhenLeaving(ctx, f.d, f.ana.FamilyID, f.mia.ID)
	if err != nil || n != 1 {
		t.Fatalf("shared %d (%v), want 1", n, err)
	}
	f.handedOver(t)
	if got := f.strings(t, "SELECT updated_by::text || ' ' || updated_via FROM accounts WHERE id = ?", f.savings.ID); got[0] != f.ana.ID.String()+" member" {
		t.Errorf("Savings' change recorded as %q", got[0])
	}
}

// Migration 20261210000040 repairs what members who left before left private to nobody: the
// deleted owner's (owner NULL) and the one who joined another family's. A private account of a
// member still in the family stays as it is.
func TestTheRepairMigrationSharesOrphanedPrivateAccounts(t *testing.T) {
	t.Parallel()
	f := newLeavingFamily(t)
	elsewhere := testkit.MustCreateUser(t, f.d, testkit.UserOpts{})
	gone := testkit.MustCreateAccount(t, f.d, f.ana.FamilyID, "Gone", "Depository", "40")
	f.exec(t, "UPDATE accounts SET private = true, owner_id = NULL WHERE id = ?", gone.ID)
	// Mia joined another family before leaving handed anything over.
	f.exec(t, "UPDATE users SET family_id = ? WHERE id = ?", elsewhere.FamilyID, f.mia.ID)
	up, err := fs.ReadFile(migrations.Files, "20261210000040_orphaned_private_accounts.tx.up.sql")
	if err != nil {
		t.Fatal(err)
	}
	for range 2 { // a repair run twice changes nothing more
		f.exec(t, string(up))
	}
	f.handedOver(t)
	if got := f.strings(t, "SELECT private::text || ' ' || coalesce(owner_id::text, 'none') FROM accounts WHERE id = ?", gone.ID); got[0] != "false none" {
		t.Errorf("the deleted owner's account: %v", got)
	}
}
