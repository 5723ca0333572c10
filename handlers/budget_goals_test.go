package handlers_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"tally/app/apptest"
	"tally/models"
	"tally/reports"
	"tally/testkit"
)

// TestBudgetGoalsAPI sets, changes and removes categories' goals through the budget
// category's PATCH, reads them with their progress in the month, and fills the month towards
// them: every problem a 422 naming its field, another family's category a 404.
func TestBudgetGoalsAPI(t *testing.T) {
	srv := apptest.StartServer(t, apptest.ServerOptions{NoWorker: true})
	u := testkit.MustCreateUser(t, srv.DB, testkit.UserOpts{})
	e := &importEnv{srv: srv, user: u, c: apptest.NewClient(t, srv), write: testkit.MustCreateAPIKey(t, srv.DB, u.ID, models.ScopeReadWrite)}
	cats := budgetFamily(t, e, u.FamilyID)
	theirs := budgetFamily(t, e, testkit.MustCreateUser(t, srv.DB, testkit.UserOpts{}).FamilyID)
	month := reports.MonthOf(u.Family.Today())
	by := month.Next().Next().String() // three months, this one counted
	base := "/api/v1/budgets/" + month.String()
	category := func(name string) string { return base + "/categories/" + cats[name] }
	goals := func(t *testing.T) int {
		t.Helper()
		n, err := srv.DB.NewSelect().Table("category_goals").Where("family_id = ?", u.FamilyID).Count(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		return int(n)
	}
	e.runAPICases(t, []apiCase{
		{name: "a goal of no kind, no amount and a month that is not one", method: http.MethodPatch, path: category("Rent"), status: http.StatusUnprocessableEntity,
			body:     map[string]any{"goal": map[string]any{"kind": "someday", "by": "2027-13"}},
			contains: []string{`"goal.kind"`, `"goal.amount"`, `"goal.by"`},
			after: func(t *testing.T) {
				if n := goals(t); n != 0 {
					t.Errorf("a refused goal was stored: %d goals", n)
				}
			}},
		{name: "a monthly goal has no due month", method: http.MethodPatch, path: category("Insurance"), status: http.StatusUnprocessableEntity,
			body: map[string]any{"goal": map[string]any{"kind": "monthly", "amount": "50", "by": by}}, contains: []string{`"goal.by"`}},
		{name: "a goal's amount is more than zero", method: http.MethodPatch, path: category("Insurance"), status: http.StatusUnprocessableEntity,
			body: map[string]any{"goal": map[string]any{"kind": "monthly", "amount": "0"}}, contains: []string{`"goal.amount"`}},
		{name: "a goal's amount is in the currency's decimals", method: http.MethodPatch, path: category("Insurance"), status: http.StatusUnprocessableEntity,
			body: map[string]any{"goal": map[string]any{"kind": "monthly", "amount": "5.001"}}, contains: []string{`"goal.amount"`}},
		{name: "a goal with a field it does not have", method: http.MethodPatch, path: category("Insurance"), status: http.StatusUnprocessableEntity,
			body: map[string]any{"goal": map[string]any{"kind": "monthly", "amount": "5", "every": "week"}}, contains: []string{`"goal"`}},
		{name: "another family's category is a 404", method: http.MethodPatch, path: base + "/categories/" + theirs["Rent"], status: http.StatusNotFound,
			body: map[string]any{"goal": map[string]any{"kind": "monthly", "amount": "50"}}},
		{name: "set a monthly goal", method: http.MethodPatch, path: category("Insurance"), status: http.StatusOK,
			body:     map[string]any{"goal": map[string]any{"kind": "monthly", "amount": "50"}},
			contains: []string{`"goal":{"kind":"monthly","amount":"50.00","by":null,"progress":"0.00","to_go":"50.00"}`}},
		{name: "set a balance goal by a month", method: http.MethodPatch, path: category("Rent"), status: http.StatusOK,
			body:     map[string]any{"goal": map[string]any{"kind": "balance", "amount": "1000", "by": by}},
			contains: []string{`"goal":{"kind":"balance","amount":"1000.00","by":"` + by + `","progress":"0.00","to_go":"1000.00"}`}},
		{name: "change it", method: http.MethodPatch, path: category("Rent"), status: http.StatusOK,
			body:     map[string]any{"goal": map[string]any{"kind": "balance", "amount": "1200.00", "by": by}},
			contains: []string{`"goal":{"kind":"balance","amount":"1200.00","by":"` + by + `","progress":"0.00","to_go":"1200.00"}`},
			after: func(t *testing.T) {
				if n := goals(t); n != 2 {
					t.Errorf("%d goals, want the two set (a change replaces)", n)
				}
			}},
		{name: "the month lists each category's goal, null without one", method: http.MethodGet, path: base, status: http.StatusOK,
			contains: []string{`"name":"Groceries"`, `"goal":null`, `"amount":"50.00"`, `"amount":"1200.00"`}},
		{name: "a goal fill of a category without a goal says what to do", method: http.MethodPost, path: base + "/fill", status: http.StatusUnprocessableEntity,
			body: map[string]any{"strategy": "goal", "category_id": cats["Groceries"]}, contains: []string{`"target"`, "no goal"}},
		{name: "a goal fill of one category uses its goal", method: http.MethodPost, path: base + "/fill", status: http.StatusOK,
			body:     map[string]any{"strategy": "goal", "category_id": cats["Insurance"]},
			contains: []string{`"name":"Insurance","budgeted":"50.00"`, `"progress":"50.00","to_go":"0.00"`},
			excludes: []string{`"name":"Rent","budgeted":"400.00"`}},
		{name: "a goal fill of the month fills every category with a goal", method: http.MethodPost, path: base + "/fill", status: http.StatusOK,
			body: map[string]any{"strategy": "goal"},
			// A balance of 1200 in three months is 400 a month, and the category carries
			// what it saves from now on.
			contains: []string{`"name":"Rent","budgeted":"400.00","spent":"0.00","carried":"0.00","available":"400.00","rollover":"surplus"`,
				`"progress":"400.00","to_go":"800.00"`, `"name":"Insurance","budgeted":"50.00"`, `"name":"Groceries","budgeted":"0.00"`}},
		{name: "a target and month named fill towards them, not the stored goal", method: http.MethodPost, path: base + "/fill", status: http.StatusOK,
			body:     map[string]any{"strategy": "goal", "category_id": cats["Rent"], "target": "300", "by": month.String()},
			contains: []string{`"name":"Rent","budgeted":"300.00"`, `"amount":"1200.00"`}},
		{name: "remove a goal with null", method: http.MethodPatch, path: category("Insurance"), status: http.StatusOK,
			body: map[string]any{"goal": nil}, contains: []string{`"goal":null`},
			after: func(t *testing.T) {
				if n := goals(t); n != 1 {
					t.Errorf("%d goals after removing one of two", n)
				}
			}},
	})
}

// TestBudgetGoalsPage sets, changes and removes a goal from a category of the budget page, as
// a person does without JavaScript and with htmx, sees its progress, and budgets towards it.
func TestBudgetGoalsPage(t *testing.T) {
	srv := apptest.StartServer(t, apptest.ServerOptions{NoWorker: true})
	u := testkit.MustCreateUser(t, srv.DB, testkit.UserOpts{})
	e := &importEnv{srv: srv, user: u}
	cats := budgetFamily(t, e, u.FamilyID)
	theirs := budgetFamily(t, e, testkit.MustCreateUser(t, srv.DB, testkit.UserOpts{}).FamilyID)
	month := reports.MonthOf(u.Family.Today())
	page := "/budgets/" + month.String()
	rent := page + "/categories/" + cats["Rent"]
	c := apptest.NewClient(t, srv)
	c.SignIn(u.Email, testkit.Password)
	htmx := func(t *testing.T, path string, v url.Values) *testkit.Response {
		t.Helper()
		v.Set("_csrf", csrfOf(t, c))
		return c.Do(http.MethodPost, path, strings.NewReader(v.Encode()), map[string]string{
			"Content-Type": "application/x-www-form-urlencoded", "HX-Request": "true", "HX-Target": "budget-section"})
	}

	if r := c.Get(page); !r.Has(t, "goal-editor-"+cats["Rent"]) || r.Has(t, "goal-"+cats["Rent"]) {
		t.Fatalf("a category without a goal offers to set one and shows none: %s", r.Body)
	}
	t.Run("without JavaScript", func(t *testing.T) {
		r := c.PostForm(rent, url.Values{"goal_kind": {"balance"}, "goal_amount": {"1,200"}, "goal_by": {month.Next().String()}})
		if r.Status != http.StatusSeeOther || r.Location() != page {
			t.Fatalf("%d to %s", r.Status, r.Location())
		}
		want := "Goal $1,200.00 by " + month.Next().First().Format("January 2006") + ": $0.00 available, $1,200.00 to go"
		if got := c.Get(page).TestID(t, "goal-"+cats["Rent"]); got != want {
			t.Errorf("Rent's goal reads %q, want %q", got, want)
		}
	})
	t.Run("a form without its CSRF token is refused", func(t *testing.T) {
		r := c.Do(http.MethodPost, rent, strings.NewReader(url.Values{"goal_kind": {"none"}}.Encode()),
			map[string]string{"Content-Type": "application/x-www-form-urlencoded"})
		if r.Status != http.StatusForbidden {
			t.Errorf("%d", r.Status)
		}
	})
	t.Run("with htmx, a refused goal says why", func(t *testing.T) {
		r := htmx(t, rent, url.Values{"goal_kind": {"monthly"}, "goal_amount": {""}})
		if r.Status != http.StatusOK || !strings.Contains(r.TestID(t, "budget-error"), "more than zero") {
			t.Fatalf("%d: %s", r.Status, r.Body)
		}
	})
	t.Run("with htmx, change it and budget towards it", func(t *testing.T) {
		r := htmx(t, rent, url.Values{"goal_kind": {"monthly"}, "goal_amount": {"250"}, "goal_by": {month.Next().String()}})
		if got := r.TestID(t, "goal-"+cats["Rent"]); got != "Goal $250.00 a month: $0.00 budgeted, $250.00 to go" {
			t.Errorf("the changed goal reads %q", got)
		}
		if v := r.Doc(t).Find(`[data-testid="goal-kind-`+cats["Rent"]+`"] option[selected]`).AttrOr("value", ""); v != "monthly" {
			t.Errorf("the form shows the kind %q", v)
		}
		r = htmx(t, page+"/fill", url.Values{"strategy": {"goal"}, "category_id": {cats["Rent"]}})
		if got := r.TestID(t, "goal-"+cats["Rent"]); got != "Goal $250.00 a month: reached" {
			t.Errorf("after the fill the goal reads %q", got)
		}
		if got := r.Doc(t).Find(`[data-testid="budgeted-`+cats["Rent"]+`"]`).AttrOr("value", ""); got != "250.00" {
			t.Errorf("Rent budgeted %q after the fill", got)
		}
	})
	t.Run("another family's category is not found", func(t *testing.T) {
		if r := c.PostForm(page+"/categories/"+theirs["Rent"], url.Values{"goal_kind": {"monthly"}, "goal_amount": {"5"}}); r.Status != http.StatusNotFound {
			t.Errorf("%d", r.Status)
		}
	})
	t.Run("remove it", func(t *testing.T) {
		r := htmx(t, rent, url.Values{"goal_kind": {"none"}})
		if r.Status != http.StatusOK || r.Has(t, "goal-"+cats["Rent"]) || r.Has(t, "goal-remove-"+cats["Rent"]) {
			t.Errorf("the goal is still shown: %d", r.Status)
		}
	})
}
