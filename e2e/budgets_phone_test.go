package e2e

import (
	"context"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestBudgetsFitAPhone is the month of 45 categories, 15 of them budgeted or spent
// in, on a 390 px wide screen: a few screens tall, each category a compact row, the empty
// ones behind "show all", and the money carried from the month before shown. On a 1280 px
// screen the table fits, its rollover column included.
func TestBudgetsFitAPhone(t *testing.T) {
	t.Parallel()
	ctx, srv, _ := household(t)
	bg := context.Background()
	var family, account string
	if err := srv.DB.NewRaw("SELECT family_id::text, id::text FROM accounts LIMIT 1").Scan(bg, &family, &account); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		`INSERT INTO categories (id, family_id, name, budget_rollover)
			SELECT gen_random_uuid(), ?0, 'Category ' || lpad(i::text, 2, '0'), CASE WHEN i = 1 THEN 'surplus' ELSE 'off' END FROM generate_series(1, 44) AS i`,
		`INSERT INTO budgets (id, family_id, start_date, end_date, currency) VALUES
			(gen_random_uuid(), ?0, '2026-05-01', '2026-05-31', 'USD'), (gen_random_uuid(), ?0, '2026-06-01', '2026-06-30', 'USD')`,
		// Category 01 had 100 left in May, which it carries into June.
		`INSERT INTO budget_categories (id, family_id, budget_id, category_id, budgeted_spending, currency)
			SELECT gen_random_uuid(), ?0, b.id, c.id, 100, 'USD' FROM budgets b, categories c
			WHERE b.family_id = ?0 AND b.start_date = '2026-05-01' AND c.family_id = ?0 AND c.name = 'Category 01'`,
		// Categories 01 to 15 are budgeted in June, and the odd ones spent in.
		`INSERT INTO budget_categories (id, family_id, budget_id, category_id, budgeted_spending, currency)
			SELECT gen_random_uuid(), ?0, b.id, c.id, 50, 'USD' FROM budgets b, categories c
			WHERE b.family_id = ?0 AND b.start_date = '2026-06-01' AND c.family_id = ?0 AND c.name BETWEEN 'Category 01' AND 'Category 15'`,
		`INSERT INTO entries (id, family_id, account_id, kind, date, amount, currency, name, source, category_id)
			SELECT gen_random_uuid(), ?0, ?1, 'transaction', '2026-06-10', 20, 'USD', 'Shop', 'manual', c.id FROM categories c
			WHERE c.family_id = ?0 AND c.name BETWEEN 'Category 01' AND 'Category 15' AND right(c.name, 1)::int % 2 = 1`,
	} {
		if _, err := srv.DB.NewRaw(q, family, account).Exec(bg); err != nil {
			t.Fatalf("%v\n%s", err, q)
		}
	}
	var carryID string
	if err := srv.DB.NewRaw("SELECT id::text FROM categories WHERE family_id = ? AND name = 'Category 01'", family).Scan(bg, &carryID); err != nil {
		t.Fatal(err)
	}
	visibleRows := func() int {
		return run(t, ctx, "count the rows shown", chromedp.Evaluate[int](`[...document.querySelectorAll('[data-testid="budget-row"]')].filter(r => r.checkVisibility()).length`))
	}

	run(t, ctx, "use a phone's screen", chromedp.EmulateViewport(390, 844))
	visit(t, ctx, srv.URL+"/budgets/2026-06")
	height := run(t, ctx, "measure the page", chromedp.Evaluate[int](`document.documentElement.scrollHeight`))
	shown := visibleRows()
	carried := run(t, ctx, "read the carry", chromedp.Evaluate[string](`(() => { const el = document.querySelector('[data-testid="carried-`+carryID+`"]'); return el && el.checkVisibility() ? el.innerText : ""; })()`))
	t.Logf("parts: %v", run(t, ctx, "measure the parts", chromedp.Evaluate[[]string](`[...document.querySelectorAll('#budget-section > *, main > *, [data-testid="budget-row"]')].filter(e => e.checkVisibility()).map(e => (e.dataset.testid || e.tagName) + ":" + Math.round(e.getBoundingClientRect().height))`)))
	t.Logf("on a phone the month is %d px tall, %d rows shown, carry %q", height, shown, carried)
	if height > 4*844 {
		shot(t, ctx, "phone-budgets")
		t.Errorf("a month of 15 active categories is %d px tall on a phone, more than four screens", height)
	}
	// The 15 active, the uncategorised spending and the family's own Groceries (spent in? no:
	// empty) make the rows shown; the 29 empty categories wait behind "show all".
	if shown > 17 {
		t.Errorf("%d categories are shown on a phone, the empty ones among them", shown)
	}
	if !strings.Contains(carried, "100") {
		t.Errorf("the carry into Category 01 is not shown on a phone: %q", carried)
	}
	click(t, ctx, "budget-show-all")
	if n := visibleRows(); n < 45 {
		t.Errorf("show all shows %d categories", n)
	}

	run(t, ctx, "use a desktop's screen", chromedp.EmulateViewport(1280, 900))
	visit(t, ctx, srv.URL+"/budgets/2026-06")
	if w := run(t, ctx, "measure the table", chromedp.Evaluate[[]int](`(() => { const t = document.querySelector('[data-testid="budget-table"]').parentElement; return [t.scrollWidth, t.clientWidth]; })()`)); w[0] > w[1] {
		shot(t, ctx, "desktop-budgets")
		t.Errorf("at 1280 px the budget table is %d px wide in %d: its last column is cut off", w[0], w[1])
	}
}
