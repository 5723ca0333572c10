package handlers_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/google/uuid"
	"github.com/shopspring/decimal"

	"tally/app/apptest"
	"tally/banksync/fakesimplefin"
	"tally/models"
	"tally/testkit"
	"tally/webhooks/webhookstest"
)

// privateHousehold is a family of two admins: Ana keeps a private account, Secret, that Ben
// (an admin too, so that every family-wide page is his to open) may not see; both see Joint.
// Each is signed in with a client of their own and holds a read_write API key.
type privateHousehold struct {
	srv              *apptest.Server
	ana, ben         *models.User
	anaC, benC       *testkit.Client
	anaKey, benKey   string
	joint, secret    *models.Account
	groceries        uuid.UUID
	anaView, benView models.Viewer
}

func newPrivateHousehold(t *testing.T, opts apptest.ServerOptions) *privateHousehold {
	t.Helper()
	ctx := context.Background()
	srv := apptest.StartServer(t, opts)
	h := &privateHousehold{srv: srv}
	h.ana = testkit.MustCreateUser(t, srv.DB, testkit.UserOpts{Email: "ana-" + uuid.NewString()[:6] + "@example.com"})
	h.ben = testkit.MustCreateUser(t, srv.DB, testkit.UserOpts{Email: "ben-" + uuid.NewString()[:6] + "@example.com",
		FamilyID: h.ana.FamilyID, Role: models.RoleAdmin})
	h.joint = testkit.MustCreateAccount(t, srv.DB, h.ana.FamilyID, "Joint", "Depository", "")
	h.secret = testkit.MustCreateAccount(t, srv.DB, h.ana.FamilyID, "Secret", "Depository", "")
	h.exec(t, "UPDATE accounts SET private = true, owner_id = ? WHERE id = ?", h.ana.ID, h.secret.ID)
	cat, err := models.CreateCategory(ctx, srv.DB, h.ana.FamilyID, models.CategoryInput{Name: testkit.Ptr("Groceries"), Classification: testkit.Ptr(models.CategoryExpense)})
	if err != nil {
		t.Fatal(err)
	}
	h.groceries = cat.ID
	for _, p := range []struct {
		u   *models.User
		c   **testkit.Client
		key *string
		v   *models.Viewer
	}{{h.ana, &h.anaC, &h.anaKey, &h.anaView}, {h.ben, &h.benC, &h.benKey, &h.benView}} {
		*p.c = apptest.NewClient(t, srv)
		(*p.c).SignIn(p.u.Email, testkit.Password)
		*p.key = testkit.MustCreateAPIKey(t, srv.DB, p.u.ID, models.ScopeReadWrite)
		if *p.v, err = models.ViewerOf(ctx, srv.DB, p.u); err != nil {
			t.Fatal(err)
		}
	}
	if !h.benView.HidesAny() || h.anaView.HidesAny() {
		t.Fatalf("Ben should not see Secret, Ana should: %+v %+v", h.benView, h.anaView)
	}
	return h
}

func (h *privateHousehold) exec(t *testing.T, query string, args ...any) {
	t.Helper()
	if _, err := h.srv.DB.NewRaw(query, args...).Exec(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// spend writes a transaction of amount (money out is positive) into the account on date, in
// Groceries, and returns its id.
func (h *privateHousehold) spend(t *testing.T, account *models.Account, date, amount, name string) uuid.UUID {
	t.Helper()
	id := uuid.Must(uuid.NewV7())
	h.exec(t, `INSERT INTO entries (id, family_id, account_id, kind, date, amount, currency, name, category_id)
		VALUES (?, ?, ?, 'transaction', ?, ?, 'USD', ?, ?)`, id, h.ana.FamilyID, account.ID, date, amount, name, h.groceries)
	return id
}

// notFound fails the test unless each path answers the client 404, as another family's would.
func notFound(t *testing.T, c *testkit.Client, method string, paths ...string) {
	t.Helper()
	for _, p := range paths {
		var r *testkit.Response
		switch method {
		case http.MethodGet:
			r = c.Get(p)
		default:
			r = c.PostForm(p, nil)
		}
		if r.Status != http.StatusNotFound {
			t.Errorf("%s %s: %d, want 404 as for another family's", method, p, r.Status)
		}
	}
}

// apiNotFound fails the test unless each API path answers the key 404.
func apiNotFound(t *testing.T, c *testkit.Client, key, method string, paths ...string) {
	t.Helper()
	for _, p := range paths {
		if r := c.API(method, p, key, nil); r.Status != http.StatusNotFound {
			t.Errorf("%s %s: %d %s, want 404 as for another family's", method, p, r.Status, r.Body)
		}
	}
}

// The spending report counts only the accounts the reader can see: Ben's month is Joint's
// 30.00, Ana's Joint's and her own Secret's 30.00 + 70.00.
func TestSpendingCountsOnlyVisibleAccounts(t *testing.T) {
	t.Parallel()
	h := newPrivateHousehold(t, apptest.ServerOptions{NoWorker: true})
	h.spend(t, h.joint, "2026-10-05", "30.00", "Market")
	h.spend(t, h.secret, "2026-10-06", "70.00", "Deli")
	for _, tc := range []struct {
		who  string
		c    *testkit.Client
		want string
	}{{"Ben", h.benC, "$30.00"}, {"Ana", h.anaC, "$100.00"}} {
		doc := tc.c.Get("/reports/spending?month=2026-10").Doc(t)
		if got := doc.Find(`[data-testid="spending-total"]`).Text(); got != tc.want {
			t.Errorf("%s's spending in October: %q, want %s", tc.who, got, tc.want)
		}
	}
}

// budgetOf reads the month's budget through the API with key: its figures, and Groceries'.
func (h *privateHousehold) budgetOf(t *testing.T, c *testkit.Client, key, month string) (budget map[string]any, groceries map[string]any) {
	t.Helper()
	r := c.API(http.MethodGet, "/api/v1/budgets/"+month, key, nil)
	if r.Status != http.StatusOK {
		t.Fatalf("budget of %s: %d %s", month, r.Status, r.Body)
	}
	var b struct {
		Data map[string]any `json:"data"`
	}
	r.JSON(t, &b)
	for _, c := range b.Data["categories"].([]any) {
		if c := c.(map[string]any); c["category_id"] == h.groceries.String() {
			groceries = c
		}
	}
	return b.Data, groceries
}

// A budget counts the spending, carries and bills of the accounts its reader can see, and says
// so when some are kept from them; the budgeted amounts are the family's plan, the same for
// both. Groceries budgets 100.00 a month and carries overspending: last month Joint spent 20.00
// and Ana's Secret 90.00, this month 30.00 and 70.00, and a weekly 10.00 bill of Secret is
// due from today.
func TestBudgetCountsOnlyVisibleAccounts(t *testing.T) {
	t.Parallel()
	h := newPrivateHousehold(t, apptest.ServerOptions{NoWorker: true})
	today := h.ana.Family.Today()
	this := time.Date(today.Year(), today.Month(), 1, 0, 0, 0, 0, time.UTC)
	last := this.AddDate(0, -1, 0)
	for _, m := range []time.Time{last, this} {
		body := map[string]any{"budgeted": "100.00", "rollover": "both"}
		if r := h.anaC.API(http.MethodPatch, "/api/v1/budgets/"+m.Format("2006-01")+"/categories/"+h.groceries.String(), h.anaKey, body); r.Status != http.StatusOK {
			t.Fatalf("budget %s: %d %s", m.Format("2006-01"), r.Status, r.Body)
		}
	}
	h.spend(t, h.joint, last.Format(time.DateOnly), "20.00", "Market")
	h.spend(t, h.secret, last.Format(time.DateOnly), "90.00", "Deli")
	h.spend(t, h.joint, this.Format(time.DateOnly), "30.00", "Market")
	h.spend(t, h.secret, this.Format(time.DateOnly), "70.00", "Deli")
	testkit.MustCreateSeries(t, h.srv.DB, h.ana.FamilyID, &h.secret.ID, 1, models.RecurringConfirmed)
	bills := decimal.Zero // the weekly bill's payments from today to the month's end
	for d := today; d.Month() == today.Month(); d = d.AddDate(0, 0, 7) {
		bills = bills.Add(decimal.NewFromInt(10))
	}
	// At this pace, what was spent by today goes on for the days left.
	elapsed, days := decimal.NewFromInt(int64(today.Day())), decimal.NewFromInt(int64(this.AddDate(0, 1, -1).Day()))
	forecast := func(spent int64) string {
		s := decimal.NewFromInt(spent)
		return s.Add(s.Mul(days.Sub(elapsed)).Div(elapsed)).StringFixed(2)
	}
	for _, tc := range []struct {
		who                                      string
		c                                        *testkit.Client
		key, spent, carried, bills, forecastWant string
	}{
		{"Ben", h.benC, h.benKey, "30.00", "80.00", "0.00", forecast(30)},
		{"Ana", h.anaC, h.anaKey, "100.00", "-10.00", bills.StringFixed(2), forecast(100)},
	} {
		b, g := h.budgetOf(t, tc.c, tc.key, this.Format("2006-01"))
		if g == nil {
			t.Fatalf("%s's budget has no Groceries: %v", tc.who, b)
		}
		got := []any{b["spent"], b["upcoming"], b["budgeted"], g["spent"], g["carried"], g["budgeted"], g["forecast"]}
		want := []any{tc.spent, tc.bills, "100.00", tc.spent, tc.carried, "100.00", tc.forecastWant}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s's budget (spent, bills, budgeted; Groceries' spent, carried, budgeted, forecast)\n got %v\nwant %v", tc.who, got, want)
		}
	}
	const note = "Counts the accounts you can see; some of the family's accounts are private."
	benPage := h.benC.Get("/budgets/" + this.Format("2006-01")).Doc(t)
	if got := strings.TrimSpace(benPage.Find(`[data-testid="budget-partial"]`).Text()); got != note {
		t.Errorf("Ben's budget page says %q, want %q", got, note)
	}
	if strings.Contains(benPage.Text(), "Secret") {
		t.Error("Ben's budget page names Secret")
	}
	if h.anaC.Get("/budgets/"+this.Format("2006-01")).Has(t, "budget-partial") {
		t.Error("Ana sees every account, yet her budget says some are left out")
	}
	// A fill by the average of the three months before writes what Ben could see of them:
	// (20.00 + 30.00) / 3, not (110.00 + 100.00) / 3.
	next := this.AddDate(0, 1, 0).Format("2006-01")
	if r := h.benC.API(http.MethodPost, "/api/v1/budgets/"+next+"/fill", h.benKey, map[string]any{"strategy": "average_3"}); r.Status != http.StatusOK {
		t.Fatalf("fill: %d %s", r.Status, r.Body)
	}
	if _, g := h.budgetOf(t, h.anaC, h.anaKey, next); g == nil || g["budgeted"] != forecastFill(20+30, 3) {
		t.Errorf("Ben's fill budgeted %v for Groceries, want %s", g, forecastFill(20+30, 3))
	}
}

// forecastFill is an average of months' spending as a fill rounds it.
func forecastFill(total, months int64) string {
	return decimal.NewFromInt(total).Div(decimal.NewFromInt(months)).StringFixed(2)
}

// seriesOf writes a confirmed weekly 10.00 series due today on the account (none when nil),
// named name, and returns its id.
func (h *privateHousehold) seriesOf(t *testing.T, account *models.Account, name string) uuid.UUID {
	t.Helper()
	var id *uuid.UUID
	if account != nil {
		id = &account.ID
	}
	testkit.MustCreateSeries(t, h.srv.DB, h.ana.FamilyID, id, 1, models.RecurringConfirmed)
	var series uuid.UUID
	if err := h.srv.DB.NewRaw(`UPDATE recurring_transactions SET name = ?, match_key = 'n:' || lower(?)
		WHERE family_id = ? AND name = 'Series 1' RETURNING id`, name, name, h.ana.FamilyID).Scan(context.Background(), &series); err != nil {
		t.Fatal(err)
	}
	return series
}

// A series of a private account is not listed, counted, forecast or found for whom the account
// is kept from; one of a shared account, or of none, is. Ana sees all three.
func TestRecurringSeriesOfHiddenAccountsAreNotFound(t *testing.T) {
	t.Parallel()
	h := newPrivateHousehold(t, apptest.ServerOptions{NoWorker: true})
	gym := h.seriesOf(t, h.secret, "Secret Gym")
	h.seriesOf(t, h.joint, "Joint Power")
	h.seriesOf(t, nil, "Any Rent")

	names := func(c *testkit.Client, key string) (page, api, comingUp []string, total float64) {
		t.Helper()
		c.Get("/recurring").Doc(t).Find(`[data-testid="recurring-name"]`).Each(func(_ int, s *goquery.Selection) {
			page = append(page, s.Text())
		})
		var b struct {
			Data []struct{ Name string }
			Meta map[string]any
		}
		c.API(http.MethodGet, "/api/v1/recurring", key, nil).JSON(t, &b)
		for _, r := range b.Data {
			api = append(api, r.Name)
		}
		c.Get("/").Doc(t).Find(`[data-testid="coming-up-name"]`).Each(func(_ int, s *goquery.Selection) {
			if !slices.Contains(comingUp, s.Text()) {
				comingUp = append(comingUp, s.Text())
			}
		})
		slices.Sort(page)
		slices.Sort(api)
		slices.Sort(comingUp)
		total, _ = b.Meta["total_count"].(float64)
		return page, api, comingUp, total
	}
	for _, tc := range []struct {
		who   string
		c     *testkit.Client
		key   string
		want  []string
		total float64
	}{
		{"Ben", h.benC, h.benKey, []string{"Any Rent", "Joint Power"}, 2},
		{"Ana", h.anaC, h.anaKey, []string{"Any Rent", "Joint Power", "Secret Gym"}, 3},
	} {
		page, api, comingUp, total := names(tc.c, tc.key)
		for what, got := range map[string][]string{"/recurring": page, "the API": api, "the dashboard's bills to come": comingUp} {
			if !slices.Equal(got, tc.want) {
				t.Errorf("%s's series on %s: %v, want %v", tc.who, what, got, tc.want)
			}
		}
		if total != tc.total {
			t.Errorf("%s's API counts %v series, want %v", tc.who, total, tc.total)
		}
	}
	notFound(t, h.benC, http.MethodGet, "/recurring/"+gym.String()+"/edit")
	notFound(t, h.benC, http.MethodPost, "/recurring/"+gym.String()+"/status", "/recurring/"+gym.String())
	apiNotFound(t, h.benC, h.benKey, http.MethodGet, "/api/v1/recurring/"+gym.String(), "/api/v1/accounts/"+h.secret.ID.String()+"/forecast")
	if r := h.benC.API(http.MethodPatch, "/api/v1/recurring/"+gym.String(), h.benKey, map[string]any{"status": "ignored"}); r.Status != http.StatusNotFound {
		t.Errorf("Ben ignores Ana's series: %d, want 404", r.Status)
	}
	if r := h.anaC.API(http.MethodGet, "/api/v1/recurring/"+gym.String(), h.anaKey, nil); r.Status != http.StatusOK {
		t.Errorf("Ana's own series: %d", r.Status)
	}
	// The forecast of Joint has Joint's bills; Secret's forecast is Ana's alone.
	var f struct {
		Data struct {
			Days []struct{ Bills []struct{ Name string } }
		}
	}
	h.benC.API(http.MethodGet, "/api/v1/accounts/"+h.joint.ID.String()+"/forecast?days=1", h.benKey, nil).JSON(t, &f)
	if len(f.Data.Days) != 1 || len(f.Data.Days[0].Bills) != 1 || f.Data.Days[0].Bills[0].Name != "Joint Power" {
		t.Errorf("Joint's forecast for today: %+v", f.Data.Days)
	}
	if r := h.anaC.API(http.MethodGet, "/api/v1/accounts/"+h.secret.ID.String()+"/forecast?days=1", h.anaKey, nil); r.Status != http.StatusOK {
		t.Errorf("Ana's forecast of Secret: %d", r.Status)
	}
}

// An import into a private account, its rows, file and statements' reconciliation are not
// found by whom the account is kept from: not listed, not counted, and each of their routes
// answers 404 as for another family's. Ana, whose account it is, sees and uses them all.
func TestImportsAndReconciliationOfAHiddenAccountAreNotFound(t *testing.T) {
	t.Parallel()
	h := newPrivateHousehold(t, apptest.ServerOptions{})
	e := &importEnv{srv: h.srv, user: h.ana, c: apptest.NewClient(t, h.srv), write: h.anaKey, read: h.anaKey}
	e.statement(t, "CamtImport", camt053(testIBAN, "1000.00", "2026-03-02", "3334.40", "2026-03-04",
		"REF1 2026-03-02 CRDT 2500.00 Acme Payroll", "REF2 2026-03-03 DBIT 45.60 Corner Bakery", "REF3 2026-03-04 DBIT 120.00 City Power"))
	acct := e.accountByKey(t, "iban:"+testIBAN)
	// The next statement opens 999.06 above where the first closed: a checkpoint that differs.
	second := e.statement(t, "CamtImport", camt053(testIBAN, "4333.46", "2026-03-05", "4303.46", "2026-03-05",
		"REF4 2026-03-05 DBIT 30.00 Book Shop"))
	h.exec(t, "UPDATE accounts SET private = true, owner_id = ? WHERE id = ?", h.ana.ID, acct)
	// A shared import Ben may see: a transaction of Joint's.
	var joint importBody
	e.create(t, map[string]any{"type": "TransactionImport", "account_id": h.joint.ID.String(), "publish": "true",
		"raw_file_content": "date,amount,name\n2026-03-01,-12.50,Corner Shop\n"}, http.StatusCreated).JSON(t, &joint)
	e.waitFor(t, joint.Data.ID)

	importIDs := func(c *testkit.Client, key string) (page, api []string, total float64) {
		t.Helper()
		c.Get("/imports").Doc(t).Find(`a[href^="/imports/"]`).Each(func(_ int, s *goquery.Selection) {
			href, _ := s.Attr("href")
			if id, ok := strings.CutPrefix(href, "/imports/"); ok && len(id) == 36 && !slices.Contains(page, id) {
				page = append(page, id)
			}
		})
		var b struct {
			Data []struct{ ID string }
			Meta map[string]any
		}
		c.API(http.MethodGet, "/api/v1/imports", key, nil).JSON(t, &b)
		for _, im := range b.Data {
			api = append(api, im.ID)
		}
		slices.Sort(page)
		slices.Sort(api)
		total, _ = b.Meta["total_count"].(float64)
		return page, api, total
	}
	if page, api, total := importIDs(h.benC, h.benKey); !slices.Equal(page, []string{joint.Data.ID}) || !slices.Equal(api, []string{joint.Data.ID}) || total != 1 {
		t.Errorf("Ben's imports: page %v, API %v of %v; want only %s", page, api, total, joint.Data.ID)
	}
	if page, api, total := importIDs(h.anaC, h.anaKey); len(page) != 3 || len(api) != 3 || total != 3 {
		t.Errorf("Ana's imports: page %v, API %v of %v; want all three", page, api, total)
	}

	var rec reconciliationBody
	h.anaC.API(http.MethodGet, "/api/v1/accounts/"+acct.String()+"/reconciliation", h.anaKey, nil).JSON(t, &rec)
	if len(rec.Data) == 0 || rec.Data[0].Status != "differs" {
		t.Fatalf("Ana's reconciliation of her account: %+v", rec)
	}
	im := "/imports/" + second.Data.ID
	notFound(t, h.benC, http.MethodGet, im, im+"/progress", im+"/file")
	notFound(t, h.benC, http.MethodPost, im+"/publish", im+"/revert", im+"/mappings", im+"/configure", im+"/keep", im+"/profile", im+"/delete",
		"/accounts/"+acct.String()+"/checkpoints/"+rec.Data[0].ID+"/fix")
	api := "/api/v1" + im
	apiNotFound(t, h.benC, h.benKey, http.MethodGet, api, api+"/rows", api+"/file", "/api/v1/accounts/"+acct.String()+"/reconciliation")
	apiNotFound(t, h.benC, h.benKey, http.MethodPost, api+"/publish", api+"/revert", api+"/profile")
	apiNotFound(t, h.benC, h.benKey, http.MethodPatch, api, api+"/mappings")
	apiNotFound(t, h.benC, h.benKey, http.MethodDelete, api)
	// Nothing was changed by Ben's attempts: Ana still has the import, its rows and the difference.
	if got := e.get(t, second.Data.ID); got.Data.Status != "complete" {
		t.Errorf("Ana's import is %s after Ben's attempts", got.Data.Status)
	}
	for _, p := range []string{api, api + "/rows", "/api/v1/accounts/" + acct.String() + "/reconciliation"} {
		if r := h.anaC.API(http.MethodGet, p, h.anaKey, nil); r.Status != http.StatusOK {
			t.Errorf("Ana's GET %s: %d", p, r.Status)
		}
	}
	if r := h.anaC.Get(im); r.Status != http.StatusOK {
		t.Errorf("Ana's import page: %d", r.Status)
	}
}

// The family's webhooks hear nothing of a private account: Ben, an admin, points one at the
// imports and the balances that differ; Ana's import into Secret, with a balance that differs,
// sends nothing, and her import into Joint sends its import.completed alone.
func TestWebhooksSendNothingAboutAPrivateAccount(t *testing.T) {
	t.Parallel()
	h := newPrivateHousehold(t, apptest.ServerOptions{Env: map[string]string{"WEBHOOKS_ALLOW_INSECURE": "true"}})
	ana := &importEnv{srv: h.srv, user: h.ana, c: apptest.NewClient(t, h.srv), write: h.anaKey, read: h.anaKey}
	ben := &importEnv{srv: h.srv, user: h.ben, c: apptest.NewClient(t, h.srv), write: h.benKey, read: h.benKey}
	rcv := webhookstest.New(t)
	hook := ben.createWebhook(t, map[string]any{"url": rcv.URL, "events": []string{"import.completed", models.EventBalanceDiffers}})

	for _, acct := range []*models.Account{h.secret, h.joint} {
		ana.publish(t, map[string]any{"raw_file_content": runningBalanceFile(runningBalanceRows), "date_format": "%Y-%m-%d",
			"account_id": acct.ID.String(), "balance_col_label": "Balance"})
		ana.publish(t, map[string]any{"raw_file_content": runningBalanceFile([]string{"2026-03-10,Cafe,-4.60,3349.80"}),
			"date_format": "%Y-%m-%d", "account_id": acct.ID.String(), "balance_col_label": "Balance"})
	}
	// Deliveries are recorded in the publishes' transactions, all of which have committed.
	var got []string
	for _, d := range ben.deliveries(t, hook.Data.ID) {
		got = append(got, d.EventType)
	}
	if want := []string{"import.completed", "import.completed", models.EventBalanceDiffers}; !slices.Equal(sortedCopy(got), sortedCopy(want)) {
		t.Errorf("deliveries %v, want Joint's alone: %v", got, want)
	}
	var events int
	if err := h.srv.DB.NewRaw("SELECT count(*) FROM webhook_events WHERE family_id = ? AND data::text LIKE '%' || ? || '%'",
		h.ana.FamilyID, h.secret.ID.String()).Scan(context.Background(), &events); err != nil || events != 0 {
		t.Errorf("%d events recorded about Secret (%v), want none", events, err)
	}
}

func sortedCopy(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return s
}

// A person's export holds what they can see: Ben's has Joint and its transaction and nothing of
// Secret (not its name, id or amounts); Ana's has both. The page counts the same.
func TestExportHoldsOnlyWhatTheReaderCanSee(t *testing.T) {
	t.Parallel()
	h := newPrivateHousehold(t, apptest.ServerOptions{NoWorker: true})
	h.spend(t, h.joint, "2026-10-05", "30.00", "Market")
	secretSpend := h.spend(t, h.secret, "2026-10-06", "70.00", "Deli")
	testkit.MustCreateSeries(t, h.srv.DB, h.ana.FamilyID, &h.secret.ID, 1, models.RecurringConfirmed)

	types := func(body string) map[string]int {
		n := map[string]int{}
		for _, line := range strings.Split(body, "\n") {
			var rec struct{ Type string }
			if err := json.Unmarshal([]byte(line), &rec); err == nil {
				n[rec.Type]++
			}
		}
		return n
	}
	for _, tc := range []struct {
		who          string
		c            *testkit.Client
		key          string
		accounts     int
		transactions int
		series       int
		secret       bool
	}{{"Ben", h.benC, h.benKey, 1, 1, 0, false}, {"Ana", h.anaC, h.anaKey, 2, 2, 1, true}} {
		for _, r := range []*testkit.Response{tc.c.Get("/settings/export/download"), tc.c.API(http.MethodGet, "/api/v1/export", tc.key, nil)} {
			body := string(r.Body)
			n := types(body)
			if r.Status != http.StatusOK || n["Account"] != tc.accounts || n["Transaction"] != tc.transactions || n["RecurringTransaction"] != tc.series {
				t.Errorf("%s's export: %d, %v; want %d accounts, %d transactions, %d series", tc.who, r.Status, n, tc.accounts, tc.transactions, tc.series)
			}
			for _, s := range []string{"Secret", h.secret.ID.String(), secretSpend.String(), "70.00"} {
				if strings.Contains(body, s) != tc.secret {
					t.Errorf("%s's export holds %q: %v", tc.who, s, !tc.secret)
				}
			}
		}
		page := tc.c.Get("/settings/export").Doc(t)
		if got := page.Find(`[data-testid="export-counts"] dd`).First().Text(); got != fmt.Sprint(tc.accounts) {
			t.Errorf("%s's export page counts %s accounts, want %d", tc.who, got, tc.accounts)
		}
		if page.Find(`[data-testid="export-partial"]`).Length() == 1 == tc.secret {
			t.Errorf("%s's export page says whether private accounts are left out: %v", tc.who, !tc.secret)
		}
	}
}

// newBankHousehold is a private household whose Ana is a member, not an admin, and a fake
// SimpleFIN with one bank of one account ("Ana's Checking") holding one transaction.
func newBankHousehold(t *testing.T) (*privateHousehold, *fakesimplefin.Server) {
	t.Helper()
	fake := fakesimplefin.NewTest(t)
	fake.AddConnection(fakesimplefin.Connection{ID: "CON-1", Name: "First Bank", OrgID: "first", OrgName: "First Bank"})
	fake.AddAccount(fakesimplefin.Account{ID: "ACT-1", ConnID: "CON-1", Name: "Ana's Checking", Currency: "USD", Balance: "500.00", BalanceDate: time.Now()})
	fake.AddTransaction("ACT-1", fakesimplefin.Transaction{ID: "T1", Posted: time.Now().Add(-48 * time.Hour), Amount: "-19.99", Description: "Bookshop"})
	h := newPrivateHousehold(t, apptest.ServerOptions{Env: map[string]string{"BANKSYNC_ALLOW_INSECURE": "true"}})
	h.exec(t, "UPDATE users SET role = 'member' WHERE id = ?", h.ana.ID)
	return h, fake
}

// A member's own bank connection is theirs, made through the router: Ana, a member, opens the
// bank pages and connects her bank; the account it brings is private to her. Ben, a family
// admin, neither lists her connection nor reaches any of its routes (404 as another family's),
// and Ana neither lists nor reaches the family's connection Ben made, which is the admins'.
func TestAMembersBankConnectionIsTheirs(t *testing.T) {
	t.Parallel()
	h, fake := newBankHousehold(t)
	page := h.anaC.Get("/settings/bank_connections")
	if page.Status != http.StatusOK || !page.Has(t, "connect-form") || !page.Has(t, "bank-own-note") {
		t.Fatalf("a member's bank page: %d", page.Status)
	}
	if nav := h.anaC.Get("/").Doc(t).Find(`nav a[href="/settings/bank_connections"]`).Length(); nav != 1 {
		t.Errorf("a member's navigation links the bank page %d times", nav)
	}
	r := h.anaC.PostForm("/settings/bank_connections", url.Values{"setup_token": {fake.NewSetupToken()}})
	if r.Status != http.StatusSeeOther {
		t.Fatalf("connect: %d %s", r.Status, r.Body)
	}
	if got := testkitStrings(t, h.srv, "SELECT coalesce(user_id::text, 'the family') FROM bank_connections"); !slices.Equal(got, []string{h.ana.ID.String()}) {
		t.Fatalf("a member's connection is %v's, want Ana's own", got)
	}
	linkEveryAccount(t, h.anaC, r.Location())
	waitForEntries(t, h.srv, 1)
	waitForSyncsToFinish(t, h.srv)
	conn := testkitStrings(t, h.srv, "SELECT id::text FROM bank_connections")[0]
	if got := testkitStrings(t, h.srv, "SELECT name || ' private:' || private || ' ' || (owner_id = ?)::text FROM accounts WHERE source = 'simplefin'", h.ana.ID); !slices.Equal(got, []string{"Ana's Checking private:true true"}) {
		t.Errorf("the account Ana's connection brought: %v, want private to her", got)
	}
	// Ana syncs, changes and renews hers; her key does the same.
	base := "/settings/bank_connections/" + conn
	for _, path := range []string{base + "/sync", base + "/settings"} {
		if r := h.anaC.PostForm(path, url.Values{"history_days": {"30"}, "sync_time": {"07:00"}}); r.Status != http.StatusSeeOther {
			t.Errorf("Ana POST %s: %d", path, r.Status)
		}
	}
	api := "/api/v1/bank_connections/" + conn
	if r := h.anaC.API(http.MethodGet, api, h.anaKey, nil); r.Status != http.StatusOK {
		t.Errorf("Ana's connection through the API: %d %s", r.Status, r.Body)
	}

	// Ben, a family admin, makes the family's connection.
	h.benC.Get("/settings/bank_connections")
	if r := h.benC.PostForm("/settings/bank_connections", url.Values{"setup_token": {fake.NewSetupToken()}}); r.Status != http.StatusSeeOther {
		t.Fatalf("Ben connects: %d", r.Status)
	}
	family := testkitStrings(t, h.srv, "SELECT id::text FROM bank_connections WHERE user_id IS NULL")
	if len(family) != 1 {
		t.Fatalf("an admin's connection is the family's: %v", family)
	}

	listed := func(c *testkit.Client, key, id string) (page bool, api bool) {
		t.Helper()
		var b struct{ Data []struct{ ID string } }
		c.API(http.MethodGet, "/api/v1/bank_connections", key, nil).JSON(t, &b)
		return strings.Contains(string(c.Get("/settings/bank_connections").Body), id), slices.ContainsFunc(b.Data, func(d struct{ ID string }) bool { return d.ID == id })
	}
	for _, tc := range []struct {
		who     string
		c       *testkit.Client
		key, id string
		theirs  bool
	}{{"Ben", h.benC, h.benKey, conn, false}, {"Ana", h.anaC, h.anaKey, conn, true}, {"Ben", h.benC, h.benKey, family[0], true}, {"Ana", h.anaC, h.anaKey, family[0], false}} {
		if page, api := listed(tc.c, tc.key, tc.id); page != tc.theirs || api != tc.theirs {
			t.Errorf("%s lists connection %s on the page %v, through the API %v; want %v", tc.who, tc.id, page, api, tc.theirs)
		}
	}
	for _, tc := range []struct {
		c    *testkit.Client
		key  string
		conn string
	}{{h.benC, h.benKey, conn}, {h.anaC, h.anaKey, family[0]}} {
		base := "/settings/bank_connections/" + tc.conn
		notFound(t, tc.c, http.MethodGet, base+"/link", base+"/status")
		notFound(t, tc.c, http.MethodPost, base+"/link", base+"/sync", base+"/settings", base+"/reconnect", base+"/renew", base+"/delete")
		api := "/api/v1/bank_connections/" + tc.conn
		apiNotFound(t, tc.c, tc.key, http.MethodGet, api)
		apiNotFound(t, tc.c, tc.key, http.MethodPost, api+"/sync", api+"/renew")
		apiNotFound(t, tc.c, tc.key, http.MethodPatch, api+"/accounts/ACT-1")
		apiNotFound(t, tc.c, tc.key, http.MethodDelete, api)
	}

	// Ana removes hers; the account stays hers, as a manual one.
	waitForSyncsToFinish(t, h.srv)
	if r := h.anaC.PostForm(base+"/delete", nil); r.Status != http.StatusSeeOther {
		t.Fatalf("Ana disconnects: %d", r.Status)
	}
	if got := testkitStrings(t, h.srv, "SELECT id::text FROM bank_connections"); !slices.Equal(got, family) {
		t.Errorf("after Ana disconnects: %v, want the family's %v", got, family)
	}
}

// A member who leaves takes the consent at their bank with them: Ben removes Ana, and the
// connection she made is disconnected in the removal's transaction, as if she had disconnected
// it herself. The account it brought stays the family's, with its history, no longer synced,
// and the removal's audit event counts the connection. The family's own connection stays.
func TestARemovedMembersBankConnectionGoesWithThem(t *testing.T) {
	t.Parallel()
	h, fake := newBankHousehold(t)
	h.anaC.Get("/settings/bank_connections")
	r := h.anaC.PostForm("/settings/bank_connections", url.Values{"setup_token": {fake.NewSetupToken()}})
	if r.Status != http.StatusSeeOther {
		t.Fatalf("Ana connects: %d %s", r.Status, r.Body)
	}
	linkEveryAccount(t, h.anaC, r.Location())
	waitForEntries(t, h.srv, 1)
	waitForSyncsToFinish(t, h.srv)
	h.benC.Get("/settings/bank_connections")
	if r := h.benC.PostForm("/settings/bank_connections", url.Values{"setup_token": {fake.NewSetupToken()}}); r.Status != http.StatusSeeOther {
		t.Fatalf("Ben connects the family's: %d", r.Status)
	}
	family := testkitStrings(t, h.srv, "SELECT id::text FROM bank_connections WHERE user_id IS NULL")
	waitForSyncsToFinish(t, h.srv)

	h.benC.Get("/settings/family/members")
	wantRedirect(t, h.benC.PostForm("/settings/family/members/"+h.ana.ID.String()+"/remove", nil), "/settings/family/members")
	if got := testkitStrings(t, h.srv, "SELECT id::text FROM bank_connections"); !slices.Equal(got, family) {
		t.Errorf("after Ana leaves the connections are %v, want only the family's %v", got, family)
	}
	want := []string{"Ana's Checking source:none private:false owner:none entries:1"}
	if got := testkitStrings(t, h.srv, `SELECT a.name || ' source:' || coalesce(a.source, 'none') || ' private:' || a.private ||
		' owner:' || coalesce(a.owner_id::text, 'none') || ' entries:' || (SELECT count(*) FROM entries e WHERE e.account_id = a.id AND e.kind = 'transaction')
		FROM accounts a WHERE a.name = 'Ana''s Checking'`); !slices.Equal(got, want) {
		t.Errorf("the account Ana's connection brought: %v, want %v", got, want)
	}
	if got := testkitStrings(t, h.srv, "SELECT metadata->>'bank_connections_disconnected' FROM sso_audit_logs WHERE event_type = 'member_removed'"); !slices.Equal(got, []string{"1"}) {
		t.Errorf("the removal audited %v bank connections disconnected, want 1", got)
	}
}
