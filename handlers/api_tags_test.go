package handlers_test

import (
	"context"
	"net/http"
	"testing"

	"tally/app/apptest"
	"tally/testkit"
)

// TestTagsAPI lists, shows, creates, changes and deletes tags: a deleted tag comes off its
// transactions, one a rule adds is kept until the rule changes, and another family's tags are
// out of reach.
func TestTagsAPI(t *testing.T) {
	t.Parallel()
	e := newImportEnv(t, apptest.ServerOptions{NoWorker: true})
	acct := testkit.MustCreateAccount(t, e.srv.DB, e.user.FamilyID, "Checking", "Depository", "")
	other := testkit.MustCreateUser(t, e.srv.DB, testkit.UserOpts{})
	otherKey := testkit.MustCreateAPIKey(t, e.srv.DB, other.ID, "read_write")

	trip := e.mustPost(t, "/api/v1/tags", map[string]any{"name": "Trip"})
	work := e.mustPost(t, "/api/v1/tags", map[string]any{"name": "work", "color": "#3366ff"})
	ruled := e.mustPost(t, "/api/v1/tags", map[string]any{"name": "Ruled"})
	both := e.mustEntry(t, acct.ID, nil, nil, trip, work)
	e.mustEntry(t, acct.ID, nil, nil, trip)
	e.mustPost(t, "/api/v1/rules", map[string]any{"name": "Tag coffee",
		"conditions": []any{map[string]any{"condition_type": "transaction_name", "operator": "like", "value": "coffee"}},
		"actions":    []any{map[string]any{"action_type": "set_transaction_tags", "value": []string{ruled}}}})

	e.runAPICases(t, []apiCase{
		{name: "a list sorted by name with counts and meta", method: http.MethodGet, path: "/api/v1/tags", key: e.read, status: http.StatusOK,
			contains: []string{`"total_count":3`, `[{"id":"` + ruled + `","name":"Ruled","color":"#e99537","transactions_count":0,`,
				`{"id":"` + trip + `","name":"Trip","color":"#e99537","transactions_count":2,`, `{"id":"` + work + `","name":"work","color":"#3366ff","transactions_count":1,`}},
		{name: "one tag", method: http.MethodGet, path: "/api/v1/tags/" + work, key: e.read, status: http.StatusOK, contains: []string{`"transactions_count":1`}},
		{name: "another family's list is its own", method: http.MethodGet, path: "/api/v1/tags", key: otherKey, status: http.StatusOK,
			contains: []string{`"data":[]`, `"total_count":0`}},
		{name: "another family cannot see ours", method: http.MethodGet, path: "/api/v1/tags/" + trip, key: otherKey, status: http.StatusNotFound},
		{name: "a read key cannot create", method: http.MethodPost, path: "/api/v1/tags", key: e.read, body: map[string]any{"name": "x"}, status: http.StatusForbidden},
		{name: "every problem is named by its field", method: http.MethodPost, path: "/api/v1/tags", body: map[string]any{"color": "#12345"},
			status: http.StatusUnprocessableEntity, contains: []string{`"name":["Name can't be blank"]`, `"color":["Color \"#12345\" must be a hex colour such as #407706"]`}},
		{name: "a name the family has is refused on name", method: http.MethodPost, path: "/api/v1/tags", body: map[string]any{"name": "Trip"},
			status: http.StatusUnprocessableEntity, contains: []string{`"name":["A tag named “Trip” already exists"]`}},
		{name: "only the fields given change", method: http.MethodPatch, path: "/api/v1/tags/" + work, body: map[string]any{"name": "Work"},
			status: http.StatusOK, contains: []string{`"name":"Work"`, `"color":"#3366ff"`, `"transactions_count":1`}},
		{name: "renaming onto a taken name is refused on name", method: http.MethodPatch, path: "/api/v1/tags/" + work, body: map[string]any{"name": "Trip"},
			status: http.StatusUnprocessableEntity, contains: []string{`"name":["A tag named “Trip” already exists"]`}},
		{name: "another family cannot change ours", method: http.MethodPatch, path: "/api/v1/tags/" + work, key: otherKey, body: map[string]any{"name": "Mine"},
			status: http.StatusNotFound},
		{name: "a read key cannot delete", method: http.MethodDelete, path: "/api/v1/tags/" + trip, key: e.read, status: http.StatusForbidden},
		{name: "another family cannot delete ours", method: http.MethodDelete, path: "/api/v1/tags/" + trip, key: otherKey, status: http.StatusNotFound},
		{name: "a tag a rule adds stays, and the answer names the rule", method: http.MethodDelete, path: "/api/v1/tags/" + ruled, status: http.StatusConflict,
			contains: []string{`1 rule uses this tag (“Tag coffee”): change or delete it first`},
			after: func(t *testing.T) {
				if n := e.count(t, "SELECT count(*) FROM tags WHERE id = ?", ruled); n != 1 {
					t.Error("the tag went")
				}
			}},
		{name: "a deleted tag comes off its transactions", method: http.MethodDelete, path: "/api/v1/tags/" + trip, status: http.StatusNoContent,
			after: func(t *testing.T) {
				if n := e.count(t, "SELECT count(*) FROM entries WHERE family_id = ? AND ?::uuid = ANY(tag_ids)", e.user.FamilyID, trip); n != 0 {
					t.Errorf("%d transactions still carry the tag", n)
				}
				var tags []string
				if err := e.srv.DB.NewRaw("SELECT unnest(tag_ids)::text FROM entries WHERE id = ?", both).Scan(context.Background(), &tags); err != nil || len(tags) != 1 || tags[0] != work {
					t.Errorf("the other tag of the transaction: %v %v", tags, err)
				}
			}},
		{name: "a deleted tag is not found", method: http.MethodGet, path: "/api/v1/tags/" + trip, key: e.read, status: http.StatusNotFound},
	})
}
