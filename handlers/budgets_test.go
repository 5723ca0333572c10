package handlers_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"

	"tally/app/apptest"
	"tally/budgets"
	"tally/reports"
	"tally/testkit"
)

// TestBudgetPage uses the budget page as a person does without JavaScript and with htmx: the
// redirect to this month, an amount typed in the family's way, a refused one, the rollover,
// a move and its undo, a fill, the copy to the next month, the link to the transactions, and
// the dashboard's card; another family's category is a 404.
func TestBudgetPage(t *testing.T) {
	bills := billsDouble{}
	srv := apptest.StartServer(t, apptest.ServerOptions{NoWorker: true, Bills: bills})
	u := testkit.MustCreateUser(t, srv.DB, testkit.UserOpts{})
	e := &importEnv{srv: srv, user: u}
	cats := budgetFamily(t, e, u.FamilyID)
	theirs := budgetFamily(t, e, testkit.MustCreateUser(t, srv.DB, testkit.UserOpts{}).FamilyID)
	bills[uuid.MustParse(cats["Rent"])] = budgets.Expected{Upcoming: decimal.NewFromInt(45)}
	acct := testkit.MustCreateAccount(t, srv.DB, u.FamilyID, "Checking", "Depository", "100")
	if _, err := srv.DB.NewRaw(`INSERT INTO entries (id, family_id, account_id, kind, date, amount, currency, name, category_id)
		VALUES (gen_random_uuid(), ?, ?, 'transaction', date_trunc('month', current_date), 80, 'USD', 'Market', ?),
			(gen_random_uuid(), ?, ?, 'transaction', date_trunc('month', current_date), 15, 'USD', 'Kiosk', NULL)`,
		u.FamilyID, acct.ID, cats["Groceries"], u.FamilyID, acct.ID).Exec(context.Background()); err != nil {
		t.Fatal(err)
	}
	month := reports.MonthOf(u.Family.Today())
	page := "/budgets/" + month.String()
	c := apptest.NewClient(t, srv)
	c.SignIn(u.Email, testkit.Password)

	if r := c.Get("/budgets"); r.Status != http.StatusFound || r.Location() != page {
		t.Fatalf("/budgets: %d to %s, want %s", r.Status, r.Location(), page)
	}
	r := c.Get(page)
	if r.Status != http.StatusOK {
		t.Fatalf("%s: %d", page, r.Status)
	}
	doc := r.Doc(t)
	if got := doc.Find(`[data-testid="nav-budgets"][aria-current="page"]`).Length(); got != 1 {
		t.Errorf("the navigation does not mark Budgets")
	}
	if href, _ := doc.Find(`[data-testid="budget-category-` + cats["Groceries"] + `"]`).Attr("href"); !strings.Contains(href, "category_id="+cats["Groceries"]) ||
		!strings.Contains(href, "start_date="+month.First().Format("2006-01-02")) || !strings.Contains(href, "end_date="+month.Last().Format("2006-01-02")) {
		t.Errorf("Groceries links to %q", href)
	}
	// A parent's row lists its subcategories' transactions too, and the spending without a
	// category lists the transactions without one.
	for _, l := range []struct{ row, has, hasNot string }{{cats["Food"], "Market", "Kiosk"}, {"none", "Kiosk", "Market"}} {
		href, _ := doc.Find(`[data-testid="budget-category-` + l.row + `"]`).Attr("href")
		list := c.Get(href)
		if list.Status != http.StatusOK || !strings.Contains(list.Body, l.has) || strings.Contains(list.Body, l.hasNot) {
			t.Errorf("the row %s links to %q: %d, want %s listed and not %s", l.row, href, list.Status, l.has, l.hasNot)
		}
	}
	if got := r.TestID(t, "upcoming-"+cats["Rent"]); !strings.Contains(got, "$45.00 still expected") {
		t.Errorf("Rent's upcoming: %q", got)
	}
	if !r.Has(t, "forecast-method") {
		t.Error("the page does not say how it forecasts")
	}

	post := func(t *testing.T, path string, v url.Values, hx bool) *testkit.Response {
		t.Helper()
		if !hx {
			return c.PostForm(path, v)
		}
		v.Set("_csrf", csrfOf(t, c))
		return c.Do(http.MethodPost, path, strings.NewReader(v.Encode()), map[string]string{
			"Content-Type": "application/x-www-form-urlencoded", "HX-Request": "true", "HX-Target": "budget-section"})
	}
	t.Run("an amount typed with a thousands separator, without JavaScript", func(t *testing.T) {
		r := post(t, page+"/categories/"+cats["Rent"], url.Values{"budgeted": {"1,200.50"}}, false)
		if r.Status != http.StatusSeeOther || r.Location() != page {
			t.Fatalf("%d to %s", r.Status, r.Location())
		}
		if got := c.Get(page).TestID(t, "available-"+cats["Rent"]); got != "$1,200.50" {
			t.Errorf("Rent available %q", got)
		}
	})
	t.Run("with htmx the section comes back, an over category marked", func(t *testing.T) {
		r := post(t, page+"/categories/"+cats["Groceries"], url.Values{"budgeted": {"50"}}, true)
		if r.Status != http.StatusOK || !r.Has(t, "budget-section") || r.Has(t, "page-title") {
			t.Fatalf("%d: %s", r.Status, r.Body)
		}
		if got := r.TestID(t, "status-"+cats["Groceries"]); !strings.HasPrefix(got, "Over") {
			t.Errorf("Groceries spent 80 of 50: %q", got)
		}
	})
	t.Run("a refused amount says why", func(t *testing.T) {
		r := post(t, page+"/categories/"+cats["Groceries"], url.Values{"budgeted": {"-3"}}, true)
		if r.Status != http.StatusOK || !strings.Contains(r.TestID(t, "budget-error"), "zero or more") {
			t.Errorf("%d: %s", r.Status, r.Body)
		}
	})
	t.Run("another family's category is not found", func(t *testing.T) {
		if r := post(t, page+"/categories/"+theirs["Rent"], url.Values{"budgeted": {"5"}}, false); r.Status != http.StatusNotFound {
			t.Errorf("%d", r.Status)
		}
	})
	t.Run("the rollover", func(t *testing.T) {
		post(t, page+"/categories/"+cats["Rent"], url.Values{"rollover": {"both"}}, true)
		sel := c.Get(page).Doc(t).Find(`[data-testid="rollover-` + cats["Rent"] + `"] option[selected]`)
		if v, _ := sel.Attr("value"); v != "both" {
			t.Errorf("Rent's rollover shows %q", v)
		}
	})
	t.Run("a move and its undo", func(t *testing.T) {
		r := post(t, page+"/moves", url.Values{"from_category_id": {cats["Rent"]}, "to_category_id": {cats["Groceries"]}, "amount": {"30"}, "reason": {"party"}}, true)
		if got := r.TestID(t, "available-"+cats["Groceries"]); got != "$0.00" {
			t.Errorf("Groceries after the move: %q", got)
		}
		undo, ok := r.Doc(t).Find(`[data-testid="move-undo"]`).Parent().Attr("action")
		if !ok {
			t.Fatalf("no undo: %s", r.Body)
		}
		r = post(t, undo, url.Values{}, true)
		if got := r.TestID(t, "available-"+cats["Groceries"]); got != "-$30.00" {
			t.Errorf("Groceries after the undo: %q", got)
		}
	})
	t.Run("copy to the next month", func(t *testing.T) {
		r := post(t, page+"/copy", url.Values{}, false)
		next := "/budgets/" + month.Next().String()
		if r.Status != http.StatusSeeOther || r.Location() != next {
			t.Fatalf("%d to %s", r.Status, r.Location())
		}
		if got := c.Get(next).Doc(t).Find(`[data-testid="budgeted-`+cats["Rent"]+`"]`).AttrOr("value", ""); got != "1200.50" {
			t.Errorf("next month's Rent %q", got)
		}
	})
	t.Run("the dashboard's card", func(t *testing.T) {
		r := c.Get("/")
		if !r.Has(t, "this-month") || !strings.Contains(r.TestID(t, "this-month-over"), "Groceries") || r.TestID(t, "this-month-bills") != "$45.00 in bills still to come" {
			t.Errorf("dashboard: %s", r.Doc(t).Find(`[data-testid="this-month"]`).Text())
		}
	})
}
