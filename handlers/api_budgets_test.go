package handlers_test

import (
	"context"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"
	"github.com/uptrace/bun"

	"tally/app/apptest"
	"tally/budgets"
	"tally/models"
	"tally/reports"
	"tally/testkit"
)

// billsDouble stands in for the recurring series at the seam budgets.Bills (their real
// implementation is another package's): the same expectations whatever the month.
type billsDouble map[uuid.UUID]budgets.Expected

func (b billsDouble) ExpectedByCategory(context.Context, bun.IDB, models.Viewer, reports.Month, time.Time) (map[uuid.UUID]budgets.Expected, error) {
	return b, nil
}

// budgetFamily makes the categories of a budget test in e's family and returns their ids.
func budgetFamily(t *testing.T, e *importEnv, familyID uuid.UUID) map[string]string {
	t.Helper()
	ids := map[string]string{}
	for _, c := range []struct{ name, parent string }{{"Food", ""}, {"Groceries", "Food"}, {"Rent", ""}, {"Insurance", ""}, {"Salary", ""}} {
		in := models.CategoryInput{Name: testkit.Ptr(c.name)}
		if c.name == "Salary" {
			in.Classification = testkit.Ptr(models.CategoryIncome)
		}
		if c.parent != "" {
			p := testkit.Ptr(uuid.MustParse(ids[c.parent]))
			in.ParentID = &p
		}
		cat, err := models.CreateCategory(context.Background(), e.srv.DB, familyID, in)
		if err != nil {
			t.Fatal(err)
		}
		ids[c.name] = cat.ID.String()
	}
	return ids
}

// TestBudgetsAPI walks a month through the API: set it whole (all or none), change a
// category, move money and undo it, fill it, with another family's records a 404 and every
// problem a 422 naming its field.
func TestBudgetsAPI(t *testing.T) {
	bills := billsDouble{}
	srv := apptest.StartServer(t, apptest.ServerOptions{NoWorker: true, Bills: bills})
	u := testkit.MustCreateUser(t, srv.DB, testkit.UserOpts{})
	e := &importEnv{srv: srv, user: u, c: apptest.NewClient(t, srv),
		write: testkit.MustCreateAPIKey(t, srv.DB, u.ID, models.ScopeReadWrite), read: testkit.MustCreateAPIKey(t, srv.DB, u.ID, models.ScopeRead)}
	cats := budgetFamily(t, e, u.FamilyID)
	bills[uuid.MustParse(cats["Groceries"])] = budgets.Expected{Upcoming: decimal.NewFromInt(45)}
	bills[uuid.MustParse(cats["Rent"])] = budgets.Expected{Upcoming: decimal.NewFromInt(900)}
	other := testkit.MustCreateUser(t, srv.DB, testkit.UserOpts{})
	theirs := budgetFamily(t, e, other.FamilyID)
	otherKey := testkit.MustCreateAPIKey(t, srv.DB, other.ID, models.ScopeReadWrite)
	acct := testkit.MustCreateAccount(t, srv.DB, u.FamilyID, "Checking", "Depository", "")
	month := reports.MonthOf(u.Family.Today()).String()
	for _, s := range []struct{ amount, category string }{{"120.50", "Groceries"}, {"30", "Food"}, {"-10", "Groceries"}, {"25", ""}} {
		var cat *string
		if s.category != "" {
			cat = testkit.Ptr(cats[s.category])
		}
		if _, err := srv.DB.NewRaw(`INSERT INTO entries (id, family_id, account_id, kind, date, amount, currency, name, category_id)
			VALUES (gen_random_uuid(), ?, ?, 'transaction', date_trunc('month', current_date), ?, 'USD', 'spend', ?)`,
			u.FamilyID, acct.ID, s.amount, cat).Exec(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	base := "/api/v1/budgets/" + month
	var moveID string
	lineOf := func(t *testing.T, category string) string {
		t.Helper()
		var v string
		if err := srv.DB.NewRaw(`SELECT coalesce((SELECT bc.budgeted_spending::text FROM budget_categories bc JOIN budgets b ON b.id = bc.budget_id
			WHERE b.family_id = ? AND b.start_date = ?::date AND bc.category_id = ?), 'none')`, u.FamilyID, month+"-01", cats[category]).Scan(context.Background(), &v); err != nil {
			t.Fatal(err)
		}
		return v
	}
	e.runAPICases(t, []apiCase{
		{name: "an empty month shows every expense category and the spending", method: http.MethodGet, path: base, key: e.read, status: http.StatusOK,
			contains: []string{`"month":"` + month + `"`, `"expected_income":null`, `"spent":"165.50"`, `"left_to_spend":"-165.50"`,
				`"category_id":"` + cats["Groceries"] + `","parent_id":"` + cats["Food"] + `","name":"Groceries","budgeted":"0.00","spent":"110.50"`,
				`"name":"Food","budgeted":"0.00","spent":"140.50"`, `"category_id":null`, `"rollover":"off"`}},
		{name: "a month that is not one", method: http.MethodGet, path: "/api/v1/budgets/2026-13", key: e.read, status: http.StatusUnprocessableEntity,
			contains: []string{`"month"`}},
		{name: "the read scope cannot change a budget", method: http.MethodPut, path: base, key: e.read, status: http.StatusForbidden,
			body: map[string]any{"expected_income": "1000", "categories": []any{}}},
		{name: "PUT names every problem and writes nothing", method: http.MethodPut, path: base, status: http.StatusUnprocessableEntity,
			body: map[string]any{"expected_income": "lots", "categories": []any{
				map[string]any{"category_id": cats["Rent"], "budgeted": "900"},
				map[string]any{"category_id": theirs["Rent"], "budgeted": "1"},
				map[string]any{"category_id": cats["Insurance"], "budgeted": "-5"},
				map[string]any{"category_id": cats["Food"]},
			}},
			contains: []string{`"expected_income"`, `"categories[1].category_id"`, `"categories[2].budgeted"`, `"categories[3].budgeted"`},
			after: func(t *testing.T) {
				if got := lineOf(t, "Rent"); got != "none" {
					t.Errorf("a refused PUT wrote Rent's line: %s", got)
				}
			}},
		{name: "PUT sets the whole month", method: http.MethodPut, path: base, status: http.StatusOK,
			body: map[string]any{"expected_income": "3000", "categories": []any{
				map[string]any{"category_id": cats["Rent"], "budgeted": "900"},
				map[string]any{"category_id": cats["Food"], "budgeted": "400"},
				map[string]any{"category_id": cats["Groceries"], "budgeted": "100"},
			}},
			contains: []string{`"expected_income":"3000.00"`, `"budgeted":"1300.00"`, `"left_to_budget":"1700.00"`, `"left_to_spend":"1134.50"`,
				`"name":"Groceries","budgeted":"100.00","spent":"110.50","carried":"0.00","available":"-10.50","rollover":"off","upcoming":"45.00"`,
				`"status":"over"`, `"upcoming":"945.00"`}},
		{name: "PATCH another family's category is a 404", method: http.MethodPatch, path: base + "/categories/" + theirs["Rent"], status: http.StatusNotFound,
			body: map[string]any{"budgeted": "1"}},
		{name: "PATCH a rollover that is not one", method: http.MethodPatch, path: base + "/categories/" + cats["Rent"], status: http.StatusUnprocessableEntity,
			body: map[string]any{"rollover": "sometimes"}, contains: []string{`"rollover"`}},
		{name: "PATCH the amount and rollover", method: http.MethodPatch, path: base + "/categories/" + cats["Insurance"], status: http.StatusOK,
			body:     map[string]any{"budgeted": "50", "rollover": "both"},
			contains: []string{`"category_id":"` + cats["Insurance"] + `"`, `"budgeted":"50.00"`, `"rollover":"both"`, `"available":"50.00"`}},
		{name: "PATCH with neither amount nor rollover", method: http.MethodPatch, path: base + "/categories/" + cats["Rent"], status: http.StatusUnprocessableEntity,
			body: map[string]any{}, contains: []string{`"budgeted"`}},
		// An income category with nothing in it is not a row of the month; its answer is
		// still the setting it has.
		{name: "PATCH an income category's rollover", method: http.MethodPatch, path: base + "/categories/" + cats["Salary"], status: http.StatusOK,
			body: map[string]any{"rollover": "surplus"}, contains: []string{`"category_id":"` + cats["Salary"] + `"`, `"rollover":"surplus"`}},
		{name: "PATCH its amount alone answers the rollover it has", method: http.MethodPatch, path: base + "/categories/" + cats["Salary"], status: http.StatusOK,
			body: map[string]any{"budgeted": "0"}, contains: []string{`"category_id":"` + cats["Salary"] + `"`, `"rollover":"surplus"`}},
		{name: "a move beyond what is budgeted", method: http.MethodPost, path: base + "/moves", status: http.StatusUnprocessableEntity,
			body: map[string]any{"from_category_id": cats["Insurance"], "to_category_id": cats["Rent"], "amount": "50.01"}, contains: []string{`"amount"`}},
		{name: "a move without its amount", method: http.MethodPost, path: base + "/moves", status: http.StatusUnprocessableEntity,
			body: map[string]any{"from_category_id": cats["Rent"], "to_category_id": cats["Groceries"]}, contains: []string{`"amount"`}},
		{name: "a move to another family's category", method: http.MethodPost, path: base + "/moves", status: http.StatusUnprocessableEntity,
			body: map[string]any{"from_category_id": cats["Rent"], "to_category_id": theirs["Rent"], "amount": "1"}, contains: []string{`"to_category_id"`}},
		{name: "move money", method: http.MethodPost, path: base + "/moves", status: http.StatusCreated,
			body:     map[string]any{"from_category_id": cats["Rent"], "to_category_id": cats["Groceries"], "amount": "20", "reason": "a big shop"},
			contains: []string{`"amount":"20.00"`, `"reason":"a big shop"`, `"created_by":"` + u.ID.String() + `"`, `"undone_at":null`},
			after: func(t *testing.T) {
				if err := srv.DB.NewRaw(`SELECT id::text FROM budget_moves WHERE family_id = ?`, u.FamilyID).Scan(context.Background(), &moveID); err != nil {
					t.Fatal(err)
				}
				if lineOf(t, "Rent") != "880.0000" || lineOf(t, "Groceries") != "120.0000" {
					t.Errorf("after the move rent %s, groceries %s", lineOf(t, "Rent"), lineOf(t, "Groceries"))
				}
			}},
	})
	e.runAPICases(t, []apiCase{
		{name: "another family cannot undo the move", method: http.MethodPost, path: base + "/moves/" + moveID + "/undo", key: otherKey, status: http.StatusNotFound},
		{name: "undo the move", method: http.MethodPost, path: base + "/moves/" + moveID + "/undo", status: http.StatusOK,
			contains: []string{`"name":"Rent","budgeted":"900.00"`}},
		{name: "a second undo is a conflict", method: http.MethodPost, path: base + "/moves/" + moveID + "/undo", status: http.StatusConflict},
		{name: "fill by a strategy that is not one", method: http.MethodPost, path: base + "/fill", status: http.StatusUnprocessableEntity,
			body: map[string]any{"strategy": "guess"}, contains: []string{`"strategy"`}},
		{name: "a goal without its month", method: http.MethodPost, path: base + "/fill", status: http.StatusUnprocessableEntity,
			body: map[string]any{"strategy": "goal", "category_id": cats["Insurance"], "target": "600"}, contains: []string{`"by"`}},
		{name: "fill the month from what was spent last month: nothing", method: http.MethodPost, path: base + "/fill", status: http.StatusOK,
			body: map[string]any{"strategy": "last_spent"}, contains: []string{`"name":"Rent","budgeted":"0.00"`}},
		{name: "another family's month is its own", method: http.MethodGet, path: base, key: otherKey, status: http.StatusOK,
			contains: []string{`"spent":"0.00"`, `"expected_income":null`}, excludes: []string{cats["Rent"]}},
	})
}

// TestBudgetsAPISpentIsTheSpendingReport checks the API's spent against the spending page's
// total for the same month.
func TestBudgetsAPISpentIsTheSpendingReport(t *testing.T) {
	e := newImportEnv(t, apptest.ServerOptions{NoWorker: true})
	cats := budgetFamily(t, e, e.user.FamilyID)
	acct := testkit.MustCreateAccount(t, e.srv.DB, e.user.FamilyID, "Checking", "Depository", "")
	for i := range 40 {
		if _, err := e.srv.DB.NewRaw(`INSERT INTO entries (id, family_id, account_id, kind, date, amount, currency, name, category_id, transaction_kind)
			VALUES (gen_random_uuid(), ?, ?, 'transaction', date_trunc('month', current_date) + (? % 25) * interval '1 day', ?, 'USD', 'spend', ?, ?)`,
			e.user.FamilyID, acct.ID, i, fmt.Sprintf("%d.%02d", i*7-50, i), cats[[]string{"Food", "Groceries", "Rent", "Insurance"}[i%4]],
			[]string{"standard", "funds_movement", "one_time", "standard", "cc_payment"}[i%5]).Exec(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	month := reports.MonthOf(e.user.Family.Today())
	list, err := reports.MonthSpending(context.Background(), e.srv.DB, models.FamilyViewer(e.user.FamilyID), month)
	if err != nil || len(list) != 1 {
		t.Fatalf("%v %v", list, err)
	}
	r := e.c.API(http.MethodGet, "/api/v1/budgets/"+month.String(), e.read, nil)
	var got struct {
		Data struct {
			Spent string `json:"spent"`
		} `json:"data"`
	}
	r.JSON(t, &got)
	if want := list[0].Total.StringFixed(2); got.Data.Spent != want {
		t.Errorf("the API's spent %s, the spending report's %s", got.Data.Spent, want)
	}
}
