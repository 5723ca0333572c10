package e2e

import (
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"tally/app/apptest"
	"tally/banksync/fakeenablebanking"
	"tally/testkit"
)

// TestConnectAEuropeanBank is a family admin connecting a German bank through Enable Banking
// from the browser: choose the country and the bank, approve at the bank's page, which sends
// the browser back to Tally, confirm the household the page names, link the account and see
// its transactions synced. When the bank ends the consent, the dashboard and the account's
// page say so, and the dashboard's button renews it at the bank.
func TestConnectAEuropeanBank(t *testing.T) {
	t.Parallel()
	ctx := newTab(t)
	fake := fakeenablebanking.NewTest(t)
	fake.AddASPSP(fakeenablebanking.ASPSP{Name: "Testbank", Country: "DE"})
	today := time.Now().UTC().Format(time.DateOnly)
	fake.AddAccount("Testbank", fakeenablebanking.Account{Key: "giro", IBAN: "DE89370400440532013000", Name: "Girokonto", Currency: "EUR",
		Balances: map[string]string{"CLBD": "1234.56"},
		Transactions: []fakeenablebanking.Transaction{{EntryReference: "E1", Amount: "42.10", Indicator: "DBIT", Status: "BOOK", BookingDate: today,
			Creditor: &fakeenablebanking.Party{Address: []string{"Buchhandlung am Markt"}}, Remittance: []string{"Rechnung 17"}}}})
	srv := startServer(t, apptest.ServerOptions{Env: map[string]string{"BANKSYNC_ALLOW_INSECURE": "true",
		"ENABLE_BANKING_APP_ID": fake.AppID, "ENABLE_BANKING_PRIVATE_KEY": fake.PrivateKeyPEM(), "ENABLE_BANKING_API_URL": fake.URL}})
	u := testkit.MustCreateUser(t, srv.DB, testkit.UserOpts{})

	step(t, "choose the country and the bank", func(t *testing.T) {
		signInAs(t, ctx, srv, u.Email)
		clickNav(t, ctx, "banks")
		click(t, ctx, "add-europe")
		choose(t, ctx, "field-country", "DE")
		click(t, ctx, "eb-country-submit")
		visible(t, ctx, "eb-form")
		fill(t, ctx, "field-aspsp", "Testbank")
		shot(t, ctx, "bank-europe")
		click(t, ctx, "eb-submit")
	})
	step(t, "the bank's page sends the browser back to confirm the household, then to link the account", func(t *testing.T) {
		visible(t, ctx, "fake-approve")
		click(t, ctx, "fake-approve")
		visible(t, ctx, "eb-confirm")
		if got := text(t, ctx, "eb-starter"); !strings.Contains(got, u.Email) {
			t.Fatalf("the page names %q as who started it", got)
		}
		shot(t, ctx, "bank-europe-confirm")
		click(t, ctx, "eb-confirm")
		visible(t, ctx, "link-form")
		if got := inputValue(t, ctx, "link-choice"); got != "new:Depository" {
			t.Fatalf("suggested %q", got)
		}
		if !strings.Contains(text(t, ctx, "link-iban"), "DE89370400440532013000") {
			t.Fatal("the link page does not show the IBAN")
		}
	})
	step(t, "linking syncs the bank's transaction", func(t *testing.T) {
		click(t, ctx, "link-submit")
		visible(t, ctx, "bank-connection")
		for deadline := time.Now().Add(30 * time.Second); text(t, ctx, "bank-last-sync") == "Never"; time.Sleep(200 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatal("the status still says the bank never synced")
			}
		}
		if got := text(t, ctx, "bank-stats"); !strings.HasPrefix(got, "1 new") {
			t.Fatalf("status after the first sync: %q", got)
		}
		if got := text(t, ctx, "bank-requests"); got != "Reads today: 1 of 4 (PSD2)" {
			t.Fatalf("reads %q", got)
		}
		visible(t, ctx, "bank-consent-end")
		shot(t, ctx, "bank-europe-connected")
		run(t, ctx, "open the linked account", chromedp.Click(`[data-testid="bank-account-link"] a`))
		visible(t, ctx, "entry-row")
		if !pageContains(t, ctx, "Buchhandlung am Markt") || !pageContains(t, ctx, "1,234.56") {
			t.Fatal("the account page lacks the synced transaction or the bank's balance")
		}
	})
	step(t, "a consent the bank ends shows on the dashboard, which renews it", func(t *testing.T) {
		account := path(t, ctx)
		fake.ExpireSessions()
		clickNav(t, ctx, "banks")
		clickAndLoad(t, ctx, "sync-now")
		for deadline := time.Now().Add(30 * time.Second); !strings.Contains(textNow(t, ctx, "bank-status-badge"), "Needs renewal"); time.Sleep(200 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatal("the connection does not ask for renewal")
			}
			visit(t, ctx, srv.URL+"/settings/bank_connections")
		}
		if got := text(t, ctx, "bank-consent-state"); !strings.Contains(got, "needs renewal") || pageContains(t, ctx, "Consent until") {
			t.Errorf("the connection's consent reads %q", got)
		}
		visit(t, ctx, srv.URL+account)
		visible(t, ctx, "bank-trouble")
		clickNav(t, ctx, "dashboard")
		visible(t, ctx, "bank-trouble")
		shot(t, ctx, "bank-trouble-dashboard")
		click(t, ctx, "bank-trouble-action")
		visible(t, ctx, "fake-approve")
	})
}
