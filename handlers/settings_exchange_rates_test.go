package handlers_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"tally/app/apptest"
	"tally/fx"
	"tally/fx/fakeecb"
	"tally/models"
	"tally/testkit"
)

// TestExchangeRatesPage is Settings › Exchange rates without a browser: a member reads the
// rates but is offered no form and may not set or delete one (403); the family's admins,
// linked from the family's settings, set them: a bad rate is refused on its fields with what was
// typed kept, a good one is listed and can be deleted, and the ECB's latest rate of each
// currency of the accounts is shown against the family's currency.
func TestExchangeRatesPage(t *testing.T) {
	t.Parallel()
	srv := apptest.StartServer(t, apptest.ServerOptions{NoWorker: true})
	ctx := context.Background()
	admin := testkit.MustCreateUser(t, srv.DB, testkit.UserOpts{})
	member := testkit.MustCreateUser(t, srv.DB, testkit.UserOpts{FamilyID: admin.FamilyID, Role: models.RoleMember})
	for _, cur := range []string{"USD", "GBP", "ARS"} {
		if _, err := srv.DB.NewRaw(`INSERT INTO accounts (id, family_id, name, accountable_type, currency)
			VALUES (gen_random_uuid(), ?, ?, 'Depository', ?)`, admin.FamilyID, "In "+cur, cur).Exec(ctx); err != nil {
			t.Fatal(err)
		}
	}
	ecb := fakeecb.NewTest(t)
	ecb.SetDay("2026-02-27", map[string]string{"USD": "1.0790", "GBP": "0.8398"})
	if _, err := (&fx.Fetcher{DB: srv.DB, URL: ecb.URL}).Fetch(ctx); err != nil {
		t.Fatal(err)
	}

	mc := apptest.NewClient(t, srv)
	mc.SignIn(member.Email, testkit.Password)
	if r := mc.Get("/settings/exchange_rates"); r.Status != http.StatusOK || !r.Has(t, "fetched-rate-GBP") || !r.Has(t, "exchange-rates-admins") || r.Has(t, "exchange-rate-form") {
		t.Errorf("a member's GET: %d, the rates without the form", r.Status)
	}
	if r := mc.PostForm("/settings/exchange_rates", url.Values{"date": {"2026-03-01"}, "base": {"GBP"}, "quote": {"USD"}, "rate": {"2"}}); r.Status != http.StatusForbidden ||
		!strings.Contains(r.Body, "Only an admin of the family can set or delete its exchange rates") {
		t.Errorf("a member's POST: %d", r.Status)
	}

	c := apptest.NewClient(t, srv)
	c.SignIn(admin.Email, testkit.Password)
	if r := c.Get("/settings/family"); !r.Has(t, "family-exchange-rates") {
		t.Fatal("the family's settings do not link to the exchange rates")
	}
	page := c.Get("/settings/exchange_rates")
	wantPage(t, page, http.StatusOK)
	if !page.Has(t, "exchange-rates-empty") {
		t.Error("no empty state")
	}
	if got := page.TestID(t, "fetched-rate-GBP"); got != "1 GBP = 1.28483 USD" {
		t.Errorf("the fetched rate of GBP reads %q", got)
	}
	if got := page.TestID(t, "fetched-date-GBP"); got != "2026-02-27" {
		t.Errorf("the fetched rate of GBP is dated %q", got)
	}
	if got := page.TestID(t, "fetched-missing"); !strings.Contains(got, "No rate fetched for ARS into USD") {
		t.Error("ARS, which the ECB does not publish, is not said to have no rate")
	}
	if page.Doc(t).Find(`[data-testid="fetched-row"][data-currency="USD"]`).Length() != 0 {
		t.Error("the family's own currency is listed against itself")
	}

	r := c.PostForm("/settings/exchange_rates", url.Values{"date": {"2026-03-01"}, "base": {"ARS"}, "quote": {"ARS"}, "rate": {"1,5"}})
	wantPage(t, r, http.StatusUnprocessableEntity)
	for _, field := range []string{"quote", "rate"} {
		if !r.Has(t, "error-"+field) {
			t.Errorf("no error on %s", field)
		}
	}
	if v, _ := r.Doc(t).Find(`#field-rate`).Attr("value"); v != "1,5" {
		t.Errorf("the typed rate was not kept: %q", v)
	}

	wantRedirect(t, c.PostForm("/settings/exchange_rates", url.Values{"date": {"2026-03-01"}, "base": {"ars"}, "quote": {"USD"}, "rate": {"0.00095"}}),
		"/settings/exchange_rates")
	page = c.Get("/settings/exchange_rates")
	if got := page.TestID(t, "flash-success"); got != "Saved: on 2026-03-01, 1 ARS buys 0.00095 USD." {
		t.Errorf("flash %q", got)
	}
	rows := page.Doc(t).Find(`[data-testid="exchange-rate-row"]`)
	id, _ := rows.Attr("data-id")
	if rows.Length() != 1 || page.TestID(t, "exchange-rate-text-"+id) != "1 ARS = 0.00095 USD" {
		t.Fatalf("%d rows listed: %q", rows.Length(), page.TestID(t, "exchange-rate-text-"+id))
	}

	// Another family's admin cannot delete it.
	stranger := apptest.NewClient(t, srv)
	stranger.SignIn(testkit.MustCreateUser(t, srv.DB, testkit.UserOpts{}).Email, testkit.Password)
	stranger.Get("/settings/exchange_rates")
	if r := stranger.PostForm("/settings/exchange_rates/"+id+"/delete", nil); r.Status != http.StatusNotFound {
		t.Errorf("another family's delete: %d", r.Status)
	}
	// A member reads it, without a way to delete it, and may not.
	if r := mc.Get("/settings/exchange_rates"); r.TestID(t, "exchange-rate-text-"+id) != "1 ARS = 0.00095 USD" || r.Has(t, "exchange-rate-delete-"+id) {
		t.Errorf("a member's page lists the rate %q, with a delete button: %v", r.TestID(t, "exchange-rate-text-"+id), r.Has(t, "exchange-rate-delete-"+id))
	}
	if r := mc.PostForm("/settings/exchange_rates/"+id+"/delete", nil); r.Status != http.StatusForbidden {
		t.Errorf("a member's delete: %d", r.Status)
	}
	wantRedirect(t, c.PostForm("/settings/exchange_rates/"+id+"/delete", nil), "/settings/exchange_rates")
	if page = c.Get("/settings/exchange_rates"); !page.Has(t, "exchange-rates-empty") || page.TestID(t, "flash-success") != "The rate is deleted." {
		t.Error("the rate is still listed after its delete")
	}

	// Fifty rates a page; the pager's htmx request gets the list alone.
	if _, err := srv.DB.NewRaw(`INSERT INTO exchange_rates (id, family_id, date, base, quote, rate, source)
		SELECT gen_random_uuid(), ?, date '2026-03-01' - i, 'ARS', 'USD', 0.001, 'family' FROM generate_series(0, 50) AS i`,
		admin.FamilyID).Exec(ctx); err != nil {
		t.Fatal(err)
	}
	page = c.Get("/settings/exchange_rates")
	if n := page.Doc(t).Find(`[data-testid="exchange-rate-row"]`).Length(); n != 50 || !page.Has(t, "page-next") {
		t.Fatalf("the first page lists %d rates, next page link %v", n, page.Has(t, "page-next"))
	}
	r = c.Do(http.MethodGet, "/settings/exchange_rates?page=2", nil, map[string]string{"HX-Request": "true", "HX-Target": "exchange-rates-list"})
	if doc := r.Doc(t); r.Status != http.StatusOK || strings.Contains(r.Body, "<html") || doc.Find(`[data-testid="exchange-rate-row"]`).Length() != 1 ||
		!r.Has(t, "page-prev") {
		t.Errorf("the second page as a fragment: %d %s", r.Status, r.Body)
	}
}
