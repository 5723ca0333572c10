package handlers_test

import (
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
	"github.com/google/uuid"

	"tally/app/apptest"
	"tally/models"
	"tally/testkit"
)

// The import page says which bank's export a file was read as and which rows the bank's
// layout leaves out, and its form reads the file again as another bank's export or none.
func TestImportPageShowsThePresetAndChangesIt(t *testing.T) {
	t.Parallel()
	e := newImportPageEnv(t, apptest.ServerOptions{})
	content, err := os.ReadFile(filepath.Join("testdata", "banks", "revolut.csv"))
	if err != nil {
		t.Fatal(err)
	}
	id := e.createImport(t, string(content), map[string]any{"date_format": nil})
	page := "/imports/" + id
	r := e.c.Get(page)
	if got := r.TestID(t, "read-as"); got != "Revolut export" {
		t.Errorf("read as %q", got)
	}
	if got, want := r.TestID(t, "skipped-rows"), "Not imported: 1 row, payments Revolut marks as reverted, declined or failed."; got != want {
		t.Errorf("skipped %q, want %q", got, want)
	}
	if v, _ := r.Doc(t).Find(`[data-testid="configure-mapping"] option[selected]`).Attr("value"); v != "preset:revolut" {
		t.Errorf("the form's Read as shows %q", v)
	}
	// Read without the preset: the reverted payment is a row again, and the columns are guessed.
	wantRedirect(t, e.c.PostForm(page+"/configure", url.Values{"mapping": {""}, "mapping_was": {"preset:revolut"}, "name_col_label": {"Type"}}), page)
	r = e.c.Get(page)
	if r.Has(t, "read-as") || r.Has(t, "skipped-rows") {
		t.Errorf("still read as a preset: %q %q", r.TestID(t, "read-as"), r.TestID(t, "skipped-rows"))
	}
	if n := e.count(t, "SELECT count(*) FROM import_rows WHERE import_id = ?", uuid.MustParse(id)); n != 5 {
		t.Errorf("%d rows without the preset, want 5", n)
	}
	// The other selects of the form do not override a newly chosen preset.
	wantRedirect(t, e.c.PostForm(page+"/configure", url.Values{"mapping": {"preset:revolut"}, "mapping_was": {""}, "name_col_label": {"Type"}}), page)
	if names := e.strings(t, "SELECT name FROM import_rows WHERE import_id = ? ORDER BY row_number", uuid.MustParse(id)); len(names) != 4 || names[0] != "Pret A Manger" {
		t.Errorf("rows named %v", names)
	}
}

// After a publish the page offers to save the mapping for the account; the account page lists
// the profile and deletes it; another family can do neither.
func TestImportPageSavesAProfile(t *testing.T) {
	t.Parallel()
	e := newImportPageEnv(t, apptest.ServerOptions{})
	file := "Wann;Wer;Wieviel\n02.03.2026;Bakery;-3,50\n"
	id := e.createImport(t, file, map[string]any{"date_format": nil})
	page := "/imports/" + id
	if e.c.Get(page).Has(t, "save-profile-form") {
		t.Error("a pending import offers to save a profile")
	}
	e.c.API(http.MethodPost, "/api/v1/imports/"+id+"/publish", e.write, nil)
	if done := e.waitFor(t, id); done.Data.Status != "complete" {
		t.Fatalf("publish ended %s", done.Data.Status)
	}
	r := e.c.Get(page)
	if v, _ := r.Doc(t).Find(`[data-testid="profile-name"]`).Attr("value"); v != e.acct.Name+" export" {
		t.Errorf("offered name %q", v)
	}
	wantRedirect(t, e.c.PostForm(page+"/profile", url.Values{"name": {""}}), page)
	if got := e.c.Get(page).TestID(t, "flash-error"); !strings.Contains(got, "Name can't be blank") {
		t.Errorf("blank name flash %q", got)
	}
	wantRedirect(t, e.c.PostForm(page+"/profile", url.Values{"name": {"Bakery club"}}), page)
	if got := e.c.Get(page).TestID(t, "flash-success"); !strings.HasPrefix(got, "Saved as “Bakery club”") {
		t.Errorf("flash %q", got)
	}
	// The next file with these columns is read with it.
	next := e.createImport(t, file, map[string]any{"date_format": nil})
	if got := e.c.Get("/imports/"+next).TestID(t, "read-as"); got != "Your profile “Bakery club”" {
		t.Errorf("next file read as %q", got)
	}

	acctPage := "/accounts/" + e.acct.ID.String()
	r = e.c.Get(acctPage)
	if got := r.TestID(t, "import-profiles"); !strings.Contains(got, "Bakery club") || !strings.Contains(got, "wann, wer, wieviel") {
		t.Errorf("account page lists %q", got)
	}
	profileID := e.strings(t, "SELECT id::text FROM import_profiles WHERE account_id = ?", e.acct.ID)[0]

	stranger := testkit.MustCreateUser(t, e.srv.DB, testkit.UserOpts{})
	other := apptest.NewClient(t, e.srv)
	other.SignIn(stranger.Email, testkit.Password)
	other.Get("/accounts") // for a CSRF token
	wantPage(t, other.PostForm(page+"/profile", url.Values{"name": {"Mine"}}), http.StatusNotFound)
	wantPage(t, other.PostForm("/import_profiles/"+profileID+"/delete", nil), http.StatusNotFound)
	strangerKey := testkit.MustCreateAPIKey(t, e.srv.DB, stranger.ID, models.ScopeReadWrite)
	if r := other.API(http.MethodPost, "/api/v1/imports/"+id+"/profile", strangerKey, map[string]any{"name": "Mine"}); r.Status != http.StatusNotFound {
		t.Errorf("another family saves a profile: %d", r.Status)
	}

	wantRedirect(t, e.c.PostForm("/import_profiles/"+profileID+"/delete", nil), acctPage)
	if e.c.Get(acctPage).Has(t, "import-profiles") {
		t.Error("the deleted profile is still listed")
	}
}

// A file whose dates read as valid dates both day first and month first is a question, on the
// page and in the API, until a format is chosen.
func TestAmbiguousDatesAreAsked(t *testing.T) {
	t.Parallel()
	e := newImportPageEnv(t, apptest.ServerOptions{})
	id := e.createImport(t, "Date,Description,Amount\n03/04/2026,Bakery,-3.50\n05/06/2026,Books,-12.00\n", map[string]any{"date_format": nil})
	var b struct {
		Data struct {
			Configuration struct {
				DateFormat        *string  `json:"date_format"`
				DateFormatChoices []string `json:"date_format_choices"`
			} `json:"configuration"`
		} `json:"data"`
	}
	e.c.API(http.MethodGet, "/api/v1/imports/"+id, e.read, nil).JSON(t, &b)
	if c := b.Data.Configuration; c.DateFormat != nil || !slices.Equal(c.DateFormatChoices, []string{"%d/%m/%Y", "%m/%d/%Y"}) {
		t.Errorf("configuration %+v", c)
	}
	page := "/imports/" + id
	r := e.c.Get(page)
	var answers []string
	r.Doc(t).Find(`[data-testid="date-choice"]`).Each(func(_ int, s *goquery.Selection) { answers = append(answers, s.Text()) })
	if want := []string{"3 April 2026 (DD/MM/YYYY)", "4 March 2026 (MM/DD/YYYY)"}; !slices.Equal(answers, want) {
		t.Errorf("answers %q, want %q", answers, want)
	}
	wantRedirect(t, e.c.PostForm(page+"/configure", url.Values{"date_format": {"%d/%m/%Y"}}), page)
	if e.c.Get(page).Has(t, "date-question") {
		t.Error("the question is still asked once answered")
	}
	if got := e.rows(t, id); !slices.Equal(got, []string{"2026-04-03 3.50 Bakery", "2026-06-05 12.00 Books"}) {
		t.Errorf("rows %q", got)
	}
	// A file whose dates tell is no question.
	clear := e.createImport(t, "Date,Description,Amount\n03/24/2026,Bakery,-3.50\n", map[string]any{"date_format": nil})
	if e.c.Get("/imports/"+clear).Has(t, "date-question") {
		t.Error("a month-first file is asked about")
	}
}

// A date format the select does not offer is typed as a strftime pattern, and then shown.
func TestImportPageTakesAnotherDateFormat(t *testing.T) {
	t.Parallel()
	e := newImportPageEnv(t, apptest.ServerOptions{})
	id := e.createImport(t, "Date,Description,Amount\n02-Mar-2026,Bakery,-3.50\n", map[string]any{"date_format": nil})
	page := "/imports/" + id
	if n := e.count(t, "SELECT count(*) FROM import_rows WHERE import_id = ? AND date IS NOT NULL", uuid.MustParse(id)); n != 0 {
		t.Fatalf("the date was read before it was described")
	}
	e.c.Get(page) // for a CSRF token
	wantRedirect(t, e.c.PostForm(page+"/configure", url.Values{"date_format": {"%m/%d/%Y"}, "date_format_other": {" %d-%b-%Y "}}), page)
	if got := e.rows(t, id); !slices.Equal(got, []string{"2026-03-02 3.50 Bakery"}) {
		t.Errorf("rows %q", got)
	}
	r := e.c.Get(page)
	if v, _ := r.Doc(t).Find(`[data-testid="configure-date-format"] option[selected]`).Attr("value"); v != "%d-%b-%Y" {
		t.Errorf("the select shows %q", v)
	}
}
