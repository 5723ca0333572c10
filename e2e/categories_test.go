package e2e

import (
	"context"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/google/uuid"

	"tally/app/apptest"
	"tally/testkit"
)

// TestCategoriesJourney is a person sorting their spending on the categories page: a parent
// and a child under it, a rename, a category in use deleted only once a replacement is chosen
// (the page saying how many transactions move), and an unused one deleted on a plain
// confirmation.
func TestCategoriesJourney(t *testing.T) {
	t.Parallel()
	ctx := newTab(t)
	srv := startServer(t, apptest.ServerOptions{NoWorker: true})
	u := testkit.MustCreateUser(t, srv.DB, testkit.UserOpts{})
	acct := testkit.MustCreateAccount(t, srv.DB, u.FamilyID, "Checking", "Depository", "100")
	bg := context.Background()
	idOf := func(t *testing.T, name string) string {
		t.Helper()
		var id string
		if err := srv.DB.NewRaw("SELECT id::text FROM categories WHERE family_id = ? AND name = ?", u.FamilyID, name).Scan(bg, &id); err != nil {
			t.Fatalf("category %q: %v", name, err)
		}
		return id
	}
	onCategory := func(t *testing.T, id string) int {
		t.Helper()
		var n int
		if err := srv.DB.NewRaw("SELECT count(*) FROM entries WHERE category_id = ?", id).Scan(bg, &n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	var food, groceries string

	step(t, "open the categories page from the sidebar", func(t *testing.T) {
		signInAs(t, ctx, srv, u.Email)
		clickNav(t, ctx, "categories")
		visible(t, ctx, "categories-empty")
		wantPath(t, ctx, "/categories")
	})
	step(t, "create a parent category with a colour typed as a hex code", func(t *testing.T) {
		fill(t, ctx, "field-name", "Food")
		fill(t, ctx, "field-color_hex", "#22aa44")
		click(t, ctx, "category-new-submit")
		waitText(t, ctx, "flash-success", "Category “Food” created.", 10*time.Second)
		food = idOf(t, "Food")
		wantText(t, ctx, "category-name-"+food, "Food")
		if got := attr(t, ctx, "swatch", "data-color"); got != "#22aa44" {
			t.Errorf("Food's swatch is %q", got)
		}
	})
	step(t, "create a child under it", func(t *testing.T) {
		fill(t, ctx, "field-name", "Groceries")
		choose(t, ctx, "field-parent_id", food)
		choose(t, ctx, "field-color", "#3366ff")
		click(t, ctx, "category-new-submit")
		waitText(t, ctx, "flash-success", "Category “Groceries” created.", 10*time.Second)
		groceries = idOf(t, "Groceries")
		js := `Array.from(document.querySelectorAll('[data-testid="category-row"]')).map(r => r.dataset.id + "<" + (r.dataset.parentId || "")).join(",")`
		if got, want := run(t, ctx, "read the rows", chromedp.Evaluate[string](js)), food+"<,"+groceries+"<"+food; got != want {
			t.Errorf("rows %s, want %s (Groceries under Food)", got, want)
		}
		shot(t, ctx, "categories-tree")
	})
	step(t, "rename the child", func(t *testing.T) {
		for i := 0; i < 3; i++ {
			if _, err := srv.DB.NewRaw(`INSERT INTO entries (id, family_id, account_id, kind, date, amount, currency, name, category_id)
				VALUES (?, ?, ?, 'transaction', current_date, 12.5, 'USD', 'Market', ?)`, uuid.Must(uuid.NewV7()), u.FamilyID, acct.ID, groceries).Exec(bg); err != nil {
				t.Fatal(err)
			}
		}
		click(t, ctx, "category-edit-"+groceries)
		visible(t, ctx, "category-edit-form")
		run(t, ctx, "clear the name", chromedp.Clear(testID("field-name")))
		fill(t, ctx, "field-name", "Supermarket")
		click(t, ctx, "category-edit-submit")
		waitText(t, ctx, "flash-success", "Category “Supermarket” saved.", 10*time.Second)
		wantText(t, ctx, "category-name-"+groceries, "Supermarket")
		wantText(t, ctx, "category-count-"+groceries, "3")
	})
	step(t, "deleting it asks for a replacement and says how many transactions move", func(t *testing.T) {
		click(t, ctx, "category-delete-"+groceries)
		visible(t, ctx, "category-delete-form")
		wantText(t, ctx, "category-delete-moves", "3 transactions will move to the replacement.")
		click(t, ctx, "category-delete-submit")
		visible(t, ctx, "error-replacement_id")
		if n := onCategory(t, groceries); n != 3 {
			t.Fatalf("%d transactions left on it after the refusal, want 3", n)
		}
		shot(t, ctx, "category-delete-replacement")
	})
	step(t, "with the parent as replacement, its transactions move there", func(t *testing.T) {
		choose(t, ctx, "field-replacement_id", food)
		click(t, ctx, "category-delete-submit")
		waitText(t, ctx, "flash-success", "Category “Supermarket” deleted; 3 transactions moved to “Food”.", 10*time.Second)
		wantPath(t, ctx, "/categories")
		wantText(t, ctx, "category-count-"+food, "3")
		if n := count(t, ctx, "category-row"); n != 1 {
			t.Errorf("%d categories listed, want 1", n)
		}
		if n := onCategory(t, food); n != 3 {
			t.Errorf("%d transactions on Food, want 3", n)
		}
	})
	step(t, "an unused category goes on a plain confirmation", func(t *testing.T) {
		fill(t, ctx, "field-name", "Travel")
		click(t, ctx, "category-new-submit")
		waitText(t, ctx, "flash-success", "Category “Travel” created.", 10*time.Second)
		travel := idOf(t, "Travel")
		click(t, ctx, "category-delete-"+travel)
		visible(t, ctx, "confirm-delete-category-"+travel)
		click(t, ctx, "confirm-delete-category-"+travel+"-submit")
		waitText(t, ctx, "flash-success", "Category “Travel” deleted.", 10*time.Second)
		if n := count(t, ctx, "category-row"); n != 1 {
			t.Errorf("%d categories listed, want 1", n)
		}
	})
}
