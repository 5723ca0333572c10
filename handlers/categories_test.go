package handlers_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"tally/app/apptest"
	"tally/models"
	"tally/testkit"
)

// TestCategoriesPages manages categories as a person without JavaScript: the list is a tree
// with counts linked to the transactions, every problem shows under its field and changes
// nothing, a category in use is deleted only once a replacement takes over its transactions,
// and another family's category is not found.
func TestCategoriesPages(t *testing.T) {
	t.Parallel()
	p := newListPages(t, "categories")
	e, acct, c, other, idOf := p.importEnv, p.acct, p.c, p.other, p.idOf
	categories := func(t *testing.T) int {
		t.Helper()
		return e.count(t, "SELECT count(*) FROM categories WHERE family_id = ?", e.user.FamilyID)
	}
	form := func(name, parent, classification, color, hex string) url.Values {
		return url.Values{"name": {name}, "parent_id": {parent}, "classification": {classification}, "color": {color}, "color_hex": {hex}}
	}
	created := func(t *testing.T, r *testkit.Response, flash string) {
		t.Helper()
		if r.Status != http.StatusSeeOther || r.Location() != "/categories" {
			t.Fatalf("%d to %q, want 303 to /categories: %.500s", r.Status, r.Location(), r.Body)
		}
		if got := c.Get("/categories").TestID(t, "flash-success"); got != flash {
			t.Errorf("flash %q, want %q", got, flash)
		}
	}

	t.Run("an empty family is told what categories are for", func(t *testing.T) {
		r := c.Get("/categories")
		doc := r.Doc(t)
		if r.Status != http.StatusOK || !r.Has(t, "categories-empty") || !r.Has(t, "category-new-form") {
			t.Fatalf("%d, empty state %v, form %v", r.Status, r.Has(t, "categories-empty"), r.Has(t, "category-new-form"))
		}
		if cur, _ := doc.Find(`[data-testid="nav-categories"]`).Attr("aria-current"); cur != "page" {
			t.Error("Categories is not the current page in the navigation")
		}
		for _, id := range []string{"name", "parent_id", "classification", "color", "color_hex"} {
			if doc.Find(`label[for="field-`+id+`"]`).Length() != 1 {
				t.Errorf("the %s input has no label", id)
			}
		}
	})
	t.Run("a top-level category is created with the colour picked", func(t *testing.T) {
		created(t, c.PostForm("/categories", form("Food", "", "expense", "#22aa44", "")), "Category “Food” created.")
		if got := e.strings(t, "SELECT color || ' ' || classification || ' ' || (parent_id IS NULL)::text FROM categories WHERE id = ?", idOf(t, "Food")); got[0] != "#22aa44 expense true" {
			t.Errorf("stored %q", got[0])
		}
	})
	t.Run("a hex code typed wins over the picker", func(t *testing.T) {
		created(t, c.PostForm("/categories", form("Salary", "", "income", "#000000", " #3366ff ")), "Category “Salary” created.")
		if got := e.strings(t, "SELECT color || ' ' || classification FROM categories WHERE id = ?", idOf(t, "Salary")); got[0] != "#3366ff income" {
			t.Errorf("stored %q", got[0])
		}
	})
	t.Run("a subcategory takes its parent's classification", func(t *testing.T) {
		created(t, c.PostForm("/categories", form("Groceries", idOf(t, "Food"), "income", "#000000", "")), "Category “Groceries” created.")
		if got := e.strings(t, "SELECT parent_id::text || ' ' || classification FROM categories WHERE id = ?", idOf(t, "Groceries")); got[0] != idOf(t, "Food")+" expense" {
			t.Errorf("stored %q", got[0])
		}
	})

	for _, tc := range []struct {
		name   string
		values func(t *testing.T) url.Values
		field  string
		want   string
	}{
		{"a name the family has is an error on the name", func(*testing.T) url.Values { return form("Food", "", "expense", "#000000", "") },
			"name", "A category named “Food” already exists"},
		{"a blank name is an error on the name", func(*testing.T) url.Values { return form("  ", "", "expense", "#000000", "") },
			"name", "Name can't be blank"},
		{"a colour that is not a hex code is an error under the colour", func(*testing.T) url.Values { return form("Travel", "", "expense", "#000000", "#12345") },
			"color", `Color "#12345" must be a hex colour such as #407706`},
		{"nesting under a subcategory is refused on the parent", func(t *testing.T) url.Values { return form("Snacks", idOf(t, "Groceries"), "expense", "#000000", "") },
			"parent_id", "“Groceries” is a subcategory itself: categories nest one level only"},
		{"a parent that is not an id is refused on the parent", func(*testing.T) url.Values { return form("Snacks", "nope", "expense", "#000000", "") },
			"parent_id", "Choose a parent from the list."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			values := tc.values(t)
			r := c.PostForm("/categories", values)
			if r.Status != http.StatusUnprocessableEntity {
				t.Fatalf("%d, want 422", r.Status)
			}
			if got := r.TestID(t, "error-"+tc.field); got != tc.want {
				t.Errorf("error-%s %q, want %q", tc.field, got, tc.want)
			}
			if got, _ := r.Doc(t).Find(`[data-testid="field-name"]`).Attr("value"); got != values.Get("name") {
				t.Errorf("the name typed is not kept: %q", got)
			}
			if n := categories(t); n != 3 {
				t.Errorf("%d categories, want 3", n)
			}
		})
	}

	t.Run("the list is a tree, with counts linked to the transactions", func(t *testing.T) {
		food, groceries, salary := idOf(t, "Food"), idOf(t, "Groceries"), idOf(t, "Salary")
		e.mustEntry(t, acct.ID, food, nil)
		e.mustEntry(t, acct.ID, food, nil)
		e.mustEntry(t, acct.ID, groceries, nil)
		doc := c.Get("/categories").Doc(t)
		var order []string
		doc.Find(`[data-testid="category-row"]`).Each(func(_ int, s *goquery.Selection) {
			id, _ := s.Attr("data-id")
			parent, _ := s.Attr("data-parent-id")
			order = append(order, id+"<"+parent)
		})
		if want := []string{food + "<", groceries + "<" + food, salary + "<"}; strings.Join(order, ",") != strings.Join(want, ",") {
			t.Errorf("rows %v, want %v", order, want)
		}
		count := doc.Find(`[data-testid="category-count-` + food + `"]`)
		if href, _ := count.Attr("href"); strings.TrimSpace(count.Text()) != "2" || href != "/transactions?category_id="+food {
			t.Errorf("Food's count %q links to %q", count.Text(), href)
		}
		if got := strings.TrimSpace(doc.Find(`[data-testid="category-classification-` + salary + `"]`).Text()); got != "Income" {
			t.Errorf("Salary's classification %q", got)
		}
		if fill, _ := doc.Find(`[data-testid="category-row"][data-id="` + salary + `"] circle`).Attr("fill"); fill != "#3366ff" {
			t.Errorf("Salary's swatch %q", fill)
		}
	})
	t.Run("renaming a category", func(t *testing.T) {
		groceries, food := idOf(t, "Groceries"), idOf(t, "Food")
		edit := c.Get("/categories/" + groceries + "/edit")
		if got, _ := edit.Doc(t).Find(`[data-testid="field-parent_id"] option[selected]`).Attr("value"); edit.Status != http.StatusOK || got != food {
			t.Fatalf("edit page %d, parent selected %q", edit.Status, got)
		}
		r := c.PostForm("/categories/"+groceries, form("Supermarket", food, "expense", "#aa0000", ""))
		if r.Status != http.StatusSeeOther {
			t.Fatalf("%d: %.500s", r.Status, r.Body)
		}
		if got := e.strings(t, "SELECT name || ' ' || color FROM categories WHERE id = ?", groceries); got[0] != "Supermarket #aa0000" {
			t.Errorf("stored %q", got[0])
		}
		r = c.PostForm("/categories/"+groceries, form("Salary", food, "expense", "#aa0000", ""))
		if r.Status != http.StatusUnprocessableEntity || r.TestID(t, "error-name") != "A category named “Salary” already exists" {
			t.Errorf("renaming onto a taken name: %d %q", r.Status, r.TestID(t, "error-name"))
		}
	})
	t.Run("deleting a category in use without a replacement asks for one and deletes nothing", func(t *testing.T) {
		food, salary := idOf(t, "Food"), idOf(t, "Salary")
		link, _ := c.Get("/categories").Doc(t).Find(`[data-testid="category-delete-` + food + `"]`).Attr("href")
		if link != "/categories/"+food+"/delete" {
			t.Fatalf("Food's delete is not a link to its delete page: %q", link)
		}
		page := c.Get(link)
		if got := page.TestID(t, "category-delete-moves"); got != "2 transactions will move to the replacement." {
			t.Errorf("the delete page says %q", got)
		}
		options := page.Doc(t).Find(`[data-testid="field-replacement_id"] option`)
		if options.Length() != 3 || options.Filter(`[value="`+food+`"]`).Length() != 0 || options.Filter(`[value="`+salary+`"]`).Length() != 1 {
			t.Errorf("%d replacement options: %q", options.Length(), options.Text())
		}
		r := c.PostForm(link, url.Values{"replacement_id": {""}})
		if r.Status != http.StatusUnprocessableEntity || !r.Has(t, "field-replacement_id") {
			t.Fatalf("%d, replacement select %v", r.Status, r.Has(t, "field-replacement_id"))
		}
		if got := r.TestID(t, "error-replacement_id"); got != "“Food” is in use: choose the category that takes over its transactions and rules." {
			t.Errorf("error %q", got)
		}
		if n := e.count(t, "SELECT count(*) FROM entries WHERE category_id = ?", food); n != 2 || categories(t) != 3 {
			t.Errorf("%d transactions left on Food, %d categories", n, categories(t))
		}
	})
	t.Run("with a replacement its transactions move and its subcategories go to the top", func(t *testing.T) {
		food, salary, supermarket := idOf(t, "Food"), idOf(t, "Salary"), idOf(t, "Supermarket")
		created(t, c.PostForm("/categories/"+food+"/delete", url.Values{"replacement_id": {salary}}),
			"Category “Food” deleted; 2 transactions moved to “Salary”.")
		if n := e.count(t, "SELECT count(*) FROM categories WHERE id = ?", food); n != 0 {
			t.Error("Food is still there")
		}
		if n := e.count(t, "SELECT count(*) FROM entries WHERE category_id = ?", salary); n != 2 {
			t.Errorf("%d transactions on Salary, want 2", n)
		}
		if n := e.count(t, "SELECT count(*) FROM categories WHERE id = ? AND parent_id IS NULL", supermarket); n != 1 {
			t.Error("the subcategory did not become a top-level category")
		}
	})
	t.Run("a category no transaction uses is deleted on a plain confirmation", func(t *testing.T) {
		travel := c.PostForm("/categories", form("Travel", "", "expense", "#000000", ""))
		if travel.Status != http.StatusSeeOther {
			t.Fatalf("create Travel: %d", travel.Status)
		}
		id := idOf(t, "Travel")
		page := c.Get("/categories/" + id + "/delete")
		if !page.Has(t, "category-delete-unused") || page.Has(t, "field-replacement_id") {
			t.Errorf("the delete page of an unused category asks for a replacement")
		}
		created(t, c.PostForm("/categories/"+id+"/delete", nil), "Category “Travel” deleted.")
		if n := e.count(t, "SELECT count(*) FROM categories WHERE id = ?", id); n != 0 {
			t.Error("Travel is still there")
		}
	})
	t.Run("another family's category is not found", func(t *testing.T) {
		salary := idOf(t, "Salary")
		for _, r := range []*testkit.Response{
			other.Get("/categories/" + salary + "/edit"),
			other.Get("/categories/" + salary + "/delete"),
			other.PostForm("/categories/"+salary, form("Mine", "", "expense", "#000000", "")),
			other.PostForm("/categories/"+salary+"/delete", nil),
		} {
			if r.Status != http.StatusNotFound {
				t.Errorf("%d, want 404", r.Status)
			}
		}
		r := other.PostForm("/categories", form("Mine", salary, "expense", "#000000", ""))
		if r.Status != http.StatusUnprocessableEntity || r.TestID(t, "error-parent_id") != "parent_id "+salary+" is not one of this family's categories" {
			t.Errorf("nesting under another family's category: %d %q", r.Status, r.TestID(t, "error-parent_id"))
		}
		if got := e.strings(t, "SELECT name FROM categories WHERE id = ?", salary); len(got) != 1 || got[0] != "Salary" {
			t.Errorf("Salary is now %v", got)
		}
		if other.Get("/categories").Has(t, "category-row") {
			t.Error("another family sees our categories")
		}
	})
}

// TestAFamilyWithoutCategoriesIsOfferedTheStarterSet checks the offer for a family that did not
// go through onboarding (made by an admin, the CLI or SSO): its empty categories page previews
// the starter set in the family's language and creates it with one click, and once the family
// has categories it is neither offered nor taken again.
func TestAFamilyWithoutCategoriesIsOfferedTheStarterSet(t *testing.T) {
	t.Parallel()
	srv := apptest.StartServer(t, apptest.ServerOptions{NoWorker: true})
	u := testkit.MustCreateUser(t, srv.DB, testkit.UserOpts{})
	ctx := context.Background()
	if _, err := srv.DB.NewRaw("UPDATE families SET locale = 'fr-FR' WHERE id = ?", u.FamilyID).Exec(ctx); err != nil {
		t.Fatal(err)
	}
	c := testkit.NewClient(t, srv.URL)
	c.SignIn(u.Email, testkit.Password)
	page := c.Get("/categories")
	names := page.Doc(t).Find(`[data-testid="starter-category-name"]`)
	if !page.Has(t, "starter-form") || names.Length() != len(models.StarterCategories("fr-FR")) || names.First().Text() != "Revenus" {
		t.Fatalf("an empty categories page offers %d starter categories, the first %q", names.Length(), names.First().Text())
	}
	wantRedirect(t, c.PostForm("/categories/starter", nil), "/categories")
	var n int
	if err := srv.DB.NewRaw("SELECT count(*) FROM categories WHERE family_id = ? AND name IN ('Revenus', 'Salaire', 'Courses')", u.FamilyID).Scan(ctx, &n); err != nil || n != 3 {
		t.Fatalf("after taking the set, %d of its French categories (err %v)", n, err)
	}
	if c.Get("/categories").Has(t, "starter-form") {
		t.Error("the starter set is still offered to a family that has categories")
	}
	var before, after int
	_ = srv.DB.NewRaw("SELECT count(*) FROM categories WHERE family_id = ?", u.FamilyID).Scan(ctx, &before)
	if r := c.PostForm("/categories/starter", nil); r.Status != http.StatusConflict {
		t.Errorf("taking the set again: %d, want 409", r.Status)
	}
	if _ = srv.DB.NewRaw("SELECT count(*) FROM categories WHERE family_id = ?", u.FamilyID).Scan(ctx, &after); after != before {
		t.Errorf("taking the set again changed the categories: %d, then %d", before, after)
	}
}
