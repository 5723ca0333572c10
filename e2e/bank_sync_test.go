package e2e

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"tally/app"
	"tally/app/apptest"
	"tally/banksync/fakesimplefin"
	"tally/models"
	"tally/testkit"
)

// TestConnectABankAndReconnectIt is a family admin connecting a SimpleFIN provider from the
// browser: paste a setup token, link the account, see its transactions, then the provider
// revokes the access and a new token reconnects it with the account still linked.
func TestConnectABankAndReconnectIt(t *testing.T) {
	t.Parallel()
	ctx := newTab(t)
	fake := fakesimplefin.NewTest(t)
	fake.AddConnection(fakesimplefin.Connection{ID: "CON-1", Name: "First Bank", OrgID: "first", OrgName: "First Bank"})
	fake.AddAccount(fakesimplefin.Account{ID: "ACT-1", ConnID: "CON-1", Name: "Everyday Checking", Currency: "USD",
		Balance: "1234.56", BalanceDate: time.Now()})
	fake.AddTransaction("ACT-1", fakesimplefin.Transaction{ID: "T-1", Posted: time.Now().Add(-72 * time.Hour),
		Amount: "-42.10", Payee: "Corner Bookshop", Description: "Corner Bookshop"})
	srv := startServer(t, apptest.ServerOptions{Env: map[string]string{"BANKSYNC_ALLOW_INSECURE": "true"}})
	u := testkit.MustCreateUser(t, srv.DB, testkit.UserOpts{})
	status := func() string {
		var s string
		if err := srv.DB.NewRaw("SELECT status FROM bank_connections").Scan(context.Background(), &s); err != nil {
			t.Fatal(err)
		}
		return s
	}

	step(t, "sign in and open bank connections", func(t *testing.T) {
		signInAs(t, ctx, srv, u.Email)
		clickNav(t, ctx, "banks")
		visible(t, ctx, "connect-form")
		wantPath(t, ctx, "/settings/bank_connections")
	})
	step(t, "a pasted text that is not a token is refused on the form", func(t *testing.T) {
		fill(t, ctx, "field-setup_token", "hello bank")
		click(t, ctx, "connect-submit")
		visible(t, ctx, "error-setup_token")
		if n := count(t, ctx, "bank-connection"); n != 0 {
			t.Fatalf("%d connections after a bad token", n)
		}
	})
	step(t, "a setup token shows the provider's accounts to link", func(t *testing.T) {
		run(t, ctx, "clear the token", chromedp.Clear(testID("field-setup_token")))
		fill(t, ctx, "field-setup_token", fake.NewSetupToken())
		click(t, ctx, "connect-submit")
		visible(t, ctx, "link-form")
		if got := inputValue(t, ctx, "link-choice"); got != "new:Depository" {
			t.Fatalf("suggested %q, want a new checking account", got)
		}
		shot(t, ctx, "bank-link")
	})
	step(t, "linking runs the first sync", func(t *testing.T) {
		click(t, ctx, "link-submit")
		visible(t, ctx, "bank-connection")
		wantPath(t, ctx, "/settings/bank_connections")
		// The status refreshes itself until the sync has written the transaction.
		for deadline := time.Now().Add(30 * time.Second); !strings.HasPrefix(textNow(t, ctx, "bank-stats"), "1 new"); time.Sleep(200 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("last sync %q, status %q: the first sync did not bring the transaction",
					textNow(t, ctx, "bank-last-sync"), textNow(t, ctx, "bank-stats"))
			}
		}
		wantText(t, ctx, "bank-account-link", "Everyday Checking")
		shot(t, ctx, "bank-connected")
	})
	step(t, "the linked account shows the bank's transaction and balance", func(t *testing.T) {
		run(t, ctx, "open the linked account", chromedp.Click(`[data-testid="bank-account-link"] a`))
		visible(t, ctx, "entry-row")
		if !pageContains(t, ctx, "Corner Bookshop") || !pageContains(t, ctx, "1,234.56") {
			t.Fatal("the account page lacks the synced transaction or balance")
		}
	})
	step(t, "a revoked access shows the reconnect form", func(t *testing.T) {
		var stored, access string
		if err := srv.DB.NewRaw("SELECT access_url FROM bank_connections").Scan(context.Background(), &stored); err != nil {
			t.Fatal(err)
		}
		keys, err := app.EncryptionKeys(srv.Config)
		if err != nil {
			t.Fatal(err)
		}
		if access, _, err = keys.Decrypt(stored, "bank_connections.access_url"); err != nil {
			t.Fatal(err)
		}
		fake.RevokeAccess(access)
		waitForIdleSyncs(t, srv)
		visit(t, ctx, srv.URL+"/settings/bank_connections")
		click(t, ctx, "sync-now")
		waitText(t, ctx, "bank-status-badge", "Needs a new setup token", 30*time.Second)
		visit(t, ctx, srv.URL+"/settings/bank_connections")
		visible(t, ctx, "reconnect")
		if pageContains(t, ctx, access) {
			t.Fatal("the access URL is on the page")
		}
		shot(t, ctx, "bank-needs-token")
	})
	step(t, "a new token reconnects, keeping the linked account", func(t *testing.T) {
		fill(t, ctx, "field-new_setup_token", fake.NewSetupToken())
		click(t, ctx, "reconnect-submit")
		visible(t, ctx, "flash-success")
		wantText(t, ctx, "flash-success", "Reconnected: syncing again.")
		wantText(t, ctx, "bank-status-badge", "Connected")
		wantText(t, ctx, "bank-account-link", "Everyday Checking")
		if s := status(); s != "good" {
			t.Fatalf("connection status %q after reconnecting", s)
		}
	})
}

// TestAMemberConnectsTheirOwnBank is a member of a household, not an admin, connecting their
// own bank through SimpleFIN from the browser: the account it brings is private to them (its
// badge says so), and the family's admin sees neither the account nor the connection.
func TestAMemberConnectsTheirOwnBank(t *testing.T) {
	t.Parallel()
	ctx := newTab(t)
	fake := fakesimplefin.NewTest(t)
	fake.AddConnection(fakesimplefin.Connection{ID: "CON-1", Name: "Mia's Bank", OrgID: "mia", OrgName: "Mia's Bank"})
	fake.AddAccount(fakesimplefin.Account{ID: "ACT-1", ConnID: "CON-1", Name: "Mia's Checking", Currency: "USD",
		Balance: "321.00", BalanceDate: time.Now()})
	fake.AddTransaction("ACT-1", fakesimplefin.Transaction{ID: "T-1", Posted: time.Now().Add(-72 * time.Hour),
		Amount: "-12.30", Payee: "Night Pharmacy", Description: "Night Pharmacy"})
	srv := startServer(t, apptest.ServerOptions{Env: map[string]string{"BANKSYNC_ALLOW_INSECURE": "true"}})
	admin := testkit.MustCreateUser(t, srv.DB, testkit.UserOpts{})
	member := testkit.MustCreateUser(t, srv.DB, testkit.UserOpts{FamilyID: admin.FamilyID, Role: models.RoleMember})

	step(t, "the member opens bank connections from the navigation", func(t *testing.T) {
		signInAs(t, ctx, srv, member.Email)
		clickNav(t, ctx, "banks")
		wantPath(t, ctx, "/settings/bank_connections")
		visible(t, ctx, "bank-own-note")
		visible(t, ctx, "connect-form")
	})
	step(t, "the member pastes a setup token and links the account", func(t *testing.T) {
		fill(t, ctx, "field-setup_token", fake.NewSetupToken())
		click(t, ctx, "connect-submit")
		visible(t, ctx, "link-form")
		click(t, ctx, "link-submit")
		visible(t, ctx, "bank-connection")
		for deadline := time.Now().Add(30 * time.Second); !strings.HasPrefix(textNow(t, ctx, "bank-stats"), "1 new"); time.Sleep(200 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("status %q: the first sync did not bring the transaction", textNow(t, ctx, "bank-stats"))
			}
		}
		wantText(t, ctx, "bank-account-link", "Mia's Checking")
	})
	step(t, "the account is private to the member", func(t *testing.T) {
		run(t, ctx, "open the linked account", chromedp.Click(`[data-testid="bank-account-link"] a`))
		visible(t, ctx, "entry-row")
		wantText(t, ctx, "badge", "Private")
		if !pageContains(t, ctx, "Night Pharmacy") {
			t.Fatal("the account page lacks the synced transaction")
		}
		shot(t, ctx, "bank-member-private-account")
	})
	step(t, "the family's admin sees neither the account nor the connection", func(t *testing.T) {
		click(t, ctx, "sign-out")
		visible(t, ctx, "sign-in-form")
		signInAs(t, ctx, srv, admin.Email)
		visit(t, ctx, srv.URL+"/accounts")
		if pageContains(t, ctx, "Mia's Checking") {
			t.Fatal("the admin's accounts list the member's private account")
		}
		clickNav(t, ctx, "banks")
		if n := count(t, ctx, "bank-connection"); n != 0 || pageContains(t, ctx, "Mia's Bank") {
			t.Fatalf("the admin's bank page lists %d connections", n)
		}
	})
}

// waitForIdleSyncs waits until no bank sync job is queued or running, so that "Sync now"
// starts one.
func waitForIdleSyncs(t *testing.T, srv *apptest.Server) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		var n int
		if err := srv.DB.NewRaw(`SELECT count(*) FROM river_job WHERE kind = 'bank_sync'
			AND state NOT IN ('completed', 'discarded', 'cancelled')`).Scan(context.Background(), &n); err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("a bank sync is still running after 30s")
		}
	}
}
