package handlers_test

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"

	"tally/app/apptest"
	"tally/models"
	"tally/testkit"
)

func TestAccountPages(t *testing.T) {
	t.Parallel()
	srv := apptest.StartServer(t, apptest.ServerOptions{})
	u := testkit.MustCreateUser(t, srv.DB, testkit.UserOpts{})
	c := apptest.NewClient(t, srv)
	c.SignIn(u.Email, testkit.Password)

	if r := c.Get("/"); !r.Has(t, "dashboard-empty") {
		t.Fatal("no empty state on a new family's dashboard")
	}
	r := c.PostForm("/accounts", url.Values{"name": {""}, "accountable_type": {"Spaceship"}, "currency": {"usd"}, "balance": {"lots"}})
	if r.Status != http.StatusUnprocessableEntity {
		t.Fatalf("invalid account: %d", r.Status)
	}
	for _, id := range []string{"error-name", "error-accountable_type"} {
		if r.TestID(t, id) == "" {
			t.Errorf("%s missing", id)
		}
	}
	if r := c.PostForm("/accounts", url.Values{"name": {"Checking"}, "accountable_type": {"Depository"}, "currency": {"USD"}, "balance": {"lots"}}); r.TestID(t, "error-balance") == "" {
		t.Errorf("a non-numeric balance was accepted: %d", r.Status)
	}

	r = c.PostForm("/accounts", url.Values{"name": {"Checking"}, "accountable_type": {"Depository"}, "subtype": {"checking"}, "currency": {"USD"}, "balance": {"1,250.50"}})
	if r.Status != http.StatusSeeOther || !strings.HasPrefix(r.Location(), "/accounts/") {
		t.Fatalf("create account: %d → %q\n%s", r.Status, r.Location(), r.Body)
	}
	accountPath := r.Location()
	page := c.Get(accountPath)
	if page.TestID(t, "account-balance") != "$1,250.50" || page.TestID(t, "flash-success") == "" {
		t.Fatalf("account page balance %q", page.TestID(t, "account-balance"))
	}
	// The opening balance is explained by an entry in the account's history.
	if n := page.Doc(t).Find(`[data-testid="entry-row"]`).Length(); n != 1 {
		t.Fatalf("%d entries on a new account, want the opening balance", n)
	}
	c.PostForm("/accounts", url.Values{"name": {"Visa"}, "accountable_type": {"CreditCard"}, "currency": {"USD"}, "balance": {"250.50"}})

	dash := c.Get("/")
	if got := dash.TestID(t, "net-worth"); got != "$1,000.00" {
		t.Fatalf("net worth %q, want assets minus the card's debt", got)
	}
	if n := dash.Doc(t).Find(`[data-testid="account-link"]`).Length(); n != 2 {
		t.Fatalf("%d accounts on the dashboard", n)
	}

	r = c.PostForm(accountPath, url.Values{"name": {"Joint checking"}, "accountable_type": {"Depository"}, "subtype": {"savings"}})
	if r.Status != http.StatusSeeOther {
		t.Fatalf("edit: %d %s", r.Status, srv.Logs.String())
	}
	if r := c.PostForm(accountPath, url.Values{"name": {""}, "accountable_type": {"Depository"}}); r.Status != http.StatusUnprocessableEntity {
		t.Fatalf("edit with a blank name: %d", r.Status)
	}
	c.PostForm(accountPath+"/close", nil)
	if got := c.Get("/").TestID(t, "net-worth"); got != "-$250.50" {
		t.Fatalf("net worth after closing checking: %q", got)
	}
	c.PostForm(accountPath+"/reopen", nil)
	if got := c.Get(accountPath).TestID(t, "page-title"); got != "Joint checking" {
		t.Fatalf("title after edit %q", got)
	}
}

func TestAccountBalancesAreReadAsTyped(t *testing.T) {
	t.Parallel()
	srv := apptest.StartServer(t, apptest.ServerOptions{})
	u := testkit.MustCreateUser(t, srv.DB, testkit.UserOpts{})
	c := apptest.NewClient(t, srv)
	c.SignIn(u.Email, testkit.Password)
	// Every page starts with a link past the navigation to its content.
	page := c.Get("/accounts/new") // the form, and its CSRF token
	if href, _ := page.Doc(t).Find(`[data-testid="skip-link"]`).Attr("href"); href != "#content" || page.Doc(t).Find("main#content").Length() != 1 {
		t.Errorf("skip link to %q, main#content found %d times", href, page.Doc(t).Find("main#content").Length())
	}

	// A balance typed the European way is read as such, and shown as a balance, not money out.
	r := c.PostForm("/accounts", url.Values{"name": {"Girokonto"}, "accountable_type": {"Depository"}, "currency": {"EUR"}, "balance": {"2.345,67"}})
	if r.Status != http.StatusSeeOther {
		t.Fatalf("create a EUR account: %d %s", r.Status, r.Body)
	}
	euro := c.Get(r.Location())
	if got := euro.TestID(t, "account-balance"); got != "€2,345.67" {
		t.Errorf("EUR balance %q, want €2,345.67", got)
	}
	if got := euro.TestID(t, "entry-balance"); got != "Balance €2,345.67" {
		t.Errorf("the opening balance shows as %q", got)
	}
	// More decimals than the currency has are refused, not rounded.
	r = c.PostForm("/accounts", url.Values{"name": {"Yen"}, "accountable_type": {"Depository"}, "currency": {"JPY"}, "balance": {"15000.50"}})
	if got := r.TestID(t, "error-balance"); r.Status != http.StatusUnprocessableEntity || !strings.Contains(got, "JPY amounts have no decimals") {
		t.Errorf("a yen balance with decimals: %d %q", r.Status, got)
	}
	key := testkit.MustCreateAPIKey(t, srv.DB, u.ID, models.ScopeReadWrite)
	r = c.API(http.MethodPost, "/api/v1/accounts", key, map[string]any{"name": "Yen", "accountable_type": "Depository", "currency": "JPY", "balance": "15000.5"})
	if r.Status != http.StatusUnprocessableEntity || !strings.Contains(string(r.Body), "JPY amounts have no decimals") {
		t.Errorf("the API took a yen balance with decimals: %d %s", r.Status, r.Body)
	}
}

func TestEntriesArePagedWithHTMX(t *testing.T) {
	t.Parallel()
	srv := apptest.StartServer(t, apptest.ServerOptions{})
	u := testkit.MustCreateUser(t, srv.DB, testkit.UserOpts{})
	acct := testkit.MustCreateAccount(t, srv.DB, u.FamilyID, "Checking", "Depository", "")
	day := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range 30 {
		e := &models.Entry{ID: uuid.New(), FamilyID: u.FamilyID, AccountID: acct.ID, Kind: models.EntryTransaction,
			Date: day.AddDate(0, 0, i), Amount: decimal.NewFromInt(int64(i + 1)), Currency: "USD",
			Name: fmt.Sprintf("Coffee %02d", i+1), TransactionKind: "standard"}
		if _, err := srv.DB.NewInsert().Model(e).Exec(t.Context()); err != nil {
			t.Fatal(err)
		}
	}
	c := apptest.NewClient(t, srv)
	c.SignIn(u.Email, testkit.Password)

	first := c.Get("/")
	rows := first.Doc(t).Find(`[data-testid="entry-row"]`)
	if rows.Length() != 25 || !strings.Contains(rows.First().Text(), "Coffee 30") || !strings.Contains(rows.First().Text(), "2026-01-30") {
		t.Fatalf("first page: %d rows, first %q", rows.Length(), rows.First().Text())
	}
	next, _ := first.Doc(t).Find(`[data-testid="page-next"]`).Attr("href")
	if next != "/?page=2" {
		t.Fatalf("next link %q", next)
	}
	// htmx asks for the table only.
	frag := c.Do(http.MethodGet, next, nil, map[string]string{"HX-Request": "true", "HX-Target": "entries"})
	if frag.Status != http.StatusOK || strings.Contains(frag.Body, "<html") {
		t.Fatalf("fragment: %d, full page returned", frag.Status)
	}
	rows = frag.Doc(t).Find(`[data-testid="entry-row"]`)
	if rows.Length() != 5 || !strings.Contains(rows.Last().Text(), "Coffee 01") {
		t.Fatalf("second page: %d rows", rows.Length())
	}
	if frag.Has(t, "page-next") || !frag.Has(t, "page-prev") {
		t.Fatal("pager on the last page is wrong")
	}
	// Without JavaScript the same link is a full page.
	if full := c.Get(next); !strings.Contains(full.Body, "<html") || full.Doc(t).Find(`[data-testid="entry-row"]`).Length() != 5 {
		t.Fatal("page 2 as a full page is wrong")
	}
	// Amounts: outflows with a minus, inflows green with a plus.
	if !strings.Contains(first.Body, "-$30.00") {
		t.Fatal("outflow not shown as -$30.00")
	}
}
