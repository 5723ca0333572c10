package handlers_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"tally/app/apptest"
	"tally/models"
	"tally/recurring"
	"tally/testkit"
)

// household is a family in its second month with Tally, on the real recurring series: an
// account, the categories it names, and a signed-in person.
type household struct {
	srv   *apptest.Server
	c     *testkit.Client
	user  *models.User
	acct  *models.Account
	cats  map[string]string
	today time.Time
}

// newHousehold makes a family with the categories named (a "Parent/Child" name is a
// subcategory) and signs its admin in.
func newHousehold(t *testing.T, categories ...string) *household {
	t.Helper()
	srv := apptest.StartServer(t, apptest.ServerOptions{})
	u := testkit.MustCreateUser(t, srv.DB, testkit.UserOpts{})
	h := &household{srv: srv, user: u, cats: map[string]string{}, today: u.Family.Today(),
		acct: testkit.MustCreateAccount(t, srv.DB, u.FamilyID, "Girokonto", "Depository", "10000")}
	for _, name := range categories {
		in := models.CategoryInput{Name: testkit.Ptr(name)}
		for i := range name {
			if name[i] == '/' {
				p := testkit.Ptr(uuid.MustParse(h.cats[name[:i]]))
				in.ParentID, in.Name = &p, testkit.Ptr(name[i+1:])
			}
		}
		cat, err := models.CreateCategory(context.Background(), srv.DB, u.FamilyID, in)
		if err != nil {
			t.Fatal(err)
		}
		h.cats[name] = cat.ID.String()
	}
	h.c = apptest.NewClient(t, srv)
	h.c.SignIn(u.Email, testkit.Password)
	return h
}

// pay writes a transaction (money out positive) on date, in category ("" for none).
func (h *household) pay(t *testing.T, date time.Time, amount, name, category string) {
	t.Helper()
	var cat *string
	if category != "" {
		cat = testkit.Ptr(h.cats[category])
	}
	if _, err := h.srv.DB.NewRaw(`INSERT INTO entries (id, family_id, account_id, kind, date, amount, currency, name, category_id, transaction_kind)
		VALUES (gen_random_uuid(), ?, ?, 'transaction', ?, ?, 'USD', ?, ?::uuid, 'standard')`,
		h.user.FamilyID, h.acct.ID, date.Format(time.DateOnly), amount, name, cat).Exec(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// monthly pays the same amount on day (at most 28) of each of the n months before this one.
func (h *household) monthly(t *testing.T, n, day int, amount, name, category string) {
	t.Helper()
	first := time.Date(h.today.Year(), h.today.Month(), 1, 0, 0, 0, 0, time.UTC)
	for m := n; m >= 1; m-- {
		h.pay(t, first.AddDate(0, -m, day-1), amount, name, category)
	}
}

// detect looks through the history as an import would, and returns the series proposed, by
// name.
func (h *household) detect(t *testing.T) map[string]string {
	t.Helper()
	ctx := context.Background()
	if _, err := (&recurring.Service{}).Detect(ctx, h.srv.DB, h.user.FamilyID, h.today); err != nil {
		t.Fatal(err)
	}
	found, err := models.RecurringByStatus(ctx, h.srv.DB, models.FamilyViewer(h.user.FamilyID), models.RecurringProposed)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, r := range found {
		out[r.Name] = r.ID.String()
	}
	return out
}

// confirm presses a series' Confirm button on the recurring page, with the form's values.
func (h *household) confirm(t *testing.T, id string, extra url.Values) {
	t.Helper()
	h.c.Get("/recurring")
	form := url.Values{"status": {models.RecurringConfirmed}}
	for k, v := range extra {
		form[k] = v
	}
	if r := h.c.PostForm("/recurring/"+id+"/status", form); r.Status != http.StatusSeeOther {
		t.Fatalf("confirm %s: %d %s", id, r.Status, r.Body)
	}
}

// dueDay is the day of this month a series paid on it is still to come (or due today).
func (h *household) dueDay() int { return min(h.today.Day(), 28) }

// TestIncomeToComeIsNotNettedAgainstBills is uncategorised Kindergeld coming in beside an
// uncategorised Kita bill: the dashboard's and the budget's bills still to come are the bill
// alone, and the income to come is its own figure.
func TestIncomeToComeIsNotNettedAgainstBills(t *testing.T) {
	t.Parallel()
	h := newHousehold(t)
	h.monthly(t, 4, h.dueDay(), "720.00", "Kita Sonnenschein", "")
	h.monthly(t, 4, h.dueDay(), "-259.00", "Familienkasse Kindergeld", "")
	series := h.detect(t)
	for _, name := range []string{"Kita Sonnenschein", "Familienkasse Kindergeld"} {
		if series[name] == "" {
			t.Fatalf("detection found %v, not %s", series, name)
		}
		h.confirm(t, series[name], nil)
	}
	dash := h.c.Get("/")
	if got := dash.TestID(t, "this-month-bills"); got != "$720.00 in bills still to come" {
		t.Errorf("the dashboard's bills: %q", got)
	}
	if got := dash.TestID(t, "this-month-income"); got != "$259.00 in income still to come" {
		t.Errorf("the dashboard's income to come: %q", got)
	}
	budget := h.c.Get("/budgets/" + h.today.Format("2006-01"))
	if bills, income := budget.TestID(t, "bills"), budget.TestID(t, "income-to-come"); bills != "$720.00" || income != "$259.00" {
		t.Errorf("the budget's bills %q and income to come %q", bills, income)
	}
}

// TestBillsPaidOnTheFirstAreNotHeadingOver is rent and Kita, found as series before the
// household categorised their payments, then paid on the 1st of this month. Confirming the
// series gives them the category their payments carry (shown before confirming, on the page
// and through the API), and the month's categories whose bills are all paid are on track,
// not "heading over" at a pace that spreads a monthly bill over every day.
func TestBillsPaidOnTheFirstAreNotHeadingOver(t *testing.T) {
	t.Parallel()
	h := newHousehold(t, "Wohnen", "Kinderbetreuung")
	key := testkit.MustCreateAPIKey(t, h.srv.DB, h.user.ID, models.ScopeReadWrite)
	h.monthly(t, 4, 1, "1200.00", "Hausverwaltung Berg", "")
	h.monthly(t, 4, 1, "720.00", "Kita Sonnenschein", "")
	series := h.detect(t)
	if series["Hausverwaltung Berg"] == "" || series["Kita Sonnenschein"] == "" {
		t.Fatalf("detection found %v", series)
	}
	// The household categorises the payments, and this month's come on the 1st.
	if _, err := h.srv.DB.NewRaw(`UPDATE entries SET category_id = CASE WHEN name LIKE 'Kita%' THEN ?::uuid ELSE ?::uuid END WHERE family_id = ?`,
		h.cats["Kinderbetreuung"], h.cats["Wohnen"], h.user.FamilyID).Exec(context.Background()); err != nil {
		t.Fatal(err)
	}
	first := time.Date(h.today.Year(), h.today.Month(), 1, 0, 0, 0, 0, time.UTC)
	h.pay(t, first, "1200.00", "Hausverwaltung Berg", "Wohnen")
	h.pay(t, first, "720.00", "Kita Sonnenschein", "Kinderbetreuung")
	month := h.today.Format("2006-01")
	if r := h.c.API(http.MethodPut, "/api/v1/budgets/"+month, key, map[string]any{"categories": []map[string]string{
		{"category_id": h.cats["Wohnen"], "budgeted": "1200"}, {"category_id": h.cats["Kinderbetreuung"], "budgeted": "720"}}}); r.Status != http.StatusOK {
		t.Fatalf("budget: %d %s", r.Status, r.Body)
	}

	// The page shows the category each series will take; Confirm takes it, as does the API.
	row := h.c.Get("/recurring").Doc(t).Find(`#recurring-` + series["Hausverwaltung Berg"] + ` [data-testid="recurring-interval"]`).Text()
	if !strings.Contains(row, "Wohnen") {
		t.Errorf("the proposed rent does not show the category it will take: %q", row)
	}
	h.confirm(t, series["Hausverwaltung Berg"], nil)
	var kita struct {
		Data struct {
			CategoryID *string `json:"category_id"`
		} `json:"data"`
	}
	h.c.API(http.MethodPatch, "/api/v1/recurring/"+series["Kita Sonnenschein"], key, map[string]any{"status": "confirmed"}).JSON(t, &kita)
	if kita.Data.CategoryID == nil || *kita.Data.CategoryID != h.cats["Kinderbetreuung"] {
		t.Errorf("the API's confirmation gave Kita the category %v", kita.Data.CategoryID)
	}
	got := testkitStrings(t, h.srv, `SELECT r.name || ':' || coalesce(c.name, '-') || ':' || r.manual FROM recurring_transactions r
		LEFT JOIN categories c ON c.id = r.category_id WHERE r.family_id = ? ORDER BY r.name`, h.user.FamilyID)
	if strings.Join(got, ",") != "Hausverwaltung Berg:Wohnen:false,Kita Sonnenschein:Kinderbetreuung:false" {
		t.Errorf("the confirmed series: %v", got)
	}

	dash := h.c.Get("/")
	if !dash.Has(t, "this-month-on-track") {
		t.Errorf("the dashboard names as over or heading over: %q", dash.TestID(t, "this-month-over"))
	}
	var budget struct {
		Data struct {
			Categories []struct {
				Name     string `json:"name"`
				Status   string `json:"status"`
				Forecast string `json:"forecast"`
			} `json:"categories"`
		} `json:"data"`
	}
	h.c.API(http.MethodGet, "/api/v1/budgets/"+month, key, nil).JSON(t, &budget)
	for _, c := range budget.Data.Categories {
		if c.Status != "on_track" {
			t.Errorf("%s, its bill paid: %s, forecast %s", c.Name, c.Status, c.Forecast)
		}
	}
}

// TestAGroupsAvailableIsItsPartsTogether is "Essen & Trinken" with two subcategories: groceries
// carrying last month's surplus, and eating out carrying last month's overspend and overspent
// again. The group's carried and available are its subcategories' together, and its row says
// which of them is overspent.
func TestAGroupsAvailableIsItsPartsTogether(t *testing.T) {
	t.Parallel()
	h := newHousehold(t, "Essen & Trinken", "Essen & Trinken/Lebensmittel", "Essen & Trinken/Restaurant")
	key := testkit.MustCreateAPIKey(t, h.srv.DB, h.user.ID, models.ScopeReadWrite)
	first := time.Date(h.today.Year(), h.today.Month(), 1, 0, 0, 0, 0, time.UTC)
	last, this := first.AddDate(0, -1, 0).Format("2006-01"), first.Format("2006-01")
	groceries, eatingOut := h.cats["Essen & Trinken/Lebensmittel"], h.cats["Essen & Trinken/Restaurant"]
	for _, m := range []string{last, this} {
		if r := h.c.API(http.MethodPut, "/api/v1/budgets/"+m, key, map[string]any{"categories": []map[string]string{
			{"category_id": groceries, "budgeted": "600"}, {"category_id": eatingOut, "budgeted": "100"}}}); r.Status != http.StatusOK {
			t.Fatalf("budget %s: %d %s", m, r.Status, r.Body)
		}
	}
	for id, rollover := range map[string]string{groceries: "surplus", eatingOut: "both"} {
		if r := h.c.API(http.MethodPatch, "/api/v1/budgets/"+this+"/categories/"+id, key, map[string]any{"rollover": rollover}); r.Status != http.StatusOK {
			t.Fatalf("rollover: %d %s", r.Status, r.Body)
		}
	}
	h.pay(t, first.AddDate(0, -1, 14), "400.00", "Markt", "Essen & Trinken/Lebensmittel")  // 200 left
	h.pay(t, first.AddDate(0, -1, 14), "150.00", "Pizzeria", "Essen & Trinken/Restaurant") // 50 over
	h.pay(t, first, "100.00", "Markt", "Essen & Trinken/Lebensmittel")
	h.pay(t, first, "80.00", "Pizzeria", "Essen & Trinken/Restaurant")

	page := h.c.Get("/budgets/" + this)
	parent := h.cats["Essen & Trinken"]
	for id, want := range map[string][2]string{
		groceries: {"$200.00", "$700.00"}, // 600 + 200 - 100
		eatingOut: {"-$50.00", "-$30.00"}, // 100 - 50 - 80
		parent:    {"$150.00", "$670.00"}, // 700 + 150 - 180: its parts together
	} {
		if carried, available := page.TestID(t, "carried-"+id), page.TestID(t, "available-"+id); carried != want[0] || available != want[1] {
			t.Errorf("%s: carried %s, available %s; want %s and %s", id, carried, available, want[0], want[1])
		}
	}
	parts := page.Doc(t).Find(`[data-testid="available-parts-` + parent + `"] [data-testid="available-part"]`)
	if parts.Length() != 2 || !strings.Contains(parts.Eq(1).Text(), "Restaurant") || !strings.Contains(parts.Eq(1).Text(), "overspent") ||
		strings.Contains(parts.Eq(0).Text(), "overspent") {
		t.Errorf("the group's row does not say which part is overspent: %q", parts.Text())
	}
}
