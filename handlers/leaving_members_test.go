package handlers_test

import (
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/google/uuid"

	"tally/app/apptest"
	"tally/models"
	"tally/testkit"
)

// leaver is a member of a family of others who keeps an account private (Savings, shared with
// a third member) and owns a shared one (Joint): what becomes of them when the member leaves.
type leaver struct {
	user           *models.User
	savings, joint *models.Account
	sharedWith     *models.User
	srv            *apptest.Server
}

func newLeaver(t *testing.T, srv *apptest.Server, familyID uuid.UUID, email string) *leaver {
	t.Helper()
	l := &leaver{srv: srv}
	l.user = testkit.MustCreateUser(t, srv.DB, testkit.UserOpts{Email: email, FamilyID: familyID, Role: models.RoleMember})
	l.sharedWith = testkit.MustCreateUser(t, srv.DB, testkit.UserOpts{FamilyID: l.user.FamilyID, Role: models.RoleMember})
	l.savings = testkit.MustCreateAccount(t, srv.DB, l.user.FamilyID, "Leaver's Savings", "Depository", "250")
	l.joint = testkit.MustCreateAccount(t, srv.DB, l.user.FamilyID, "Joint", "Depository", "10")
	for _, q := range []struct {
		sql  string
		args []any
	}{
		{"UPDATE accounts SET private = true, owner_id = ? WHERE id = ?", []any{l.user.ID, l.savings.ID}},
		{"UPDATE accounts SET owner_id = ? WHERE id = ?", []any{l.user.ID, l.joint.ID}},
		{"INSERT INTO account_shares (account_id, user_id) VALUES (?, ?)", []any{l.savings.ID, l.sharedWith.ID}},
	} {
		if _, err := srv.DB.NewRaw(q.sql, q.args...).Exec(t.Context()); err != nil {
			t.Fatal(err)
		}
	}
	return l
}

// handedOver fails the test unless the leaver's accounts are the family's: Savings shared
// with nobody named and without an owner (its change recorded as by, when not nil), Joint
// without an owner.
func (l *leaver) handedOver(t *testing.T, by *models.User) {
	t.Helper()
	want := []string{"Joint private:false owner:none", "Leaver's Savings private:false owner:none"}
	got := testkitStrings(t, l.srv, `SELECT name || ' private:' || private || ' owner:' || coalesce(owner_id::text, 'none')
		FROM accounts WHERE id IN (?, ?) ORDER BY name`, l.savings.ID, l.joint.ID)
	if !slices.Equal(got, want) {
		t.Errorf("the leaver's accounts: %v, want %v", got, want)
	}
	if n := testkitStrings(t, l.srv, "SELECT user_id::text FROM account_shares WHERE account_id = ?", l.savings.ID); len(n) != 0 {
		t.Errorf("Savings is still shared with %v", n)
	}
	if by != nil {
		if got := testkitStrings(t, l.srv, "SELECT coalesce(updated_by::text, 'nobody') || ' ' || coalesce(updated_via, '') FROM accounts WHERE id = ?", l.savings.ID); got[0] != by.ID.String()+" member" {
			t.Errorf("Savings' change is recorded as %q, want by %s", got[0], by.Email)
		}
	}
}

// A member removed from the Members page leaves nothing private to nobody: the removal dialog
// says how many accounts they keep private (never which), and in the removal's transaction
// those become shared accounts of the family without an owner, which the admin then reads;
// the removal's audit event counts them.
func TestARemovedMembersPrivateAccountsBecomeTheFamilys(t *testing.T) {
	t.Parallel()
	e := newMembersEnv(t, apptest.ServerOptions{NoWorker: true})
	l := newLeaver(t, e.srv, e.admin.FamilyID, "mia-"+uuid.NewString()[:6]+"@example.com")
	savings := "/accounts/" + l.savings.ID.String()
	notFound(t, e.c, http.MethodGet, savings)

	page := e.c.Get("/settings/family/members")
	dialog := page.TestID(t, "remove-"+l.user.ID.String())
	if !strings.Contains(dialog, "keeps one account private: it becomes a shared account of the family") || strings.Contains(page.Body, "Leaver's Savings") {
		t.Fatalf("the removal dialog says %q", dialog)
	}
	wantRedirect(t, e.c.PostForm("/settings/family/members/"+l.user.ID.String()+"/remove", nil), "/settings/family/members")
	l.handedOver(t, e.admin)
	if r := e.c.Get(savings); r.Status != http.StatusOK {
		t.Errorf("the admin reads the former private account: %d", r.Status)
	}
	if got := testkitStrings(t, e.srv, "SELECT metadata->>'private_accounts_shared' FROM sso_audit_logs WHERE event_type = 'member_removed'"); !slices.Equal(got, []string{"1"}) {
		t.Errorf("the removal audited %v private accounts shared", got)
	}
}

// A user who joins another family by invitation is told how many accounts they keep private
// in the family they leave, and those stay there as its shared accounts.
func TestJoiningAnotherFamilySharesWhatWasPrivate(t *testing.T) {
	t.Parallel()
	e := newMembersEnv(t, apptest.ServerOptions{NoWorker: true})
	old := testkit.MustCreateUser(t, e.srv.DB, testkit.UserOpts{}) // the old family's admin
	email := "bob-" + uuid.NewString()[:6] + "@example.com"
	l := newLeaver(t, e.srv, old.FamilyID, email)
	link := e.invite(email, "member")

	c := apptest.NewClient(t, e.srv)
	c.SignIn(email, testkit.Password)
	page := c.Get(e.path(link))
	if note := page.TestID(t, "invitation-private-note"); !strings.Contains(note, "You keep one account private in") || strings.Contains(page.Body, "Leaver's Savings") {
		t.Fatalf("the confirm page says %q", note)
	}
	token, _ := url.Parse(link)
	wantRedirect(t, c.PostForm("/invitations/join", url.Values{"token": {token.Query().Get("token")}}), "/")
	l.handedOver(t, l.user)
	if got := testkitStrings(t, e.srv, "SELECT family_id::text FROM accounts WHERE id = ?", l.savings.ID); got[0] != old.FamilyID.String() {
		t.Errorf("the private account moved to %s", got[0])
	}
	oc := apptest.NewClient(t, e.srv)
	oc.SignIn(old.Email, testkit.Password)
	if r := oc.Get("/accounts/" + l.savings.ID.String()); r.Status != http.StatusOK {
		t.Errorf("the old family's admin reads the former private account: %d", r.Status)
	}
	if got := testkitStrings(t, e.srv, "SELECT metadata->>'private_accounts_shared' FROM sso_audit_logs WHERE event_type = 'invitation_accepted'"); !slices.Equal(got, []string{"1"}) {
		t.Errorf("the join audited %v private accounts shared", got)
	}
}

// A super admin deleting a user is told how many accounts the user keeps private in a family
// that outlives them, and those become its shared accounts.
func TestDeletingAUserSharesTheirPrivateAccounts(t *testing.T) {
	t.Parallel()
	srv, c, _ := adminEnv(t)
	family := testkit.MustCreateUser(t, srv.DB, testkit.UserOpts{})
	l := newLeaver(t, srv, family.FamilyID, "eve-"+uuid.NewString()[:6]+"@example.com")
	base := "/admin/users/" + l.user.ID.String()
	if got := c.Get(base).TestID(t, "confirm-delete-user"); !strings.Contains(got, "They keep one account private in their family") {
		t.Fatalf("the delete dialog says %q", got)
	}
	if got := c.PostForm(base+"/delete", nil).TestID(t, "delete-user-explained"); !strings.Contains(got, "They keep one account private") {
		t.Fatalf("the delete page says %q", got)
	}
	if r := c.PostForm(base+"/delete", url.Values{"confirm": {l.user.Email}}); r.Status != http.StatusSeeOther || r.Location() != "/admin/users" {
		t.Fatalf("delete: %d", r.Status)
	}
	l.handedOver(t, nil)
	if got := testkitStrings(t, srv, "SELECT metadata->>'private_accounts_shared' FROM sso_audit_logs WHERE event_type = 'user_deleted'"); !slices.Equal(got, []string{"1"}) {
		t.Errorf("the deletion audited %v private accounts shared", got)
	}
}
