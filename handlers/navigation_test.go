package handlers_test

import (
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"tally/app/apptest"
	"tally/models"
	"tally/testkit"
)

// TestNavigationGroups reads the sidebar as each role: the household's pages, the settings and
// the administration are groups of their own, administration is a super admin's only, and only
// the group holding the current page is open (a <details> element, so no JavaScript is needed).
func TestNavigationGroups(t *testing.T) {
	t.Parallel()
	srv := apptest.StartServer(t, apptest.ServerOptions{NoWorker: true})
	super := testkit.MustCreateUser(t, srv.DB, testkit.UserOpts{Role: models.RoleSuperAdmin})
	admin := testkit.MustCreateUser(t, srv.DB, testkit.UserOpts{})
	member := testkit.MustCreateUser(t, srv.DB, testkit.UserOpts{FamilyID: admin.FamilyID, Role: models.RoleMember})

	// links returns the test ids of the links in group, in order.
	links := func(doc *goquery.Document, group string) []string {
		var ids []string
		doc.Find(`[data-testid="nav-group-` + group + `"] a`).Each(func(_ int, a *goquery.Selection) {
			ids = append(ids, strings.TrimPrefix(a.AttrOr("data-testid", ""), "nav-"))
		})
		return ids
	}
	open := func(doc *goquery.Document) []string {
		var keys []string
		doc.Find(`nav details[data-testid^="nav-group-"]`).Each(func(_ int, d *goquery.Selection) {
			if _, ok := d.Attr("open"); ok {
				keys = append(keys, strings.TrimPrefix(d.AttrOr("data-testid", ""), "nav-group-"))
			}
		})
		return keys
	}

	for _, tc := range []struct {
		name                string
		user                *models.User
		household, settings []string
		admin               []string
	}{
		{"a member sees the household, the family's exchange rates, their own bank connections and their own settings", member,
			[]string{"dashboard", "accounts", "transactions", "spending", "budgets", "recurring", "imports", "categories", "tags", "merchants", "rules", "transfers"},
			[]string{"exchange_rates", "banks", "profile", "security", "api_keys"}, nil},
		{"a family admin also sees the family's settings", admin,
			[]string{"dashboard", "accounts", "transactions", "spending", "budgets", "recurring", "imports", "categories", "tags", "merchants", "rules", "transfers"},
			[]string{"family", "members", "exchange_rates", "banks", "webhooks", "export", "profile", "security", "api_keys"}, nil},
		{"a super admin also sees the administration", super,
			[]string{"dashboard", "accounts", "transactions", "spending", "budgets", "recurring", "imports", "categories", "tags", "merchants", "rules", "transfers"},
			[]string{"family", "members", "exchange_rates", "banks", "webhooks", "export", "profile", "security", "api_keys"},
			[]string{"admin_users", "admin_providers", "oauth_apps", "admin_audit"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := apptest.NewClient(t, srv)
			c.SignIn(tc.user.Email, testkit.Password)
			r := c.Get("/transactions")
			wantPage(t, r, http.StatusOK)
			doc := r.Doc(t)
			if got := links(doc, "household"); !slices.Equal(got, tc.household) {
				t.Errorf("household: %v, want %v", got, tc.household)
			}
			if got := links(doc, "settings"); !slices.Equal(got, tc.settings) {
				t.Errorf("settings: %v, want %v", got, tc.settings)
			}
			if got := links(doc, "admin"); !slices.Equal(got, tc.admin) {
				t.Errorf("administration: %v, want %v", got, tc.admin)
			}
			if n := doc.Find(`nav a[data-testid^="nav-"]`).Length(); n != len(tc.household)+len(tc.settings)+len(tc.admin) {
				t.Errorf("%d links in the navigation: some outside the groups", n)
			}
			if got := open(doc); !slices.Equal(got, []string{"household"}) {
				t.Errorf("on /transactions the open groups are %v, want the household's", got)
			}
		})
	}

	c := apptest.NewClient(t, srv)
	c.SignIn(super.Email, testkit.Password)
	for path, group := range map[string]string{
		"/": "household", "/settings/rules": "household", "/settings/webhooks": "settings",
		"/settings/exchange_rates": "settings", "/settings/security": "settings", "/settings/family/members": "settings",
		"/admin/users": "admin", "/oauth/applications": "admin",
	} {
		doc := c.Get(path).Doc(t)
		if got := open(doc); !slices.Equal(got, []string{group}) {
			t.Errorf("on %s the open groups are %v, want %s", path, got, group)
		}
		if cur := doc.Find(`[data-testid="nav-group-` + group + `"] [aria-current="page"]`).Length(); cur != 1 {
			t.Errorf("on %s the %s group highlights %d links", path, group, cur)
		}
	}
}
