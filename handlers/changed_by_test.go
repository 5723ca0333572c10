package handlers_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"tally/app/apptest"
	"tally/models"
	"tally/testkit"
)

// changedBody is who changed a record last, as every representation of the API has it.
type changedBody struct {
	ChangedBy *struct {
		Via    string  `json:"via"`
		UserID *string `json:"user_id"`
		Name   *string `json:"name"`
	} `json:"changed_by"`
}

// by says who changedBody names, "member Jana Novak" or "rule", for messages and comparisons.
func (b changedBody) by() string {
	switch {
	case b.ChangedBy == nil:
		return "nobody"
	case b.ChangedBy.Name != nil:
		return b.ChangedBy.Via + " " + *b.ChangedBy.Name + " " + *b.ChangedBy.UserID
	}
	return b.ChangedBy.Via
}

// whoEnv is a family of two adults, Jana (admin, an API key) and Ben (member, signed in).
type whoEnv struct {
	srv       *apptest.Server
	jana, ben *models.User
	key       string
	c         *testkit.Client
}

func newWhoEnv(t *testing.T) *whoEnv {
	t.Helper()
	srv := apptest.StartServer(t, apptest.ServerOptions{NoWorker: true})
	jana := testkit.MustCreateUser(t, srv.DB, testkit.UserOpts{})
	ben := testkit.MustCreateUser(t, srv.DB, testkit.UserOpts{FamilyID: jana.FamilyID, Role: models.RoleMember})
	for id, first := range map[string]string{jana.ID.String(): "Jana", ben.ID.String(): "Ben"} {
		if _, err := srv.DB.NewRaw("UPDATE users SET first_name = ?, last_name = 'Novak' WHERE id = ?", first, id).Exec(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	c := apptest.NewClient(t, srv)
	c.SignIn(ben.Email, testkit.Password)
	return &whoEnv{srv: srv, jana: jana, ben: ben, key: testkit.MustCreateAPIKey(t, srv.DB, jana.ID, models.ScopeReadWrite), c: c}
}

// api sends body to path with Jana's key, wants status and reads the answer's data into out.
func (e *whoEnv) api(t *testing.T, method, path string, body any, status int, out any) {
	t.Helper()
	r := e.c.API(method, path, e.key, body)
	if r.Status != status {
		t.Fatalf("%s %s: %d %s", method, path, r.Status, r.Body)
	}
	if out != nil {
		r.JSON(t, &struct {
			Data any `json:"data"`
		}{out})
	}
}

// Every change records who made it: a member through the API or a page, or a rule. The API's
// transactions, accounts, rules and budget lines show it, and the edit panel says it in the
// reader's date style.
func TestChangesRecordWhoMadeThem(t *testing.T) {
	t.Parallel()
	e := newWhoEnv(t)
	jana := "member Jana Novak " + e.jana.ID.String()
	ben := "member Ben Novak " + e.ben.ID.String()

	var acct struct {
		ID string `json:"id"`
		changedBody
	}
	e.api(t, http.MethodPost, "/api/v1/accounts", map[string]any{"name": "Joint", "accountable_type": "Depository"}, http.StatusCreated, &acct)
	if acct.by() != jana {
		t.Errorf("a new account's changed_by is %s, want %s", acct.by(), jana)
	}
	var category struct {
		ID string `json:"id"`
	}
	e.api(t, http.MethodPost, "/api/v1/categories", map[string]any{"name": "Coffee"}, http.StatusCreated, &category)
	var rule changedBody
	e.api(t, http.MethodPost, "/api/v1/rules", map[string]any{"name": "Coffee",
		"conditions": []any{map[string]any{"condition_type": "transaction_name", "operator": "like", "value": "coffee"}},
		"actions":    []any{map[string]any{"action_type": "set_transaction_category", "value": category.ID}}}, http.StatusCreated, &rule)
	if rule.by() != jana {
		t.Errorf("a new rule's changed_by is %s, want %s", rule.by(), jana)
	}

	var bread, coffee struct {
		ID string `json:"id"`
		changedBody
	}
	e.api(t, http.MethodPost, "/api/v1/transactions", map[string]any{"account_id": acct.ID, "date": "2026-03-01", "amount": "4.50", "name": "Bakery"}, http.StatusCreated, &bread)
	if bread.by() != jana {
		t.Errorf("a new transaction's changed_by is %s, want %s", bread.by(), jana)
	}
	e.api(t, http.MethodPost, "/api/v1/transactions", map[string]any{"account_id": acct.ID, "date": "2026-03-02", "amount": "3.20", "name": "Blue Bottle Coffee"}, http.StatusCreated, &coffee)
	if coffee.by() != models.ViaRule {
		t.Errorf("a transaction the rule categorised has changed_by %s, want the rule", coffee.by())
	}

	// Ben renames the bread on the page: the transaction is his now, in the API and the panel.
	wantPage(t, e.c.Get("/transactions/"+bread.ID), http.StatusOK)
	r := e.c.PostForm("/transactions/"+bread.ID, url.Values{"name": {"Bread"}, "date": {"2026-03-01"}, "amount": {"4.50"}, "direction": {"out"}})
	if r.Status >= 400 {
		t.Fatalf("Ben's rename: %d %s", r.Status, r.Body)
	}
	e.api(t, http.MethodGet, "/api/v1/transactions/"+bread.ID, nil, http.StatusOK, &bread)
	if bread.by() != ben {
		t.Errorf("after Ben's rename, changed_by is %s, want %s", bread.by(), ben)
	}
	if _, err := e.srv.DB.NewRaw("UPDATE users SET date_format = '%d.%m.%Y' WHERE id = ?", e.ben.ID).Exec(context.Background()); err != nil {
		t.Fatal(err)
	}
	var changed time.Time
	if err := e.srv.DB.NewRaw("SELECT updated_at FROM entries WHERE id = ?", bread.ID).Scan(context.Background(), &changed); err != nil {
		t.Fatal(err)
	}
	if got, want := e.c.Get("/transactions/"+bread.ID).TestID(t, "tx-changed-by"), "Changed by Ben Novak, "+changed.UTC().Format("02.01.2006"); got != want {
		t.Errorf("the edit panel says %q, want %q", got, want)
	}

	// Ben changes the account on its page, Jana a budget line through the API.
	wantPage(t, e.c.Get("/accounts/"+acct.ID+"/edit"), http.StatusOK)
	if r := e.c.PostForm("/accounts/"+acct.ID, url.Values{"name": {"Joint account"}, "accountable_type": {"Depository"}}); r.Status >= 400 {
		t.Fatalf("Ben's account change: %d %s", r.Status, r.Body)
	}
	e.api(t, http.MethodGet, "/api/v1/accounts/"+acct.ID, nil, http.StatusOK, &acct)
	if acct.by() != ben {
		t.Errorf("after Ben's change, the account's changed_by is %s, want %s", acct.by(), ben)
	}
	e.api(t, http.MethodPatch, "/api/v1/budgets/2026-03/categories/"+category.ID, map[string]any{"budgeted": "40"}, http.StatusOK, nil)
	var budget struct {
		Categories []struct {
			CategoryID *string `json:"category_id"`
			changedBody
		} `json:"categories"`
	}
	e.api(t, http.MethodGet, "/api/v1/budgets/2026-03", nil, http.StatusOK, &budget)
	found := false
	for _, line := range budget.Categories {
		if line.CategoryID != nil && *line.CategoryID == category.ID {
			found = true
			if line.by() != jana {
				t.Errorf("the budget line's changed_by is %s, want %s", line.by(), jana)
			}
		}
	}
	if !found {
		t.Errorf("the budget has no line for the category: %+v", budget)
	}

	// Ben leaves Tally: what he changed says a member did, no longer naming him.
	if _, err := e.srv.DB.NewRaw("DELETE FROM users WHERE id = ?", e.ben.ID).Exec(context.Background()); err != nil {
		t.Fatal(err)
	}
	e.api(t, http.MethodGet, "/api/v1/transactions/"+bread.ID, nil, http.StatusOK, &bread)
	if c := bread.ChangedBy; c == nil || c.Via != models.ViaMember || c.UserID != nil || c.Name != nil {
		t.Errorf("after Ben left, changed_by is %s, want a member without id or name", bread.by())
	}
}

// The list filters the transactions a member changed last, from the page and the API; another
// family's user matches nothing, as another family's merchant does, and a malformed id is a
// 422 naming changed_by.
func TestTransactionsFilterChangedBy(t *testing.T) {
	t.Parallel()
	e := newWhoEnv(t)
	acct := testkit.MustCreateAccount(t, e.srv.DB, e.jana.FamilyID, "Joint", "Depository", "0")
	var bread, milk struct {
		ID string `json:"id"`
	}
	for _, tx := range []struct {
		name string
		out  any
	}{{"Bread", &bread}, {"Milk", &milk}} {
		e.api(t, http.MethodPost, "/api/v1/transactions", map[string]any{"account_id": acct.ID, "date": "2026-03-01", "amount": "2", "name": tx.name}, http.StatusCreated, tx.out)
	}
	wantPage(t, e.c.Get("/transactions/"+milk.ID), http.StatusOK)
	if r := e.c.PostForm("/transactions/"+milk.ID, url.Values{"name": {"Oat milk"}, "date": {"2026-03-01"}, "amount": {"2"}, "direction": {"out"}}); r.Status >= 400 {
		t.Fatalf("Ben's rename: %d %s", r.Status, r.Body)
	}
	stranger := testkit.MustCreateUser(t, e.srv.DB, testkit.UserOpts{})

	ids := func(query string) string {
		t.Helper()
		var list []struct {
			ID string `json:"id"`
		}
		e.api(t, http.MethodGet, "/api/v1/transactions?"+query, nil, http.StatusOK, &list)
		var out []string
		for _, l := range list {
			out = append(out, l.ID)
		}
		return strings.Join(out, ",")
	}
	for _, tc := range []struct{ by, want string }{{e.ben.ID.String(), milk.ID}, {e.jana.ID.String(), bread.ID}, {stranger.ID.String(), ""}} {
		if got := ids("changed_by=" + tc.by); got != tc.want {
			t.Errorf("changed_by=%s lists %q, want %q", tc.by, got, tc.want)
		}
	}
	r := e.c.API(http.MethodGet, "/api/v1/transactions?changed_by=ben", e.key, nil)
	if r.Status != http.StatusUnprocessableEntity || !strings.Contains(r.Body, `"changed_by"`) {
		t.Errorf("changed_by=ben: %d %s, want a 422 naming changed_by", r.Status, r.Body)
	}

	page := e.c.Get("/transactions?changed_by=" + e.ben.ID.String())
	wantPage(t, page, http.StatusOK)
	doc := page.Doc(t)
	if rows := doc.Find(`[data-testid="tx-row"]`); rows.Length() != 1 || rows.AttrOr("data-id", "") != milk.ID {
		t.Errorf("the page filtered by Ben lists %d rows, want only the milk", rows.Length())
	}
	var choices []string
	doc.Find(`select[name="changed_by"] option`).Each(func(_ int, s *goquery.Selection) { choices = append(choices, s.Text()) })
	if got := strings.Join(choices, ","); got != "Anyone,Ben Novak,Jana Novak" {
		t.Errorf("the filter's choices are %q, want the family's members", got)
	}
}
