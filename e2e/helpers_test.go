package e2e

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"tally/app/apptest"
	"tally/testkit"
)

// actionTimeout bounds one browser action, such as waiting for the next page.
const actionTimeout = 15 * time.Second

// step runs one part of a journey as a subtest, and stops the journey when it fails: the
// later steps depend on it.
func step(t *testing.T, name string, f func(t *testing.T)) {
	t.Helper()
	if !t.Run(name, f) {
		t.FailNow()
	}
}

// startServer starts Tally for t and prints its log when t fails.
func startServer(t *testing.T, opts apptest.ServerOptions) *apptest.Server {
	t.Helper()
	var srv *apptest.Server
	// Registered first, so it runs after the server has closed and its log is complete.
	t.Cleanup(func() {
		if t.Failed() && srv != nil {
			t.Logf("server log of %s:\n%s", srv.URL, srv.Logs.String())
		}
	})
	srv = apptest.StartServer(t, opts)
	return srv
}

// testID is the CSS selector of the element with data-testid id.
func testID(id string) chromedp.CSS {
	return chromedp.CSS(`[data-testid="` + id + `"]`)
}

// run runs an action in the tab with actionTimeout, and fails t with what, the error and the
// page the browser is on.
func run[T any](t *testing.T, ctx context.Context, what string, a chromedp.Action[T]) T {
	t.Helper()
	actx, cancel := context.WithTimeout(ctx, actionTimeout)
	defer cancel()
	v, err := chromedp.Run(actx, a)
	if err != nil {
		loc, _ := chromedp.Run(ctx, chromedp.Location())
		title, _ := chromedp.Run(ctx, chromedp.Title())
		t.Fatalf("%s: %v (browser on %s, title %q)", what, err, loc, title)
	}
	return v
}

// visit loads url and waits for the page to load.
func visit(t *testing.T, ctx context.Context, url string) {
	t.Helper()
	run(t, ctx, "visit "+url, chromedp.Navigate(url))
}

// visible waits until the element with data-testid id is visible.
func visible(t *testing.T, ctx context.Context, id string) {
	t.Helper()
	run(t, ctx, "wait for "+id, chromedp.WaitVisible(testID(id)))
}

// fill types value into the input with data-testid id, as a person would.
func fill(t *testing.T, ctx context.Context, id, value string) {
	t.Helper()
	run(t, ctx, "type into "+id, chromedp.SendKeys(testID(id), value))
}

// refill replaces the value of the input with data-testid id with value, typed.
func refill(t *testing.T, ctx context.Context, id, value string) {
	t.Helper()
	run(t, ctx, "clear "+id, chromedp.Clear(testID(id)))
	fill(t, ctx, id, value)
}

// choose picks the option with value in the select with data-testid id.
func choose(t *testing.T, ctx context.Context, id, value string) {
	t.Helper()
	run(t, ctx, "choose "+value+" in "+id, chromedp.SetValue(testID(id), value))
	if got := inputValue(t, ctx, id); got != value {
		t.Fatalf("%s has value %q after choosing %q: no such option?", id, got, value)
	}
}

// click clicks the element with data-testid id.
func click(t *testing.T, ctx context.Context, id string) {
	t.Helper()
	run(t, ctx, "click "+id, chromedp.Click(testID(id)))
}

// text returns the trimmed visible text of the element with data-testid id.
func text(t *testing.T, ctx context.Context, id string) string {
	t.Helper()
	return strings.TrimSpace(run(t, ctx, "read text of "+id, chromedp.Text(testID(id), chromedp.NodeVisible)))
}

// clickAndLoad clicks the element with data-testid id, which submits a form or follows a link,
// and waits until the browser has loaded the page that answers it: a visit right after a
// click would otherwise abort the click's request.
func clickAndLoad(t *testing.T, ctx context.Context, id string) {
	t.Helper()
	run(t, ctx, "mark the page before "+id, chromedp.Evaluate[bool]("window.tallyBeforeClick = true"))
	click(t, ctx, id)
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		actx, cancel := context.WithTimeout(ctx, 5*time.Second)
		loaded, err := chromedp.Run(actx, chromedp.Evaluate[bool]("window.tallyBeforeClick === undefined && document.readyState === 'complete'"))
		cancel()
		if err == nil && loaded {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the page that %s leads to did not load", id)
		}
	}
}

// textNow returns the text of the element with data-testid id as the page has it now, or ""
// when it has none: for loops that poll a part of the page that htmx may be swapping, where
// text's wait for the node can find it and then lose it to the swap.
func textNow(t *testing.T, ctx context.Context, id string) string {
	t.Helper()
	js := fmt.Sprintf("document.querySelector(%q)?.textContent ?? ''", string(testID(id)))
	return strings.TrimSpace(run(t, ctx, "read text of "+id, chromedp.Evaluate[string](js)))
}

// inputValue returns the value of the input or select with data-testid id.
func inputValue(t *testing.T, ctx context.Context, id string) string {
	t.Helper()
	return run(t, ctx, "read value of "+id, chromedp.Value(testID(id)))
}

// count returns how many elements with data-testid id the page has now, without waiting.
func count(t *testing.T, ctx context.Context, id string) int {
	t.Helper()
	js := fmt.Sprintf("document.querySelectorAll(%q).length", string(testID(id)))
	return run(t, ctx, "count "+id, chromedp.Evaluate[int](js))
}

// pageContains reports whether the HTML of the page contains s.
func pageContains(t *testing.T, ctx context.Context, s string) bool {
	t.Helper()
	js := fmt.Sprintf("document.documentElement.outerHTML.includes(%q)", s)
	return run(t, ctx, "search the page", chromedp.Evaluate[bool](js))
}

// path returns the path of the page the browser is on.
func path(t *testing.T, ctx context.Context) string {
	t.Helper()
	loc := run(t, ctx, "read location", chromedp.Location())
	u, err := url.Parse(loc)
	if err != nil {
		t.Fatalf("parse location %q: %v", loc, err)
	}
	return u.Path
}

// wantText fails t unless the element with data-testid id shows want.
func wantText(t *testing.T, ctx context.Context, id, want string) {
	t.Helper()
	if got := text(t, ctx, id); got != want {
		t.Errorf("%s shows %q, want %q", id, got, want)
	}
}

// wantPath fails t unless the browser is on want.
func wantPath(t *testing.T, ctx context.Context, want string) {
	t.Helper()
	if got := path(t, ctx); got != want {
		t.Fatalf("browser is on %s, want %s", got, want)
	}
}

// signInAs signs in with the test password and waits for the signed-in page.
func signInAs(t *testing.T, ctx context.Context, srv *apptest.Server, email string) {
	t.Helper()
	visit(t, ctx, srv.URL+"/sessions/new")
	fill(t, ctx, "field-email", email)
	fill(t, ctx, "field-password", testkit.Password)
	click(t, ctx, "sign-in-submit")
	visible(t, ctx, "current-user")
}

// clickNav follows the main navigation's link to key ("family", "webhooks", ...), opening its
// group first when the group is collapsed, as a person would.
func clickNav(t *testing.T, ctx context.Context, key string) {
	t.Helper()
	group := run(t, ctx, "find the group of nav-"+key, chromedp.Evaluate[string](fmt.Sprintf(
		`(() => { const d = document.querySelector('[data-testid="nav-%s"]').closest("details");
			return d.open ? "" : d.getAttribute("data-testid").replace("nav-group-", ""); })()`, key)))
	if group != "" {
		click(t, ctx, "nav-toggle-"+group)
	}
	click(t, ctx, "nav-"+key)
}
