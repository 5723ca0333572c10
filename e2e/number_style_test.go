package e2e

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// usStyleJS finds, in the text a person reads on the page (code examples aside, as the API
// keeps plain numbers and ISO dates, and the choices of a select, which show every style), each amount written the US way ("$1,234.56", "3.17")
// and each ISO date or month ("2026-12-07", "2026-12"), with a little of its sentence.
const usStyleJS = `(() => {
	const body = document.body.cloneNode(true);
	body.querySelectorAll('code, pre, select, script, noscript, style, template, [hidden], .sr-only').forEach(el => el.remove());
	const text = body.innerText;
	const found = [];
	for (const re of [/(?<!\d\s?)[$€£]\d/g, /(?<![\d.,'/])\d{1,3}(?:,\d{3})*\.\d{2}(?![\d.])/g, /\b\d{4}-\d{2}(?:-\d{2})?\b/g]) {
		for (const m of text.matchAll(re)) {
			found.push(JSON.stringify(text.slice(Math.max(0, m.index - 30), m.index + m[0].length + 10)));
		}
	}
	return found;
})()`

// TestAGermanFamilySeesItsOwnStyle walks every page of a family whose number style is
// de-DE and date format 04.12.2026, and finds no amount in the US style and no ISO date in
// what the pages say: the issue's "walked from €5,961.18 on 2026-12-07" and "Copied 2026-12
// to 2027-01".
func TestAGermanFamilySeesItsOwnStyle(t *testing.T) {
	t.Parallel()
	ctx, srv, pages := household(t)
	if _, err := srv.DB.NewRaw("UPDATE families SET locale = 'de-DE', date_format = '%d.%m.%Y'").Exec(context.Background()); err != nil {
		t.Fatal(err)
	}
	speaksGerman := func(what string) {
		t.Helper()
		if found := run(t, ctx, "read "+what, chromedp.Evaluate[[]string](usStyleJS)); len(found) > 0 {
			t.Errorf("%s speaks US: %s", what, strings.Join(found, ", "))
		}
	}
	for _, path := range pages {
		visit(t, ctx, srv.URL+path)
		wantPath(t, ctx, strings.SplitN(path, "?", 2)[0])
		speaksGerman(path)
	}
	// What only a walk shows: a month copied, and a statement's card.
	visit(t, ctx, srv.URL+"/budgets/2026-06")
	click(t, ctx, "copy-next")
	visible(t, ctx, "flash-success")
	speaksGerman("the flash of a copied month")
	file, err := filepath.Abs("testdata/camt053_march.xml")
	if err != nil {
		t.Fatal(err)
	}
	visit(t, ctx, srv.URL+"/imports/new")
	uploadFile(t, ctx, "field-file", file)
	click(t, ctx, "new-import-submit")
	visible(t, ctx, "statement")
	speaksGerman("a statement's preview")
}
