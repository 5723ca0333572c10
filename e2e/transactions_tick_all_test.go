package e2e

import (
	"context"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// TestTickAllTransactions ticks every transaction shown from the list's header, unticks one,
// and gives the rest a category: the header box says some are ticked, and the one unticked
// keeps its own.
func TestTickAllTransactions(t *testing.T) {
	t.Parallel()
	ctx, srv, _ := household(t)
	visit(t, ctx, srv.URL+"/transactions")
	click(t, ctx, "tx-select-all")
	ticked := func() int {
		return run(t, ctx, "count the ticked rows", chromedp.Evaluate[int](`document.querySelectorAll('[data-testid="tx-select"]:checked').length`))
	}
	if n := ticked(); n != 30 {
		t.Fatalf("the header ticked %d of 30 rows", n)
	}
	click(t, ctx, "tx-select") // the first row, the newest
	if n, some := ticked(), run(t, ctx, "read the header box", chromedp.Evaluate[bool](`document.querySelector('[data-testid="tx-select-all"]').indeterminate`)); n != 29 || !some {
		t.Fatalf("after unticking one, %d ticked, the header box shows some %v", n, some)
	}
	chooseLabel(t, ctx, "bulk-field-category_id", "Groceries and household supplies")
	click(t, ctx, "tx-bulk-apply")
	waitText(t, ctx, "tx-undo-text", "Changed 29 transactions.", 10*time.Second)
	var uncategorised int
	if err := srv.DB.NewRaw("SELECT count(*) FROM entries WHERE category_id IS NULL AND date = date '2026-06-29'").Scan(context.Background(), &uncategorised); err != nil {
		t.Fatal(err)
	}
	if uncategorised != 1 {
		t.Errorf("the unticked newest transaction was changed too")
	}
}
