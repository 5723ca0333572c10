package handlers_test

import (
	"net/http"
	"testing"

	"tally/app/apptest"
	"tally/models"
	"tally/testkit"
)

// listPages is a family member signed in to the pages of one of the family's lists
// (categories, tags or merchants), with an account, and a stranger of another family.
type listPages struct {
	*importEnv
	table string // and the pages' path, /<table>
	acct  *models.Account
	c     *testkit.Client
	other *testkit.Client
}

func newListPages(t *testing.T, table string) *listPages {
	t.Helper()
	e := newImportEnv(t, apptest.ServerOptions{NoWorker: true})
	p := &listPages{importEnv: e, table: table, c: apptest.NewClient(t, e.srv), other: apptest.NewClient(t, e.srv),
		acct: testkit.MustCreateAccount(t, e.srv.DB, e.user.FamilyID, "Checking", "Depository", "")}
	p.c.SignIn(e.user.Email, testkit.Password)
	stranger := testkit.MustCreateUser(t, e.srv.DB, testkit.UserOpts{})
	p.other.SignIn(stranger.Email, testkit.Password)
	p.other.Get("/" + table) // for a CSRF token
	return p
}

// idOf is the id of the family's record named name.
func (p *listPages) idOf(t *testing.T, name string) string {
	t.Helper()
	ids := p.strings(t, "SELECT id::text FROM "+p.table+" WHERE family_id = ? AND name = ?", p.user.FamilyID, name)
	if len(ids) != 1 {
		t.Fatalf("%d %s named %q", len(ids), p.table, name)
	}
	return ids[0]
}

// back checks that r went back to the list, which then shows the flash of kind.
func (p *listPages) back(t *testing.T, r *testkit.Response, kind, flash string) {
	t.Helper()
	if r.Status != http.StatusSeeOther || r.Location() != "/"+p.table {
		t.Fatalf("%d to %q, want 303 to /%s: %.500s", r.Status, r.Location(), p.table, r.Body)
	}
	if got := p.c.Get("/"+p.table).TestID(t, "flash-"+kind); got != flash {
		t.Errorf("flash %q, want %q", got, flash)
	}
}
