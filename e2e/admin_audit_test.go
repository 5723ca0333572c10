package e2e

import (
	"context"
	"net/url"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/google/uuid"

	"tally/app/apptest"
	"tally/models"
	"tally/testkit"
)

// TestFilterTheAuditLog is the journey "filter the audit log": a super admin opens
// the audit log, filters it by event type, sees only those entries, and the address carries
// the filter, so that it can be bookmarked.
func TestFilterTheAuditLog(t *testing.T) {
	t.Parallel()
	ctx := newTab(t)
	srv := startServer(t, apptest.ServerOptions{Env: map[string]string{"ADMIN_RATE_LIMIT_PER_MINUTE": "1000"}})
	root := testkit.MustCreateUser(t, srv.DB, testkit.UserOpts{Email: "root@example.com", Role: models.RoleSuperAdmin})
	for i, event := range []string{"login", "login_failed", "login", "logout", "login_failed", "role_changed"} {
		if _, err := srv.DB.NewRaw(`INSERT INTO sso_audit_logs (id, event_type, user_id, provider, ip_address, created_at)
			VALUES (?, ?, ?, 'okta', '203.0.113.9', ?)`, uuid.New(), event, root.ID, time.Now().Add(-time.Duration(i+1)*time.Hour)).Exec(context.Background()); err != nil {
			t.Fatal(err)
		}
	}

	step(t, "sign in", func(t *testing.T) {
		signInAs(t, ctx, srv, root.Email)
	})

	step(t, "open the audit log", func(t *testing.T) {
		clickNav(t, ctx, "admin_audit")
		visible(t, ctx, "audit-table")
		wantPath(t, ctx, "/admin/sso_audit_logs")
		// The six entries, and the super admin's own password sign-in.
		if n := count(t, ctx, "audit-row"); n != 7 {
			t.Fatalf("%d rows, want all 6 entries and the sign-in", n)
		}
	})

	step(t, "filter by event type", func(t *testing.T) {
		// A mark on the page survives an htmx swap, not a page load.
		run(t, ctx, "mark the page", chromedp.Evaluate[bool](`window.notReloaded = true`))
		choose(t, ctx, "field-event_type", "login_failed")
		click(t, ctx, "audit-filters-submit")
		// htmx swaps the list in place and then pushes the filtered address. The change
		// and the submit each ask; wait until no request is in flight.
		run(t, ctx, "wait for the filtered list", chromedp.Poll[bool](
			`!document.querySelector('.htmx-request') && document.querySelectorAll('[data-testid="audit-row"]').length === 2 && location.search.includes("event_type=login_failed")`))
		events := run(t, ctx, "read the rows' events", chromedp.Evaluate[[]string](
			`[...document.querySelectorAll('[data-testid="audit-row"]')].map(r => r.dataset.event)`))
		for _, e := range events {
			if e != "login_failed" {
				t.Errorf("a %s row is listed under the login_failed filter", e)
			}
		}
		if len(events) != 2 {
			t.Errorf("%d rows, want the 2 refused sign-ins", len(events))
		}
		wantText(t, ctx, "audit-row-event", "Refused sign-in")
		if !run(t, ctx, "check the mark", chromedp.Evaluate[bool](`window.notReloaded === true`)) {
			t.Error("the page was loaded again: htmx should have swapped only the list")
		}
	})

	step(t, "the address carries the filter", func(t *testing.T) {
		loc := run(t, ctx, "read location", chromedp.Location())
		u, err := url.Parse(loc)
		if err != nil {
			t.Fatal(err)
		}
		if u.Path != "/admin/sso_audit_logs" || u.Query().Get("event_type") != "login_failed" {
			t.Fatalf("address %s does not carry the filter", loc)
		}
		if href := run(t, ctx, "read the CSV link", chromedp.Evaluate[string](
			`document.querySelector('[data-testid="audit-csv"]').getAttribute("href")`)); href != "/admin/sso_audit_logs.csv?event_type=login_failed" {
			t.Errorf("CSV link %q does not carry the filter", href)
		}
		// A reload of the address (a bookmark) shows the same filtered list.
		visit(t, ctx, loc)
		visible(t, ctx, "audit-table")
		if n := count(t, ctx, "audit-row"); n != 2 {
			t.Errorf("the bookmarked address lists %d rows, want 2", n)
		}
		if got := inputValue(t, ctx, "field-event_type"); got != "login_failed" {
			t.Errorf("the reloaded filter shows %q", got)
		}
	})

	step(t, "clear the filter", func(t *testing.T) {
		click(t, ctx, "audit-filters-clear")
		visible(t, ctx, "audit-table")
		run(t, ctx, "wait for the whole list", chromedp.Poll[bool](`document.querySelectorAll('[data-testid="audit-row"]').length === 7`))
	})
}
