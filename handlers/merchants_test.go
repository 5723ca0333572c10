package handlers_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/google/uuid"

	"tally/testkit"
)

// TestMerchantsPages manages merchants as a person without JavaScript: a colour only when
// asked for, a website that must be a web address, renamed, deleted with their transactions
// kept, kept while a rule sets them, and another family's merchant not found.
func TestMerchantsPages(t *testing.T) {
	t.Parallel()
	p := newListPages(t, "merchants")
	e, acct, c, other, idOf := p.importEnv, p.acct, p.c, p.other, p.idOf
	back := p.back
	stored := func(t *testing.T, id string) string {
		t.Helper()
		return e.strings(t, "SELECT name || '|' || color || '|' || website_url FROM merchants WHERE id = ?", uuid.MustParse(id))[0]
	}

	t.Run("without a colour asked for, a merchant has none", func(t *testing.T) {
		if r := c.Get("/merchants"); !r.Has(t, "merchants-empty") {
			t.Error("no empty state")
		}
		back(t, c.PostForm("/merchants", url.Values{"name": {"Corner shop"}, "color": {"#22aa44"}, "website_url": {"https://corner.example/shop"}}),
			"success", "Merchant “Corner shop” created.")
		if got := stored(t, idOf(t, "Corner shop")); got != "Corner shop||https://corner.example/shop" {
			t.Errorf("stored %q", got)
		}
		doc := c.Get("/merchants").Doc(t)
		id := idOf(t, "Corner shop")
		if got := strings.TrimSpace(doc.Find(`[data-testid="merchant-website-` + id + `"]`).Text()); got != "corner.example" {
			t.Errorf("the website shows as %q", got)
		}
		if doc.Find(`[data-testid="merchant-row"] [data-testid="swatch"]`).Length() != 0 {
			t.Error("a merchant without a colour has a swatch")
		}
	})
	t.Run("a website typed without https:// is its https address", func(t *testing.T) {
		back(t, c.PostForm("/merchants", url.Values{"name": {"Bakery"}, "website_url": {" bakery.example "}}), "success", "Merchant “Bakery” created.")
		id := idOf(t, "Bakery")
		if got := stored(t, id); got != "Bakery||https://bakery.example" {
			t.Errorf("stored %q", got)
		}
		if _, err := e.srv.DB.NewDelete().TableExpr("merchants").Where("id = ?", uuid.MustParse(id)).Exec(context.Background()); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("a colour asked for is kept", func(t *testing.T) {
		back(t, c.PostForm("/merchants", url.Values{"name": {"Landlord"}, "has_color": {"1"}, "color": {"#22aa44"}}), "success", "Merchant “Landlord” created.")
		if got := stored(t, idOf(t, "Landlord")); got != "Landlord|#22aa44|" {
			t.Errorf("stored %q", got)
		}
	})
	for _, tc := range []struct {
		name, field, want string
		values            url.Values
	}{
		{"a taken name is an error on the name", "name", "A merchant named “Landlord” already exists", url.Values{"name": {"Landlord"}}},
		{"a website that is not a web address is an error on the website, in words for a person", "website_url",
			"“corner shop” is not a web address. Type the website as example.com or https://example.com/shop.",
			url.Values{"name": {"Bakery"}, "website_url": {"corner shop"}}},
		{"a bad hex code is an error under the colour", "color", `Color "red" must be a hex colour such as #407706`,
			url.Values{"name": {"Bakery"}, "has_color": {"1"}, "color_hex": {"red"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := c.PostForm("/merchants", tc.values)
			if r.Status != http.StatusUnprocessableEntity || r.TestID(t, "error-"+tc.field) != tc.want {
				t.Errorf("%d, error-%s %q, want %q", r.Status, tc.field, r.TestID(t, "error-"+tc.field), tc.want)
			}
			if n := e.count(t, "SELECT count(*) FROM merchants WHERE family_id = ?", e.user.FamilyID); n != 2 {
				t.Errorf("%d merchants", n)
			}
		})
	}
	t.Run("renaming a merchant and taking its colour off", func(t *testing.T) {
		id := idOf(t, "Landlord")
		doc := c.Get("/merchants/" + id + "/edit").Doc(t)
		if _, ticked := doc.Find(`[data-testid="field-has_color"]`).Attr("checked"); !ticked {
			t.Error("the edit form does not show the merchant's colour as chosen")
		}
		back(t, c.PostForm("/merchants/"+id, url.Values{"name": {"Rent Co"}, "color": {"#22aa44"}, "website_url": {"https://rent.example"}}),
			"success", "Merchant “Rent Co” saved.")
		if got := stored(t, id); got != "Rent Co||https://rent.example" {
			t.Errorf("stored %q", got)
		}
	})
	t.Run("a merchant a rule sets is kept, and the page says which rule", func(t *testing.T) {
		id := idOf(t, "Rent Co")
		e.mustPost(t, "/api/v1/rules", map[string]any{"name": "Rent",
			"conditions": []any{map[string]any{"condition_type": "transaction_name", "operator": "like", "value": "rent"}},
			"actions":    []any{map[string]any{"action_type": "set_transaction_merchant", "value": id}}})
		back(t, c.PostForm("/merchants/"+id+"/delete", nil), "error", "1 rule uses this merchant (“Rent”): change or delete it first")
		if n := e.count(t, "SELECT count(*) FROM merchants WHERE id = ?", id); n != 1 {
			t.Error("the merchant went")
		}
	})
	t.Run("another family's merchant is not found", func(t *testing.T) {
		id := idOf(t, "Corner shop")
		for _, r := range []*testkit.Response{
			other.Get("/merchants/" + id + "/edit"),
			other.PostForm("/merchants/"+id, url.Values{"name": {"Mine"}}),
			other.PostForm("/merchants/"+id+"/delete", nil),
		} {
			if r.Status != http.StatusNotFound {
				t.Errorf("%d, want 404", r.Status)
			}
		}
		if got := stored(t, id); !strings.HasPrefix(got, "Corner shop|") {
			t.Errorf("the merchant is now %q", got)
		}
	})
	t.Run("a deleted merchant's transactions stay, with no merchant", func(t *testing.T) {
		id := idOf(t, "Corner shop")
		tx := e.mustEntry(t, acct.ID, nil, id)
		count := c.Get("/merchants").Doc(t).Find(`[data-testid="merchant-count-` + id + `"]`)
		if href, _ := count.Attr("href"); strings.TrimSpace(count.Text()) != "1" || href != "/transactions?merchant_id="+id {
			t.Errorf("count %q links to %q", count.Text(), href)
		}
		back(t, c.PostForm("/merchants/"+id+"/delete", nil), "success", "Merchant “Corner shop” deleted; 1 transaction now has no merchant.")
		if n := e.count(t, "SELECT count(*) FROM entries WHERE id = ? AND merchant_id IS NULL", tx); n != 1 {
			t.Error("the transaction went, or kept its merchant")
		}
	})
}
