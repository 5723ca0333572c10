package e2e

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/google/uuid"
	"github.com/uptrace/bun/dialect/pgdialect"

	"tally/app/apptest"
	"tally/testkit"
)

// TestFindTransactions is a person looking through a family's 130 transactions on
// /transactions: the newest 50 first with the totals of all, older ones loaded in place, a
// search and a category that narrow the list and its totals and stay in the URL for a
// bookmark, and a wrong amount named on its field.
func TestFindTransactions(t *testing.T) {
	t.Parallel()
	ctx := newTab(t)
	srv := startServer(t, apptest.ServerOptions{NoWorker: true})
	bg := context.Background()
	u := testkit.MustCreateUser(t, srv.DB, testkit.UserOpts{})
	checking := testkit.MustCreateAccount(t, srv.DB, u.FamilyID, "Checking", "Depository", "").ID
	card := testkit.MustCreateAccount(t, srv.DB, u.FamilyID, "Visa", "CreditCard", "").ID
	coffee, holiday := uuid.New(), uuid.New()
	if _, err := srv.DB.NewRaw("INSERT INTO categories (id, family_id, name) VALUES (?, ?, 'Coffee')", coffee, u.FamilyID).Exec(bg); err != nil {
		t.Fatal(err)
	}
	if _, err := srv.DB.NewRaw("INSERT INTO tags (id, family_id, name) VALUES (?, ?, 'Holiday')", holiday, u.FamilyID).Exec(bg); err != nil {
		t.Fatal(err)
	}
	// 120 purchases of 1.00 to 120.00, one a day; every tenth is a coffee, half of those
	// categorised. Then 10 salaries of 1,000 in.
	if _, err := srv.DB.NewRaw(`INSERT INTO entries (id, family_id, account_id, kind, date, amount, currency, name, category_id, source)
		SELECT gen_random_uuid(), ?, CASE WHEN i % 2 = 0 THEN ?::uuid ELSE ?::uuid END, 'transaction', date '2026-06-30' - i, i, 'USD',
			CASE WHEN i % 10 = 0 THEN 'Blue Bottle Coffee ' || i ELSE 'Shop ' || i END,
			CASE WHEN i % 20 = 0 THEN ?::uuid END, 'manual'
		FROM generate_series(1, 120) AS i`, u.FamilyID, checking, card, coffee).Exec(bg); err != nil {
		t.Fatal(err)
	}
	if _, err := srv.DB.NewRaw(`INSERT INTO entries (id, family_id, account_id, kind, date, amount, currency, name, source)
		SELECT gen_random_uuid(), ?, ?, 'transaction', date '2026-06-30' - 12 * i, -1000, 'USD', 'Salary', 'manual'
		FROM generate_series(1, 10) AS i`, u.FamilyID, checking).Exec(bg); err != nil {
		t.Fatal(err)
	}

	step(t, "the newest first, with the totals of all of them", func(t *testing.T) {
		signInAs(t, ctx, srv, u.Email)
		clickNav(t, ctx, "transactions")
		visible(t, ctx, "tx-table")
		wantPath(t, ctx, "/transactions")
		if got := attr(t, ctx, "nav-transactions", "aria-current"); got != "page" {
			t.Errorf("the navigation does not mark Transactions: %q", got)
		}
		if n := count(t, ctx, "tx-row"); n != 50 {
			t.Errorf("%d rows on the first page, want 50", n)
		}
		wantText(t, ctx, "tx-count", "130")
		wantText(t, ctx, "tx-inflow", "$10,000.00")
		wantText(t, ctx, "tx-outflow", "$7,260.00") // 1 + 2 + … + 120
		if first := text(t, ctx, "tx-name"); first != "Shop 1" {
			t.Errorf("the first row is %q, want the newest purchase", first)
		}
	})
	step(t, "older ones load in place", func(t *testing.T) {
		click(t, ctx, "tx-more")
		waitCount(t, ctx, "tx-row", 100)
		click(t, ctx, "tx-more")
		waitCount(t, ctx, "tx-row", 130)
		if count(t, ctx, "tx-more") != 0 {
			t.Error("a last page still offers more")
		}
		wantPath(t, ctx, "/transactions")
	})
	step(t, "a search and a category narrow the list and its totals, and stay in the URL", func(t *testing.T) {
		fill(t, ctx, "field-q", "bottle")
		click(t, ctx, "tx-apply")
		waitText(t, ctx, "tx-count", "12", actionTimeout)
		choose(t, ctx, "field-category_id", coffee.String())
		click(t, ctx, "tx-apply")
		waitText(t, ctx, "tx-count", "6", actionTimeout)
		wantText(t, ctx, "tx-outflow", "$420.00") // 20 + 40 + … + 120
		if n := count(t, ctx, "tx-row"); n != 6 {
			t.Errorf("%d rows, want 6", n)
		}
		loc := run(t, ctx, "read location", chromedp.Location())
		u, _ := url.Parse(loc)
		if q := u.Query(); len(q) != 2 || q.Get("q") != "bottle" || q.Get("category_id") != coffee.String() {
			t.Errorf("the URL does not hold just the filters given: %s", loc)
		}
		visit(t, ctx, loc) // as a bookmark
		wantText(t, ctx, "tx-count", "6")
		if got := inputValue(t, ctx, "field-q"); got != "bottle" {
			t.Errorf("the search box shows %q after a reload", got)
		}
	})
	step(t, "a row opens its form in place, and a save changes the row", func(t *testing.T) {
		visit(t, ctx, srv.URL+"/transactions?q=Shop+11")
		waitText(t, ctx, "tx-count", "10", actionTimeout) // Shop 11 and 111 to 119
		shop11 := rowID(t, srv, u.FamilyID, "Shop 11")
		run(t, ctx, "open Shop 11", chromedp.Click(`[data-id="`+shop11+`"] [data-testid="tx-name"]`))
		visible(t, ctx, "tx-edit-form")
		wantPath(t, ctx, "/transactions")
		if got := attr(t, ctx, "tx-make-rule", "href"); got != "/settings/rules/new?from="+shop11 {
			t.Errorf("the form's rule link goes to %q", got)
		}
		choose(t, ctx, "tx-field-category_id", coffee.String())
		click(t, ctx, "tx-tag-Holiday")
		click(t, ctx, "tx-save")
		visible(t, ctx, "tx-saved")
		row := `[data-id="` + shop11 + `"] [data-testid="tx-category"]`
		if got := run(t, ctx, "read the row's category", chromedp.Text(row)); strings.TrimSpace(got) != "Coffee" {
			t.Errorf("the row shows category %q after the save", got)
		}
		var locked []string
		var tags int
		if err := srv.DB.NewRaw("SELECT locked_fields, cardinality(tag_ids) FROM entries WHERE id = ?", shop11).Scan(bg, pgdialect.Array(&locked), &tags); err != nil {
			t.Fatal(err)
		}
		if strings.Join(locked, ",") != "category,tags" || tags != 1 {
			t.Errorf("locked %v and %d tags: only what was changed is locked", locked, tags)
		}
	})
	step(t, "a wrong amount in the form is named and nothing is saved", func(t *testing.T) {
		shop12 := rowID(t, srv, u.FamilyID, "Shop 12")
		visit(t, ctx, srv.URL+"/transactions?q=Shop+12")
		run(t, ctx, "open Shop 12", chromedp.Click(`[data-id="`+shop12+`"] [data-testid="tx-name"]`))
		visible(t, ctx, "tx-edit-form")
		run(t, ctx, "clear the amount", chromedp.Clear(testID("tx-field-amount")))
		fill(t, ctx, "tx-field-amount", "0")
		fill(t, ctx, "tx-field-notes", "split with Sam")
		click(t, ctx, "tx-save")
		visible(t, ctx, "tx-error-amount")
		var notes string
		if err := srv.DB.NewRaw("SELECT notes FROM entries WHERE id = ?", shop12).Scan(bg, &notes); err != nil || notes != "" {
			t.Errorf("notes %q were saved with a wrong amount (%v)", notes, err)
		}
		click(t, ctx, "tx-edit-close")
		waitCount(t, ctx, "tx-edit-form", 0)
	})
	step(t, "ticked rows get a category at once, and undo puts them back", func(t *testing.T) {
		visit(t, ctx, srv.URL+"/transactions?q=%22Shop+2%22") // the phrase, not any Shop with a 2
		waitText(t, ctx, "tx-count", "10", actionTimeout)     // Shop 2 and 21 to 29
		run(t, ctx, "tick three", chromedp.Evaluate[bool](`(() => { const b = document.querySelectorAll('[data-testid="tx-select"]');
			[0, 1, 2].forEach(i => b[i].click()); return true })()`))
		choose(t, ctx, "bulk-field-category_id", coffee.String())
		click(t, ctx, "tx-bulk-apply")
		visible(t, ctx, "tx-undo")
		wantText(t, ctx, "tx-undo-text", "Changed 3 transactions.")
		coffeeRows := func() int {
			var n int
			if err := srv.DB.NewRaw("SELECT count(*) FROM entries WHERE family_id = ? AND category_id = ? AND name LIKE 'Shop 2%'", u.FamilyID, coffee).Scan(bg, &n); err != nil {
				t.Fatal(err)
			}
			return n
		}
		if n := coffeeRows(); n != 3 {
			t.Fatalf("%d transactions got the category, want 3", n)
		}
		click(t, ctx, "tx-undo-button")
		visible(t, ctx, "flash-success")
		if n := coffeeRows(); n != 0 {
			t.Errorf("%d transactions keep the category after the undo", n)
		}
	})
	step(t, "all that match a filter change in one action", func(t *testing.T) {
		visit(t, ctx, srv.URL+"/transactions?account_id="+card.String())
		waitText(t, ctx, "tx-count", "60", actionTimeout)
		choose(t, ctx, "bulk-field-add_tag_id", holiday.String())
		click(t, ctx, "tx-bulk-all")
		click(t, ctx, "tx-bulk-apply")
		wantText(t, ctx, "tx-undo-text", "Changed 60 transactions.")
		var n int
		if err := srv.DB.NewRaw("SELECT count(*) FROM entries WHERE account_id = ? AND tag_ids @> ARRAY[?::uuid]", card, holiday).Scan(bg, &n); err != nil || n != 60 {
			t.Errorf("%d of the card's 60 transactions have the tag (%v)", n, err)
		}
	})
	step(t, "a wrong amount is named on its field", func(t *testing.T) {
		visit(t, ctx, srv.URL+"/transactions?min_amount=lots")
		visible(t, ctx, "error-min_amount")
		visible(t, ctx, "tx-empty")
		click(t, ctx, "tx-clear")
		visible(t, ctx, "tx-table")
	})
}

// waitCount waits until the page has n elements with data-testid id.
func waitCount(t *testing.T, ctx context.Context, id string, n int) {
	t.Helper()
	// Counted once htmx has settled the swap that brought them, so that what the test clicks
	// next is wired up; before, a click could follow a link's plain href instead.
	js := fmt.Sprintf(`document.querySelector(".htmx-request, .htmx-swapping, .htmx-settling, .htmx-added") ? -1 : document.querySelectorAll(%q).length`, string(testID(id)))
	deadline := time.Now().Add(actionTimeout)
	got := -1
	for time.Now().Before(deadline) {
		if got = run(t, ctx, "count "+id, chromedp.Evaluate[int](js)); got == n {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("%d of %s after %s, want %d", got, id, actionTimeout, n)
}

// rowID is the id of the family's transaction named name.
func rowID(t *testing.T, srv *apptest.Server, familyID uuid.UUID, name string) string {
	t.Helper()
	var id string
	if err := srv.DB.NewRaw("SELECT id::text FROM entries WHERE family_id = ? AND name = ?", familyID, name).Scan(context.Background(), &id); err != nil {
		t.Fatal(err)
	}
	return id
}
