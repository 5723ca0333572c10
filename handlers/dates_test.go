package handlers_test

import (
	"context"
	"encoding/base64"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/google/uuid"

	"tally/app/apptest"
	"tally/models"
	"tally/testkit"
)

// Out of range: what each route says of a day or a month it does not take.
const (
	dayOutOfRange   = " is out of range: give one from 1970-01-01 to 2100-12-31"
	monthOutOfRange = " is out of range: give one from 1970-01 to 2100-12"
)

// TestDatesOutOfRangeAreNamed sends year 0 and 1, and years just outside 1970 to 2100, to every
// route that takes a day or a month: the API answers 422 naming the field, a page answers 422
// (or its form, with the field's error), and nothing is a 500 or is written. Year 0 used to be
// a 500 from PostgreSQL, and a budget line in year 1 made every read walk 24,000 months.
func TestDatesOutOfRangeAreNamed(t *testing.T) {
	t.Parallel()
	e := newImportEnv(t, apptest.ServerOptions{NoWorker: true})
	ctx := context.Background()
	acct := testkit.MustCreateAccount(t, e.srv.DB, e.user.FamilyID, "Checking", "Depository", "100")
	cats := budgetFamily(t, e, e.user.FamilyID)
	groceries := cats["Groceries"]
	txn := e.mustPost(t, "/api/v1/transactions", map[string]any{"account_id": acct.ID.String(), "date": "2026-03-01", "amount": "10", "name": "Shop"})
	series := uuid.Must(uuid.NewV7()).String()
	if _, err := e.srv.DB.NewRaw(`INSERT INTO recurring_transactions (id, family_id, account_id, name, amount, currency,
			expected_day_of_month, last_occurrence_date, next_expected_date)
		VALUES (?, ?, ?, 'Gym', 20, 'USD', 1, '2026-03-01', '2026-04-01')`, series, e.user.FamilyID, acct.ID).Exec(ctx); err != nil {
		t.Fatal(err)
	}
	month := func(field, s string) string { return `"` + field + `":["` + field + " " + s + monthOutOfRange + `"]` }
	day := func(field, s string) string { return `"` + field + `":["` + field + " " + s + dayOutOfRange + `"]` }
	api := "/api/v1"

	e.runAPICases(t, []apiCase{
		{name: "a budget of year 0", method: http.MethodGet, path: api + "/budgets/0000-01", key: e.read,
			status: http.StatusUnprocessableEntity, contains: []string{month("month", "0000-01")}},
		{name: "a budget of 1969", method: http.MethodGet, path: api + "/budgets/1969-12", key: e.read,
			status: http.StatusUnprocessableEntity, contains: []string{month("month", "1969-12")}},
		{name: "a budget of 2101", method: http.MethodGet, path: api + "/budgets/2101-01", key: e.read,
			status: http.StatusUnprocessableEntity, contains: []string{month("month", "2101-01")}},
		{name: "a budget of year 1 set whole", method: http.MethodPut, path: api + "/budgets/0001-01",
			body: map[string]any{"categories": []any{}}, status: http.StatusUnprocessableEntity, contains: []string{month("month", "0001-01")}},
		{name: "the rollover of a category in year 1", method: http.MethodPatch, path: api + "/budgets/0001-01/categories/" + groceries,
			body: map[string]any{"rollover": "both"}, status: http.StatusUnprocessableEntity, contains: []string{month("month", "0001-01")}},
		{name: "a move in year 0", method: http.MethodPost, path: api + "/budgets/0000-01/moves",
			body:   map[string]any{"from_category_id": groceries, "to_category_id": cats["Rent"], "amount": "1"},
			status: http.StatusUnprocessableEntity, contains: []string{month("month", "0000-01")}},
		{name: "the undo of a move in year 0", method: http.MethodPost, path: api + "/budgets/0000-01/moves/" + uuid.NewString() + "/undo",
			status: http.StatusUnprocessableEntity, contains: []string{month("month", "0000-01")}},
		{name: "a fill of year 0", method: http.MethodPost, path: api + "/budgets/0000-01/fill", body: map[string]any{"strategy": "average_3"},
			status: http.StatusUnprocessableEntity, contains: []string{month("month", "0000-01")}},
		{name: "a goal by year 0", method: http.MethodPost, path: api + "/budgets/2026-12/fill",
			body:   map[string]any{"strategy": "goal", "category_id": groceries, "target": "100", "by": "0000-01"},
			status: http.StatusUnprocessableEntity, contains: []string{month("by", "0000-01")}},
		{name: "a goal by 2101", method: http.MethodPost, path: api + "/budgets/2026-12/fill",
			body:   map[string]any{"strategy": "goal", "category_id": groceries, "target": "100", "by": "2101-01"},
			status: http.StatusUnprocessableEntity, contains: []string{month("by", "2101-01")}},

		{name: "a rate of year 0", method: http.MethodPost, path: api + "/exchange_rates",
			body:   map[string]any{"date": "0000-01-01", "base": "EUR", "quote": "USD", "rate": "1.1"},
			status: http.StatusUnprocessableEntity, contains: []string{day("date", "0000-01-01")}},
		{name: "a rate of 1969", method: http.MethodPost, path: api + "/exchange_rates",
			body:   map[string]any{"date": "1969-12-31", "base": "EUR", "quote": "USD", "rate": "1.1"},
			status: http.StatusUnprocessableEntity, contains: []string{day("date", "1969-12-31")}},
		{name: "a conversion on year 0", method: http.MethodGet, path: api + "/exchange_rates?base=EUR&quote=USD&date=0000-01-01", key: e.read,
			status: http.StatusUnprocessableEntity, contains: []string{day("date", "0000-01-01")}},
		{name: "the rates of year 0", method: http.MethodGet, path: api + "/exchange_rates?date=0000-01-01", key: e.read,
			status: http.StatusUnprocessableEntity, contains: []string{day("date", "0000-01-01")}},

		{name: "the net worth of year 0", method: http.MethodGet, path: api + "/net_worth?date=0000-01-01", key: e.read,
			status: http.StatusUnprocessableEntity, contains: []string{day("date", "0000-01-01")}},
		{name: "balances from year 0 to 2101", method: http.MethodGet, path: api + "/accounts/" + acct.ID.String() + "/balances?start_date=0000-01-01&end_date=2101-01-01",
			key: e.read, status: http.StatusUnprocessableEntity, contains: []string{day("start_date", "0000-01-01"), day("end_date", "2101-01-01")}},

		{name: "transactions from year 0", method: http.MethodGet, path: api + "/transactions?start_date=0000-01-01", key: e.read,
			status: http.StatusUnprocessableEntity, contains: []string{day("start_date", "0000-01-01")}},
		{name: "transactions up to 2101", method: http.MethodGet, path: api + "/transactions?end_date=2101-01-01", key: e.read,
			status: http.StatusUnprocessableEntity, contains: []string{day("end_date", "2101-01-01")}},
		{name: "a cursor of year 0, which no page gave", method: http.MethodGet, key: e.read,
			path:   api + "/transactions?cursor=" + base64.RawURLEncoding.EncodeToString([]byte("0000-01-01_"+txn)),
			status: http.StatusUnprocessableEntity, contains: []string{`"cursor":[`}},
		{name: "a transaction of year 0", method: http.MethodPost, path: api + "/transactions",
			body:   map[string]any{"account_id": acct.ID.String(), "date": "0000-01-01", "amount": "5", "name": "Shop"},
			status: http.StatusUnprocessableEntity, contains: []string{day("date", "0000-01-01")}},
		{name: "a transaction moved to year 0", method: http.MethodPatch, path: api + "/transactions/" + txn, body: map[string]any{"date": "0000-01-01"},
			status: http.StatusUnprocessableEntity, contains: []string{day("date", "0000-01-01")}},

		{name: "a series next due in year 0", method: http.MethodPatch, path: api + "/recurring/" + series, body: map[string]any{"next_date": "0000-01-01"},
			status: http.StatusUnprocessableEntity, contains: []string{day("next_date", "0000-01-01")}},
		{name: "a rule effective from year 0", method: http.MethodPost, path: api + "/rules",
			body:   map[string]any{"actions": []any{map[string]any{"action_type": "exclude_transaction"}}, "effective_date": "0000-01-01"},
			status: http.StatusUnprocessableEntity, contains: []string{day("effective_date", "0000-01-01")}},
	})
	super := testkit.MustCreateUser(t, e.srv.DB, testkit.UserOpts{FamilyID: e.user.FamilyID, Role: models.RoleSuperAdmin})
	c := apptest.NewClient(t, e.srv)
	c.SignIn(super.Email, testkit.Password)
	htmx := func(path string, v url.Values) *testkit.Response {
		v.Set("_csrf", csrfOf(t, c))
		return c.Do(http.MethodPost, path, strings.NewReader(v.Encode()), map[string]string{
			"Content-Type": "application/x-www-form-urlencoded", "HX-Request": "true", "HX-Target": "budget-section"})
	}
	for _, tc := range []struct {
		name   string
		send   func() *testkit.Response
		status int
		says   string
	}{
		{"the budget page of year 0", func() *testkit.Response { return c.Get("/budgets/0000-01") }, http.StatusUnprocessableEntity, "month 0000-01" + monthOutOfRange},
		{"the rollover set on the page in year 1", func() *testkit.Response {
			return c.PostForm("/budgets/0001-01/categories/"+groceries, url.Values{"rollover": {"both"}})
		}, http.StatusUnprocessableEntity, "month 0001-01" + monthOutOfRange},
		{"a goal by year 0 on the page", func() *testkit.Response {
			return htmx("/budgets/2026-12/fill", url.Values{"strategy": {"goal"}, "category_id": {groceries}, "target": {"100"}, "by": {"0000-01"}})
		}, http.StatusOK, "by 0000-01" + monthOutOfRange},
		{"a copy past 2100-12", func() *testkit.Response { return c.PostForm("/budgets/2100-12/copy", url.Values{}) },
			http.StatusUnprocessableEntity, "month 2101-01" + monthOutOfRange},
		{"the spending of year 0", func() *testkit.Response { return c.Get("/reports/spending?month=0000-01") },
			http.StatusUnprocessableEntity, "month 0000-01" + monthOutOfRange},
		{"a rate of year 0 on the page", func() *testkit.Response {
			return c.PostForm("/settings/exchange_rates", url.Values{"date": {"0000-01-01"}, "base": {"EUR"}, "quote": {"USD"}, "rate": {"1.1"}})
		}, http.StatusUnprocessableEntity, "date 0000-01-01" + dayOutOfRange},
		{"the transactions from year 0", func() *testkit.Response { return c.Get("/transactions?start_date=0000-01-01") },
			http.StatusUnprocessableEntity, "start_date 0000-01-01" + dayOutOfRange},
		{"a transaction of year 0 on the page", func() *testkit.Response {
			return c.PostForm("/accounts/"+acct.ID.String()+"/transactions", url.Values{"date": {"0000-01-01"}, "amount": {"5"}, "direction": {"out"}, "name": {"Shop"}})
		}, http.StatusUnprocessableEntity, "date 0000-01-01" + dayOutOfRange},
		{"a transaction moved to year 0 on the page", func() *testkit.Response {
			return c.PostForm("/transactions/"+txn, url.Values{"date": {"0000-01-01"}, "amount": {"10"}, "direction": {"out"}, "name": {"Shop"}})
		}, http.StatusUnprocessableEntity, "date 0000-01-01" + dayOutOfRange},
		{"a rule effective from year 0 on the page", func() *testkit.Response {
			return c.PostForm("/settings/rules", url.Values{"name": {"Old"}, "match": {"all"}, "action_exclude": {"1"}, "effective_date": {"0000-01-01"}})
		}, http.StatusUnprocessableEntity, "effective_date 0000-01-01" + dayOutOfRange},
		{"the audit log from year 0", func() *testkit.Response { return c.Get("/admin/sso_audit_logs?from=0000-01-01") },
			http.StatusUnprocessableEntity, "from 0000-01-01" + dayOutOfRange},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := tc.send()
			if r.Status != tc.status || !strings.Contains(r.Body, tc.says) {
				t.Errorf("answered %d, want %d saying %q: %s", r.Status, tc.status, tc.says, r.Body)
			}
		})
	}
	var written int
	if err := e.srv.DB.NewRaw(`SELECT (SELECT count(*) FROM budgets WHERE family_id = ?0) + (SELECT count(*) FROM exchange_rates WHERE family_id = ?0)
		+ (SELECT count(*) FROM rules WHERE family_id = ?0) + (SELECT count(*) FROM entries WHERE family_id = ?0 AND date NOT BETWEEN '1970-01-01' AND '2100-12-31')`,
		e.user.FamilyID).Scan(ctx, &written); err != nil || written != 0 {
		t.Errorf("%d budgets, rates, rules or entries out of range written (%v), want none", written, err)
	}
}
