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

type ruleBody struct {
	Data struct {
		ID         string `json:"id"`
		Name       string `json:"name"`
		Active     bool   `json:"active"`
		Position   int    `json:"position"`
		Match      string `json:"match"`
		Continue   bool   `json:"continue"`
		Conditions []map[string]any
		Actions    []map[string]any
	} `json:"data"`
}

func (e *importEnv) named(t *testing.T, table, name string) string {
	t.Helper()
	id := uuid.Must(uuid.NewV7()).String()
	if _, err := e.srv.DB.NewRaw("INSERT INTO "+table+" (id, family_id, name) VALUES (?, ?, ?)", id, e.user.FamilyID, name).Exec(context.Background()); err != nil {
		t.Fatal(err)
	}
	return id
}

// TestRulesAPI creates, orders, changes and deletes rules through the API, refuses rules that
// cannot run with the field at fault, runs a created rule on the next import, applies one to
// existing transactions and undoes it, and answers 404 for another family's rule.
func TestRulesAPI(t *testing.T) {
	e := newImportEnv(t, apptest.ServerOptions{})
	groceries := e.named(t, "categories", "Groceries")
	coffee := e.named(t, "categories", "Coffee")
	acct := testkit.MustCreateAccount(t, e.srv.DB, e.user.FamilyID, "Checking", "Depository", "")

	// Refusals name the condition or action at fault.
	for _, tc := range []struct {
		body  map[string]any
		field string
	}{
		{map[string]any{"name": "x", "conditions": []any{}}, "actions"},
		{map[string]any{"actions": []any{map[string]any{"action_type": "set_transaction_category", "value": groceries}},
			"conditions": []any{map[string]any{"condition_type": "compound", "operator": "or", "sub_conditions": []any{
				map[string]any{"condition_type": "transaction_name", "operator": "matches", "value": "(unclosed"}}}}}, "conditions[0].sub_conditions[0]"},
		{map[string]any{"actions": []any{map[string]any{"action_type": "set_transaction_category", "value": uuid.NewString()}}}, "actions[0]"},
		{map[string]any{"actions": []any{map[string]any{"action_type": "exclude_transaction"}}, "effective_date": "March"}, "effective_date"},
	} {
		r := e.c.API(http.MethodPost, "/api/v1/rules", e.write, tc.body)
		if r.Status != http.StatusUnprocessableEntity || !strings.Contains(r.Body, `"`+tc.field+`"`) {
			t.Errorf("%v: %d %s; want 422 naming %s", tc.body, r.Status, r.Body, tc.field)
		}
	}
	if r := e.c.API(http.MethodPost, "/api/v1/rules", e.read, map[string]any{}); r.Status != http.StatusForbidden {
		t.Errorf("a read key created a rule: %d", r.Status)
	}

	create := func(body map[string]any) ruleBody {
		t.Helper()
		r := e.c.API(http.MethodPost, "/api/v1/rules", e.write, body)
		if r.Status != http.StatusCreated {
			t.Fatalf("create rule: %d %s", r.Status, r.Body)
		}
		var b ruleBody
		r.JSON(t, &b)
		return b
	}
	market := create(map[string]any{"name": "Market", "conditions": []any{map[string]any{"condition_type": "transaction_name", "operator": "like", "value": "market"}},
		"actions": []any{map[string]any{"action_type": "set_transaction_category", "value": groceries}}})
	cafe := create(map[string]any{"name": "Cafe", "match": "any", "conditions": []any{
		map[string]any{"condition_type": "transaction_name", "operator": "starts_with", "value": "cafe"},
		map[string]any{"condition_type": "transaction_name", "operator": "like", "value": "coffee"}},
		"actions": []any{map[string]any{"action_type": "set_transaction_category", "value": coffee}}})
	if market.Data.Position != 1 || cafe.Data.Position != 2 || !cafe.Data.Active || cafe.Data.Match != "any" {
		t.Fatalf("positions %d, %d; cafe %+v", market.Data.Position, cafe.Data.Position, cafe.Data)
	}
	// Cafe first: a market's coffee stand is coffee.
	if r := e.c.API(http.MethodPatch, "/api/v1/rules/"+cafe.Data.ID, e.write, map[string]any{"position": 1}); r.Status != http.StatusOK {
		t.Fatalf("move: %d %s", r.Status, r.Body)
	}
	var list struct{ Data []struct{ Name string } }
	e.c.API(http.MethodGet, "/api/v1/rules", e.read, nil).JSON(t, &list)
	if len(list.Data) != 2 || list.Data[0].Name != "Cafe" || list.Data[1].Name != "Market" {
		t.Fatalf("order after the move: %+v", list.Data)
	}

	// The rules run on the next import.
	r := e.create(t, map[string]any{"account_id": acct.ID, "date_format": "%Y-%m-%d", "publish": true,
		"raw_file_content": "date,amount,name\n2026-03-01,-3.20,Coffee at Market Hall\n2026-03-02,-40,Farmers Market\n2026-03-03,-9,Cinema\n"}, http.StatusCreated)
	var imp importBody
	r.JSON(t, &imp)
	e.waitFor(t, imp.Data.ID)
	category := func(name string) string {
		var c []string
		if err := e.srv.DB.NewRaw(`SELECT coalesce(c.name, '') FROM entries x LEFT JOIN categories c ON c.id = x.category_id
			WHERE x.family_id = ? AND x.name = ?`, e.user.FamilyID, name).Scan(context.Background(), &c); err != nil || len(c) != 1 {
			t.Fatalf("category of %s: %v %v", name, c, err)
		}
		return c[0]
	}
	if category("Coffee at Market Hall") != "Coffee" || category("Farmers Market") != "Groceries" || category("Cinema") != "" {
		t.Fatalf("after the import: %q %q %q", category("Coffee at Market Hall"), category("Farmers Market"), category("Cinema"))
	}

	// A new rule applied to history, then undone.
	fun := e.named(t, "categories", "Fun")
	cinema := create(map[string]any{"name": "Cinema", "active": false, "conditions": []any{map[string]any{"condition_type": "transaction_name", "operator": "=", "value": "cinema"}},
		"actions": []any{map[string]any{"action_type": "set_transaction_category", "value": fun}}})
	var applied struct {
		Data struct {
			ID      *string `json:"id"`
			Changed int     `json:"changed_count"`
		} `json:"data"`
	}
	r = e.c.API(http.MethodPost, "/api/v1/rules/"+cinema.Data.ID+"/apply", e.write, nil)
	r.JSON(t, &applied)
	if r.Status != http.StatusOK || applied.Data.Changed != 1 || applied.Data.ID == nil || category("Cinema") != "Fun" {
		t.Fatalf("apply: %d %s; Cinema is %q", r.Status, r.Body, category("Cinema"))
	}
	if r := e.c.API(http.MethodPost, "/api/v1/rule_applications/"+*applied.Data.ID+"/undo", e.write, nil); r.Status != http.StatusNoContent || category("Cinema") != "" {
		t.Fatalf("undo: %d %s; Cinema is %q", r.Status, r.Body, category("Cinema"))
	}
	if r := e.c.API(http.MethodPost, "/api/v1/rule_applications/"+*applied.Data.ID+"/undo", e.write, nil); r.Status != http.StatusConflict {
		t.Errorf("a second undo: %d", r.Status)
	}

	// Another family sees none of it.
	otherUser := testkit.MustCreateUser(t, e.srv.DB, testkit.UserOpts{})
	otherKey := testkit.MustCreateAPIKey(t, e.srv.DB, otherUser.ID, "read_write")
	for _, req := range []struct{ method, path string }{
		{http.MethodGet, "/api/v1/rules/" + market.Data.ID}, {http.MethodPatch, "/api/v1/rules/" + market.Data.ID},
		{http.MethodDelete, "/api/v1/rules/" + market.Data.ID}, {http.MethodPost, "/api/v1/rules/" + market.Data.ID + "/apply"},
		{http.MethodPost, "/api/v1/rule_applications/" + *applied.Data.ID + "/undo"},
	} {
		var body any
		if req.method == http.MethodPatch {
			body = map[string]any{"name": "mine"}
		}
		if r := e.c.API(req.method, req.path, otherKey, body); r.Status != http.StatusNotFound {
			t.Errorf("another family's %s %s: %d", req.method, req.path, r.Status)
		}
	}
	e.c.API(http.MethodGet, "/api/v1/rules", otherKey, nil).JSON(t, &list)
	if len(list.Data) != 0 {
		t.Errorf("another family lists %d rules", len(list.Data))
	}

	if r := e.c.API(http.MethodDelete, "/api/v1/rules/"+market.Data.ID, e.write, nil); r.Status != http.StatusNoContent {
		t.Fatalf("delete: %d", r.Status)
	}
	if r := e.c.API(http.MethodGet, "/api/v1/rules/"+market.Data.ID, e.read, nil); r.Status != http.StatusNotFound {
		t.Errorf("a deleted rule: %d", r.Status)
	}
}
