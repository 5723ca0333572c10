package handlers_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/google/uuid"

	"tally/app/apptest"
	"tally/testkit"
)

// apiCase is one request of a scenario: what is sent, what the answer must and must not
// contain, and what the database must hold afterwards. The cases of a table run in order,
// each seeing what the earlier ones did.
type apiCase struct {
	name     string
	method   string
	path     string
	key      string // the read_write key when empty
	body     any
	status   int
	contains []string
	excludes []string
	after    func(t *testing.T)
}

// runAPICases runs the cases in order as subtests.
func (e *importEnv) runAPICases(t *testing.T, cases []apiCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			key := tc.key
			if key == "" {
				key = e.write
			}
			r := e.c.API(tc.method, tc.path, key, tc.body)
			if r.Status != tc.status {
				t.Fatalf("%s %s answered %d, want %d: %s", tc.method, tc.path, r.Status, tc.status, r.Body)
			}
			for _, s := range tc.contains {
				if !strings.Contains(r.Body, s) {
					t.Errorf("the answer lacks %s: %s", s, r.Body)
				}
			}
			for _, s := range tc.excludes {
				if strings.Contains(r.Body, s) {
					t.Errorf("the answer has %s: %s", s, r.Body)
				}
			}
			if tc.after != nil {
				tc.after(t)
			}
		})
	}
}

// mustPost creates a record through the API and returns its id.
func (e *importEnv) mustPost(t *testing.T, path string, body map[string]any) string {
	t.Helper()
	r := e.c.API(http.MethodPost, path, e.write, body)
	if r.Status != http.StatusCreated {
		t.Fatalf("POST %s %v: %d %s", path, body, r.Status, r.Body)
	}
	var b struct {
		Data struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	r.JSON(t, &b)
	return b.Data.ID
}

// mustEntry writes a transaction of the family into the account, with a category, a merchant
// or tags when given, and returns its id.
func (e *importEnv) mustEntry(t *testing.T, accountID uuid.UUID, categoryID, merchantID any, tagIDs ...string) string {
	t.Helper()
	id := uuid.Must(uuid.NewV7()).String()
	if tagIDs == nil {
		tagIDs = []string{}
	}
	if _, err := e.srv.DB.NewRaw(`INSERT INTO entries (id, family_id, account_id, kind, date, amount, currency, name, category_id, merchant_id, tag_ids)
		VALUES (?, ?, ?, 'transaction', '2026-03-01', 10, 'USD', 'Shop', ?, ?, ?::uuid[])`,
		id, e.user.FamilyID, accountID, categoryID, merchantID, "{"+strings.Join(tagIDs, ",")+"}").Exec(context.Background()); err != nil {
		t.Fatal(err)
	}
	return id
}

// TestCategoriesAPI lists, shows, creates, changes and deletes categories: one level of
// nesting with the parent's classification, every problem named by its field, a category in
// use deleted only with a replacement that takes over its transactions and rules, and
// another family's categories out of reach.
func TestCategoriesAPI(t *testing.T) {
	t.Parallel()
	e := newImportEnv(t, apptest.ServerOptions{NoWorker: true})
	ctx := context.Background()
	acct := testkit.MustCreateAccount(t, e.srv.DB, e.user.FamilyID, "Checking", "Depository", "")
	other := testkit.MustCreateUser(t, e.srv.DB, testkit.UserOpts{})
	otherKey := testkit.MustCreateAPIKey(t, e.srv.DB, other.ID, "read_write")
	theirs := e.named(t, "categories", "Theirs")
	if _, err := e.srv.DB.NewRaw("UPDATE categories SET family_id = ? WHERE id = ?", other.FamilyID, theirs).Exec(ctx); err != nil {
		t.Fatal(err)
	}

	food := e.mustPost(t, "/api/v1/categories", map[string]any{"name": "Food", "color": "#22aa44", "icon": "utensils"})
	groceries := e.mustPost(t, "/api/v1/categories", map[string]any{"name": "groceries", "parent_id": food})
	snacks := e.mustPost(t, "/api/v1/categories", map[string]any{"name": "Snacks", "parent_id": food})
	salary := e.mustPost(t, "/api/v1/categories", map[string]any{"name": "Salary", "classification": "income"})
	travel := e.mustPost(t, "/api/v1/categories", map[string]any{"name": "Travel"})
	e.mustEntry(t, acct.ID, food, nil)
	e.mustEntry(t, acct.ID, food, nil)
	e.mustEntry(t, acct.ID, groceries, nil)
	rule := e.mustPost(t, "/api/v1/rules", map[string]any{"name": "Market",
		"conditions": []any{map[string]any{"condition_type": "transaction_category", "operator": "=", "value": food}},
		"actions":    []any{map[string]any{"action_type": "set_transaction_category", "value": food}}})
	count := func(query string, args ...any) int {
		t.Helper()
		return e.count(t, query, args...)
	}

	e.runAPICases(t, []apiCase{
		{name: "a list sorted by name, without regard to case, with counts and meta", method: http.MethodGet, path: "/api/v1/categories", key: e.read,
			status: http.StatusOK, contains: []string{`"total_count":5`, `"current_page":1`,
				`{"id":"` + food + `","name":"Food","classification":"expense","color":"#22aa44","icon":"utensils","parent_id":null,"transactions_count":2,`},
			after: func(t *testing.T) {
				var b struct{ Data []struct{ Name string } }
				e.c.API(http.MethodGet, "/api/v1/categories", e.read, nil).JSON(t, &b)
				var names []string
				for _, c := range b.Data {
					names = append(names, c.Name)
				}
				if got := strings.Join(names, ","); got != "Food,groceries,Salary,Snacks,Travel" {
					t.Errorf("order %s", got)
				}
			}},
		{name: "a page of the list", method: http.MethodGet, path: "/api/v1/categories?per_page=2&page=3", key: e.read, status: http.StatusOK,
			contains: []string{`"current_page":3`, `"total_pages":3`, `"prev_page":2`, `"next_page":null`, `"name":"Travel"`}, excludes: []string{`"name":"Food"`}},
		{name: "a subcategory takes its parent's classification and counts its own transactions", method: http.MethodGet, path: "/api/v1/categories/" + groceries, key: e.read,
			status: http.StatusOK, contains: []string{`"parent_id":"` + food + `"`, `"classification":"expense"`, `"transactions_count":1`, `"color":"#737373"`, `"icon":"shapes"`}},
		{name: "another family's category is not found", method: http.MethodGet, path: "/api/v1/categories/" + theirs, key: e.read, status: http.StatusNotFound},
		{name: "nor is one of ours for another family", method: http.MethodGet, path: "/api/v1/categories/" + food, key: otherKey, status: http.StatusNotFound},
		{name: "an id that is not one is not found", method: http.MethodGet, path: "/api/v1/categories/food", key: e.read, status: http.StatusNotFound},
		{name: "a read key cannot create", method: http.MethodPost, path: "/api/v1/categories", key: e.read, body: map[string]any{"name": "Fun"},
			status: http.StatusForbidden, contains: []string{"insufficient_scope"}},
		{name: "every problem is named by its field", method: http.MethodPost, path: "/api/v1/categories",
			body: map[string]any{"name": "  ", "color": "green", "icon": "Shopping Cart", "classification": "savings"}, status: http.StatusUnprocessableEntity,
			contains: []string{`"name":["Name can't be blank"]`, `"color":["Color \"green\" must be a hex colour such as #407706"]`,
				`"icon":["Icon \"Shopping Cart\" must be a Lucide icon name such as shopping-cart"]`, `"classification":["Classification must be income or expense"]`}},
		{name: "a name the family has is refused on name", method: http.MethodPost, path: "/api/v1/categories", body: map[string]any{"name": " Food "},
			status: http.StatusUnprocessableEntity, contains: []string{`"name":["A category named “Food” already exists"]`}},
		{name: "the same name in another family is fine", method: http.MethodPost, path: "/api/v1/categories", key: otherKey, body: map[string]any{"name": "Food"},
			status: http.StatusCreated},
		{name: "a subcategory cannot be a parent", method: http.MethodPost, path: "/api/v1/categories", body: map[string]any{"name": "Fruit", "parent_id": groceries},
			status: http.StatusUnprocessableEntity, contains: []string{`"parent_id":["“groceries” is a subcategory itself: categories nest one level only"]`}},
		{name: "another family's category cannot be a parent", method: http.MethodPost, path: "/api/v1/categories", body: map[string]any{"name": "Fruit", "parent_id": theirs},
			status: http.StatusUnprocessableEntity, contains: []string{`"parent_id":["parent_id ` + theirs + ` is not one of this family's categories"]`}},
		{name: "a parent_id that is not an id", method: http.MethodPost, path: "/api/v1/categories", body: map[string]any{"name": "Fruit", "parent_id": 12},
			status: http.StatusUnprocessableEntity, contains: []string{`"parent_id":["parent_id must be an id or null"]`}},
		{name: "a subcategory cannot have another classification than its parent", method: http.MethodPost, path: "/api/v1/categories",
			body: map[string]any{"name": "Refunds", "parent_id": food, "classification": "income"}, status: http.StatusUnprocessableEntity,
			contains: []string{`"classification":["A subcategory has its parent's classification: “Food” is expense"]`}},
		{name: "an unknown field is a bad request", method: http.MethodPost, path: "/api/v1/categories", body: map[string]any{"name": "Fun", "lucide_icon": "x"},
			status: http.StatusBadRequest},
		{name: "a category with subcategories cannot become one", method: http.MethodPatch, path: "/api/v1/categories/" + food, body: map[string]any{"parent_id": salary},
			status: http.StatusUnprocessableEntity, contains: []string{`"parent_id":["“Food” has 2 subcategories, and categories nest one level only"]`}},
		{name: "a category cannot be its own parent", method: http.MethodPatch, path: "/api/v1/categories/" + travel, body: map[string]any{"parent_id": travel},
			status: http.StatusUnprocessableEntity, contains: []string{`"parent_id":["A category cannot be its own parent"]`}},
		{name: "a read key cannot change", method: http.MethodPatch, path: "/api/v1/categories/" + travel, key: e.read, body: map[string]any{"name": "Trips"},
			status: http.StatusForbidden},
		{name: "another family cannot change ours", method: http.MethodPatch, path: "/api/v1/categories/" + travel, key: otherKey, body: map[string]any{"name": "Trips"},
			status: http.StatusNotFound},
		{name: "only the fields given change", method: http.MethodPatch, path: "/api/v1/categories/" + salary, body: map[string]any{"color": "#112233"},
			status: http.StatusOK, contains: []string{`"name":"Salary"`, `"color":"#112233"`, `"classification":"income"`, `"icon":"shapes"`}},
		{name: "renaming onto a taken name is refused on name", method: http.MethodPatch, path: "/api/v1/categories/" + salary, body: map[string]any{"name": "Travel"},
			status: http.StatusUnprocessableEntity, contains: []string{`"name":["A category named “Travel” already exists"]`}},
		{name: "a parent's new classification is its subcategories' too", method: http.MethodPatch, path: "/api/v1/categories/" + food, body: map[string]any{"classification": "income"},
			status: http.StatusOK, contains: []string{`"classification":"income"`},
			after: func(t *testing.T) {
				if n := count("SELECT count(*) FROM categories WHERE parent_id = ? AND classification = 'income'", food); n != 2 {
					t.Errorf("%d of 2 subcategories are income", n)
				}
			}},
		{name: "moved under a parent, a category takes its classification", method: http.MethodPatch, path: "/api/v1/categories/" + travel, body: map[string]any{"parent_id": salary},
			status: http.StatusOK, contains: []string{`"parent_id":"` + salary + `"`, `"classification":"income"`}},
		{name: "null makes a subcategory a top-level one", method: http.MethodPatch, path: "/api/v1/categories/" + travel, body: map[string]any{"parent_id": nil},
			status: http.StatusOK, contains: []string{`"parent_id":null`, `"classification":"income"`}},
		{name: "a category in use is not deleted without a replacement, which the answer asks for", method: http.MethodDelete, path: "/api/v1/categories/" + food,
			status: http.StatusUnprocessableEntity, contains: []string{`"replacement_id":["2 transactions and 1 rule use this category; pass replacement_id, the id of the category to move them to"]`},
			after: func(t *testing.T) {
				if n := count("SELECT count(*) FROM entries WHERE category_id = ?", food); n != 2 {
					t.Errorf("%d transactions left in Food after a refused delete", n)
				}
			}},
		{name: "the replacement cannot be the category itself", method: http.MethodDelete, path: "/api/v1/categories/" + food + "?replacement_id=" + food,
			status: http.StatusUnprocessableEntity, contains: []string{`"replacement_id":["replacement_id must be another category than the one deleted"]`}},
		{name: "nor another family's", method: http.MethodDelete, path: "/api/v1/categories/" + food + "?replacement_id=" + theirs,
			status: http.StatusUnprocessableEntity, contains: []string{`"replacement_id":["replacement_id ` + theirs + ` is not one of this family's categories"]`}},
		{name: "nor something that is not an id", method: http.MethodDelete, path: "/api/v1/categories/" + food + "?replacement_id=salary",
			status: http.StatusUnprocessableEntity, contains: []string{`"replacement_id":["replacement_id \"salary\" is not an id"]`}},
		{name: "a read key cannot delete", method: http.MethodDelete, path: "/api/v1/categories/" + food + "?replacement_id=" + salary, key: e.read, status: http.StatusForbidden},
		{name: "another family cannot delete ours", method: http.MethodDelete, path: "/api/v1/categories/" + food + "?replacement_id=" + salary, key: otherKey, status: http.StatusNotFound},
		{name: "with a replacement, its transactions and rules move to it and its subcategories go to the top", method: http.MethodDelete,
			path: "/api/v1/categories/" + food + "?replacement_id=" + salary, status: http.StatusNoContent,
			after: func(t *testing.T) {
				if n := count("SELECT count(*) FROM categories WHERE id = ?", food); n != 0 {
					t.Error("Food is still there")
				}
				if n := count("SELECT count(*) FROM entries WHERE family_id = ? AND category_id = ?", e.user.FamilyID, salary); n != 2 {
					t.Errorf("%d transactions moved to Salary, want 2", n)
				}
				if n := count("SELECT count(*) FROM entries WHERE family_id = ? AND category_id = ?", e.user.FamilyID, groceries); n != 1 {
					t.Errorf("the subcategory's transaction moved too: %d left", n)
				}
				if n := count("SELECT count(*) FROM categories WHERE id IN (?, ?) AND parent_id IS NULL", groceries, snacks); n != 2 {
					t.Errorf("%d of 2 subcategories are top-level now", n)
				}
				if n := count(`SELECT count(*) FROM rules WHERE id = ? AND conditions->0->>'value' = ?::text AND actions->0->>'value' = ?::text`, rule, salary, salary); n != 1 {
					t.Error("the rule does not name the replacement")
				}
			}},
		{name: "a category nobody uses is deleted without a replacement", method: http.MethodDelete, path: "/api/v1/categories/" + snacks, status: http.StatusNoContent},
		{name: "a deleted category is not found", method: http.MethodGet, path: "/api/v1/categories/" + snacks, key: e.read, status: http.StatusNotFound},
	})
}
