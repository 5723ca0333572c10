package handlers_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
	"github.com/google/uuid"

	"tally/app/apptest"
	"tally/models"
	"tally/testkit"
)

// TestTransactionsPage reads /transactions as a browser without JavaScript and as htmx: an
// import's page links to exactly its transactions, "Show older" is a plain link to the next
// page and, for htmx, only the next rows; blank filters are dropped from the URL; and another
// family's import shows nothing of theirs.
func TestTransactionsPage(t *testing.T) {
	t.Parallel()
	e := newImportEnv(t, apptest.ServerOptions{})
	acct := testkit.MustCreateAccount(t, e.srv.DB, e.user.FamilyID, "Checking", "Depository", "").ID.String()
	csv := "date,amount,name\n"
	for i := 1; i <= 60; i++ {
		csv += fmt.Sprintf("2026-01-%02d,-1,Imported %02d\n", i%28+1, i)
	}
	imp := e.publish(t, map[string]any{"raw_file_content": csv, "date_format": "%Y-%m-%d", "account_id": acct})
	e.addTransaction(t, map[string]any{"account_id": acct, "date": "2026-02-01", "amount": "5", "name": "By hand"})
	c := apptest.NewClient(t, e.srv)
	c.SignIn(e.user.Email, testkit.Password)

	page := c.Get("/imports/" + imp.Data.ID)
	link, ok := page.Doc(t).Find(`[data-testid="import-transactions"]`).Attr("href")
	if !ok || link != "/transactions?import_id="+imp.Data.ID {
		t.Fatalf("the import page's link to its transactions: %q", link)
	}
	first := c.Get(link)
	doc := first.Doc(t)
	if n := doc.Find(`[data-testid="tx-row"]`).Length(); first.Status != http.StatusOK || n != 50 {
		t.Fatalf("first page: %d, %d rows", first.Status, n)
	}
	if got := doc.Find(`[data-testid="tx-count"]`).Text(); got != "60" {
		t.Errorf("the import's count is %q, want 60 (the one by hand is not its)", got)
	}
	if name := doc.Find(`[data-testid="tx-import-filter"]`).Text(); !strings.Contains(name, "import.csv") {
		t.Errorf("the import filter says %q", name)
	}
	more, ok := doc.Find(`[data-testid="tx-more"]`).Attr("href")
	if !ok {
		t.Fatal("no link to older transactions")
	}

	second := c.Get(more)
	doc2 := second.Doc(t)
	if n := doc2.Find(`[data-testid="tx-row"]`).Length(); n != 10 || doc2.Find(`[data-testid="tx-more"]`).Length() != 0 ||
		doc2.Find(`[data-testid="tx-first-page"]`).Length() != 1 {
		t.Errorf("the second page without JavaScript: %d rows, more %d, back link %d", n,
			doc2.Find(`[data-testid="tx-more"]`).Length(), doc2.Find(`[data-testid="tx-first-page"]`).Length())
	}
	frag := c.Do(http.MethodGet, more, nil, map[string]string{"HX-Request": "true", "HX-Target": "tx-more"})
	// Table rows alone: an HTML parser would drop them outside a table, so count the markup.
	if strings.Count(frag.Body, `data-testid="tx-row"`) != 10 || strings.Contains(frag.Body, "<nav") || strings.Contains(frag.Body, "<form") {
		t.Errorf("the htmx answer is not just the rows: %.300s", frag.Body)
	}

	blank := c.Do(http.MethodGet, "/transactions?q=by&account_id=&tag_id=&min_amount=", nil, nil)
	if blank.Status != http.StatusSeeOther || blank.Location() != "/transactions?q=by" {
		t.Errorf("blank filters: %d to %q", blank.Status, blank.Location())
	}

	other := testkit.MustCreateUser(t, e.srv.DB, testkit.UserOpts{})
	oc := apptest.NewClient(t, e.srv)
	oc.SignIn(other.Email, testkit.Password)
	theirs := oc.Get(link)
	if d := theirs.Doc(t); theirs.Status != http.StatusOK || d.Find(`[data-testid="tx-row"]`).Length() != 0 || d.Find(`[data-testid="tx-empty"]`).Length() != 1 {
		t.Errorf("another family sees this import's transactions: %d", theirs.Status)
	}
}

// TestTransactionsBulkEdit changes many transactions from the list's form: another family's
// ids change nothing, an undo works once and only for the family, and a rule's application
// is not offered as the list's undo.
func TestTransactionsBulkEdit(t *testing.T) {
	t.Parallel()
	e := newImportEnv(t, apptest.ServerOptions{NoWorker: true})
	acct := testkit.MustCreateAccount(t, e.srv.DB, e.user.FamilyID, "Checking", "Depository", "").ID.String()
	food := e.named(t, "categories", "Food")
	a := e.addTransaction(t, map[string]any{"account_id": acct, "date": "2026-02-01", "amount": "5", "name": "Lunch"})
	b := e.addTransaction(t, map[string]any{"account_id": acct, "date": "2026-02-02", "amount": "6", "name": "Dinner"})
	c := apptest.NewClient(t, e.srv)
	c.SignIn(e.user.Email, testkit.Password)
	c.Get("/transactions")
	withFood := func() int {
		return e.count(t, "SELECT count(*) FROM entries WHERE family_id = ? AND category_id = ?", e.user.FamilyID, uuid.MustParse(food))
	}

	other := testkit.MustCreateUser(t, e.srv.DB, testkit.UserOpts{})
	oc := apptest.NewClient(t, e.srv)
	oc.SignIn(other.Email, testkit.Password)
	oc.Get("/transactions")
	r := oc.PostForm("/transactions/bulk", url.Values{"ids": {a, b}, "category_id": {food}, "return": {"/transactions"}})
	if r.Status != http.StatusSeeOther || withFood() != 0 {
		t.Fatalf("another family's bulk edit: %d, %d changed", r.Status, withFood())
	}

	r = c.PostForm("/transactions/bulk", url.Values{"ids": {a, b}, "category_id": {food}, "return": {"/transactions?q=n"}})
	loc := r.Location()
	if r.Status != http.StatusSeeOther || !strings.HasPrefix(loc, "/transactions?q=n&changed=") || withFood() != 2 {
		t.Fatalf("bulk edit: %d to %q, %d changed", r.Status, loc, withFood())
	}
	page := c.Get(loc)
	if got := page.Doc(t).Find(`[data-testid="tx-undo-text"]`).Text(); got != "Changed 2 transactions." {
		t.Errorf("the undo offer says %q", got)
	}
	changeID := strings.TrimPrefix(loc, "/transactions?q=n&changed=")
	if r := oc.PostForm("/transactions/changes/"+changeID+"/undo", url.Values{"return": {"/transactions"}}); r.Status != http.StatusNotFound || withFood() != 2 {
		t.Errorf("another family's undo: %d", r.Status)
	}
	if r := c.PostForm("/transactions/changes/"+changeID+"/undo", url.Values{"return": {"/transactions?q=n"}}); r.Status != http.StatusSeeOther || withFood() != 0 {
		t.Fatalf("undo: %d, %d still changed", r.Status, withFood())
	}
	c.PostForm("/transactions/changes/"+changeID+"/undo", url.Values{"return": {"/transactions"}})
	if got := c.Get("/transactions").Doc(t).Find(`[data-testid="flash-error"]`).Text(); !strings.Contains(got, "already undone") {
		t.Errorf("a second undo says %q", got)
	}
	if r := c.PostForm("/transactions/bulk", url.Values{"return": {"https://evil.example/"}, "category_id": {food}}); r.Location() != "/transactions" {
		t.Errorf("an outside return address was followed: %q", r.Location())
	}
}

// editForm is the transaction's form as the browser would send it: every field as the page
// fills it.
func editForm(t *testing.T, c *testkit.Client, id string) url.Values {
	t.Helper()
	v := url.Values{}
	doc := c.Get("/transactions/" + id).Doc(t)
	doc.Find(`form[data-testid="tx-edit-form"] input, form[data-testid="tx-edit-form"] select, form[data-testid="tx-edit-form"] textarea`).
		Each(func(_ int, s *goquery.Selection) {
			name, _ := s.Attr("name")
			typ, _ := s.Attr("type")
			switch {
			case name == "" || name == "_csrf" || typ == "checkbox" && !s.Is("[checked]"):
			case s.Is("select"):
				val, _ := s.Find("option[selected]").Attr("value")
				v.Add(name, val)
			case s.Is("textarea"):
				v.Add(name, s.Text())
			default:
				val, _ := s.Attr("value")
				v.Add(name, val)
			}
		})
	return v
}

// TestRenameImportedTransaction renames a standing order imported from the bank as "Anna
// Berger", through the API and on its page: the name changes and is locked, the bank's text
// stays beside it (shown on the page, original_name in the API), its date and amount stay as
// the bank said, and the same file uploaded again is still recognised by the bank's text.
func TestRenameImportedTransaction(t *testing.T) {
	t.Parallel()
	e := newImportEnv(t, apptest.ServerOptions{})
	acct := testkit.MustCreateAccount(t, e.srv.DB, e.user.FamilyID, "Girokonto", "Depository", "")
	file := map[string]any{"raw_file_content": "date,amount,name\n2026-02-01,-1000,Anna Berger\n", "date_format": "%Y-%m-%d", "account_id": acct.ID.String()}
	imp := e.publish(t, file)
	id := e.strings(t, "SELECT id::text FROM entries WHERE import_id = ?", uuid.MustParse(imp.Data.ID))[0]
	patch := func(body map[string]any) (*testkit.Response, transactionBody) {
		r := e.c.API(http.MethodPatch, "/api/v1/transactions/"+id, e.write, body)
		var b transactionBody
		r.JSON(t, &b)
		return r, b
	}

	r, b := patch(map[string]any{"name": "Savings (standing order)"})
	if r.Status != http.StatusOK || b.Data.Name != "Savings (standing order)" || deref(b.Data.OriginalName) != "Anna Berger" ||
		!slices.Contains(b.Data.LockedFields, "name") {
		t.Fatalf("renamed through the API: %d %s", r.Status, r.Body)
	}
	for _, body := range []map[string]any{{"date": "2026-02-02"}, {"amount": "999"}} {
		if r, _ := patch(body); r.Status != http.StatusUnprocessableEntity {
			t.Errorf("%v on an imported transaction: %d %s", body, r.Status, r.Body)
		}
	}

	c := apptest.NewClient(t, e.srv)
	c.SignIn(e.user.Email, testkit.Password)
	if got := c.Get("/transactions/"+id).TestID(t, "tx-bank-text"); got != "Bank's text: Anna Berger" {
		t.Errorf("the page shows the bank's text as %q", got)
	}
	form := editForm(t, c, id)
	if form.Has("date") || form.Has("amount") {
		t.Errorf("the page offers to change an imported transaction's date or amount: %v", form)
	}
	form.Set("name", "Monthly savings")
	if r := c.PostForm("/transactions/"+id, form); r.Status != http.StatusSeeOther {
		t.Fatalf("renamed on the page: %d %s", r.Status, r.Body)
	}
	r, b = patch(map[string]any{"notes": "to Tagesgeld"})
	if b.Data.Name != "Monthly savings" || deref(b.Data.OriginalName) != "Anna Berger" || b.Data.Amount != "1000.00" {
		t.Errorf("after the page's rename: %d %s", r.Status, r.Body)
	}

	again := e.publish(t, file)
	if again.Data.Stats.DuplicateRowsCount != 1 || e.count(t, "SELECT count(*) FROM entries WHERE account_id = ?", acct.ID) != 1 {
		t.Errorf("the same file again: %d duplicates, %d entries", again.Data.Stats.DuplicateRowsCount,
			e.count(t, "SELECT count(*) FROM entries WHERE account_id = ?", acct.ID))
	}
}

// TestLeaveOutOfReportsSaves ticks "Leave out of budgets and reports" on a transaction's form,
// as the browser sends it (the box's value), and untick it: each is saved, and locked against
// rules.
func TestLeaveOutOfReportsSaves(t *testing.T) {
	t.Parallel()
	srv := apptest.StartServer(t, apptest.ServerOptions{NoWorker: true})
	u := testkit.MustCreateUser(t, srv.DB, testkit.UserOpts{})
	acct := testkit.MustCreateAccount(t, srv.DB, u.FamilyID, "Checking", "Depository", "")
	var id string
	if err := srv.DB.NewRaw(`INSERT INTO entries (id, family_id, account_id, kind, date, amount, currency, name, source)
		VALUES (gen_random_uuid(), ?, ?, 'transaction', current_date, 12.5, 'USD', 'Gift for Ana', 'manual') RETURNING id::text`,
		u.FamilyID, acct.ID).Scan(context.Background(), &id); err != nil {
		t.Fatal(err)
	}
	c := apptest.NewClient(t, srv)
	c.SignIn(u.Email, testkit.Password)
	excluded := func() (bool, []string) {
		var e models.Entry
		if err := srv.DB.NewSelect().Model(&e).Where("id = ?", id).Scan(context.Background()); err != nil {
			t.Fatal(err)
		}
		return e.Excluded, e.LockedFields
	}
	form := func() url.Values { return editForm(t, c, id) }
	page := c.Get("/transactions/" + id)
	box := page.Doc(t).Find(`input[name="excluded"]`)
	value, _ := box.Attr("value")
	if box.Length() != 1 || value == "" {
		t.Fatalf("the form's box: %d, value %q", box.Length(), value)
	}
	ticked := form()
	ticked.Set("excluded", value)
	r := c.PostForm("/transactions/"+id, ticked)
	if got, locked := excluded(); r.Status != http.StatusSeeOther || !got || !slices.Contains(locked, "excluded") {
		t.Fatalf("ticked: %d, excluded %v, locked %v", r.Status, got, locked)
	}
	if !c.Get("/transactions/" + id).Doc(t).Find(`input[name="excluded"]`).Is("[checked]") {
		t.Error("the form does not show the box ticked")
	}
	unticked := form()
	unticked.Del("excluded")
	if r := c.PostForm("/transactions/"+id, unticked); r.Status != http.StatusSeeOther {
		t.Fatalf("unticked: %d", r.Status)
	}
	if got, _ := excluded(); got {
		t.Error("unticking did not save")
	}
}

// TestTransactionsBulkEditLeavesOutUnticked is "all that match" after ticking every row shown
// and unticking one: that one is left out; all that match with nothing ticked is all of them.
func TestTransactionsBulkEditLeavesOutUnticked(t *testing.T) {
	t.Parallel()
	e := newImportEnv(t, apptest.ServerOptions{NoWorker: true})
	acct := testkit.MustCreateAccount(t, e.srv.DB, e.user.FamilyID, "Checking", "Depository", "").ID.String()
	food, fun := e.named(t, "categories", "Food"), e.named(t, "categories", "Fun")
	a := e.addTransaction(t, map[string]any{"account_id": acct, "date": "2026-02-01", "amount": "5", "name": "Lunch"})
	b := e.addTransaction(t, map[string]any{"account_id": acct, "date": "2026-02-02", "amount": "6", "name": "Dinner"})
	c := e.addTransaction(t, map[string]any{"account_id": acct, "date": "2026-02-03", "amount": "7", "name": "Brunch"})
	cl := apptest.NewClient(t, e.srv)
	cl.SignIn(e.user.Email, testkit.Password)
	cl.Get("/transactions")
	with := func(category string) []string {
		return e.strings(t, "SELECT id::text FROM entries WHERE family_id = ? AND category_id = ? ORDER BY date", e.user.FamilyID, uuid.MustParse(category))
	}
	// b and c are shown, b ticked, c unticked: a (not shown) and b change.
	r := cl.PostForm("/transactions/bulk", url.Values{"all": {"1"}, "filter": {""}, "shown": {b, c}, "ids": {b}, "category_id": {food}, "return": {"/transactions"}})
	if got := with(food); r.Status != http.StatusSeeOther || !slices.Equal(got, []string{a, b}) {
		t.Errorf("all but the unticked: %d, changed %v, want %v", r.Status, got, []string{a, b})
	}
	r = cl.PostForm("/transactions/bulk", url.Values{"all": {"1"}, "filter": {""}, "shown": {b, c}, "category_id": {fun}, "return": {"/transactions"}})
	if got := with(fun); r.Status != http.StatusSeeOther || !slices.Equal(got, []string{a, b, c}) {
		t.Errorf("all with none ticked: %d, changed %v", r.Status, got)
	}
}
