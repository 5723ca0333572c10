package handlers_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
	"github.com/google/uuid"

	"tally/app/apptest"
	"tally/models"
	"tally/testkit"
)

// importPageEnv is an importEnv whose person is also signed in to the pages, with an account
// for transaction imports.
type importPageEnv struct {
	*importEnv
	acct *models.Account
}

func newImportPageEnv(t *testing.T, opts apptest.ServerOptions) *importPageEnv {
	t.Helper()
	e := newImportEnv(t, opts)
	e.c.SignIn(e.user.Email, testkit.Password)
	return &importPageEnv{importEnv: e, acct: testkit.MustCreateAccount(t, e.srv.DB, e.user.FamilyID, "Checking", "Depository", "100")}
}

const importPageCSV = "date,amount,name\n2024-01-02,-12.50,Coffee\n"

// createImport uploads csv as a transaction import into the env's account and returns its id.
func (e *importPageEnv) createImport(t *testing.T, csv string, extra map[string]any) string {
	t.Helper()
	body := map[string]any{"raw_file_content": csv, "date_format": "%Y-%m-%d", "account_id": e.acct.ID.String()}
	for k, v := range extra {
		body[k] = v
	}
	var b importBody
	e.create(t, body, http.StatusCreated).JSON(t, &b)
	return b.Data.ID
}

// cells are the trimmed texts of a table row's cells.
func cells(row *goquery.Selection) []string {
	var out []string
	row.Find("td").Each(func(_ int, td *goquery.Selection) {
		out = append(out, strings.Join(strings.Fields(td.Text()), " "))
	})
	return out
}

// wantRedirect fails t unless r is a 303 to want.
func wantRedirect(t *testing.T, r *testkit.Response, want string) {
	t.Helper()
	if r.Status != http.StatusSeeOther || r.Location() != want {
		t.Fatalf("status %d to %q, want 303 to %q; body %s", r.Status, r.Location(), want, r.Body)
	}
}

// wantPage fails t unless r is a page with status.
func wantPage(t *testing.T, r *testkit.Response, status int) {
	t.Helper()
	if r.Status != status {
		t.Fatalf("status %d, want %d; body %s", r.Status, status, r.Body)
	}
}

func TestImportsPageListsAndFilters(t *testing.T) {
	t.Parallel()
	e := newImportPageEnv(t, apptest.ServerOptions{})

	r := e.c.Get("/imports")
	wantPage(t, r, http.StatusOK)
	if !r.Has(t, "imports-empty") || !strings.Contains(r.TestID(t, "imports-empty"), "POST /api/v1/imports") {
		t.Fatalf("no empty state naming the API on an empty list: %s", r.Body)
	}
	if href, _ := r.Doc(t).Find(`[data-testid="imports-empty-api-keys"]`).Attr("href"); href != "/settings/api_keys" {
		t.Errorf("empty state links to %q, want the API keys page", href)
	}
	if got := r.Doc(t).Find(`[data-testid="nav-imports"]`).AttrOr("aria-current", ""); got != "page" {
		t.Errorf("nav-imports aria-current %q, want page", got)
	}

	pending := e.createImport(t, importPageCSV, nil)
	published := e.createImport(t, "date,amount,name\n2024-01-03,-5.00,Tea\n2024-01-04,-6.00,Cake\n", map[string]any{"publish": true})
	if done := e.waitFor(t, published); done.Data.Status != "complete" {
		t.Fatalf("publish ended %s", done.Data.Status)
	}
	var cat importBody
	e.create(t, map[string]any{"type": "CategoryImport", "raw_file_content": "name\nGroceries\n"}, http.StatusCreated).JSON(t, &cat)
	categories := cat.Data.ID

	r = e.c.Get("/imports")
	wantPage(t, r, http.StatusOK)
	rows := r.Doc(t).Find(`[data-testid="import-row"]`)
	if rows.Length() != 3 {
		t.Fatalf("%d rows, want 3: %s", rows.Length(), r.Body)
	}
	// Newest first: the categories, then the published import, then the pending one.
	first, second, third := rows.Eq(0), rows.Eq(1), rows.Eq(2)
	if got := strings.TrimSpace(first.Find(`[data-testid="import-link"]`).Text()); got != "Categories" {
		t.Errorf("first row's type %q, want Categories", got)
	}
	if got := strings.TrimSpace(second.Find(`[data-testid="import-row-status"]`).Text()); got != "Complete" {
		t.Errorf("published import's status %q, want Complete", got)
	}
	if href := second.Find(`[data-testid="import-link"]`).AttrOr("href", ""); href != "/imports/"+published {
		t.Errorf("row links to %q, want /imports/%s", href, published)
	}
	text := strings.Join(cells(third), " | ")
	for _, want := range []string{"Transactions (CSV)", "import.csv", "Pending", "1 / 1"} {
		if !strings.Contains(text, want) {
			t.Errorf("pending import's row %q lacks %q", text, want)
		}
	}
	if got := third.Find("td").Eq(2).Text(); len(strings.TrimSpace(got)) != len("2026-01-05") {
		t.Errorf("created date %q, want YYYY-MM-DD", got)
	}

	cases := []struct {
		query string
		want  []string // the ids listed, newest first; nil for the "none match" state
	}{
		{"?status=pending", []string{categories, pending}},
		{"?status=pending&type=TransactionImport", []string{pending}},
		{"?status=complete", []string{published}},
		{"?status=complete&type=TransactionImport", []string{published}},
		{"?type=TransactionImport", []string{published, pending}},
		{"?status=failed", nil},
		{"?type=TradeImport", nil},
		{"?status=bogus", nil}, // ignored: everything
	}
	for _, tc := range cases {
		t.Run(tc.query, func(t *testing.T) {
			r := e.c.Get("/imports" + tc.query)
			wantPage(t, r, http.StatusOK)
			links := r.Doc(t).Find(`[data-testid="import-link"]`)
			if tc.query == "?status=bogus" {
				if links.Length() != 3 {
					t.Fatalf("unknown status shows %d imports, want all 3", links.Length())
				}
				return
			}
			if tc.want == nil {
				if !r.Has(t, "imports-none-match") || links.Length() != 0 {
					t.Fatalf("want the none-match state, got %d rows", links.Length())
				}
				return
			}
			var got []string
			for i := range links.Length() {
				got = append(got, strings.TrimPrefix(links.Eq(i).AttrOr("href", ""), "/imports/"))
			}
			if strings.Join(got, ",") != strings.Join(tc.want, ",") {
				t.Errorf("listed %v, want %v", got, tc.want)
			}
			// The filter form shows the filters of the URL.
			q, _ := url.ParseQuery(strings.TrimPrefix(tc.query, "?"))
			for _, name := range []string{"status", "type"} {
				sel := r.Doc(t).Find(`select[name="`+name+`"] option[selected]`).AttrOr("value", "")
				if sel != q.Get(name) {
					t.Errorf("%s filter shows %q selected, want %q", name, sel, q.Get(name))
				}
			}
		})
	}

	t.Run("htmx gets only the table", func(t *testing.T) {
		r := e.c.Do(http.MethodGet, "/imports?status=pending&type=TransactionImport", nil, map[string]string{"HX-Request": "true", "HX-Target": "imports"})
		wantPage(t, r, http.StatusOK)
		if r.Has(t, "page-title") || r.Has(t, "import-filters") {
			t.Errorf("fragment has the page around the table: %s", r.Body)
		}
		if n := r.Doc(t).Find(`[data-testid="import-row"]`).Length(); n != 1 || !strings.HasPrefix(strings.TrimSpace(r.Body), `<div id="imports">`) {
			t.Errorf("fragment %s, want the #imports table with 1 row", r.Body)
		}
	})

	t.Run("filter form works without JavaScript", func(t *testing.T) {
		form := e.c.Get("/imports").Doc(t).Find(`[data-testid="import-filters"]`)
		if m, a := form.AttrOr("method", ""), form.AttrOr("action", ""); m != "get" || a != "/imports" {
			t.Errorf("filter form is %s %s, want get /imports", m, a)
		}
		for _, attr := range []string{"hx-get", "hx-target", "hx-push-url"} {
			if _, ok := form.Attr(attr); !ok {
				t.Errorf("filter form lacks %s", attr)
			}
		}
	})
}

func TestImportsPagePages(t *testing.T) {
	t.Parallel()
	e := newImportPageEnv(t, apptest.ServerOptions{})
	// 26 imports straight into the database: one more than a page.
	for i := range 26 {
		_, err := e.srv.DB.NewRaw(`INSERT INTO imports (id, family_id, type, status, number_format, signage_convention, col_sep, amount_type_strategy, created_at)
			VALUES (?, ?, 'TransactionImport', 'pending', '1,234.56', 'inflows_positive', ',', 'signed_amount', now() - make_interval(mins => ?))`,
			uuid.Must(uuid.NewV7()), e.user.FamilyID, i).Exec(context.Background())
		if err != nil {
			t.Fatalf("insert import: %v", err)
		}
	}
	r := e.c.Get("/imports?status=pending")
	wantPage(t, r, http.StatusOK)
	if n := r.Doc(t).Find(`[data-testid="import-row"]`).Length(); n != 25 {
		t.Fatalf("first page has %d rows, want 25", n)
	}
	next := r.Doc(t).Find(`[data-testid="page-next"]`).AttrOr("href", "")
	if next != "/imports?page=2&status=pending" {
		t.Fatalf("next page link %q keeps the filter?", next)
	}
	r = e.c.Get(next)
	if n := r.Doc(t).Find(`[data-testid="import-row"]`).Length(); n != 1 || !r.Has(t, "page-prev") || r.Has(t, "page-next") {
		t.Fatalf("second page: %d rows, prev %v, next %v", n, r.Has(t, "page-prev"), r.Has(t, "page-next"))
	}
}

// The row limit is on the page before Publish is pressed, and an import over it says so.
func TestImportPageShowsTheRowLimit(t *testing.T) {
	t.Parallel()
	e := newImportPageEnv(t, apptest.ServerOptions{Env: map[string]string{"IMPORT_MAX_ROWS": "2"}})
	id := e.createImport(t, "date,amount,name\n2024-01-02,-1,A\n2024-01-03,-2,B\n2024-01-04,-3,C\n", nil)
	r := e.c.Get("/imports/" + id)
	wantPage(t, r, http.StatusOK)
	want := "This file has 3 rows, over the limit of 2 rows per import: split it, or ask the administrator to raise IMPORT_MAX_ROWS."
	if got := r.TestID(t, "row-limit"); got != want {
		t.Errorf("row limit %q, want %q", got, want)
	}
	if over, _ := r.Doc(t).Find(`[data-testid="row-limit"]`).Attr("data-over"); over != "true" {
		t.Errorf("data-over = %q", over)
	}
}

func TestImportPageSaysWhatWasGuessedAndWhatIsNotImported(t *testing.T) {
	t.Parallel()
	e := newImportPageEnv(t, apptest.ServerOptions{})
	id := e.createImport(t, "Date;Description;Amount;Card No.\n2024-01-02;Coffee;-1,50;1234\n", nil)
	r := e.c.Get("/imports/" + id)
	wantPage(t, r, http.StatusOK)
	var lines []string
	r.Doc(t).Find(`[data-testid="import-config"] dt`).Each(func(_ int, dt *goquery.Selection) {
		lines = append(lines, dt.Text()+": "+strings.Join(strings.Fields(dt.Next().Text()), " "))
	})
	config := strings.Join(lines, "; ")
	for _, want := range []string{"Separator: Semicolon (read off the file)", "Number format: 1.234,56 (read off the file)", "Name column: “Description” (read off the file)"} {
		if !strings.Contains(config, want) {
			t.Errorf("configuration %q lacks %q", config, want)
		}
	}
	if !strings.Contains(config, "Date format: %Y-%m-%d;") {
		t.Errorf("the date format that was sent shows as guessed: %q", config)
	}
	if got := r.TestID(t, "unmapped-columns"); got != "Not imported: Card No." {
		t.Errorf("unmapped columns %q", got)
	}
	if r.Has(t, "no-name-column") {
		t.Error("warned of no name column where Description is the name")
	}

	// A file with nothing to read as the name is warned of before Publish.
	id = e.createImport(t, "date,amount\n2024-01-02,-1\n", nil)
	r = e.c.Get("/imports/" + id)
	if got := r.TestID(t, "no-name-column"); !strings.Contains(got, "Imported item") {
		t.Errorf("no-name warning %q", got)
	}
}

func TestImportPageReadsTheFileAgainWithAnotherColumn(t *testing.T) {
	t.Parallel()
	e := newImportPageEnv(t, apptest.ServerOptions{})
	id := e.createImport(t, "date,Description,Memo,amount\n2024-01-02,CARD 1234,Coffee,-1.50\n", nil)
	page := "/imports/" + id
	selected := func(r *testkit.Response, testid string) string {
		v, _ := r.Doc(t).Find(`[data-testid="` + testid + `"] option[selected]`).Attr("value")
		return v
	}
	r := e.c.Get(page)
	if got := selected(r, "configure-name"); got != "Description" {
		t.Errorf("name select shows %q", got)
	}
	if got := selected(r, "configure-date"); got != "date" {
		t.Errorf("date select shows %q (the header read under its own name)", got)
	}
	if got := selected(r, "configure-date-format"); got != "%Y-%m-%d" {
		t.Errorf("date format select shows %q", got)
	}
	wantRedirect(t, e.c.PostForm(page+"/configure", url.Values{"name_col_label": {"Memo"}}), page)
	r = e.c.Get(page)
	if got := r.TestID(t, "flash-success"); got != "The file was read again." {
		t.Errorf("flash %q", got)
	}
	if got := selected(r, "configure-name"); got != "Memo" {
		t.Errorf("after the change the name select shows %q", got)
	}
	if got := r.TestID(t, "unmapped-columns"); got != "Not imported: Description" {
		t.Errorf("unmapped %q", got)
	}
	// The rows show what they will be, before anything is written.
	if got := r.TestID(t, "file-row-read"); got != "2024-01-02 · Coffee · money out $1.50" {
		t.Errorf("the row reads as %q", got)
	}
	if got := e.strings(t, "SELECT name FROM import_rows WHERE import_id = ?", uuid.MustParse(id)); len(got) != 1 || got[0] != "Coffee" {
		t.Errorf("rows named %v", got)
	}
	// A bad value is a flash naming it; the rows stay as they were.
	wantRedirect(t, e.c.PostForm(page+"/configure", url.Values{"col_sep": {"colon"}}), page)
	if got := e.c.Get(page).TestID(t, "flash-error"); !strings.Contains(got, "Column separator") {
		t.Errorf("flash %q", got)
	}
	if got := e.strings(t, "SELECT name FROM import_rows WHERE import_id = ?", uuid.MustParse(id)); len(got) != 1 || got[0] != "Coffee" {
		t.Errorf("rows named %v after a refused change", got)
	}
	// The form needs its CSRF token.
	r = e.c.PostForm(page+"/configure", url.Values{"_csrf": {"forged"}, "name_col_label": {"Description"}})
	wantPage(t, r, http.StatusForbidden)
}

func TestImportPageCountsRowsAlreadyThereBeforePublishing(t *testing.T) {
	t.Parallel()
	e := newImportPageEnv(t, apptest.ServerOptions{})
	file := "date,name,amount\n2024-01-02,Coffee,-3.50\n2024-01-03,Rent,-900\n"
	first := e.createImport(t, file, nil)
	if r := e.c.Get("/imports/" + first); r.Has(t, "pending-duplicates") {
		t.Errorf("a first file counts duplicates: %q", r.TestID(t, "pending-duplicates"))
	}
	e.c.API(http.MethodPost, "/api/v1/imports/"+first+"/publish", e.write, nil)
	if done := e.waitFor(t, first); done.Data.Status != "complete" {
		t.Fatalf("publish ended %s", done.Data.Status)
	}

	again := e.createImport(t, file, nil)
	r := e.c.Get("/imports/" + again)
	want := "Nothing new: all 2 rows are already in " + e.acct.Name + ", and publishing will skip them."
	if got := r.TestID(t, "pending-duplicates"); got != want {
		t.Errorf("pending duplicates %q, want %q", got, want)
	}
	e.c.API(http.MethodPost, "/api/v1/imports/"+again+"/publish", e.write, nil)
	if done := e.waitFor(t, again); done.Data.Status != "complete" {
		t.Fatalf("publish ended %s", done.Data.Status)
	}
	r = e.c.Get("/imports/" + again)
	if got, want := r.TestID(t, "nothing-new"), "Nothing new: all 2 rows were already in "+e.acct.Name+"."; got != want {
		t.Errorf("after publishing %q, want %q", got, want)
	}

	overlap := e.createImport(t, file+"2024-01-04,Books,-12\n", nil)
	want = "2 of the 3 rows are already in " + e.acct.Name + ": publishing will skip them."
	if got := e.c.Get("/imports/"+overlap).TestID(t, "pending-duplicates"); got != want {
		t.Errorf("overlap %q, want %q", got, want)
	}
}

func TestImportPageShowsRowsAndProblems(t *testing.T) {
	t.Parallel()
	e := newImportPageEnv(t, apptest.ServerOptions{})
	csv := "Posted,amount,name,category\n2024-01-02,-12.50,Coffee,Food\nnot a date,-3.00,Bad row,\n2024-01-05,40,Refund,\n"
	id := e.createImport(t, csv, map[string]any{"date_col_label": "Posted"})

	r := e.c.Get("/imports/" + id)
	wantPage(t, r, http.StatusOK)
	wants := map[string]string{
		"page-title": "Transactions (CSV) import", "import-status": "Pending", "import-filename": "import.csv",
		"import-account": "Checking", "stat-rows": "3", "stat-valid": "2", "stat-invalid": "1", "stat-duplicates": "0",
		"stat-mappings": "1", "row-limit": "Up to 1,310,720 rows can be published in one import.",
	}
	for id, want := range wants {
		if got := r.TestID(t, id); got != want {
			t.Errorf("%s shows %q, want %q", id, got, want)
		}
	}
	config := strings.Join(strings.Fields(r.TestID(t, "import-config")), " ")
	for _, want := range []string{"%Y-%m-%d", "1,234.56", "Inflows are positive", "Date column", "“Posted”"} {
		if !strings.Contains(config, want) {
			t.Errorf("configuration %q lacks %q", config, want)
		}
	}
	if !strings.Contains(r.TestID(t, "import-problems"), "1 row has problems") {
		t.Errorf("problems %q, want the invalid row counted", r.TestID(t, "import-problems"))
	}
	if r.Has(t, "publish-import") || !r.Has(t, "delete-import") || r.Has(t, "revert-import") || r.Has(t, "import-progress") {
		t.Errorf("actions of a pending import with problems: publish %v delete %v revert %v", r.Has(t, "publish-import"), r.Has(t, "delete-import"), r.Has(t, "revert-import"))
	}
	if href := r.Doc(t).Find(`[data-testid="import-download"]`).AttrOr("href", ""); href != "/imports/"+id+"/file" {
		t.Errorf("download link %q", href)
	}
	mapping := strings.Join(cells(r.Doc(t).Find(`[data-testid="import-mapping"]`)), " | ")
	if mapping != "Category | Food | Will be created | No" {
		t.Errorf("mapping row %q", mapping)
	}

	rows := r.Doc(t).Find(`[data-testid="file-row"]`)
	if rows.Length() != 3 {
		t.Fatalf("%d file rows, want 3", rows.Length())
	}
	coffee := strings.Join(cells(rows.Eq(0)), " | ")
	if !strings.Contains(coffee, "2024-01-02") || !strings.Contains(coffee, "Coffee") || !strings.Contains(coffee, "-12.50") || !strings.Contains(coffee, "Valid") {
		t.Errorf("first row %q", coffee)
	}
	bad := rows.Eq(1)
	if got := strings.TrimSpace(bad.Find(`[data-testid="badge"]`).Text()); got != "Invalid" {
		t.Errorf("invalid row's marker %q", got)
	}
	// The problems are under the invalid row, and only there.
	errs := r.Doc(t).Find(`[data-testid="file-row-errors"]`)
	if errs.Length() != 1 || bad.Next().AttrOr("data-testid", "") != "file-row-errors" {
		t.Fatalf("%d error rows, the invalid row followed by %q", errs.Length(), bad.Next().AttrOr("data-testid", ""))
	}
	if msg := strings.TrimSpace(errs.Text()); !strings.Contains(msg, `"not a date"`) || !strings.Contains(msg, "%Y-%m-%d") {
		t.Errorf("invalid row's error %q, want the date and the format", msg)
	}

	t.Run("only invalid rows", func(t *testing.T) {
		r := e.c.Get("/imports/" + id + "?only=invalid")
		if n := r.Doc(t).Find(`[data-testid="file-row"]`).Length(); n != 1 {
			t.Fatalf("%d rows with ?only=invalid, want 1", n)
		}
		if got := r.Doc(t).Find(`[data-testid="rows-filter-invalid"]`).AttrOr("aria-current", ""); got != "page" {
			t.Errorf("invalid filter not marked current")
		}
		r = e.c.Get("/imports/" + id + "?only=duplicate")
		if !r.Has(t, "import-rows-empty") {
			t.Errorf("no empty state for no duplicates")
		}
		r = e.c.Do(http.MethodGet, "/imports/"+id+"?only=invalid", nil, map[string]string{"HX-Request": "true", "HX-Target": "import-rows"})
		if r.Has(t, "page-title") || r.Doc(t).Find(`[data-testid="file-row"]`).Length() != 1 {
			t.Errorf("htmx rows fragment: %s", r.Body)
		}
	})

	t.Run("publishing is refused with the reason", func(t *testing.T) {
		wantRedirect(t, e.c.PostForm("/imports/"+id+"/publish", nil), "/imports/"+id)
		r := e.c.Get("/imports/" + id)
		if msg := r.TestID(t, "flash-error"); !strings.Contains(msg, "cannot be published") || !strings.Contains(msg, "1 row has problems") {
			t.Errorf("flash %q, want the refusal and its reason", msg)
		}
		if got := r.TestID(t, "import-status"); got != "Pending" {
			t.Errorf("status %q after a refused publish", got)
		}
	})
}

func TestImportPagesRowsArePaged(t *testing.T) {
	t.Parallel()
	e := newImportPageEnv(t, apptest.ServerOptions{})
	var b strings.Builder
	b.WriteString("date,amount,name\n")
	for i := range 120 {
		b.WriteString("2024-01-02,-1.00,Row ")
		b.WriteString(strings.Repeat("x", i%3))
		b.WriteString("\n")
	}
	id := e.createImport(t, b.String(), nil)
	r := e.c.Get("/imports/" + id)
	if n := r.Doc(t).Find(`[data-testid="file-row"]`).Length(); n != 50 {
		t.Fatalf("%d rows on the first page, want 50", n)
	}
	r = e.c.Get("/imports/" + id + "?page=3")
	rows := r.Doc(t).Find(`[data-testid="file-row"]`)
	if first := strings.TrimSpace(rows.Eq(0).Find(`[data-testid="file-row-number"]`).Text()); rows.Length() != 20 || first != "101" {
		t.Fatalf("third page: %d rows starting at %q", rows.Length(), first)
	}
	if prev := r.Doc(t).Find(`[data-testid="page-prev"]`).AttrOr("href", ""); prev != "/imports/"+id+"?page=2" {
		t.Errorf("previous link %q", prev)
	}
}

func TestImportPageActions(t *testing.T) {
	t.Parallel()
	e := newImportPageEnv(t, apptest.ServerOptions{})
	id := e.createImport(t, importPageCSV, nil)
	page := "/imports/" + id

	r := e.c.Get(page)
	if !r.Has(t, "publish-import") || r.Has(t, "import-problems") {
		t.Fatalf("a clean pending import offers no publish button: %s", r.Body)
	}
	wantRedirect(t, e.c.PostForm(page+"/publish", nil), page)
	if done := e.waitFor(t, id); done.Data.Status != "complete" {
		t.Fatalf("publish ended %s: %v", done.Data.Status, done.Data.Error)
	}
	r = e.c.Get(page)
	if got := r.TestID(t, "flash-success"); got != "Publishing started." {
		t.Errorf("flash %q", got)
	}
	if got := r.TestID(t, "import-status"); got != "Complete" {
		t.Errorf("status %q, want Complete", got)
	}
	if r.Has(t, "publish-import") || !r.Has(t, "revert-import") || !r.Has(t, "confirm-revert") || r.Has(t, "delete-import") || r.Has(t, "import-progress") {
		t.Errorf("actions of a complete import: publish %v revert %v delete %v", r.Has(t, "publish-import"), r.Has(t, "revert-import"), r.Has(t, "delete-import"))
	}
	if n := e.count(t, "SELECT count(*) FROM entries WHERE import_id = ?", uuid.MustParse(id)); n != 1 {
		t.Errorf("%d entries after publishing, want 1", n)
	}

	t.Run("the progress endpoint reloads a finished import", func(t *testing.T) {
		r := e.c.Do(http.MethodGet, page+"/progress", nil, map[string]string{"HX-Request": "true", "HX-Target": "import-progress"})
		wantPage(t, r, http.StatusOK)
		if r.Header.Get("HX-Refresh") != "true" {
			t.Errorf("HX-Refresh %q, want true", r.Header.Get("HX-Refresh"))
		}
		if strings.Contains(r.Body, "hx-trigger") {
			t.Errorf("finished fragment keeps polling: %s", r.Body)
		}
	})

	t.Run("rejected actions flash the reason", func(t *testing.T) {
		wantRedirect(t, e.c.PostForm(page+"/delete", nil), page)
		if msg := e.c.Get(page).TestID(t, "flash-error"); !strings.Contains(msg, "revert it before deleting") {
			t.Errorf("delete of a complete import flashed %q", msg)
		}
		wantRedirect(t, e.c.PostForm(page+"/publish", nil), page)
		if msg := e.c.Get(page).TestID(t, "flash-error"); !strings.Contains(msg, "revert it first") {
			t.Errorf("publish of a complete import flashed %q", msg)
		}
	})

	t.Run("revert", func(t *testing.T) {
		wantRedirect(t, e.c.PostForm(page+"/revert", nil), page)
		if done := e.waitFor(t, id); done.Data.Status != "pending" {
			t.Fatalf("revert ended %s: %v", done.Data.Status, done.Data.Error)
		}
		r := e.c.Get(page)
		if got := r.TestID(t, "flash-success"); got != "Revert started." {
			t.Errorf("flash %q", got)
		}
		if got := r.TestID(t, "import-status"); got != "Pending" {
			t.Errorf("status %q, want Pending", got)
		}
		if n := e.count(t, "SELECT count(*) FROM entries WHERE import_id = ?", uuid.MustParse(id)); n != 0 {
			t.Errorf("%d entries after reverting", n)
		}
		wantRedirect(t, e.c.PostForm(page+"/revert", nil), page)
		if msg := e.c.Get(page).TestID(t, "flash-error"); !strings.Contains(msg, "not revertable") {
			t.Errorf("second revert flashed %q", msg)
		}
	})

	t.Run("delete", func(t *testing.T) {
		if n := e.count(t, "SELECT count(*) FROM import_rows WHERE import_id = ?", uuid.MustParse(id)); n == 0 {
			t.Fatal("the import has no rows to delete")
		}
		wantRedirect(t, e.c.PostForm(page+"/delete", nil), "/imports")
		// The rows go with their import (a statement trigger on imports, not a foreign key).
		if n := e.count(t, "SELECT count(*) FROM import_rows WHERE import_id = ?", uuid.MustParse(id)); n != 0 {
			t.Errorf("%d rows outlived their import", n)
		}
		r := e.c.Get("/imports")
		if got := r.TestID(t, "flash-success"); got != "Import deleted." {
			t.Errorf("flash %q", got)
		}
		if !r.Has(t, "imports-empty") {
			t.Errorf("the list still shows the deleted import")
		}
		wantPage(t, e.c.Get(page), http.StatusNotFound)
	})

	t.Run("actions need the CSRF token", func(t *testing.T) {
		id := e.createImport(t, importPageCSV, nil)
		r := e.c.PostForm("/imports/"+id+"/publish", url.Values{"_csrf": {"forged"}})
		wantPage(t, r, http.StatusForbidden)
		if done := e.waitFor(t, id); done.Data.Status != "pending" {
			t.Errorf("a forged publish changed the import to %s", done.Data.Status)
		}
	})
}

func TestImportPageWhileRunning(t *testing.T) {
	t.Parallel()
	// No worker: the publish stays queued, so the page is seen mid-run every time.
	e := newImportPageEnv(t, apptest.ServerOptions{NoWorker: true})
	id := e.createImport(t, importPageCSV+"2024-01-03,-4.00,Tea\n", map[string]any{"publish": true})
	page := "/imports/" + id

	r := e.c.Get(page)
	wantPage(t, r, http.StatusOK)
	if got := r.TestID(t, "import-status"); got != "Importing" {
		t.Fatalf("status %q, want Importing", got)
	}
	prog := r.Doc(t).Find(`[data-testid="import-progress"]`)
	if prog.AttrOr("hx-get", "") != page+"/progress" || prog.AttrOr("hx-trigger", "") != "every 1s" || prog.AttrOr("hx-swap", "") != "outerHTML" {
		t.Errorf("progress section does not poll: %s", r.Body)
	}
	if !strings.Contains(r.Body, `<noscript><meta http-equiv="refresh" content="2"></noscript>`) {
		t.Errorf("no reload without JavaScript while running")
	}
	bar := r.Doc(t).Find(`[data-testid="progress"]`)
	if bar.AttrOr("role", "") != "progressbar" || bar.AttrOr("aria-valuemax", "") != "2" || bar.AttrOr("aria-valuenow", "") != "0" {
		t.Errorf("progress bar: %s", r.Body)
	}
	if got := r.TestID(t, "progress-count"); got != "0 of 2 rows" {
		t.Errorf("progress count %q", got)
	}
	if r.Has(t, "publish-import") || r.Has(t, "revert-import") || r.Has(t, "delete-import") {
		t.Errorf("a running import offers actions")
	}

	// The job's own count wins once it reports one.
	if _, err := e.srv.DB.NewRaw("INSERT INTO import_progress (import_id, done, total) VALUES (?, 1, 2)", uuid.MustParse(id)).Exec(context.Background()); err != nil {
		t.Fatalf("record progress: %v", err)
	}
	r = e.c.Do(http.MethodGet, page+"/progress", nil, map[string]string{"HX-Request": "true", "HX-Target": "import-progress"})
	wantPage(t, r, http.StatusOK)
	if r.Header.Get("HX-Refresh") != "" {
		t.Errorf("HX-Refresh while running")
	}
	if got := r.TestID(t, "progress-count"); got != "1 of 2 rows" {
		t.Errorf("progress fragment count %q: %s", got, r.Body)
	}
	if !strings.Contains(r.Body, `hx-trigger="every 1s"`) || r.Has(t, "page-title") {
		t.Errorf("running fragment must keep polling and be only the section: %s", r.Body)
	}

	wantRedirect(t, e.c.PostForm(page+"/delete", nil), page)
	if msg := e.c.Get(page).TestID(t, "flash-error"); !strings.Contains(msg, "wait until it finishes") {
		t.Errorf("delete while importing flashed %q", msg)
	}

	// A revert records no progress: its bar says it runs without pretending to be stuck at 0.
	if _, err := e.srv.DB.NewRaw("UPDATE imports SET status = 'reverting' WHERE id = ?", uuid.MustParse(id)).Exec(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, err := e.srv.DB.NewRaw("DELETE FROM import_progress WHERE import_id = ?", uuid.MustParse(id)).Exec(context.Background()); err != nil {
		t.Fatal(err)
	}
	r = e.c.Get(page)
	if got := r.TestID(t, "import-status"); got != "Reverting" {
		t.Errorf("status %q, want Reverting", got)
	}
	if got := r.TestID(t, "progress-count"); got != "In progress…" {
		t.Errorf("revert's progress count %q", got)
	}
	if _, ok := r.Doc(t).Find(`[data-testid="progress"]`).Attr("aria-valuenow"); ok {
		t.Errorf("an indeterminate bar has aria-valuenow")
	}
}

func TestImportPagesOfAnotherFamily(t *testing.T) {
	t.Parallel()
	e := newImportPageEnv(t, apptest.ServerOptions{})
	id := e.createImport(t, importPageCSV, nil)

	other := testkit.MustCreateUser(t, e.srv.DB, testkit.UserOpts{})
	oc := apptest.NewClient(t, e.srv)
	oc.SignIn(other.Email, testkit.Password)

	for _, path := range []string{"/imports/" + id, "/imports/" + id + "/file", "/imports/" + id + "/progress", "/imports/" + uuid.NewString(), "/imports/not-a-uuid"} {
		r := oc.Get(path)
		wantPage(t, r, http.StatusNotFound)
		if path == "/imports/"+id && strings.Contains(r.Body, "Coffee") {
			t.Errorf("404 page leaks the import")
		}
	}
	if r := oc.Get("/imports"); r.Has(t, "import-row") {
		t.Errorf("another family's list shows the import")
	}
	for _, action := range []string{"publish", "revert", "delete"} {
		wantPage(t, oc.PostForm("/imports/"+id+"/"+action, nil), http.StatusNotFound)
	}
	if done := e.waitFor(t, id); done.Data.Status != "pending" {
		t.Errorf("another family's actions changed the import to %s", done.Data.Status)
	}
	// Signed out: the sign-in page, not the import.
	anon := apptest.NewClient(t, e.srv)
	wantRedirect(t, anon.Get("/imports/"+id), "/sessions/new")
}

func TestImportFileDownload(t *testing.T) {
	t.Parallel()
	e := newImportPageEnv(t, apptest.ServerOptions{})
	content := "date,amount,name\r\n2024-01-02,-12.50,Café ☕\r\n"
	body, ctype := multipartBody(t, map[string]string{"date_format": "%Y-%m-%d", "account_id": e.acct.ID.String()}, "bank export.csv", "text/csv", []byte(content))
	r := e.c.Do(http.MethodPost, "/api/v1/imports", body, map[string]string{"Content-Type": ctype, "X-Api-Key": e.write})
	if r.Status != http.StatusCreated {
		t.Fatalf("create: %d %s", r.Status, r.Body)
	}
	var b importBody
	r.JSON(t, &b)

	page := e.c.Get("/imports/" + b.Data.ID)
	if got := page.TestID(t, "import-filename"); got != "bank export.csv" {
		t.Errorf("file name %q", got)
	}
	f := e.c.Get("/imports/" + b.Data.ID + "/file")
	wantPage(t, f, http.StatusOK)
	if f.Body != content {
		t.Errorf("downloaded %q, want the original bytes %q", f.Body, content)
	}
	if cd := f.Header.Get("Content-Disposition"); cd != `attachment; filename="bank export.csv"` {
		t.Errorf("Content-Disposition %q", cd)
	}
}

// TestImportPageShowsLikelyDuplicates uploads again a month whose names were not read the
// second time: the review says how many rows are already there and how many are likely
// duplicates, names on each row the rule that matched it, keeps a row or all of them on a
// person's word, and the publish skips the rest.
func TestImportPageShowsLikelyDuplicates(t *testing.T) {
	t.Parallel()
	e := newImportPageEnv(t, apptest.ServerOptions{})
	first := e.createImport(t, "date,amount,name\n2024-03-01,-5.00,Bäckerei Schmidt\n2024-03-02,-42.10,REWE Markt\n2024-03-04,-9.99,Netflix\n", nil)
	e.c.API(http.MethodPost, "/api/v1/imports/"+first+"/publish", e.write, nil)
	if done := e.waitFor(t, first); done.Data.Status != "complete" {
		t.Fatalf("the first file ended %s", done.Data.Status)
	}
	// The same month read without its names, one row of it new, and one a second purchase
	// under the same name.
	again := e.createImport(t, "date,amount,name\n2024-03-01,-5.00,\n2024-03-02,-42.10,REWE Markt\n2024-03-02,-42.10,REWE Markt\n"+
		"2024-03-03,-20.00,\n2024-03-04,-9.99,\n", nil)
	page := "/imports/" + again
	rules := func() string {
		t.Helper()
		var out []string
		e.c.Get(page).Doc(t).Find(`[data-testid="file-row"]`).Each(func(_ int, row *goquery.Selection) {
			label := strings.Join(strings.Fields(row.Find(`[data-testid="file-row-match"]`).Text()), " ")
			out = append(out, row.Find(`[data-testid="file-row-number"]`).Text()+": "+label)
		})
		return strings.Join(out, "\n")
	}
	want := "1: Likely duplicate: same date and amount, different name\n2: Duplicate: same date, amount and name\n3: \n4: \n" +
		"5: Likely duplicate: same date and amount, different name"
	if got := rules(); got != want {
		t.Errorf("rows before publishing:\n%s\nwant\n%s", got, want)
	}
	notice := "1 of the 5 rows is already in Checking: publishing will skip it. 2 more are likely duplicates (the same date and amount, another name): publishing will skip them unless you keep them."
	if got := e.c.Get(page).TestID(t, "pending-duplicates"); got != notice {
		t.Errorf("notice %q, want %q", got, notice)
	}

	// Row 5, Netflix's, is kept; then every likely duplicate, and then none again.
	wantRedirect(t, e.c.PostForm(page+"/keep", url.Values{"row": {"5"}, "keep": {"1"}, "page": {"1"}}), page)
	if got := rules(); !strings.HasSuffix(got, "5: Kept: same date and amount, different name") {
		t.Errorf("row 5 kept:\n%s", got)
	}
	wantRedirect(t, e.c.PostForm(page+"/keep", url.Values{"all": {"1"}}), page)
	if got := e.c.Get(page).TestID(t, "keep-likely"); !strings.Contains(got, "Publishing keeps all 2 likely duplicates") {
		t.Errorf("all kept: %q", got)
	}
	wantRedirect(t, e.c.PostForm(page+"/keep", url.Values{"all": {"0"}}), page)
	if got := e.c.Get(page).TestID(t, "pending-duplicates"); !strings.Contains(got, "1 more is a likely duplicate") {
		t.Errorf("after skipping them again: %q", got)
	}

	wantRedirect(t, e.c.PostForm(page+"/publish", nil), page)
	done := e.waitFor(t, again)
	if done.Data.Status != "complete" || done.Data.Stats.DuplicateRowsCount != 2 {
		t.Fatalf("published: %s with %d duplicates, want 2", done.Data.Status, done.Data.Stats.DuplicateRowsCount)
	}
	got := e.strings(t, "SELECT date || ' ' || amount::numeric(19,2) || ' ' || name FROM entries WHERE account_id = ? AND kind = 'transaction' ORDER BY date, import_id, name", e.acct.ID)
	if want := "2024-03-01 5.00 Bäckerei Schmidt|2024-03-02 42.10 REWE Markt|2024-03-02 42.10 REWE Markt|2024-03-03 20.00 Imported item|" +
		"2024-03-04 9.99 Netflix|2024-03-04 9.99 Imported item"; strings.Join(got, "|") != want {
		t.Errorf("entries:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.ReplaceAll(want, "|", "\n"))
	}
	if got := rules(); got != strings.Replace(want, "5: Likely duplicate: same date and amount, different name", "5: Kept: same date and amount, different name", 1) {
		t.Errorf("rows after publishing:\n%s", got)
	}
}
