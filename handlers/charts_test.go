package handlers_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/google/uuid"
	"github.com/shopspring/decimal"

	"tally/app/apptest"
	"tally/internal/db"
	"tally/models"
	"tally/testkit"
)

// mustEntry writes a transaction of amount into the account on date, in category when set and
// of transaction kind kind (standard when empty).
func mustEntry(t *testing.T, d *db.DB, a *models.Account, date time.Time, amount string, category *uuid.UUID, kind string) {
	t.Helper()
	if kind == "" {
		kind = "standard"
	}
	if _, err := d.NewRaw(`INSERT INTO entries (id, family_id, account_id, kind, date, amount, currency, name, category_id, transaction_kind)
		VALUES (gen_random_uuid(), ?, ?, 'transaction', ?, ?, ?, 'entry', ?, ?)`,
		a.FamilyID, a.ID, date, amount, a.Currency, category, kind).Exec(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// chartRows returns the rows of the data table of the chart inside sel, each as "date amount".
func chartRows(sel *goquery.Selection) []string {
	return sel.Find(`[data-testid="chart-data-row"]`).Map(func(_ int, row *goquery.Selection) string {
		return strings.Join(row.Find("td").Map(func(_ int, td *goquery.Selection) string { return strings.TrimSpace(td.Text()) }), " ")
	})
}

// TestBalanceCharts checks the dashboard's net worth chart and an account's balance chart:
// an SVG image with its data table, one row per day of the range from the ledger's daily
// balances (assets less a card's debt), the ranges as plain links and as htmx swaps of the
// chart alone, and all of the history from the family's first entry.
func TestBalanceCharts(t *testing.T) {
	t.Parallel()
	srv := apptest.StartServer(t, apptest.ServerOptions{NoWorker: true})
	u := testkit.MustCreateUser(t, srv.DB, testkit.UserOpts{})
	ctx := context.Background()
	today := (&models.Family{Timezone: "UTC"}).Today()
	day := func(n int) time.Time { return today.AddDate(0, 0, n) }
	date := func(n int) string { return day(n).Format(time.DateOnly) }

	checking, err := models.CreateAccount(ctx, srv.DB, u.FamilyID, models.AccountInput{Name: "Checking", AccountableType: "Depository", Currency: "USD", Balance: testkit.Ptr(decimal.NewFromInt(1000)), BalanceDate: day(-40)})
	if err != nil {
		t.Fatal(err)
	}
	visa, err := models.CreateAccount(ctx, srv.DB, u.FamilyID, models.AccountInput{Name: "Visa", AccountableType: "CreditCard", Currency: "USD", Balance: testkit.Ptr(decimal.NewFromInt(200)), BalanceDate: day(-20)})
	if err != nil {
		t.Fatal(err)
	}
	mustEntry(t, srv.DB, checking, day(-10), "100", nil, "")
	mustEntry(t, srv.DB, checking, day(-3), "-50", nil, "")
	mustEntry(t, srv.DB, visa, day(-5), "30", nil, "")
	if err := models.RecomputeBalances(ctx, srv.DB, []uuid.UUID{checking.ID, visa.ID}); err != nil {
		t.Fatal(err)
	}
	c := apptest.NewClient(t, srv)
	c.SignIn(u.Email, testkit.Password)

	// Checking's 1000 was typed on day -40, before any transaction, and its history walks back
	// from it: 1000 up to day -10, 900 from then and 950 from day -3. The card owed 200 on day
	// -20, so before it too, and 230 from day -5.
	netWorth := func(n int) string {
		switch {
		case n >= -3:
			return "$720.00"
		case n >= -5:
			return "$670.00"
		case n >= -10:
			return "$700.00"
		}
		return "$800.00"
	}
	wantRows := func(from int) []string {
		var rows []string
		for n := from; n <= 0; n++ {
			rows = append(rows, date(n)+" "+netWorth(n))
		}
		return rows
	}

	for _, tc := range []struct {
		name, path string
		from       int
		current    string
	}{
		{"the last 30 days by default", "/", -29, "30d"},
		{"90 days", "/?range=90d", -89, "90d"},
		{"all of it, from the first entry", "/?range=all", -40, "all"},
		{"a range it does not know is the default", "/?range=5y", -29, "30d"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := c.Get(tc.path)
			if r.Status != http.StatusOK {
				t.Fatalf("%s: %d", tc.path, r.Status)
			}
			card := r.Doc(t).Find(`[data-testid="net-worth-history"]`)
			svg := card.Find(`svg[data-testid="chart-svg"]`)
			if role, _ := svg.Attr("role"); svg.Length() != 1 || role != "img" {
				t.Fatalf("%d chart images (role %q)", svg.Length(), role)
			}
			if label, _ := svg.Attr("aria-label"); !strings.Contains(label, date(tc.from)+" to "+date(0)) || !strings.Contains(label, "$720.00 at the end") {
				t.Errorf("the chart is summed up as %q", label)
			}
			if got, want := chartRows(card), wantRows(tc.from); strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Errorf("data table\n got %q\nwant %q", got, want)
			}
			if cur, _ := card.Find(`[data-testid="range-` + tc.current + `"]`).Attr("aria-current"); cur != "true" {
				t.Errorf("range %s is not marked as the current one", tc.current)
			}
			if ticks := card.Find(`[data-testid="chart-tick"]`).Length(); ticks < 3 || ticks > 5 {
				t.Errorf("%d ticks", ticks)
			}
		})
	}

	t.Run("an htmx range link gets the chart alone", func(t *testing.T) {
		r := c.Do(http.MethodGet, "/?range=all", nil, map[string]string{"HX-Request": "true", "HX-Target": "net-worth-history"})
		doc := r.Doc(t)
		if doc.Find(`[data-testid="page-title"]`).Length() != 0 || doc.Find(`[data-testid="net-worth-history"]`).Length() != 1 {
			t.Fatalf("the answer is not the chart alone:\n%s", r.Body)
		}
		if n := len(chartRows(doc.Selection)); n != 41 {
			t.Errorf("%d rows, want 41", n)
		}
	})

	t.Run("an account's balance over the last 90 days", func(t *testing.T) {
		r := c.Get("/accounts/" + checking.ID.String())
		card := r.Doc(t).Find(`[data-testid="balance-history"]`)
		rows := chartRows(card)
		if len(rows) != 90 || rows[0] != date(-89)+" $1,000.00" || rows[79] != date(-10)+" $900.00" || rows[89] != date(0)+" $950.00" {
			t.Fatalf("%d rows: %q … %q", len(rows), rows[:1], rows[len(rows)-1:])
		}
		if href, _ := card.Find(`[data-testid="range-all"]`).Attr("href"); href != "/accounts/"+checking.ID.String()+"?range=all" {
			t.Errorf("the link to all of it goes to %q", href)
		}
		all := chartRows(c.Get("/accounts/" + visa.ID.String() + "?range=all").Doc(t).Find(`[data-testid="balance-history"]`))
		if len(all) != 21 || all[0] != date(-20)+" $200.00" || all[20] != date(0)+" $230.00" {
			t.Errorf("the card from its first entry: %q", all)
		}
	})
}

// TestSpendingReport checks the spending page: a month's categories with the month before,
// transfers left out, the uncategorised in their own row, the months around it as links, and
// a month that is not one refused with what to write.
func TestSpendingReport(t *testing.T) {
	t.Parallel()
	srv := apptest.StartServer(t, apptest.ServerOptions{NoWorker: true})
	u := testkit.MustCreateUser(t, srv.DB, testkit.UserOpts{})
	ctx := context.Background()
	checking := testkit.MustCreateAccount(t, srv.DB, u.FamilyID, "Checking", "Depository", "")
	name := "Groceries"
	groceries, err := models.CreateCategory(ctx, srv.DB, u.FamilyID, models.CategoryInput{Name: &name})
	if err != nil {
		t.Fatal(err)
	}
	on := func(s string) time.Time { d, _ := time.Parse(time.DateOnly, s); return d }
	mustEntry(t, srv.DB, checking, on("2026-10-03"), "120", &groceries.ID, "")
	mustEntry(t, srv.DB, checking, on("2026-10-04"), "30", nil, "")
	mustEntry(t, srv.DB, checking, on("2026-10-05"), "500", nil, "funds_movement")
	mustEntry(t, srv.DB, checking, on("2026-09-10"), "80", &groceries.ID, "")
	c := apptest.NewClient(t, srv)
	c.SignIn(u.Email, testkit.Password)

	if href, _ := c.Get("/").Doc(t).Find(`[data-testid="spending-link"]`).Attr("href"); href != "/reports/spending" {
		t.Errorf("the dashboard links to %q for spending", href)
	}
	r := c.Get("/reports/spending?month=2026-10")
	doc := r.Doc(t)
	if r.Status != http.StatusOK || r.TestID(t, "spending-month") != "October 2026" {
		t.Fatalf("%d, month %q", r.Status, r.TestID(t, "spending-month"))
	}
	want := []string{"Groceries $120.00 $80.00", "Uncategorised $30.00 $0.00"}
	if got := chartRows(doc.Selection); strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("rows %q, want %q", got, want)
	}
	if got := r.TestID(t, "spending-total"); got != "$150.00" {
		t.Errorf("total %q", got)
	}
	svg := doc.Find(`svg[data-testid="bar-chart-svg"]`)
	if role, _ := svg.Attr("role"); role != "img" || svg.Find(`[data-testid="bar-row"]`).Length() != 2 {
		t.Errorf("bar chart %q with %d rows", role, svg.Find(`[data-testid="bar-row"]`).Length())
	}
	if w, _ := svg.Find(`[data-testid="bar"]`).First().Attr("width"); w != "100%" {
		t.Errorf("the largest bar is %s wide", w)
	}
	prev, _ := doc.Find(`[data-testid="month-prev"]`).Attr("href")
	next, _ := doc.Find(`[data-testid="month-next"]`).Attr("href")
	if prev != "/reports/spending?month=2026-09" || next != "/reports/spending?month=2026-11" {
		t.Errorf("links to %q and %q", prev, next)
	}
	if got := chartRows(c.Get(prev).Doc(t).Selection); strings.Join(got, "|") != "Groceries $80.00 $0.00" {
		t.Errorf("September: %q", got)
	}

	this := (&models.Family{Timezone: "UTC"}).Today().Format("January 2006")
	if r := c.Get("/reports/spending"); r.TestID(t, "spending-month") != this || r.Has(t, "month-next") {
		t.Errorf("by default %q (want %q), with a next month: %v", r.TestID(t, "spending-month"), this, r.Has(t, "month-next"))
	}
	if r := c.Get("/reports/spending?month=2020-01"); !r.Has(t, "spending-empty") {
		t.Errorf("a month of nothing has no empty state")
	}
	if r := c.Get("/reports/spending?month=October"); r.Status != http.StatusUnprocessableEntity || !strings.Contains(r.Body, "is not a month (YYYY-MM)") {
		t.Errorf("a month that is not one: %d", r.Status)
	}
}
