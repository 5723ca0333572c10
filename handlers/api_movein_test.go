package handlers_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"tally/app/apptest"
	"tally/budgets"
	"tally/models"
	"tally/reports"
	"tally/rules"
	"tally/testkit"
)

// moveInBody is an ImportDetail response with its move-in parts.
type moveInBody struct {
	Data struct {
		ID     string  `json:"id"`
		Type   string  `json:"type"`
		Status string  `json:"status"`
		Error  *string `json:"error"`
		MoveIn struct {
			Readback *struct {
				Status     string   `json:"status"`
				Mismatches []string `json:"mismatches"`
			} `json:"readback"`
			Source  string         `json:"source"`
			Counts  map[string]int `json:"counts"`
			Notices []struct {
				What, Entity, Name, Reason, Message string
			} `json:"notices"`
		} `json:"move_in"`
		Summary map[string]map[string]int `json:"summary"`
	} `json:"data"`
}

// moveIn uploads a move-in file as a multipart file, with the form's fields.
func (e *importEnv) moveIn(t *testing.T, file string, fields map[string]string, want int) moveInBody {
	t.Helper()
	content, err := os.ReadFile("testdata/" + file)
	if err != nil {
		t.Fatal(err)
	}
	body, ct := multipartBody(t, fields, file, "application/octet-stream", content)
	r := e.c.Do(http.MethodPost, "/api/v1/imports", body, map[string]string{"Content-Type": ct, "X-Api-Key": e.write})
	if r.Status != want {
		t.Fatalf("create move-in: %d, want %d: %s\n%s", r.Status, want, r.Body, e.srv.Logs)
	}
	var b moveInBody
	r.JSON(t, &b)
	return b
}

// familyCounts counts what a family holds of each kind a move-in brings.
func (e *importEnv) familyCounts(t *testing.T) map[string]int {
	t.Helper()
	f := e.user.FamilyID
	return map[string]int{
		"accounts":     e.count(t, "SELECT count(*) FROM accounts WHERE family_id = ?", f),
		"categories":   e.count(t, "SELECT count(*) FROM categories WHERE family_id = ?", f),
		"merchants":    e.count(t, "SELECT count(*) FROM merchants WHERE family_id = ?", f),
		"entries":      e.count(t, "SELECT count(*) FROM entries WHERE family_id = ?", f),
		"transfers":    e.count(t, "SELECT count(*) FROM transfers WHERE family_id = ?", f),
		"budgets":      e.count(t, "SELECT count(*) FROM budgets WHERE family_id = ?", f),
		"budget_lines": e.count(t, "SELECT count(*) FROM budget_categories WHERE family_id = ?", f),
		"series":       e.count(t, "SELECT count(*) FROM recurring_transactions WHERE family_id = ? AND status = 'confirmed'", f),
		"rules":        e.count(t, "SELECT count(*) FROM rules WHERE family_id = ?", f),
		"goals":        e.count(t, "SELECT count(*) FROM category_goals WHERE family_id = ?", f),
	}
}

// goals lists the family's goals as "category|kind|amount|by", by category.
func (e *importEnv) goals(t *testing.T) []string {
	t.Helper()
	return e.strings(t, `SELECT c.name || '|' || g.kind || '|' || g.amount::numeric(19, 2) || '|' || coalesce(to_char(g.by_month, 'YYYY-MM'), '')
		FROM category_goals g JOIN categories c ON c.id = g.category_id WHERE g.family_id = ? ORDER BY c.name`, e.user.FamilyID)
}

func TestActualMoveInDryRunPublishReimportRevert(t *testing.T) {
	t.Parallel()
	e := newImportEnv(t, apptest.ServerOptions{})
	before := e.familyCounts(t)

	// The dry run: detected from the file, counted, and nothing written.
	dry := e.moveIn(t, "actual-household.zip", map[string]string{"type": "auto"}, http.StatusCreated)
	if dry.Data.Type != "ActualImport" || dry.Data.Status != "pending" {
		t.Fatalf("dry run is %s %s, want a pending ActualImport", dry.Data.Type, dry.Data.Status)
	}
	for _, kind := range []string{"accounts", "categories", "merchants", "transactions", "splits", "transfers", "budget_months", "series", "rules", "goals"} {
		if _, ok := dry.Data.MoveIn.Counts[kind]; !ok {
			t.Errorf("the dry run does not count %s: %v", kind, dry.Data.MoveIn.Counts)
		}
	}
	if dry.Data.MoveIn.Counts["transactions"] == 0 || dry.Data.MoveIn.Counts["budget_months"] == 0 || dry.Data.MoveIn.Counts["transfers"] == 0 {
		t.Errorf("counts %v", dry.Data.MoveIn.Counts)
	}
	renamed := 0
	for _, n := range dry.Data.MoveIn.Notices {
		if n.What == "renamed" {
			renamed++
		}
	}
	if renamed == 0 {
		t.Errorf("the dry run lists no renaming: %+v", dry.Data.MoveIn.Notices)
	}
	if got := e.familyCounts(t); !equalCounts(got, before) {
		t.Fatalf("the dry run wrote: %v, was %v", got, before)
	}

	// Published, it is read back as the native import is.
	if r := e.c.API(http.MethodPost, "/api/v1/imports/"+dry.Data.ID+"/publish", e.write, nil); r.Status != http.StatusAccepted {
		t.Fatalf("publish: %d %s", r.Status, r.Body)
	}
	b := e.native(t, dry.Data.ID)
	if b.Data.Status != "complete" || b.Data.Verification.Readback.Status != "matched" {
		t.Fatalf("publish ended %s, read back %s %v: %s\n%s", b.Data.Status, b.Data.Verification.Readback.Status,
			b.Data.Verification.Readback.Mismatches, deref(b.Data.Error), e.srv.Logs)
	}
	if got := e.moveInDetail(t, dry.Data.ID); got.Data.MoveIn.Readback == nil || got.Data.MoveIn.Readback.Status != "matched" {
		t.Errorf("the move-in's read-back of accounts and budget months: %+v", got.Data.MoveIn.Readback)
	}
	published := e.familyCounts(t)
	// Its goal templates are the categories' goals: "#template 300" and "#template 1200 by 2027-06".
	if got := e.goals(t); fmt.Sprint(got) != "[Groceries|monthly|300.00| Holiday|balance|1200.00|2027-06]" || dry.Data.MoveIn.Counts["goals"] != 2 {
		t.Errorf("the family's goals are %q (the dry run counted %d)", got, dry.Data.MoveIn.Counts["goals"])
	}
	if published["transfers"] != dry.Data.MoveIn.Counts["transfers"] || published["series"] != dry.Data.MoveIn.Counts["series"] ||
		published["rules"] != dry.Data.MoveIn.Counts["rules"] || published["budgets"] != dry.Data.MoveIn.Counts["budget_months"] {
		t.Errorf("published %v, the dry run counted %v", published, dry.Data.MoveIn.Counts)
	}

	// The same export again adds nothing, and reads back as matched.
	again := e.moveIn(t, "actual-household.zip", map[string]string{"type": "ActualImport", "publish": "true"}, http.StatusCreated)
	b2 := e.native(t, again.Data.ID)
	if b2.Data.Status != "complete" || b2.Data.Verification.Readback.Status != "matched" {
		t.Fatalf("second publish ended %s, read back %s %v: %s", b2.Data.Status, b2.Data.Verification.Readback.Status,
			b2.Data.Verification.Readback.Mismatches, deref(b2.Data.Error))
	}
	if got := e.familyCounts(t); !equalCounts(got, published) {
		t.Errorf("importing the same export again changed the family: %v, was %v", got, published)
	}

	// Reverting the second leaves the first's; reverting the first leaves the family as it was.
	e.revertNative(t, again.Data.ID)
	if got := e.familyCounts(t); !equalCounts(got, published) {
		t.Errorf("reverting the second import changed the first's: %v, was %v", got, published)
	}
	e.revertNative(t, dry.Data.ID)
	if got := e.familyCounts(t); !equalCounts(got, before) {
		t.Errorf("after revert the family holds %v, was %v", got, before)
	}
}

func equalCounts(a, b map[string]int) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// actualFigures is the Actual fixture's figures.json: what Actual itself shows for the export,
// in hundredths and Actual's sign (money out is negative).
type actualFigures struct {
	Months map[string]struct {
		Categories map[string]struct {
			Budgeted *int64 `json:"budgeted"`
			Spent    *int64 `json:"spent"`
			Balance  *int64 `json:"balance"`
		} `json:"categories"`
	} `json:"months"`
	Accounts map[string]int64 `json:"accounts"`
}

func cents(n int64) decimal.Decimal { return decimal.New(n, -2) }

// After an Actual budget moves in, each month's budgeted, spent and available per category
// are exactly what Actual shows, split transactions' parts counted under their own
// categories as Actual counts them, on the budget page's own figures (budgets.Service) and
// on the API's; and each account's balance is Actual's.
func TestActualMoveInBudgetFiguresMatchActual(t *testing.T) {
	t.Parallel()
	e := newImportEnv(t, apptest.ServerOptions{})
	b := e.moveIn(t, "actual-household.zip", map[string]string{"type": "ActualImport", "publish": "true"}, http.StatusCreated)
	if got := e.native(t, b.Data.ID); got.Data.Status != "complete" {
		t.Fatalf("publish ended %s: %s", got.Data.Status, deref(got.Data.Error))
	}
	raw, err := os.ReadFile("testdata/actual-household.figures.json")
	if err != nil {
		t.Fatal(err)
	}
	var want actualFigures
	if err := json.Unmarshal(raw, &want); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	fam, err := models.FamilyByID(ctx, e.srv.DB, e.user.FamilyID)
	if err != nil {
		t.Fatal(err)
	}
	plans := &budgets.Service{DB: e.srv.DB}
	for month, figures := range want.Months {
		day, _ := time.Parse("2006-01", month)
		m, err := plans.Month(ctx, fam, models.FamilyViewer(fam.ID), reports.MonthOf(day), time.Date(2026, 12, 7, 0, 0, 0, 0, time.UTC))
		if err != nil {
			t.Fatal(err)
		}
		api := e.budgetAPIFigures(t, month)
		for name, f := range figures.Categories {
			// An income category has no budget in Actual, which shows what it received instead.
			if f.Budgeted == nil {
				continue
			}
			c := monthCategory(m, name)
			if c == nil {
				t.Errorf("%s: Tally's budget has no category %q", month, name)
				continue
			}
			fromAPI := api[c.Name]
			for _, fig := range []struct {
				what           string
				got, api, want decimal.Decimal
			}{
				{"budgeted", c.Budgeted, fromAPI.Budgeted, cents(*f.Budgeted)},
				{"spent", c.Spent, fromAPI.Spent, cents(-*f.Spent)},
				{"available", c.Available, fromAPI.Available, cents(*f.Balance)},
			} {
				if !fig.got.Equal(fig.want) || !fig.api.Equal(fig.want) {
					t.Errorf("%s %s: %s is %s on Tally's budget page and %s in its API, %s in Actual", month, name, fig.what, fig.got, fig.api, fig.want)
				}
			}
		}
	}
	for name, balance := range want.Accounts {
		got := e.strings(t, "SELECT balance::text FROM accounts WHERE family_id = ? AND name = ?", e.user.FamilyID, name)
		if len(got) != 1 || !decimal.RequireFromString(got[0]).Equal(cents(balance)) {
			t.Errorf("account %s: balance %v in Tally, %s in Actual", name, got, cents(balance))
		}
	}
}

// budgetFigures are a category's figures of a month.
type budgetFigures struct{ Budgeted, Spent, Available decimal.Decimal }

// budgetAPIFigures reads a month (2026-08) of the family's budget through the API: each
// category's figures by its name.
func (e *importEnv) budgetAPIFigures(t *testing.T, month string) map[string]budgetFigures {
	t.Helper()
	var body struct {
		Data struct {
			Categories []struct {
				Name                       string
				Budgeted, Spent, Available string
			} `json:"categories"`
		} `json:"data"`
	}
	r := e.c.API(http.MethodGet, "/api/v1/budgets/"+month, e.read, nil)
	if r.Status != http.StatusOK {
		t.Fatalf("budget of %s: %d %s", month, r.Status, r.Body)
	}
	r.JSON(t, &body)
	out := map[string]budgetFigures{}
	for _, c := range body.Data.Categories {
		out[c.Name] = budgetFigures{decimal.RequireFromString(c.Budgeted), decimal.RequireFromString(c.Spent), decimal.RequireFromString(c.Available)}
	}
	return out
}

// monthCategory finds a category of the month by its name in the source, or the name a
// hidden one is kept under.
func monthCategory(m *budgets.Month, name string) *budgets.Category {
	for _, n := range []string{name, name + " (hidden)"} {
		for i := range m.Categories {
			if m.Categories[i].Name == n {
				return &m.Categories[i]
			}
		}
	}
	return nil
}

// A move-in into a family with data merges by name: the family's Checking account and
// Groceries category are the budget's, and say so; its schedule becomes a confirmed series
// and its rule a Tally rule that files the supermarket under Groceries.
func TestActualMoveInMergesByNameWithSeriesAndRules(t *testing.T) {
	t.Parallel()
	e := newImportEnv(t, apptest.ServerOptions{})
	checking := testkit.MustCreateAccount(t, e.srv.DB, e.user.FamilyID, "Checking", "Depository", "")
	groceries := e.mustPost(t, "/api/v1/categories", map[string]any{"name": "Groceries"})
	// The family budgeted Groceries in August already, at another amount than Actual: its
	// line is kept, and the read-back names the month.
	if r := e.c.API(http.MethodPut, "/api/v1/budgets/2026-08", e.write, map[string]any{
		"categories": []any{map[string]any{"category_id": groceries, "budgeted": "123"}}}); r.Status != http.StatusOK {
		t.Fatalf("budget August: %d %s", r.Status, r.Body)
	}
	b := e.moveIn(t, "actual-household.zip", map[string]string{"type": "ActualImport", "publish": "true"}, http.StatusCreated)
	done := e.native(t, b.Data.ID)
	if done.Data.Status != "complete" || done.Data.Verification.Readback.Status != "matched" {
		t.Fatalf("publish ended %s, read back %s %v: %s", done.Data.Status, done.Data.Verification.Readback.Status,
			done.Data.Verification.Readback.Mismatches, deref(done.Data.Error))
	}
	if n := e.count(t, "SELECT count(*) FROM accounts WHERE family_id = ? AND name = 'Checking'", e.user.FamilyID); n != 1 {
		t.Errorf("%d accounts called Checking, want the family's one", n)
	}
	if n := e.count(t, "SELECT count(*) FROM entries WHERE account_id = ? AND kind = 'transaction'", checking.ID); n == 0 {
		t.Error("the budget's Checking transactions are not in the family's Checking account")
	}
	if n := e.count(t, "SELECT count(*) FROM categories WHERE family_id = ? AND name = 'Groceries'", e.user.FamilyID); n != 1 {
		t.Errorf("%d categories called Groceries, want the family's one", n)
	}
	mi := e.moveInDetail(t, b.Data.ID).Data.MoveIn.Readback
	if mi == nil || mi.Status != "mismatch" || len(mi.Mismatches) != 1 || !strings.HasPrefix(mi.Mismatches[0], "budget month 2026-08 ") {
		t.Errorf("the read-back does not name August's budget, which kept the family's line: %+v", mi)
	}
	merged := done.Data.Verification.Readback.MergedCounts
	if merged["accounts"] != 1 || merged["categories"] < 1 {
		t.Errorf("the read-back does not say what was merged: %v", merged)
	}

	series := e.strings(t, `SELECT r.name || '|' || r.amount::text || '|' || r.interval || '|' || r.status || '|' || r.expected_day_of_month || '|' ||
		coalesce(a.name, '') || '|' || coalesce(m.name, '') FROM recurring_transactions r LEFT JOIN accounts a ON a.id = r.account_id
		LEFT JOIN merchants m ON m.id = r.merchant_id WHERE r.import_id = ?`, b.Data.ID)
	if len(series) != 1 || !strings.HasPrefix(series[0], "Rent|1200") || !strings.HasSuffix(series[0], "|monthly|confirmed|2|Checking|Landlord") {
		t.Errorf("series %v, want Rent, 1200 a month on the 2nd from Checking to Landlord, confirmed", series)
	}
	next := e.strings(t, "SELECT next_expected_date::text FROM recurring_transactions WHERE import_id = ?", b.Data.ID)
	if len(next) != 1 || next[0] < "2026-11-02" {
		t.Errorf("the series is next expected on %v, not after its start", next)
	}

	kept := e.strings(t, "SELECT conditions::text || ' ' || actions::text FROM rules WHERE import_id = ?", b.Data.ID)
	if len(kept) != 1 || !strings.Contains(kept[0], `"transaction_name"`) || !strings.Contains(kept[0], "SUPERMKT") ||
		!strings.Contains(kept[0], groceries) {
		t.Errorf("rules %v, want one filing SUPERMKT under the family's Groceries (%s)", kept, groceries)
	}
	// Tally's rules can run it.
	stored := e.strings(t, "SELECT conditions::text || '\n' || actions::text FROM rules WHERE import_id = ?", b.Data.ID)
	for _, r := range stored {
		c, a, _ := strings.Cut(r, "\n")
		conditions, err1 := rules.ParseConditions([]byte(c))
		actions, err2 := rules.ParseActions([]byte(a))
		if err := errors.Join(err1, err2, rules.Validate(rules.Rule{Active: true, Match: "all", Conditions: conditions, Actions: actions})); err != nil {
			t.Errorf("the rule %s cannot run: %v", r, err)
		}
	}
	notKept := false
	for _, n := range b.Data.MoveIn.Notices {
		notKept = notKept || (n.What == "not_kept" && n.Entity == "rule" && strings.Contains(n.Reason, "isNot"))
	}
	if !notKept {
		t.Errorf("no notice lists the rule Tally cannot state: %+v", b.Data.MoveIn.Notices)
	}
}

// hasNotice reports whether the move-in has a notice of what on the entity named name whose
// reason says say.
func hasNotice(b moveInBody, what, entity, name, say string) bool {
	for _, n := range b.Data.MoveIn.Notices {
		if n.What == what && n.Entity == entity && n.Name == name && strings.Contains(n.Reason, say) {
			return true
		}
	}
	return false
}

// A category the family gave a goal keeps it when a move-in brings another: the dry run says
// so, the publish leaves it, and the revert removes only the goals the move-in made.
func TestMoveInKeepsTheFamilysGoal(t *testing.T) {
	t.Parallel()
	e := newImportEnv(t, apptest.ServerOptions{})
	rent := e.mustPost(t, "/api/v1/categories", map[string]any{"name": "Rent"})
	if r := e.c.API(http.MethodPatch, "/api/v1/budgets/2026-08/categories/"+rent, e.write,
		map[string]any{"goal": map[string]any{"kind": "balance", "amount": "2000"}}); r.Status != http.StatusOK {
		t.Fatalf("the family's goal: %d %s", r.Status, r.Body)
	}
	dry := e.moveIn(t, "ynab-household.json", map[string]string{"type": "YnabImport"}, http.StatusCreated)
	if !hasNotice(dry, "not_kept", "goal", "Rent", `your category "Rent" has a goal already (a balance of 2000), which stays; YNAB's was MF`) {
		t.Errorf("the dry run does not say Rent keeps the family's goal: %+v", dry.Data.MoveIn.Notices)
	}
	if r := e.c.API(http.MethodPost, "/api/v1/imports/"+dry.Data.ID+"/publish", e.write, nil); r.Status != http.StatusAccepted {
		t.Fatalf("publish: %d %s", r.Status, r.Body)
	}
	if b := e.native(t, dry.Data.ID); b.Data.Status != "complete" {
		t.Fatalf("publish ended %s: %s", b.Data.Status, deref(b.Data.Error))
	}
	done := e.moveInDetail(t, dry.Data.ID).Data
	if mi := done.MoveIn.Readback; mi == nil || mi.Status != "matched" {
		t.Errorf("the move-in's read-back: %+v", mi)
	}
	if g := done.Summary["goals"]; g["created"] != 2 || g["skipped"] != 1 {
		t.Errorf("the summary's goals %v, want 2 created and Rent's skipped", g)
	}
	if got := e.goals(t); fmt.Sprint(got) != "[Groceries|monthly|400.00| Rent|balance|2000.00| Vacation|balance|1500.00|2027-06]" {
		t.Errorf("the family's goals are %q", got)
	}
	e.revertNative(t, dry.Data.ID)
	if got := e.goals(t); fmt.Sprint(got) != "[Rent|balance|2000.00|]" {
		t.Errorf("after the revert the family's goals are %q, want its own", got)
	}
}

// ynabID is an id of the YNAB fixture's.
func ynabID(n int) string { return fmt.Sprintf("%08x-0000-4000-8000-%012x", n, n) }

// A YNAB budget moves in: its split whose part is a transfer is one Tally split with a
// transfer from the part, its card payment is a card payment, its hidden Dining beside an
// active one is renamed and says so, its blank payee's transaction has no merchant; and the
// same file again adds nothing, and a revert leaves the family as it was.
func TestYNABMoveIn(t *testing.T) {
	t.Parallel()
	e := newImportEnv(t, apptest.ServerOptions{})
	before := e.familyCounts(t)
	dry := e.moveIn(t, "ynab-household.json", map[string]string{"type": "auto"}, http.StatusCreated)
	if dry.Data.Type != "YnabImport" || dry.Data.Status != "pending" {
		t.Fatalf("dry run is %s %s, want a pending YnabImport", dry.Data.Type, dry.Data.Status)
	}
	c := dry.Data.MoveIn.Counts
	if c["accounts"] != 4 || c["transactions"] != 13 || c["splits"] != 2 || c["transfers"] != 2 {
		t.Errorf("counts %v, want 4 accounts, 13 transactions, 2 split parts and 2 transfers", c)
	}
	renamed := false
	for _, n := range dry.Data.MoveIn.Notices {
		renamed = renamed || (n.What == "renamed" && n.Name == "Dining" && strings.Contains(n.Reason, `"Dining (hidden)"`))
	}
	if !renamed {
		t.Errorf("no notice says the hidden Dining is renamed: %+v", dry.Data.MoveIn.Notices)
	}
	if got := e.familyCounts(t); !equalCounts(got, before) {
		t.Fatalf("the dry run wrote: %v", got)
	}
	if r := e.c.API(http.MethodPost, "/api/v1/imports/"+dry.Data.ID+"/publish", e.write, nil); r.Status != http.StatusAccepted {
		t.Fatalf("publish: %d %s", r.Status, r.Body)
	}
	b := e.native(t, dry.Data.ID)
	if b.Data.Status != "complete" || b.Data.Verification.Readback.Status != "matched" {
		t.Fatalf("publish ended %s, read back %s %v: %s", b.Data.Status, b.Data.Verification.Readback.Status,
			b.Data.Verification.Readback.Mismatches, deref(b.Data.Error))
	}

	// The split's transfer part is the outflow of a transfer whose inflow is in Savings.
	part := e.strings(t, `SELECT a.name || '|' || p.amount::text FROM transfers t JOIN entries p ON p.id = t.outflow_entry_id
		JOIN entries i ON i.id = t.inflow_entry_id JOIN accounts a ON a.id = i.account_id
		WHERE p.parent_id IS NOT NULL AND p.family_id = ?`, e.user.FamilyID)
	if len(part) != 1 || part[0] != "Savings|50.0000" {
		t.Errorf("transfers from a split part: %v, want one of 50 into Savings", part)
	}
	food := e.strings(t, `SELECT c.name || '|' || p.notes FROM entries p JOIN categories c ON c.id = p.category_id
		WHERE p.parent_id IS NOT NULL AND p.family_id = ?`, e.user.FamilyID)
	if len(food) != 1 || food[0] != "Groceries|food" {
		t.Errorf("the split's categorised parts: %v, want Groceries with its note", food)
	}
	kinds := e.strings(t, "SELECT transaction_kind FROM entries WHERE family_id = ? AND external_id = ?", e.user.FamilyID, ynabID(107))
	if len(kinds) != 1 || kinds[0] != "cc_payment" {
		t.Errorf("the card payment is %v, want cc_payment", kinds)
	}
	blank := e.strings(t, "SELECT coalesce(merchant_id::text, 'none') || '|' || name FROM entries WHERE family_id = ? AND external_id = ?",
		e.user.FamilyID, ynabID(104))
	if len(blank) != 1 || !strings.HasPrefix(blank[0], "none|") {
		t.Errorf("the blank payee's transaction is %v, want no merchant", blank)
	}
	// The card is 255 in credit in YNAB (paid 300, spent 45): a card owes -255 in Tally.
	for account, want := range map[string]string{"Checking": "5564.57", "Savings": "5050", "Visa": "-255", "Brokerage": "12000"} {
		got := e.strings(t, "SELECT balance::text FROM accounts WHERE family_id = ? AND name = ?", e.user.FamilyID, account)
		if len(got) != 1 || !decimal.RequireFromString(got[0]).Equal(decimal.RequireFromString(want)) {
			t.Errorf("%s's balance is %v, want %s", account, got, want)
		}
	}

	// Each month's budget on the budget page's own figures and the API's: what YNAB assigned,
	// spent and has available, each category carrying its surplus as YNAB does. August's
	// Groceries spent 85.43 and the split's 100.00 part (its other part is a transfer to
	// Savings, which YNAB spends nowhere). Visa is YNAB's payment category of the card, whose
	// spent and available follow YNAB's own rule for cards (the import's notice says so):
	// only its budget is compared.
	ctx := context.Background()
	fam, err := models.FamilyByID(ctx, e.srv.DB, e.user.FamilyID)
	if err != nil {
		t.Fatal(err)
	}
	ynabFigures := map[string]map[string]string{ // budgeted/spent/available
		"2026-08": {"Rent": "1200/1200/0", "Groceries": "400/185.43/214.57", "Dining": "100/45/55", "Vacation": "250/0/250",
			"Dining (hidden)": "0/0/0", "Visa": "45"},
		"2026-09": {"Rent": "1200/1200/0", "Groceries": "400/0/614.57", "Dining": "100/0/155", "Vacation": "250/0/500",
			"Dining (hidden)": "0/0/0", "Visa": "0"},
	}
	for month, want := range ynabFigures {
		day, _ := time.Parse("2006-01", month)
		m, err := (&budgets.Service{DB: e.srv.DB}).Month(ctx, fam, models.FamilyViewer(fam.ID), reports.MonthOf(day), time.Date(2026, 12, 7, 0, 0, 0, 0, time.UTC))
		if err != nil {
			t.Fatal(err)
		}
		api := e.budgetAPIFigures(t, month)
		for name, figures := range want {
			c := monthCategory(m, name)
			if c == nil || c.Rollover != "surplus" {
				t.Errorf("%s's %s: %+v, want a category carrying its surplus", month, name, c)
				continue
			}
			page, fromAPI := []decimal.Decimal{c.Budgeted, c.Spent, c.Available}, api[c.Name]
			for i, w := range strings.Split(figures, "/") {
				got := []decimal.Decimal{fromAPI.Budgeted, fromAPI.Spent, fromAPI.Available}[i]
				if !page[i].Equal(decimal.RequireFromString(w)) || !got.Equal(decimal.RequireFromString(w)) {
					t.Errorf("%s's %s: %s is %s on the budget page and %s in the API, %s in YNAB",
						month, name, []string{"budgeted", "spent", "available"}[i], page[i], got, w)
				}
			}
		}
	}

	// Its monthly funding and target balance by a date are goals, and its "needed for
	// spending" each month is a goal of that amount each month, which a notice says.
	if got := e.goals(t); fmt.Sprint(got) != "[Groceries|monthly|400.00| Rent|monthly|1200.00| Vacation|balance|1500.00|2027-06]" {
		t.Errorf("the family's goals are %q", got)
	}
	if !hasNotice(dry, "kept_as", "goal", "Groceries", "ready to spend each month") {
		t.Errorf("no notice says how Groceries' goal is kept: %+v", dry.Data.MoveIn.Notices)
	}

	published := e.familyCounts(t)
	again := e.moveIn(t, "ynab-household.json", map[string]string{"type": "YnabImport", "publish": "true"}, http.StatusCreated)
	if b := e.native(t, again.Data.ID); b.Data.Status != "complete" || b.Data.Verification.Readback.Status != "matched" {
		t.Fatalf("second publish ended %s, read back %s %v", b.Data.Status, b.Data.Verification.Readback.Status, b.Data.Verification.Readback.Mismatches)
	}
	if got := e.familyCounts(t); !equalCounts(got, published) {
		t.Errorf("the same file again changed the family: %v, was %v", got, published)
	}
	e.revertNative(t, again.Data.ID)
	e.revertNative(t, dry.Data.ID)
	if got := e.familyCounts(t); !equalCounts(got, before) {
		t.Errorf("after revert the family holds %v, was %v", got, before)
	}
}

// On the import page, "Detect from the file" takes an Actual export, and the page shows the
// dry run's counts and every notice before anything is written.
func TestMoveInOnTheImportPage(t *testing.T) {
	t.Parallel()
	e := newImportEnv(t, apptest.ServerOptions{NoWorker: true})
	content, err := os.ReadFile("testdata/actual-household.zip")
	if err != nil {
		t.Fatal(err)
	}
	page := testkit.NewClient(t, e.srv.URL)
	page.SignIn(e.user.Email, testkit.Password)
	token, _ := page.Get("/imports/new").Doc(t).Find(`meta[name="csrf-token"]`).Attr("content")
	body, ct := multipartBody(t, map[string]string{"type": "auto", "_csrf": token}, "My Finances.zip", "application/zip", content)
	r := page.Do(http.MethodPost, "/imports", body, map[string]string{"Content-Type": ct})
	if r.Status != http.StatusSeeOther || !strings.HasPrefix(r.Header.Get("Location"), "/imports/") {
		t.Fatalf("the page's upload: %d %.500s", r.Status, r.Body)
	}
	doc := page.Get(r.Header.Get("Location")).Doc(t)
	if n := doc.Find(`[data-testid="move-in-count"]`).Length(); n != 10 {
		t.Errorf("the page counts %d kinds, want 10", n)
	}
	notices := doc.Find(`[data-testid="move-in-notice"]`)
	if notices.Length() == 0 || !strings.Contains(notices.Text(), "isNot") {
		t.Errorf("the page lists the notices %q", notices.Text())
	}
	if n := e.count(t, "SELECT count(*) FROM entries WHERE family_id = ?", e.user.FamilyID); n != 0 {
		t.Errorf("the dry run wrote %d entries", n)
	}
}

// A move-in file larger than other imports may be is read (an Actual export of decades is
// tens of megabytes); one over the move-in limit, or a broken one, is refused naming why.
func TestMoveInLimitsAndRefusals(t *testing.T) {
	t.Parallel()
	e := newImportEnv(t, apptest.ServerOptions{NoWorker: true})
	// A YNAB budget of 12 MB (its JSON indented deep), over the 10 MB of other imports.
	budget, err := os.ReadFile("testdata/ynab-household.json")
	if err != nil {
		t.Fatal(err)
	}
	big := append([]byte("{"+strings.Repeat(" ", 12<<20)), budget[1:]...)
	body, ct := multipartBody(t, map[string]string{"type": "YnabImport"}, "budget.json", "application/json", big)
	r := e.c.Do(http.MethodPost, "/api/v1/imports", body, map[string]string{"Content-Type": ct, "X-Api-Key": e.write})
	var b moveInBody
	if r.Status != http.StatusCreated {
		t.Errorf("a 12 MB YNAB budget: %d %.300s", r.Status, r.Body)
	} else if r.JSON(t, &b); b.Data.MoveIn.Counts["transactions"] != 13 {
		t.Errorf("a 12 MB YNAB budget counts %v", b.Data.MoveIn.Counts)
	}
	body, ct = multipartBody(t, map[string]string{"type": "ActualImport"}, "export.zip", "application/zip", []byte("PK\x03\x04 not a zip"))
	r = e.c.Do(http.MethodPost, "/api/v1/imports", body, map[string]string{"Content-Type": ct, "X-Api-Key": e.write})
	if r.Status != http.StatusUnprocessableEntity || !strings.Contains(r.Body, "not a zip of an Actual export") {
		t.Errorf("a broken Actual export: %d %.300s", r.Status, r.Body)
	}
	if n := e.count(t, "SELECT count(*) FROM imports WHERE family_id = ?", e.user.FamilyID); n != 1 {
		t.Errorf("%d imports stored, want the one read", n)
	}
}

func (e *importEnv) moveInDetail(t *testing.T, id string) moveInBody {
	t.Helper()
	var b moveInBody
	if r := e.c.API(http.MethodGet, "/api/v1/imports/"+id, e.read, nil); r.Status != http.StatusOK {
		t.Fatalf("get import: %d %s", r.Status, r.Body)
	} else {
		r.JSON(t, &b)
	}
	return b
}

// An account a statement import made, of the budget's account's name, is that account: the
// transactions it holds already (here October's, under an opening balance at September's
// end) are the budget's of the same day and amount, not made again, and its balance carries
// on to Actual's.
func TestActualMoveInCarriesOnAnAccountAStatementMade(t *testing.T) {
	t.Parallel()
	e := newImportEnv(t, apptest.ServerOptions{})
	balance := decimal.RequireFromString("4814.45") // Actual's Checking at the end of September
	checking, err := models.CreateAccount(context.Background(), e.srv.DB, e.user.FamilyID, models.AccountInput{Name: "Checking",
		AccountableType: "Depository", Currency: "USD", Balance: &balance, BalanceDate: time.Date(2026, 9, 30, 0, 0, 0, 0, time.UTC)})
	if err != nil {
		t.Fatal(err)
	}
	for _, tx := range []struct{ date, amount, name string }{
		{"2026-10-01", "-3000", "ACME PAYROLL"}, {"2026-10-02", "1200", "LANDLORD"}, {"2026-10-11", "199.99", "POWER CO"}, {"2026-10-12", "80", "BISTRO"},
	} {
		e.addTransaction(t, map[string]any{"account_id": checking.ID.String(), "date": tx.date, "amount": tx.amount, "name": tx.name})
	}
	b := e.moveIn(t, "actual-household.zip", map[string]string{"type": "ActualImport", "publish": "true"}, http.StatusCreated)
	done := e.native(t, b.Data.ID)
	if done.Data.Status != "complete" || done.Data.Verification.Readback.Status != "matched" {
		t.Fatalf("publish ended %s, read back %s %v: %s", done.Data.Status, done.Data.Verification.Readback.Status,
			done.Data.Verification.Readback.Mismatches, deref(done.Data.Error))
	}
	if n := e.count(t, "SELECT count(*) FROM entries WHERE account_id = ? AND kind = 'transaction' AND date >= '2026-10-01'", checking.ID); n != 4 {
		t.Errorf("October holds %d transactions, want the 4 it held", n)
	}
	if got := e.strings(t, "SELECT balance::text FROM accounts WHERE id = ?", checking.ID); !decimal.RequireFromString(got[0]).Equal(decimal.RequireFromString("6334.46")) {
		t.Errorf("Checking's balance is %s, Actual's 6334.46", got[0])
	}
	if rb := e.moveInDetail(t, b.Data.ID).Data.MoveIn.Readback; rb == nil || rb.Status != "matched" {
		t.Errorf("the move-in's read-back: %+v", rb)
	}
}

// The preflight reads a move-in as create would, stores nothing, and lists its notices.
func TestMoveInPreflight(t *testing.T) {
	t.Parallel()
	e := newImportEnv(t, apptest.ServerOptions{NoWorker: true})
	content, err := os.ReadFile("testdata/ynab-household.json")
	if err != nil {
		t.Fatal(err)
	}
	body, ct := multipartBody(t, map[string]string{"type": "auto"}, "budget.json", "application/json", content)
	r := e.c.Do(http.MethodPost, "/api/v1/imports/preflight", body, map[string]string{"Content-Type": ct, "X-Api-Key": e.write})
	var b struct {
		Data struct {
			Type     string   `json:"type"`
			Valid    bool     `json:"valid"`
			Warnings []string `json:"warnings"`
		} `json:"data"`
	}
	if r.Status != http.StatusOK {
		t.Fatalf("preflight: %d %s", r.Status, r.Body)
	}
	r.JSON(t, &b)
	if b.Data.Type != "YnabImport" || !b.Data.Valid || !strings.Contains(strings.Join(b.Data.Warnings, "\n"), `kept as "Dining (hidden)"`) {
		t.Errorf("preflight %+v", b.Data)
	}
	body, ct = multipartBody(t, map[string]string{"type": "YnabImport"}, "budget.json", "application/json", []byte(`{"data": {"budget": [1, 2]}}`))
	r = e.c.Do(http.MethodPost, "/api/v1/imports/preflight", body, map[string]string{"Content-Type": ct, "X-Api-Key": e.write})
	if r.Status != http.StatusOK || !strings.Contains(r.Body, `"valid":false`) || !strings.Contains(r.Body, "invalid_export") {
		t.Errorf("a broken budget's preflight: %d %s", r.Status, r.Body)
	}
	if n := e.count(t, "SELECT count(*) FROM imports WHERE family_id = ?", e.user.FamilyID); n != 0 {
		t.Errorf("the preflight stored %d imports", n)
	}
}

// A family's account of the budget's account's name whose balance the budget's does not carry
// on (the family's Checking holds October's statement, but from another balance than
// Actual's) is not merged: the dry run names both balances and the day, and the budget's
// account is made beside it under another name, with its whole history.
func TestActualMoveInKeepsApartAnAccountWhoseBalanceDoesNotCarryOn(t *testing.T) {
	t.Parallel()
	e := newImportEnv(t, apptest.ServerOptions{})
	balance := decimal.RequireFromString("1000") // Actual's Checking is 4814.45 at the end of September
	checking, err := models.CreateAccount(context.Background(), e.srv.DB, e.user.FamilyID, models.AccountInput{Name: "Checking",
		AccountableType: "Depository", Currency: "USD", Balance: &balance, BalanceDate: time.Date(2026, 9, 30, 0, 0, 0, 0, time.UTC)})
	if err != nil {
		t.Fatal(err)
	}
	for _, tx := range []struct{ date, amount, name string }{
		{"2026-10-01", "-3000", "ACME PAYROLL"}, {"2026-10-02", "1200", "LANDLORD"}, {"2026-10-11", "199.99", "POWER CO"}, {"2026-10-12", "80", "BISTRO"},
	} {
		e.addTransaction(t, map[string]any{"account_id": checking.ID.String(), "date": tx.date, "amount": tx.amount, "name": tx.name})
	}
	dry := e.moveIn(t, "actual-household.zip", map[string]string{"type": "ActualImport"}, http.StatusCreated)
	want := `your account "Checking" has a balance of 2520.01 on 2026-10-12, and Actual's 6334.46: its balance does not carry on yours, so it is kept apart as "Checking (Actual)" rather than merged`
	if !hasNotice(dry, "renamed", "account", "Checking", want) {
		t.Errorf("the dry run does not say why Checking is kept apart: %+v", dry.Data.MoveIn.Notices)
	}
	if r := e.c.API(http.MethodPost, "/api/v1/imports/"+dry.Data.ID+"/publish", e.write, nil); r.Status != http.StatusAccepted {
		t.Fatalf("publish: %d %s", r.Status, r.Body)
	}
	done := e.native(t, dry.Data.ID)
	if done.Data.Status != "complete" || done.Data.Verification.Readback.Status != "matched" {
		t.Fatalf("publish ended %s, read back %s %v: %s", done.Data.Status, done.Data.Verification.Readback.Status,
			done.Data.Verification.Readback.Mismatches, deref(done.Data.Error))
	}
	got := e.strings(t, `SELECT a.name || '|' || a.balance::numeric(19, 2) || '|' || (SELECT count(*) FROM entries x WHERE x.account_id = a.id AND x.kind = 'transaction')
		FROM accounts a WHERE a.family_id = ? AND a.name LIKE 'Checking%' ORDER BY a.name`, e.user.FamilyID)
	if fmt.Sprint(got) != "[Checking|2520.01|4 Checking (Actual)|6334.46|17]" {
		t.Errorf("the family's Checking accounts (name|balance|transactions) are %v, want its own as it was and Actual's beside it", got)
	}
	if rb := e.moveInDetail(t, dry.Data.ID).Data.MoveIn.Readback; rb == nil || rb.Status != "matched" {
		t.Errorf("the move-in's read-back: %+v", rb)
	}
	if merged := done.Data.Verification.Readback.MergedCounts; merged["accounts"] != 0 {
		t.Errorf("%d accounts merged, want none", merged["accounts"])
	}
}

// A transaction of the budget that an account of the family holds already, paired there with
// another account in a transfer, keeps the family's pairing: the budget's transfer is skipped
// and the read-back names it, rather than the publish failing.
func TestActualMoveInKeepsTheFamilysTransfer(t *testing.T) {
	t.Parallel()
	e := newImportEnv(t, apptest.ServerOptions{})
	// Its balance carries on Actual's: 4814.45 after the transfer, on September 15th.
	balance := decimal.RequireFromString("5314.45")
	checking, err := models.CreateAccount(context.Background(), e.srv.DB, e.user.FamilyID, models.AccountInput{Name: "Checking",
		AccountableType: "Depository", Currency: "USD", Balance: &balance, BalanceDate: time.Date(2026, 9, 14, 0, 0, 0, 0, time.UTC)})
	if err != nil {
		t.Fatal(err)
	}
	wallet := testkit.MustCreateAccount(t, e.srv.DB, e.user.FamilyID, "Wallet", "Depository", "")
	out := e.addTransaction(t, map[string]any{"account_id": checking.ID.String(), "date": "2026-09-15", "amount": "500", "name": "To wallet"})
	in := e.addTransaction(t, map[string]any{"account_id": wallet.ID.String(), "date": "2026-09-15", "amount": "-500", "name": "From checking"})
	// Tally pairs the two as a transfer as they are entered.
	if n := e.count(t, "SELECT count(*) FROM transfers WHERE outflow_entry_id = ? AND inflow_entry_id = ?", out, in); n != 1 {
		t.Fatalf("the family's two are not a transfer (%d)", n)
	}
	b := e.moveIn(t, "actual-household.zip", map[string]string{"type": "ActualImport", "publish": "true"}, http.StatusCreated)
	done := e.native(t, b.Data.ID)
	if done.Data.Status != "complete" {
		t.Fatalf("publish ended %s: %s", done.Data.Status, deref(done.Data.Error))
	}
	if rb := done.Data.Verification.Readback; rb.Status != "mismatch" || rb.Mismatches["transfers"]["expected"] != 1 || rb.Mismatches["transfers"]["actual"] != 0 {
		t.Errorf("the read-back does not name the transfer it skipped: %s %v", rb.Status, rb.Mismatches)
	}
	if n := e.count(t, "SELECT count(*) FROM transfers WHERE family_id = ?", e.user.FamilyID); n != 1 {
		t.Errorf("%d transfers, want the family's one", n)
	}
}

// Reading an export is bounded by a time of its own (MOVE_IN_READ_TIMEOUT), shorter than a
// request's: an export that takes longer is refused with a 422 naming the limit, at create
// and at preflight, not left to the request's timeout and its 503.
func TestMoveInReadingIsBoundedInTime(t *testing.T) {
	t.Parallel()
	e := newImportEnv(t, apptest.ServerOptions{NoWorker: true, Env: map[string]string{"MOVE_IN_READ_TIMEOUT": "45s"}})
	if got := e.srv.Imports.Limits.MoveInReadTime; got != 45*time.Second {
		t.Fatalf("MOVE_IN_READ_TIMEOUT=45s gave the imports %s", got)
	}
	e.srv.Imports.Limits.MoveInReadTime = time.Nanosecond // below what the variable allows, so that every export is too slow
	for _, c := range []struct{ file, typ, path string }{
		{"actual-household.zip", "ActualImport", "/api/v1/imports"},
		{"ynab-household.json", "YnabImport", "/api/v1/imports"},
		{"actual-household.zip", "auto", "/api/v1/imports/preflight"},
	} {
		content, err := os.ReadFile("testdata/" + c.file)
		if err != nil {
			t.Fatal(err)
		}
		body, ct := multipartBody(t, map[string]string{"type": c.typ}, c.file, "application/octet-stream", content)
		r := e.c.Do(http.MethodPost, c.path, body, map[string]string{"Content-Type": ct, "X-Api-Key": e.write})
		want := http.StatusUnprocessableEntity
		if strings.HasSuffix(c.path, "preflight") {
			want = http.StatusOK // the preflight lists it among the file's errors
		}
		if r.Status != want || !strings.Contains(r.Body, "read_time_exceeded") || !strings.Contains(r.Body, "could not be read within 1ns") {
			t.Errorf("%s to %s: %d %.400s", c.file, c.path, r.Status, r.Body)
		}
	}
	if n := e.count(t, "SELECT count(*) FROM imports WHERE family_id = ?", e.user.FamilyID); n != 0 {
		t.Errorf("%d imports stored, want none", n)
	}
}
