package e2e

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestTransactionFiltersFoldOnAPhone opens a filtered list of transactions on a 390 px wide
// screen: the nine filters are folded under a summary that counts the active ones, so the
// first transaction is on the first screen; the summary opens them. A desktop shows them open.
func TestTransactionFiltersFoldOnAPhone(t *testing.T) {
	t.Parallel()
	ctx, srv, _ := household(t)
	run(t, ctx, "use a phone's screen", chromedp.EmulateViewport(390, 844))
	visit(t, ctx, srv.URL+"/transactions?q=grocery&min_amount=1")
	// checkVisibility, as the content of a closed <details> keeps its layout box.
	shown := func(id string) bool {
		return run(t, ctx, "is "+id+" shown", chromedp.Evaluate[bool](`document.querySelector('[data-testid="`+id+`"]').checkVisibility()`))
	}
	if got := text(t, ctx, "tx-filter-summary"); !strings.Contains(got, "Filters") || !strings.Contains(got, "(2 active)") {
		t.Errorf("the filters' summary says %q, want Filters (2 active)", got)
	}
	top := run(t, ctx, "where the first row is", chromedp.Evaluate[int](`Math.round(document.querySelector('[data-testid="tx-row"]').getBoundingClientRect().top)`))
	if shown("tx-filters") || top > 844 {
		shot(t, ctx, "phone-filters")
		t.Errorf("on a phone the filters are shown %v, and the first transaction starts %d px down a 844 px screen", shown("tx-filters"), top)
	}
	click(t, ctx, "tx-filter-summary")
	if !shown("tx-filters") || inputValue(t, ctx, "field-q") != "grocery" {
		t.Errorf("the summary does not open the filters as the URL set them")
	}

	run(t, ctx, "use a desktop's screen", chromedp.EmulateViewport(1280, 900))
	visit(t, ctx, srv.URL+"/transactions")
	if !shown("tx-filters") {
		t.Error("on a desktop the filters are folded")
	}
}
