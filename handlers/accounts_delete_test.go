package handlers_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"tally/app/apptest"
	"tally/models"
	"tally/testkit"
)

// TestAccountDeletePage deletes an account from its edit page with the API's rule: its exact
// name, a CSRF token, and only the family's own account.
func TestAccountDeletePage(t *testing.T) {
	t.Parallel()
	srv := apptest.StartServer(t, apptest.ServerOptions{NoWorker: true})
	u := testkit.MustCreateUser(t, srv.DB, testkit.UserOpts{})
	acct := testkit.MustCreateAccount(t, srv.DB, u.FamilyID, "Checking", "Depository", "10")
	c := apptest.NewClient(t, srv)
	c.SignIn(u.Email, testkit.Password)
	other := apptest.NewClient(t, srv)
	stranger := testkit.MustCreateUser(t, srv.DB, testkit.UserOpts{})
	other.SignIn(stranger.Email, testkit.Password)
	other.Get("/accounts") // for a CSRF token
	path := "/accounts/" + acct.ID.String() + "/delete"
	left := func() int {
		var n int
		if err := srv.DB.NewRaw("SELECT count(*) FROM accounts WHERE id = ?", acct.ID).Scan(t.Context(), &n); err != nil {
			t.Fatal(err)
		}
		return n
	}

	edit := c.Get("/accounts/" + acct.ID.String() + "/edit")
	if !edit.Has(t, "delete-account-form") {
		t.Fatal("the edit page has no delete form")
	}
	for _, tc := range []struct {
		name   string
		client *testkit.Client
		values url.Values
		status int
		check  func(t *testing.T, r *testkit.Response)
	}{
		{"a forged token is refused", c, url.Values{"_csrf": {"forged"}, "confirm": {"Checking"}}, http.StatusForbidden, nil},
		{"another family's account is not found", other, url.Values{"confirm": {"Checking"}}, http.StatusNotFound, nil},
		{"a wrong name shows the error on the field", c, url.Values{"confirm": {"Checkin"}}, http.StatusUnprocessableEntity,
			func(t *testing.T, r *testkit.Response) {
				if got := r.TestID(t, "error-confirm"); got != "Deleting “Checking” deletes its 0 transactions (1 entry in all) and cannot be undone: confirm with the account's exact name" {
					t.Errorf("error %q", got)
				}
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := tc.client.PostForm(path, tc.values)
			if r.Status != tc.status {
				t.Fatalf("%d, want %d", r.Status, tc.status)
			}
			if tc.check != nil {
				tc.check(t, r)
			}
			if left() != 1 {
				t.Fatal("the account went")
			}
		})
	}
	r := c.PostForm(path, url.Values{"confirm": {"Checking"}})
	if r.Status != http.StatusSeeOther || r.Location() != "/accounts" || left() != 0 {
		t.Fatalf("delete: %d → %q, %d accounts left", r.Status, r.Location(), left())
	}
	if got := c.Get("/accounts").TestID(t, "flash-success"); got != "Account “Checking” deleted, with its 0 transactions." {
		t.Errorf("flash %q", got)
	}
}

// TestOnlyAdminsDeleteAccounts is the rule that deleting an account, with all its history,
// takes what exporting it takes: a family admin. A member's edit page has no delete form,
// and a member's POST or API call is refused with the shape of the API's other admin-only
// calls, leaving the account; the admin's goes through.
func TestOnlyAdminsDeleteAccounts(t *testing.T) {
	t.Parallel()
	srv := apptest.StartServer(t, apptest.ServerOptions{NoWorker: true})
	admin := testkit.MustCreateUser(t, srv.DB, testkit.UserOpts{Role: models.RoleAdmin})
	member := testkit.MustCreateUser(t, srv.DB, testkit.UserOpts{Role: models.RoleMember, FamilyID: admin.FamilyID})
	acct := testkit.MustCreateAccount(t, srv.DB, admin.FamilyID, "Savings", "Depository", "10")
	left := func() bool {
		var n int
		if err := srv.DB.NewRaw("SELECT count(*) FROM accounts WHERE id = ?", acct.ID).Scan(t.Context(), &n); err != nil {
			t.Fatal(err)
		}
		return n == 1
	}
	memberKey := testkit.MustCreateAPIKey(t, srv.DB, member.ID, models.ScopeReadWrite)
	adminKey := testkit.MustCreateAPIKey(t, srv.DB, admin.ID, models.ScopeReadWrite)
	page, api := apptest.NewClient(t, srv), apptest.NewClient(t, srv)
	page.SignIn(member.Email, testkit.Password)

	edit := page.Get("/accounts/" + acct.ID.String() + "/edit")
	if edit.Status != http.StatusOK || edit.Has(t, "delete-account-form") || !edit.Has(t, "delete-account-admins") {
		t.Fatalf("a member's edit page: %d, delete form %v", edit.Status, edit.Has(t, "delete-account-form"))
	}
	if r := page.PostForm("/accounts/"+acct.ID.String()+"/delete", url.Values{"confirm": {"Savings"}}); r.Status != http.StatusForbidden || !left() {
		t.Fatalf("a member's delete form: %d, account kept %v", r.Status, left())
	}
	r := api.API(http.MethodDelete, "/api/v1/accounts/"+acct.ID.String()+"?confirm=Savings", memberKey, nil)
	var body struct{ Error, Message string }
	r.JSON(t, &body)
	if r.Status != http.StatusForbidden || body.Error != "forbidden" || !strings.Contains(body.Message, "Only an admin of the family") || !left() {
		t.Fatalf("a member's API delete: %d %s, account kept %v", r.Status, r.Body, left())
	}
	if r := api.API(http.MethodDelete, "/api/v1/accounts/"+acct.ID.String()+"?confirm=Savings", adminKey, nil); r.Status != http.StatusNoContent || left() {
		t.Fatalf("the admin's API delete: %d %s", r.Status, r.Body)
	}
}
