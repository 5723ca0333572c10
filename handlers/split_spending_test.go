package handlers_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/shopspring/decimal"

	"tally/app/apptest"
	"tally/testkit"
)

// A transaction split across two categories, as a move-in writes one (no category of its
// own), shows each part's amount spent under the part's category, and the transaction's
// nowhere: on the budget page, in the budget API and on the spending page. A part's category
// changed through the API moves its spending; the split excluded through the API spends
// nothing, and included again spends as before.
func TestSplitSpentUnderItsParts(t *testing.T) {
	t.Parallel()
	e := newImportEnv(t, apptest.ServerOptions{NoWorker: true})
	cats := budgetFamily(t, e, e.user.FamilyID)
	acct := testkit.MustCreateAccount(t, e.srv.DB, e.user.FamilyID, "Checking", "Depository", "")
	if _, err := e.srv.DB.NewRaw(`WITH parent AS (
			INSERT INTO entries (id, family_id, account_id, kind, date, amount, currency, name)
			VALUES (gen_random_uuid(), ?0, ?1, 'transaction', '2026-10-20', 100, 'USD', 'Supermarket') RETURNING id),
		plain AS (INSERT INTO entries (id, family_id, account_id, kind, date, amount, currency, name, category_id)
			VALUES (gen_random_uuid(), ?0, ?1, 'transaction', '2026-10-03', 20, 'USD', 'Landlord', ?4))
		INSERT INTO entries (id, family_id, account_id, kind, date, amount, currency, name, category_id, parent_id)
		SELECT gen_random_uuid(), ?0, ?1, 'transaction', '2026-10-20', x.amount, 'USD', 'Supermarket', x.category, parent.id
		FROM parent, (VALUES (70::numeric, ?2::uuid), (30, ?3::uuid)) x(amount, category)`,
		e.user.FamilyID, acct.ID, cats["Groceries"], cats["Insurance"], cats["Rent"]).Exec(context.Background()); err != nil {
		t.Fatal(err)
	}
	c := apptest.NewClient(t, e.srv)
	c.SignIn(e.user.Email, testkit.Password)

	page := c.Get("/budgets/2026-10")
	if page.Status != http.StatusOK {
		t.Fatalf("budget page: %d", page.Status)
	}
	for name, want := range map[string]string{"Food": "$70.00", "Groceries": "$70.00", "Insurance": "$30.00", "Rent": "$20.00"} {
		if got := page.TestID(t, "spent-"+cats[name]); got != want {
			t.Errorf("the budget page's %s spent %q, want %q", name, got, want)
		}
	}
	if page.Has(t, "spent-none") && page.TestID(t, "spent-none") != "$0.00" {
		t.Errorf("the budget page has %s spent without a category, want none", page.TestID(t, "spent-none"))
	}
	if got := page.TestID(t, "spent"); got != "$120.00" {
		t.Errorf("the month's spent %q, want $120.00", got)
	}

	api := e.budgetAPIFigures(t, "2026-10")
	for name, want := range map[string]string{"Food": "70", "Groceries": "70", "Insurance": "30", "Rent": "20", "": "0"} {
		if got, ok := api[name]; !ok && want != "0" || !got.Spent.Equal(decimal.RequireFromString(want)) {
			t.Errorf("the API's %q spent %s, want %s", name, got.Spent, want)
		}
	}

	spending := c.Get("/reports/spending?month=2026-10")
	rows := strings.Join(chartRows(spending.Doc(t).Selection), "|")
	if want := "Food › Groceries $70.00 $0.00|Insurance $30.00 $0.00|Rent $20.00 $0.00"; rows != want {
		t.Errorf("the spending page's rows %q, want %q", rows, want)
	}
	if got := spending.TestID(t, "spending-total"); got != "$120.00" {
		t.Errorf("the spending page's total %q, want $120.00", got)
	}

	// The transactions the budget links to are those it counts: the split under its parts'
	// categories, not under none.
	for query, want := range map[string]string{
		"category_id=" + cats["Groceries"]: "Supermarket", "category_id=" + cats["Food"]: "Supermarket",
		"category_id=" + cats["Rent"]: "Landlord", "category_id=none": "",
	} {
		if got := strings.Join(e.list(t, query).names(), "|"); got != want {
			t.Errorf("the transactions of %s: %q, want %q", query, got, want)
		}
	}

	parent := e.strings(t, "SELECT id::text FROM entries WHERE family_id = ? AND name = 'Supermarket' AND parent_id IS NULL", e.user.FamilyID)[0]
	insurance := e.strings(t, "SELECT id::text FROM entries WHERE parent_id = ? AND category_id = ?", parent, cats["Insurance"])[0]
	for _, step := range []struct {
		id   string
		set  map[string]any
		want string
	}{
		{insurance, map[string]any{"category_id": cats["Rent"]}, "Food › Groceries $70.00 $0.00|Rent $50.00 $0.00"},
		{parent, map[string]any{"excluded": true}, "Rent $20.00 $0.00"},
		{parent, map[string]any{"excluded": false}, "Food › Groceries $70.00 $0.00|Rent $50.00 $0.00"},
	} {
		if r := e.c.API(http.MethodPatch, "/api/v1/transactions/"+step.id, e.write, step.set); r.Status != http.StatusOK {
			t.Fatalf("PATCH %v: %d %s", step.set, r.Status, r.Body)
		}
		if rows := strings.Join(chartRows(c.Get("/reports/spending?month=2026-10").Doc(t).Selection), "|"); rows != step.want {
			t.Errorf("after %v the spending page's rows %q, want %q", step.set, rows, step.want)
		}
		api := e.budgetAPIFigures(t, "2026-10")
		if !strings.Contains(step.want, "Rent $"+api["Rent"].Spent.StringFixed(2)) {
			t.Errorf("after %v the API's Rent spent %s, the spending page %q", step.set, api["Rent"].Spent, step.want)
		}
	}
}

// A native import's split parts are excluded, and of a kind, as their transaction is unless
// a line says otherwise, so that an excluded split, or one between the family's accounts,
// spends nothing; and each split transaction is marked as one.
func TestNativeImportSplitPartsFollowTheirTransaction(t *testing.T) {
	t.Parallel()
	e := newImportEnv(t, apptest.ServerOptions{})
	split := func(id, fields, kind string) string {
		return `{"type":"Transaction","data":{"id":"` + id + `","account_id":"a1","date":"2024-01-02","amount":"100.00","name":"` + id + `"` + fields +
			`,"split_lines":[{"id":"` + id + `-1","amount":"60.00","category_id":"c1"},{"id":"` + id + `-2","amount":"40.00","category_id":"c1"` + kind + `}]}}`
	}
	b := e.publishNative(t, ndjson(`{"type":"Category","data":{"id":"c1","name":"Groceries"}}`, nAccount,
		split("excluded", `,"excluded":true`, ""), split("card", `,"kind":"cc_payment"`, ""),
		split("shared", "", `,"kind":"funds_movement"`)))
	if rb := b.Data.Verification.Readback; rb.Status != "matched" {
		t.Fatalf("readback %s: %v", rb.Status, rb.Mismatches)
	}
	got := e.strings(t, `SELECT p.name || ' ' || s.amount::numeric(9, 2) || ' ' || s.excluded || ' ' || s.transaction_kind || ' ' || p.split
		FROM entries s JOIN entries p ON p.id = s.parent_id WHERE s.family_id = ? ORDER BY 1`, e.user.FamilyID)
	want := []string{
		"card 40.00 false cc_payment true", "card 60.00 false cc_payment true",
		"excluded 40.00 true standard true", "excluded 60.00 true standard true",
		"shared 40.00 false funds_movement true", "shared 60.00 false standard true",
	}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("the parts\n got %q\nwant %q", got, want)
	}
	spent := e.strings(t, "SELECT outflow::numeric(9, 2)::text FROM category_month_totals WHERE family_id = ? AND (outflow <> 0 OR inflow <> 0)", e.user.FamilyID)
	if strings.Join(spent, "|") != "60.00" {
		t.Errorf("the month's spending %v, want the shared split's own part of 60.00 alone", spent)
	}
}
