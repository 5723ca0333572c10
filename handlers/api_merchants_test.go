package handlers_test

import (
	"net/http"
	"testing"

	"tally/app/apptest"
	"tally/testkit"
)

// TestMerchantsAPI lists, shows, creates, changes and deletes merchants: a deleted merchant's
// transactions keep none, one a rule sets is kept until the rule changes, and another family's
// merchants are out of reach.
func TestMerchantsAPI(t *testing.T) {
	t.Parallel()
	e := newImportEnv(t, apptest.ServerOptions{NoWorker: true})
	acct := testkit.MustCreateAccount(t, e.srv.DB, e.user.FamilyID, "Checking", "Depository", "")
	other := testkit.MustCreateUser(t, e.srv.DB, testkit.UserOpts{})
	otherKey := testkit.MustCreateAPIKey(t, e.srv.DB, other.ID, "read_write")

	shop := e.mustPost(t, "/api/v1/merchants", map[string]any{"name": "Corner Shop", "website_url": "https://corner.example", "color": "#aa0000"})
	cafe := e.mustPost(t, "/api/v1/merchants", map[string]any{"name": "Cafe"})
	bought := e.mustEntry(t, acct.ID, nil, shop)
	e.mustEntry(t, acct.ID, nil, shop)
	e.mustPost(t, "/api/v1/rules", map[string]any{"name": "Cafe",
		"conditions": []any{map[string]any{"condition_type": "transaction_name", "operator": "like", "value": "cafe"}},
		"actions":    []any{map[string]any{"action_type": "set_transaction_merchant", "value": cafe}}})

	e.runAPICases(t, []apiCase{
		{name: "a list sorted by name with counts and meta", method: http.MethodGet, path: "/api/v1/merchants", key: e.read, status: http.StatusOK,
			contains: []string{`"total_count":2`, `[{"id":"` + cafe + `","name":"Cafe","color":"","website_url":"","logo_url":"","transactions_count":0,`,
				`{"id":"` + shop + `","name":"Corner Shop","color":"#aa0000","website_url":"https://corner.example","logo_url":"","transactions_count":2,`}},
		{name: "one merchant", method: http.MethodGet, path: "/api/v1/merchants/" + shop, key: e.read, status: http.StatusOK, contains: []string{`"transactions_count":2`}},
		{name: "another family cannot see ours", method: http.MethodGet, path: "/api/v1/merchants/" + shop, key: otherKey, status: http.StatusNotFound},
		{name: "a read key cannot create", method: http.MethodPost, path: "/api/v1/merchants", key: e.read, body: map[string]any{"name": "x"}, status: http.StatusForbidden},
		{name: "every problem is named by its field", method: http.MethodPost, path: "/api/v1/merchants",
			body: map[string]any{"name": "", "color": "red", "website_url": "corner", "logo_url": "ftp://logo.example/x.png"}, status: http.StatusUnprocessableEntity,
			contains: []string{`"name":["Name can't be blank"]`, `"color":["Color \"red\" must be a hex colour such as #407706"]`,
				`"website_url":["“corner” is not a web address. Type the website as example.com or https://example.com/shop."]`,
				`"logo_url":["“ftp://logo.example/x.png” is not a web address. Type the logo's address as example.com or https://example.com/shop."]`}},
		{name: "a name the family has is refused on name", method: http.MethodPost, path: "/api/v1/merchants", body: map[string]any{"name": "Cafe"},
			status: http.StatusUnprocessableEntity, contains: []string{`"name":["A merchant named “Cafe” already exists"]`}},
		{name: "only the fields given change, and empty clears", method: http.MethodPatch, path: "/api/v1/merchants/" + shop,
			body: map[string]any{"website_url": "", "logo_url": "https://corner.example/logo.png"}, status: http.StatusOK,
			contains: []string{`"name":"Corner Shop"`, `"color":"#aa0000"`, `"website_url":""`, `"logo_url":"https://corner.example/logo.png"`}},
		{name: "another family cannot change ours", method: http.MethodPatch, path: "/api/v1/merchants/" + shop, key: otherKey, body: map[string]any{"name": "Mine"},
			status: http.StatusNotFound},
		{name: "a read key cannot delete", method: http.MethodDelete, path: "/api/v1/merchants/" + shop, key: e.read, status: http.StatusForbidden},
		{name: "another family cannot delete ours", method: http.MethodDelete, path: "/api/v1/merchants/" + shop, key: otherKey, status: http.StatusNotFound},
		{name: "a merchant a rule sets stays, and the answer names the rule", method: http.MethodDelete, path: "/api/v1/merchants/" + cafe, status: http.StatusConflict,
			contains: []string{`1 rule uses this merchant (“Cafe”): change or delete it first`}},
		{name: "a deleted merchant's transactions keep none", method: http.MethodDelete, path: "/api/v1/merchants/" + shop, status: http.StatusNoContent,
			after: func(t *testing.T) {
				if n := e.count(t, "SELECT count(*) FROM entries WHERE id = ? AND merchant_id IS NULL", bought); n != 1 {
					t.Error("the transaction still has the merchant")
				}
				if n := e.count(t, "SELECT count(*) FROM merchants WHERE id = ?", shop); n != 0 {
					t.Error("the merchant is still there")
				}
			}},
	})
}
