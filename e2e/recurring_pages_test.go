package e2e

import (
	"net/url"
	"testing"

	"github.com/chromedp/chromedp"

	"tally/app/apptest"
	"tally/models"
	"tally/testkit"
)

// TestRecurringListsPageOnTheirOwn is a person whose family has more proposed series than a
// page holds: the proposed list shows its first page with a pager, "Next" swaps the next page
// in place and puts it in the address, and the confirmed list stays as it was.
func TestRecurringListsPageOnTheirOwn(t *testing.T) {
	t.Parallel()
	ctx := newTab(t)
	srv := startServer(t, apptest.ServerOptions{NoWorker: true})
	u := testkit.MustCreateUser(t, srv.DB, testkit.UserOpts{})
	testkit.MustCreateSeries(t, srv.DB, u.FamilyID, nil, 60, models.RecurringProposed)
	testkit.MustCreateSeries(t, srv.DB, u.FamilyID, nil, 2, models.RecurringConfirmed)

	signInAs(t, ctx, srv, u.Email)
	clickNav(t, ctx, "recurring")
	visible(t, ctx, "recurring-proposed")
	if n := count(t, ctx, "recurring-row"); n != 52 {
		t.Fatalf("%d series listed, want a page of 50 proposed and the 2 confirmed", n)
	}
	shot(t, ctx, "recurring-paged")
	run(t, ctx, "go to the proposed list's next page", chromedp.Click(`#recurring-proposed-list [data-testid="page-next"]`))
	run(t, ctx, "the second page is swapped in", chromedp.WaitVisible(`#recurring-proposed-list [data-testid="page-prev"]`))
	if n := count(t, ctx, "recurring-row"); n != 12 {
		t.Fatalf("%d series listed on the second page, want 10 proposed and the 2 confirmed", n)
	}
	loc := run(t, ctx, "read location", chromedp.Location())
	if u, err := url.Parse(loc); err != nil || u.Query().Get("proposed_page") != "2" {
		t.Fatalf("the address is %s, want the second page of proposed series", loc)
	}
}
