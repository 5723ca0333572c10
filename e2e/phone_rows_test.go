package e2e

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestTransactionsAreCompactOnAPhone opens the lists of transactions on a 390 px wide screen: each
// transaction is one compact row (its name and amount on a line, its date and category under
// it), so a month of 30 fits in a few screens, and the dashboard is short. On a desktop the
// rows stay table rows.
func TestTransactionsAreCompactOnAPhone(t *testing.T) {
	t.Parallel()
	ctx, srv, pages := household(t)
	var account string
	for _, p := range pages {
		if strings.HasPrefix(p, "/accounts/") && strings.Count(p, "/") == 2 && p != "/accounts/new" {
			account = p
		}
	}
	run(t, ctx, "use a phone's screen", chromedp.EmulateViewport(390, 844))

	// rows measures the rows of testid: how many, the tallest, whether each shows its name and
	// amount on one line, and the height of the whole page.
	type measure struct {
		Rows, Tallest, Page int
		OneLine             bool
	}
	rows := func(path, testid string) measure {
		t.Helper()
		visit(t, ctx, srv.URL+path)
		wantPath(t, ctx, path)
		return run(t, ctx, "measure the rows of "+path, chromedp.Evaluate[measure](`(() => {
			const rows = [...document.querySelectorAll('[data-testid="`+testid+`"]')];
			const top = el => el.getBoundingClientRect().top;
			return {
				Rows: rows.length,
				Tallest: Math.max(...rows.map(r => Math.round(r.getBoundingClientRect().height))),
				Page: document.documentElement.scrollHeight,
				OneLine: rows.every(r => {
					const name = r.querySelector('[data-cell="name"]'), amount = r.querySelector('[data-cell="amount"]');
					return name && amount && Math.abs(top(name) - top(amount)) < 8;
				}),
			};
		})()`))
	}

	list := rows("/transactions", "tx-row")
	if list.Rows != 30 || list.Tallest > 72 || !list.OneLine {
		shot(t, ctx, "phone-rows-transactions")
		t.Errorf("/transactions on a phone: %d rows, the tallest %d px (want at most 72), name and amount on one line %v", list.Rows, list.Tallest, list.OneLine)
	}
	if list.Page > 4*844 {
		t.Errorf("a month of transactions is %d px tall on a phone, more than four screens", list.Page)
	}
	// The date and the category are under the name.
	if got := text(t, ctx, "tx-row"); !strings.Contains(got, "2026-06-29") {
		t.Errorf("a phone's row says %q, without its date", got)
	}

	acct := rows(account, "entry-row")
	if acct.Rows == 0 || acct.Tallest > 72 || !acct.OneLine {
		shot(t, ctx, "phone-rows-account")
		t.Errorf("an account's entries on a phone: %d rows, the tallest %d px, name and amount on one line %v", acct.Rows, acct.Tallest, acct.OneLine)
	}

	dash := rows("/", "entry-row")
	if dash.Rows == 0 || dash.Tallest > 72 || !dash.OneLine {
		t.Errorf("the dashboard's transactions on a phone: %d rows, the tallest %d px, name and amount on one line %v", dash.Rows, dash.Tallest, dash.OneLine)
	}
	t.Logf("on a phone: /transactions %d px (rows up to %d px), %s %d px, dashboard %d px", list.Page, list.Tallest, account, acct.Page, dash.Page)
	if dash.Page > 3000 {
		shot(t, ctx, "phone-dashboard")
		t.Errorf("the dashboard is %d px tall on a phone", dash.Page)
	}

	// A desktop keeps its table.
	run(t, ctx, "use a desktop's screen", chromedp.EmulateViewport(1280, 900))
	visit(t, ctx, srv.URL+"/transactions")
	if d := run(t, ctx, "read a row's display", chromedp.Evaluate[string](`getComputedStyle(document.querySelector('[data-testid="tx-row"]')).display`)); d != "table-row" {
		t.Errorf("on a desktop a transaction's row is laid out as %q", d)
	}
}
