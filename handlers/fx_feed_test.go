package handlers_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"tally/app/apptest"
	"tally/fx"
	"tally/fx/fakeecb"
	"tally/testkit"
)

// TestAFailingRatesFeedSaysSo is the ECB's feed failing after a fetch that worked: the
// exchange-rates page, and the budget, the spending report and the dashboard's net worth
// where an amount is left out for want of a rate, say
// since when it fails, why, and when it last worked; a fetch that works again clears it.
func TestAFailingRatesFeedSaysSo(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	srv := apptest.StartServer(t, apptest.ServerOptions{})
	u := testkit.MustCreateUser(t, srv.DB, testkit.UserOpts{})
	pesos := testkit.MustCreateAccount(t, srv.DB, u.FamilyID, "Cuenta", "Depository", "0")
	if _, err := srv.DB.NewRaw(`UPDATE accounts SET currency = 'ARS' WHERE id = ?`, pesos.ID).Exec(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := srv.DB.NewRaw(`INSERT INTO entries (id, family_id, account_id, kind, date, amount, currency, name, transaction_kind)
		VALUES (gen_random_uuid(), ?, ?, 'transaction', ?, 5000, 'ARS', 'Almacén', 'standard')`,
		u.FamilyID, pesos.ID, u.Family.Today().Format("2006-01-02")).Exec(ctx); err != nil {
		t.Fatal(err)
	}
	c := apptest.NewClient(t, srv)
	c.SignIn(u.Email, testkit.Password)
	budget := "/budgets/" + u.Family.Today().Format("2006-01")

	ecb := fakeecb.NewTest(t)
	ecb.SetDay("2026-02-27", map[string]string{"USD": "1.0790", "GBP": "0.8398"})
	fetcher := &fx.Fetcher{DB: srv.DB, URL: ecb.URL}
	if _, err := fetcher.Fetch(ctx); err != nil {
		t.Fatal(err)
	}
	if c.Get("/settings/exchange_rates").Has(t, "fx-feed-failing") {
		t.Fatal("a feed that works is said to fail")
	}

	ecb.Fail(http.StatusBadGateway)
	if _, err := fetcher.Fetch(ctx); err == nil {
		t.Fatal("the fetch of a failing feed worked")
	}
	for _, path := range []string{"/settings/exchange_rates", budget, "/reports/spending", "/"} {
		p := c.Get(path)
		if !strings.Contains(p.TestID(t, "fx-feed-failing"), "could not be fetched since") || p.TestID(t, "fx-feed-last-success") == "" ||
			!strings.Contains(p.TestID(t, "fx-feed-error"), "502") {
			t.Errorf("%s does not say the feed fails: %q", path, p.TestID(t, "fx-feed-failing"))
		}
	}
	if _, err := fetcher.Fetch(ctx); err != nil {
		t.Fatal(err)
	}
	if c.Get("/settings/exchange_rates").Has(t, "fx-feed-failing") {
		t.Error("a fetch that works again does not clear the failure")
	}
}
