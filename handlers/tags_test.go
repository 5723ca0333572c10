package handlers_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"tally/testkit"
)

// TestTagsPages manages tags as a person without JavaScript: created with a colour, a taken
// name shown on the field, renamed, deleted off their transactions, kept while a rule adds
// them (saying which), and another family's tag not found.
func TestTagsPages(t *testing.T) {
	t.Parallel()
	p := newListPages(t, "tags")
	e, acct, c, other, idOf := p.importEnv, p.acct, p.c, p.other, p.idOf
	back := p.back

	t.Run("a tag is created with its colour", func(t *testing.T) {
		if r := c.Get("/tags"); !r.Has(t, "tags-empty") {
			t.Error("no empty state")
		}
		back(t, c.PostForm("/tags", url.Values{"name": {"Trip"}, "color": {"#22aa44"}, "color_hex": {""}}), "success", "Tag “Trip” created.")
		if got := e.strings(t, "SELECT color FROM tags WHERE id = ?", idOf(t, "Trip")); got[0] != "#22aa44" {
			t.Errorf("colour %q", got[0])
		}
	})
	t.Run("a taken name is an error on the name, and nothing is created", func(t *testing.T) {
		r := c.PostForm("/tags", url.Values{"name": {"Trip"}, "color": {"#22aa44"}})
		if r.Status != http.StatusUnprocessableEntity || r.TestID(t, "error-name") != "A tag named “Trip” already exists" {
			t.Errorf("%d %q", r.Status, r.TestID(t, "error-name"))
		}
		if n := e.count(t, "SELECT count(*) FROM tags WHERE family_id = ?", e.user.FamilyID); n != 1 {
			t.Errorf("%d tags", n)
		}
	})
	t.Run("the list links each tag's count to its transactions", func(t *testing.T) {
		trip := idOf(t, "Trip")
		e.mustEntry(t, acct.ID, nil, nil, trip)
		e.mustEntry(t, acct.ID, nil, nil, trip)
		count := c.Get("/tags").Doc(t).Find(`[data-testid="tag-count-` + trip + `"]`)
		if href, _ := count.Attr("href"); strings.TrimSpace(count.Text()) != "2" || href != "/transactions?tag_id="+trip {
			t.Errorf("count %q links to %q", count.Text(), href)
		}
	})
	t.Run("renaming a tag", func(t *testing.T) {
		trip := idOf(t, "Trip")
		if got, _ := c.Get("/tags/" + trip + "/edit").Doc(t).Find(`[data-testid="field-name"]`).Attr("value"); got != "Trip" {
			t.Errorf("the edit form shows %q", got)
		}
		back(t, c.PostForm("/tags/"+trip, url.Values{"name": {"Holiday"}, "color": {"#22aa44"}, "color_hex": {"#3366ff"}}), "success", "Tag “Holiday” saved.")
		if got := e.strings(t, "SELECT name || ' ' || color FROM tags WHERE id = ?", trip); got[0] != "Holiday #3366ff" {
			t.Errorf("stored %q", got[0])
		}
		r := c.PostForm("/tags/"+trip, url.Values{"name": {" "}, "color": {"#22aa44"}})
		if r.Status != http.StatusUnprocessableEntity || r.TestID(t, "error-name") != "Name can't be blank" {
			t.Errorf("a blank name: %d %q", r.Status, r.TestID(t, "error-name"))
		}
	})
	t.Run("a tag a rule adds is kept, and the page says which rule", func(t *testing.T) {
		back(t, c.PostForm("/tags", url.Values{"name": {"Ruled"}, "color": {"#22aa44"}}), "success", "Tag “Ruled” created.")
		ruled := idOf(t, "Ruled")
		e.mustPost(t, "/api/v1/rules", map[string]any{"name": "Tag coffee",
			"conditions": []any{map[string]any{"condition_type": "transaction_name", "operator": "like", "value": "coffee"}},
			"actions":    []any{map[string]any{"action_type": "set_transaction_tags", "value": []string{ruled}}}})
		back(t, c.PostForm("/tags/"+ruled+"/delete", nil), "error", "1 rule uses this tag (“Tag coffee”): change or delete it first")
		if n := e.count(t, "SELECT count(*) FROM tags WHERE id = ?", ruled); n != 1 {
			t.Error("the tag went")
		}
	})
	t.Run("another family's tag is not found", func(t *testing.T) {
		trip := idOf(t, "Holiday")
		for _, r := range []*testkit.Response{
			other.Get("/tags/" + trip + "/edit"),
			other.PostForm("/tags/"+trip, url.Values{"name": {"Mine"}, "color": {"#22aa44"}}),
			other.PostForm("/tags/"+trip+"/delete", nil),
		} {
			if r.Status != http.StatusNotFound {
				t.Errorf("%d, want 404", r.Status)
			}
		}
		if got := e.strings(t, "SELECT name FROM tags WHERE id = ?", trip); len(got) != 1 || got[0] != "Holiday" {
			t.Errorf("the tag is now %v", got)
		}
	})
	t.Run("a deleted tag comes off its transactions", func(t *testing.T) {
		trip := idOf(t, "Holiday")
		back(t, c.PostForm("/tags/"+trip+"/delete", nil), "success", "Tag “Holiday” deleted; it came off 2 transactions.")
		if n := e.count(t, "SELECT count(*) FROM entries WHERE ?::uuid = ANY(tag_ids)", trip); n != 0 {
			t.Errorf("%d transactions still carry it", n)
		}
	})
}
