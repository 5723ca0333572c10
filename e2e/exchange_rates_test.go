package e2e

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"tally/app/apptest"
	"tally/fx"
	"tally/fx/fakeecb"
	"tally/models"
	"tally/testkit"
)

// TestExchangeRatesPage is a family admin with a pound account in a dollar family: the ECB's
// rate, fetched by the job when Tally starts, is shown on Settings › Family › Exchange rates;
// a rate of the family's own is refused on its fields until it is right, then saved, used by
// the API in place of the bank's, read by a member of the family without a form to change it,
// and deleted through its confirmation. A fetch that fails then shows on the page.
func TestExchangeRatesPage(t *testing.T) {
	t.Parallel()
	ctx := newTab(t)
	ecb := fakeecb.NewTest(t)
	ecb.SetDay("2026-02-27", map[string]string{"USD": "1.0790", "GBP": "0.8398"})
	srv := startServer(t, apptest.ServerOptions{Env: map[string]string{"EXCHANGE_RATES_URL": ecb.URL}})
	u := testkit.MustCreateUser(t, srv.DB, testkit.UserOpts{})
	member := testkit.MustCreateUser(t, srv.DB, testkit.UserOpts{FamilyID: u.FamilyID, Role: models.RoleMember})
	key := testkit.MustCreateAPIKey(t, srv.DB, u.ID, models.ScopeRead)
	for _, cur := range []string{"USD", "GBP"} {
		if _, err := srv.DB.NewRaw(`INSERT INTO accounts (id, family_id, name, accountable_type, currency)
			VALUES (gen_random_uuid(), ?, ?, 'Depository', ?)`, u.FamilyID, "Current account in "+cur, cur).Exec(context.Background()); err != nil {
			t.Fatal(err)
		}
	}

	step(t, "from the family's settings to the exchange rates", func(t *testing.T) {
		signInAs(t, ctx, srv, u.Email)
		clickNav(t, ctx, "family")
		click(t, ctx, "family-exchange-rates")
		visible(t, ctx, "exchange-rates-empty")
		wantPath(t, ctx, "/settings/exchange_rates")
	})
	step(t, "the ECB's rate of the pound, fetched on start", func(t *testing.T) {
		// The job may still be running when the page first loads.
		for deadline := time.Now().Add(20 * time.Second); count(t, ctx, "fetched-rate-GBP") == 0; {
			if time.Now().After(deadline) {
				t.Fatalf("no fetched rate after 20s; files read %v", ecb.Requests())
			}
			time.Sleep(200 * time.Millisecond)
			visit(t, ctx, srv.URL+"/settings/exchange_rates")
		}
		wantText(t, ctx, "fetched-rate-GBP", "1 GBP = 1.28483 USD")
		wantText(t, ctx, "fetched-date-GBP", "2026-02-27")
		shot(t, ctx, "exchange-rates")
	})
	step(t, "a rate of a currency into itself, not a number, is refused on its fields", func(t *testing.T) {
		choose(t, ctx, "field-date", "2026-03-01")
		fill(t, ctx, "field-base", "GBP")
		refill(t, ctx, "field-quote", "GBP")
		fill(t, ctx, "field-rate", "one point three")
		click(t, ctx, "exchange-rate-save")
		visible(t, ctx, "error-quote")
		if got := text(t, ctx, "error-rate"); !strings.Contains(got, "such as 1.0823") {
			t.Errorf("the rate's error says %q", got)
		}
		if got := inputValue(t, ctx, "field-base"); got != "GBP" {
			t.Errorf("the typed base was lost: %q", got)
		}
		shot(t, ctx, "exchange-rates-error")
	})
	step(t, "saved, it is listed and wins over the bank's", func(t *testing.T) {
		refill(t, ctx, "field-quote", "USD")
		refill(t, ctx, "field-rate", "1.30")
		click(t, ctx, "exchange-rate-save")
		waitText(t, ctx, "flash-success", "Saved: on 2026-03-01, 1 GBP buys 1.3 USD.", 10*time.Second)
		if n := count(t, ctx, "exchange-rate-row"); n != 1 {
			t.Fatalf("%d rates listed", n)
		}
		if !pageContains(t, ctx, "1 GBP = 1.3 USD") {
			t.Error("the rate is not listed as 1 GBP = 1.3 USD")
		}
		status, body := apiGet(t, srv.URL+"/api/v1/exchange_rates?base=USD&quote=GBP&date=2026-03-02", key)
		var q struct {
			Data struct{ Rate, Date, Source string }
		}
		if err := json.Unmarshal(body, &q); err != nil || status != http.StatusOK || q.Data.Rate != "0.769230769231" ||
			q.Data.Date != "2026-03-01" || q.Data.Source != "family" {
			t.Errorf("the API converts USD to GBP with %d %s", status, body)
		}
	})
	step(t, "a member reads it from the navigation, with no form to change it", func(t *testing.T) {
		click(t, ctx, "sign-out")
		visible(t, ctx, "sign-in-submit")
		signInAs(t, ctx, srv, member.Email)
		clickNav(t, ctx, "exchange_rates")
		wantPath(t, ctx, "/settings/exchange_rates")
		visible(t, ctx, "exchange-rate-row") // the page has loaded, not only its address
		visible(t, ctx, "exchange-rates-admins")
		if !pageContains(t, ctx, "1 GBP = 1.3 USD") {
			t.Error("the member does not see the family's rate")
		}
		if n := count(t, ctx, "exchange-rate-form") + count(t, ctx, "exchange-rate-delete-"+attr(t, ctx, "exchange-rate-row", "data-id")); n != 0 {
			t.Errorf("the member is offered %d forms to change the rates", n)
		}
		shot(t, ctx, "exchange-rates-member")
		click(t, ctx, "sign-out")
		visible(t, ctx, "sign-in-submit")
		signInAs(t, ctx, srv, u.Email)
		visit(t, ctx, srv.URL+"/settings/exchange_rates")
	})
	step(t, "deleted through its confirmation", func(t *testing.T) {
		id := attr(t, ctx, "exchange-rate-row", "data-id")
		click(t, ctx, "exchange-rate-delete-"+id)
		visible(t, ctx, "confirm-delete-rate-"+id)
		click(t, ctx, "confirm-delete-rate-"+id+"-submit")
		waitText(t, ctx, "flash-success", "The rate is deleted.", 10*time.Second)
		visible(t, ctx, "exchange-rates-empty")
	})
	step(t, "a fetch that fails says so, with when one last worked", func(t *testing.T) {
		ecb.Fail(http.StatusServiceUnavailable)
		if _, err := (&fx.Fetcher{DB: srv.DB, URL: ecb.URL}).Fetch(context.Background()); err == nil {
			t.Fatal("the fetch of a failing feed worked")
		}
		visit(t, ctx, srv.URL+"/settings/exchange_rates")
		visible(t, ctx, "fx-feed-failing")
		if text(t, ctx, "fx-feed-last-success") == "" || !strings.Contains(text(t, ctx, "fx-feed-error"), "503") {
			t.Errorf("the failing feed reads %q", text(t, ctx, "fx-feed-failing"))
		}
		shot(t, ctx, "exchange-rates-feed-failing")
	})
}
