package e2e

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"tally/app/apptest"
	"tally/banksync/fakeenablebanking"
	"tally/models"
	"tally/testkit"
)

// household is a signed-in super admin of a family with an account, 30 transactions with long
// names, and a category: every page a person uses has something to show.
func household(t *testing.T) (context.Context, *apptest.Server, []string) {
	t.Helper()
	ctx := newTabWithin(t, 5*time.Minute) // the sweeps walk every page, the accessibility one twice
	fake := fakeenablebanking.NewTest(t)
	fake.AddASPSP(fakeenablebanking.ASPSP{Name: "Testbank", Country: "DE"})
	srv := startServer(t, apptest.ServerOptions{NoWorker: true, Env: map[string]string{"BANKSYNC_ALLOW_INSECURE": "true",
		"ENABLE_BANKING_APP_ID": fake.AppID, "ENABLE_BANKING_PRIVATE_KEY": fake.PrivateKeyPEM(), "ENABLE_BANKING_API_URL": fake.URL}})
	bg := context.Background()
	u := testkit.MustCreateUser(t, srv.DB, testkit.UserOpts{Role: models.RoleSuperAdmin})
	// Another member and an open invitation, for the Members page's controls.
	testkit.MustCreateUser(t, srv.DB, testkit.UserOpts{FamilyID: u.FamilyID, Role: models.RoleMember})
	if _, _, err := models.CreateInvitation(bg, srv.DB, u.FamilyID, u.ID, "invited-with-a-long-address@example.com", models.RoleViewer, time.Now()); err != nil {
		t.Fatal(err)
	}
	acct := testkit.MustCreateAccount(t, srv.DB, u.FamilyID, "Everyday checking account with a long name", "Depository", "1234.56").ID
	if _, err := srv.DB.NewRaw(`INSERT INTO entries (id, family_id, account_id, kind, date, amount, currency, name, notes, source)
		SELECT gen_random_uuid(), ?, ?, 'transaction', date '2026-06-30' - i, i * 3.17, 'USD',
			'POS PURCHASE CORNER GROCERY STORE NUMBER ' || i || ' SPRINGFIELD', 'a note', 'manual'
		FROM generate_series(1, 30) AS i`, u.FamilyID, acct).Exec(bg); err != nil {
		t.Fatal(err)
	}
	if _, err := srv.DB.NewRaw(`INSERT INTO categories (id, family_id, name) VALUES (gen_random_uuid(), ?, 'Groceries and household supplies')`, u.FamilyID).Exec(bg); err != nil {
		t.Fatal(err)
	}
	// A confirmed recurring series, due in a few days: the recurring page, the dashboard and the
	// account's forecast show it.
	if _, err := srv.DB.NewRaw(`INSERT INTO recurring_transactions (id, family_id, account_id, name, amount, currency,
			expected_day_of_month, last_occurrence_date, next_expected_date, status, interval, confidence, last_amount)
		VALUES (gen_random_uuid(), ?, ?, 'Monthly rent for the flat on the long street name', 1200, 'USD', 1,
			current_date - 27, current_date + 3, 'confirmed', 'monthly', 1, 1200)`, u.FamilyID, acct).Exec(bg); err != nil {
		t.Fatal(err)
	}
	// A bank's approval waiting at the callback, whose page names the household to confirm.
	if _, err := srv.DB.NewRaw(`INSERT INTO bank_authorizations (id, family_id, user_id, state_hash, aspsp_name, aspsp_country, history_days,
			authorization_url, expires_at) VALUES (gen_random_uuid(), ?, ?, encode(sha256('e2e-state'), 'hex'), 'Testbank', 'DE', 90,
			'https://bank.example/authorize', now() + interval '30 minutes')`, u.FamilyID, u.ID).Exec(bg); err != nil {
		t.Fatal(err)
	}
	// An account with nothing recurring, whose forecast says so and links to the recurring page.
	quiet := testkit.MustCreateAccount(t, srv.DB, u.FamilyID, "Savings", "Depository", "500").ID
	signInAs(t, ctx, srv, u.Email)
	pages := []string{
		"/accounts/" + quiet.String(),
		"/", "/accounts", "/accounts/" + acct.String(), "/accounts/" + acct.String() + "/edit", "/accounts/new",
		"/transactions", "/transactions?q=grocery", "/imports", "/transfers", "/settings/rules", "/settings/rules/new",
		"/categories", "/tags", "/merchants", "/reports/spending", "/budgets/2026-06", "/recurring",
		"/settings/profile", "/settings/security", "/settings/api_keys", "/settings/webhooks", "/settings/bank_connections",
		"/settings/bank_connections/europe?country=DE", "/bank_connections/enable_banking/callback?state=e2e-state&code=e2e-code",
		"/settings/export", "/settings/family", "/settings/family/members", "/settings/exchange_rates", "/admin/sso_providers", "/admin/users", "/admin/sso_audit_logs", "/oauth/applications",
	}
	return ctx, srv, pages
}

// TestPagesFitAPhone opens each page a person uses on a 390 px wide screen, with data in its
// lists, and checks that none is wider than the screen: nothing scrolls sideways.
func TestPagesFitAPhone(t *testing.T) {
	t.Parallel()
	ctx, srv, pages := household(t)
	run(t, ctx, "use a phone's screen", chromedp.EmulateViewport(390, 844))

	// The navigation is a menu behind a button.
	visit(t, ctx, srv.URL+"/")
	shown := func(id string) bool {
		return run(t, ctx, "is "+id+" shown", chromedp.Evaluate[bool](fmt.Sprintf(`document.querySelector(%q).offsetParent !== null`, string(testID(id)))))
	}
	if shown("nav-transactions") || !shown("menu-toggle") {
		t.Fatalf("on a phone the navigation is not behind its menu button (link shown %v)", shown("nav-transactions"))
	}
	click(t, ctx, "menu-toggle")
	if !shown("nav-transactions") || attr(t, ctx, "menu-toggle", "aria-expanded") != "true" {
		t.Fatal("the menu button does not open the navigation")
	}
	click(t, ctx, "nav-transactions")
	visible(t, ctx, "tx-table")
	// A transaction's row is compact: TestTransactionsAreCompactOnAPhone.
	row := run(t, ctx, "read a row's layout", chromedp.Evaluate[string](`getComputedStyle(document.querySelector('[data-testid="tx-row"]')).display`))
	if row != "grid" {
		t.Errorf("on a phone a transaction's row is laid out as %q", row)
	}

	for _, path := range pages {
		visit(t, ctx, srv.URL+path)
		wantPath(t, ctx, strings.SplitN(path, "?", 2)[0]) // the page itself, not an error or a redirect
		widths := run(t, ctx, "measure "+path, chromedp.Evaluate[[]int](`[document.documentElement.scrollWidth, window.innerWidth]`))
		if widths[0] > widths[1] {
			shot(t, ctx, "phone"+sanitize(path))
			t.Errorf("%s is %d px wide on a %d px screen", path, widths[0], widths[1])
		}
	}
}

func sanitize(path string) string {
	out := []byte(path)
	for i, c := range out {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9') {
			out[i] = '-'
		}
	}
	return string(out)
}
