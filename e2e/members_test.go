package e2e

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"tally/app/apptest"
	"tally/models"
	"tally/testkit"
)

// newFreshBrowserTab opens a tab in a browser context of its own: no cookies of the other
// tabs, as another person's browser.
func newFreshBrowserTab(t *testing.T) context.Context {
	t.Helper()
	tab, cancelTab := chromedp.NewContext(browserContext(t), chromedp.WithNewBrowserContext())
	ctx, cancel := context.WithTimeout(tab, time.Minute)
	t.Cleanup(func() { cancel(); cancelTab() })
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("open a fresh browser: %v", err)
	}
	return ctx
}

// TestInvitingAMember is a family admin inviting their partner without mail set up: the page
// shows the link, which the partner opens in their own browser, sets a password, signs in and
// lands in the same family; the admin then sees them on the Members page.
func TestInvitingAMember(t *testing.T) {
	t.Parallel()
	ctx := newTab(t)
	srv := startServer(t, apptest.ServerOptions{NoWorker: true})
	admin := testkit.MustCreateUser(t, srv.DB, testkit.UserOpts{})
	var link string

	step(t, "the admin invites from the Members page and is shown the link", func(t *testing.T) {
		signInAs(t, ctx, srv, admin.Email)
		clickNav(t, ctx, "members")
		visible(t, ctx, "invite-form")
		fill(t, ctx, "field-email", "jana@example.com")
		choose(t, ctx, "field-role", "member")
		click(t, ctx, "invite-submit")
		visible(t, ctx, "invitation-created")
		link = inputValue(t, ctx, "invitation-link")
		if !strings.HasPrefix(link, srv.URL+"/invitations/accept?token=") {
			t.Fatalf("the link shown is %q", link)
		}
		shot(t, ctx, "members-invitation-link")
	})

	other := newFreshBrowserTab(t)
	step(t, "the partner sets a password in their own browser and signs in", func(t *testing.T) {
		visit(t, other, link)
		visible(t, other, "invitation-accept-form")
		fill(t, other, "field-first_name", "Jana")
		fill(t, other, "field-password", "a brand new passphrase")
		click(t, other, "invitation-accept")
		visible(t, other, "sign-in-form")
		fill(t, other, "field-email", "jana@example.com")
		fill(t, other, "field-password", "a brand new passphrase")
		click(t, other, "sign-in-submit")
		visible(t, other, "current-user")
		visit(t, other, srv.URL+"/")
		if !pageContains(t, other, admin.Family.Name) {
			t.Fatalf("the partner's dashboard does not name the family %q", admin.Family.Name)
		}
		jana, err := models.UserByEmail(context.Background(), srv.DB, "jana@example.com")
		if err != nil || jana.FamilyID != admin.FamilyID {
			t.Fatalf("the partner's user %+v, %v: not in the admin's family", jana, err)
		}
	})

	step(t, "the admin sees the partner on the Members page", func(t *testing.T) {
		visit(t, ctx, srv.URL+"/settings/family/members")
		if n := count(t, ctx, "member-row"); n != 2 {
			t.Fatalf("%d members listed, want 2", n)
		}
		if !pageContains(t, ctx, "jana@example.com") {
			t.Fatal("the partner is not listed")
		}
		if n := count(t, ctx, "invitation-row"); n != 0 {
			t.Fatalf("%d invitations still pending", n)
		}
	})
}
