package e2e

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
)

// axeSource is axe-core, the accessibility engine, from the project's npm packages.
func axeSource(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "node_modules", "axe-core", "axe.min.js"))
	if err != nil {
		t.Fatalf("axe-core is not installed (npm ci): %v", err)
	}
	return string(b)
}

// violation is one rule axe found broken on a page, with the elements that break it.
type violation struct {
	ID     string `json:"id"`
	Impact string `json:"impact"`
	Help   string `json:"help"`
	Nodes  []struct {
		Target []string `json:"target"`
	} `json:"nodes"`
}

// TestPagesAreAccessible runs axe (WCAG 2.1 A and AA) over every page a person uses, in the
// light and the dark colour scheme: no rule is broken, colour contrast included. The scheme
// changes only the colours, never the page's markup, so the dark pass runs the rules that read
// colours (schemeRules); the light pass runs them all.
func TestPagesAreAccessible(t *testing.T) {
	t.Parallel()
	ctx, srv, pages := household(t)
	axe := axeSource(t)
	for _, scheme := range []string{"light", "dark"} {
		if _, err := chromedp.Call(ctx, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
			Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: scheme}}}); err != nil {
			t.Fatalf("prefer the %s scheme: %v", scheme, err)
		}
		for _, path := range pages {
			visit(t, ctx, srv.URL+path)
			wantPath(t, ctx, strings.SplitN(path, "?", 2)[0]) // the page itself, not an error or a redirect
			if scheme == "light" {
				checkAccessible(t, ctx, axe, path+" ("+scheme+")")
			} else {
				checkAxe(t, ctx, axe, path+" ("+scheme+")", schemeRules)
			}
		}
	}
}

// schemeRules are axe's WCAG rules whose outcome depends on the page's colours: the contrast of
// text, and links told from the text around them by colour alone.
var schemeRules = `{type: "rule", values: ["color-contrast", "link-in-text-block"]}`

// checkAccessible runs axe (WCAG 2.1 A and AA) on the page the tab shows and fails on each
// rule broken, naming the page as name, with a screenshot. Tests of pages outside the sweep
// (reached only by a walk: onboarding, an import's preview) call it where they stand.
func checkAccessible(t *testing.T, ctx context.Context, axe, name string) {
	t.Helper()
	checkAxe(t, ctx, axe, name, `{type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]}`)
}

// checkAxe runs the rules of axe that only (axe's runOnly, as JavaScript) names on the page the
// tab shows, as checkAccessible does.
func checkAxe(t *testing.T, ctx context.Context, axe, name, only string) {
	t.Helper()
	run(t, ctx, "load axe", chromedp.Evaluate[bool](axe+";true"))
	raw := run(t, ctx, "run axe on "+name, chromedp.Evaluate[string](
		`axe.run(document, {runOnly: `+only+`}).then(r => JSON.stringify(r.violations))`,
		chromedp.EvalAwaitPromise))
	var found []violation
	if err := json.Unmarshal([]byte(raw), &found); err != nil {
		t.Fatalf("axe on %s: %v", name, err)
	}
	for _, v := range found {
		var where []string
		for _, n := range v.Nodes {
			where = append(where, strings.Join(n.Target, " "))
		}
		t.Errorf("%s: %s [%s, %s] at %s", name, v.Help, v.ID, v.Impact, strings.Join(where, "; "))
	}
	if len(found) > 0 {
		shot(t, ctx, "axe"+sanitize(name))
	}
}
