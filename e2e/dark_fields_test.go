package e2e

import (
	"strconv"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
)

// fieldContrastJS is, for each visible text, number, date field, select and text area of the
// page, its test id or name and the contrast of its border with what surrounds it (the nearest
// ancestor with a background), as WCAG computes contrast.
const fieldContrastJS = `(() => {
	const rgb = s => (s.match(/[\d.]+/g) || []).map(Number);
	const lum = ([r, g, b]) => [r, g, b].map(v => { v /= 255; return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); })
		.reduce((a, v, i) => a + v * [0.2126, 0.7152, 0.0722][i], 0);
	const ground = el => { for (let e = el.parentElement; e; e = e.parentElement) { const c = rgb(getComputedStyle(e).backgroundColor); if (c.length === 3 || c[3] > 0) return c; } return [255, 255, 255]; };
	return [...document.querySelectorAll('input:not([type=checkbox]):not([type=radio]):not([type=hidden]):not([type=file]), select, textarea')]
		.filter(el => el.offsetParent !== null)
		.map(el => {
			const s = getComputedStyle(el), a = lum(rgb(s.borderTopColor)), b = lum(ground(el));
			const contrast = parseFloat(s.borderTopWidth) > 0 ? (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05) : 1;
			return (el.dataset.testid || el.name) + "=" + contrast.toFixed(2);
		});
})()`

// TestFieldsHaveBordersInTheDark looks at the forms in the dark colour scheme: every field's
// border stands out from its card by 3:1 at least (WCAG 1.4.11), where they were flat grey
// boxes with no border to see.
func TestFieldsHaveBordersInTheDark(t *testing.T) {
	t.Parallel()
	ctx, srv, _ := household(t)
	if _, err := chromedp.Call(ctx, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
		Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: "dark"}}}); err != nil {
		t.Fatalf("prefer the dark scheme: %v", err)
	}
	for _, path := range []string{"/accounts/new", "/transactions", "/settings/profile", "/settings/exchange_rates"} {
		visit(t, ctx, srv.URL+path)
		fields := run(t, ctx, "measure the fields of "+path, chromedp.Evaluate[[]string](fieldContrastJS))
		if len(fields) == 0 {
			t.Errorf("%s shows no field", path)
		}
		for _, f := range fields {
			name, ratio, _ := strings.Cut(f, "=")
			if contrast, err := strconv.ParseFloat(ratio, 64); err != nil || contrast < 3 {
				t.Errorf("%s: field %s's border contrasts %s:1 with its card, want 3:1", path, name, ratio)
			}
		}
		if t.Failed() {
			shot(t, ctx, "dark-fields"+sanitize(path))
		}
	}
}
