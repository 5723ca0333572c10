package handlers_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/google/uuid"

	"tally/app/apptest"
	"tally/models"
	"tally/testkit"
)

// privateHousehold is a family of two admins: Ana keeps a private account, Secret, that Ben
// (an admin too, so that every family-wide page is his to open) may not see; both see Joint.
// Each is signed in with a client of their own and holds a read_write API key.
type privateHousehold struct {
	srv              *apptest.Server
	ana, ben         *models.User
	anaC, benC       *testkit.Client
	anaKey, benKey   string
	joint, secret    *models.Account
	groceries        uuid.UUID
	anaView, benView models.Viewer
}

func newPrivateHousehold(t *testing.T, opts apptest.ServerOptions) *privateHousehold {
	t.Helper()
	ctx := context.Background()
	srv := apptest.StartServer(t, opts)
	h := &privateHousehold{srv: srv}
	h.ana = testkit.MustCreateUser(t, srv.DB, testkit.UserOpts{Email: "ana-" + uuid.NewString()[:6] + "@example.com"})
	h.ben = testkit.MustCreateUser(t, srv.DB, testkit.UserOpts{Email: "ben-" + uuid.NewString()[:6] + "@example.com",
		FamilyID: h.ana.FamilyID, Role: models.RoleAdmin})
	h.joint = testkit.MustCreateAccount(t, srv.DB, h.ana.FamilyID, "Joint", "Depository", "")
	h.secret = testkit.MustCreateAccount(t, srv.DB, h.ana.FamilyID, "Secret", "Depository", "")
	h.exec(t, "UPDATE accounts SET private = true, owner_id = ? WHERE id = ?", h.ana.ID, h.secret.ID)
	cat, err := models.CreateCategory(ctx, srv.DB, h.ana.FamilyID, models.CategoryInput{Name: testkit.Ptr("Groceries"), Classification: testkit.Ptr(models.CategoryExpense)})
	if err != nil {
		t.Fatal(err)
	}
	h.groceries = cat.ID
	for _, p := range []struct {
		u   *models.User
		c   **testkit.Client
		key *string
		v   *models.Viewer
	}{{h.ana, &h.anaC, &h.anaKey, &h.anaView}, {h.ben, &h.benC, &h.benKey, &h.benView}} {
		*p.c = apptest.NewClient(t, srv)
		(*p.c).SignIn(p.u.Email, testkit.Password)
		*p.key = testkit.MustCreateAPIKey(t, srv.DB, p.u.ID, models.ScopeReadWrite)
		if *p.v, err = models.ViewerOf(ctx, srv.DB, p.u); err != nil {
			t.Fatal(err)
		}
	}
	if !h.benView.HidesAny() || h.anaView.HidesAny() {
		t.Fatalf("Ben should not see Secret, Ana should: %+v %+v", h.benView, h.anaView)
	}
	return h
}

func (h *privateHousehold) exec(t *testing.T, query string, args ...any) {
	t.Helper()
	if _, err := h.srv.DB.NewRaw(query, args...).Exec(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// spend writes a transaction of amount (money out is positive) into the account on date, in
// Groceries, and returns its id.
func (h *privateHousehold) spend(t *testing.T, account *models.Account, date, amount, name string) uuid.UUID {
	t.Helper()
	id := uuid.Must(uuid.NewV7())
	h.exec(t, `INSERT INTO entries (id, family_id, account_id, kind, date, amount, currency, name, category_id)
		VALUES (?, ?, ?, 'transaction', ?, ?, 'USD', ?, ?)`, id, h.ana.FamilyID, account.ID, date, amount, name, h.groceries)
	return id
}

// notFound fails the test unless each path answers the client 404, as another family's would.
func notFound(t *testing.T, c *testkit.Client, method string, paths ...string) {
	t.Helper()
	for _, p := range paths {
		var r *testkit.Response
		switch method {
		case http.MethodGet:
			r = c.Get(p)
		default:
			r = c.PostForm(p, nil)
		}
		if r.Status != http.StatusNotFound {
			t.Errorf("%s %s: %d, want 404 as for another family's", method, p, r.Status)
		}
	}
}

// apiNotFound fails the test unless each API path answers the key 404.
func apiNotFound(t *testing.T, c *testkit.Client, key, method string, paths ...string) {
	t.Helper()
	for _, p := range paths {
		if r := c.API(method, p, key, nil); r.Status != http.StatusNotFound {
			t.Errorf("%s %s: %d %s, want 404 as for another family's", method, p, r.Status, r.Body)
		}
	}
}

// The spending report counts only the accounts the reader can see: Ben's month is Joint's
// 30.00, Ana's Joint's and her own Secret's 30.00 + 70.00.
func TestSpendingCountsOnlyVisibleAccounts(t *testing.T) {
	t.Parallel()
	h := newPrivateHousehold(t, apptest.ServerOptions{NoWorker: true})
	h.spend(t, h.joint, "2026-10-05", "30.00", "Market")
	h.spend(t, h.secret, "2026-10-06", "70.00", "Deli")
	for _, tc := range []struct {
		who  string
		c    *testkit.Client
		want string
	}{{"Ben", h.benC, "$30.00"}, {"Ana", h.anaC, "$100.00"}} {
		doc := tc.c.Get("/reports/spending?month=2026-10").Doc(t)
		if got := doc.Find(`[data-testid="spending-total"]`).Text(); got != tc.want {
			t.Errorf("%s's spending in October: %q, want %s", tc.who, got, tc.want)
		}
	}
}
