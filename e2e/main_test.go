// Package e2e drives Tally's real pages in headless Chromium: a real server on loopback (the
// router of production, on a fresh PostgreSQL database from testkit) and a real browser that
// types into the forms, clicks the buttons and reads what the pages show, as a person would.
//
// Tests find elements by their data-testid attribute only. Chromium is started once per test
// binary; each test gets its own tab, in a browser context of its own, and its own server, so
// the tests run in parallel (go test's -parallel, the number of CPUs by default): most of a
// test's time is the browser, the server and the database waiting on one another. Without
// Chromium the tests are skipped, except in CI (CI=true), where they fail.
package e2e

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"sync"
	"testing"
	"time"

	cdpbrowser "github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/chromedp"

	"tally/testkit"
)

func TestMain(m *testing.M) {
	code := testkit.Main(m)
	browser.stop()
	os.Exit(code)
}

// sharedBrowser is the one Chromium of the test binary, started by the first test that needs it.
type sharedBrowser struct {
	once   sync.Once
	ctx    context.Context // a chromedp context with a running browser; tabs derive from it
	err    error
	cancel []context.CancelFunc
}

var browser sharedBrowser

// chromiumPath returns the Chromium executable, or "" when none is installed.
func chromiumPath() string {
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// browserContext returns the context of the shared browser, starting it on first use. Without
// Chromium the test is skipped, or fails in CI.
func browserContext(t *testing.T) context.Context {
	t.Helper()
	path := chromiumPath()
	if path == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("chromium not installed, and CI=true requires the browser tests: apt-get install chromium")
		}
		t.Skip("chromium not installed: apt-get install chromium")
	}
	browser.once.Do(func() {
		opts := append(chromedp.DefaultExecAllocatorOptions[:], // headless, no first run, ...
			chromedp.ExecPath(path),
			chromedp.NoSandbox,
			chromedp.DisableGPU,
			chromedp.Flag("disable-dev-shm-usage", true),
			// The network here is closed: Chromium must not phone home.
			chromedp.Flag("disable-background-networking", true),
			chromedp.Flag("disable-component-update", true),
			chromedp.Flag("disable-sync", true),
			// Wide enough for the desktop sidebar (hidden below Tailwind's lg breakpoint).
			chromedp.WindowSize(1280, 900),
			// No UserDataDir: the allocator makes a temporary one and removes it at the end.
		)
		allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
		ctx, cancelBrowser := chromedp.NewContext(allocCtx)
		browser.cancel = []context.CancelFunc{cancelBrowser, cancelAlloc}
		// The first Do starts the browser and binds its life to ctx, which has no timeout.
		browser.ctx, browser.err = ctx, chromedp.Do(ctx)
		if browser.err == nil {
			// Named in the log, so that a failure says which build it ran on.
			v, err := chromedp.CallBrowser(ctx, cdpbrowser.GetVersion, cdp.Empty{})
			if err != nil {
				browser.err = fmt.Errorf("Browser.getVersion: %w", err)
			} else {
				fmt.Fprintf(os.Stderr, "e2e: %s (%s), DevTools protocol %s\n", v.Product, path, v.ProtocolVersion)
			}
		}
	})
	if browser.err != nil {
		t.Fatalf("start chromium (%s): %v", path, browser.err)
	}
	return browser.ctx
}

// stop closes the browser, if it was started, and removes its temporary profile.
func (b *sharedBrowser) stop() {
	if b.ctx != nil && b.err == nil {
		ctx, cancel := context.WithTimeout(b.ctx, 10*time.Second)
		_ = chromedp.Cancel(ctx) // closes the browser gracefully
		cancel()
	}
	for _, cancel := range b.cancel {
		cancel()
	}
}

// newTab opens a tab in the shared browser for t, closed when t ends. Its context ends after
// a minute, so a hung page fails the test rather than the whole run. Each tab has a browser
// context of its own, as a private window has: the tests run two at a time, each against its
// own server on 127.0.0.1, and cookies are told apart by host, not by port.
func newTab(t *testing.T) context.Context {
	t.Helper()
	return newTabWithin(t, time.Minute)
}

// newTabWithin is newTab for a test that walks many pages: its context ends after budget.
func newTabWithin(t *testing.T, budget time.Duration) context.Context {
	t.Helper()
	tab, cancelTab := chromedp.NewContext(browserContext(t), chromedp.WithNewBrowserContext())
	ctx, cancel := context.WithTimeout(tab, budget)
	t.Cleanup(func() { cancel(); cancelTab() })
	// The first Do opens the tab; its life is bound to ctx.
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("open tab: %v", err)
	}
	return ctx
}
