package handlers_test

import (
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shopspring/decimal"

	"tally/app/apptest"
	"tally/models"
	"tally/testkit"
)

// preambleFile is a German bank export with a preamble above its table, from the sniffer's
// test files: as the bank writes it, or re-saved from a spreadsheet (every line padded with
// empty cells to the table's width).
func preambleFile(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "imports", "sniff", "testdata", "preamble", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// German exports opened in Excel or LibreOffice and saved again, and as the banks write them,
// uploaded with nothing said about them ("Detect from the file"): the header is found under
// the preamble, and the rows are read, whether the file is a bank Tally knows or not.
func TestImportFindsTheTableUnderABanksPreamble(t *testing.T) {
	t.Parallel()
	e := newImportEnv(t, apptest.ServerOptions{NoWorker: true})
	balance := decimal.Zero
	giro, err := models.CreateAccount(t.Context(), e.srv.DB, e.user.FamilyID, models.AccountInput{Name: "Girokonto", AccountableType: "Depository", Currency: "EUR", Balance: &balance})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []struct {
		name  string
		skip  int
		valid int
		first string // the first row: date, amount as the ledger signs it, name
	}{
		{"sparkasse_umsatzanzeige", 6, 3, "2026-03-24 23.45 REWE Markt Gruenwald"},
		{"dkb", 4, 2, "2026-03-20 42.80 Edeka Zentrale"},
		{"dkb_classic", 6, 2, "2022-03-28 39.95 Telekom Deutschland GmbH"},
		{"dkb_visa", 7, 2, "2022-03-27 23.45 REWE Markt Gruenwald"},
		{"ing_de", 13, 2, "2026-03-20 54.33 REWE Markt GmbH"},
		// Its pending row ("offen") and the old balance below the table are no transactions.
		{"comdirect", 4, 2, "2026-03-20 85.00 Auftraggeber: Stadtwerke Musterstadt Buchungstext: Stromabschlag Maerz Ref. 4F5G6H7J8K9L0M1N/2"},
	} {
		for _, file := range []string{f.name + ".csv", f.name + "_resaved.csv"} {
			t.Run(file, func(t *testing.T) {
				body, ct := multipartBody(t, map[string]string{"type": "auto", "account_id": giro.ID.String()}, file, "text/csv", preambleFile(t, file))
				r := e.c.Do(http.MethodPost, "/api/v1/imports", body, map[string]string{"Content-Type": ct, "X-Api-Key": e.write})
				if r.Status != http.StatusCreated {
					t.Fatalf("upload: %d %s", r.Status, r.Body)
				}
				var b presetBody
				r.JSON(t, &b)
				rows := e.rows(t, b.Data.ID)
				valid := e.count(t, "SELECT count(*) FROM import_rows WHERE import_id = ?::uuid AND date IS NOT NULL AND amount IS NOT NULL", b.Data.ID)
				if b.Data.Configuration.RowsToSkip != f.skip || valid != f.valid || !contains(rows, f.first) {
					t.Errorf("read from line %d with %d rows of a date and an amount:\n%s\nwant line %d, %d rows, with %q",
						b.Data.Configuration.RowsToSkip+1, valid, strings.Join(rows, "\n"), f.skip+1, f.valid, f.first)
				}
			})
		}
	}
}

// When the file is read from a line above its table (the person said "0 lines to skip"), the
// missing columns say where the table seems to start, and what to set "Lines to skip before
// the header" to, through the API and on the upload page; when nothing looks like a table, the
// message still points at that setting.
func TestMissingColumnsSayHowManyLinesToSkip(t *testing.T) {
	t.Parallel()
	e := newImportEnv(t, apptest.ServerOptions{NoWorker: true})
	content := preambleFile(t, "sparkasse_umsatzanzeige_resaved.csv")
	const hint = `Its table seems to start on line 7 ("Buchungstag", "Valutadatum", "Buchungstext", …): set “Lines to skip before the header” to 6.`

	body, ct := multipartBody(t, map[string]string{"type": "TransactionImport", "rows_to_skip": "0", "col_sep": ";"}, "Umsaetze.csv", "text/csv", content)
	r := e.c.Do(http.MethodPost, "/api/v1/imports", body, map[string]string{"Content-Type": ct, "X-Api-Key": e.write})
	var refused struct {
		Message string `json:"message"`
		Details struct {
			Suggested *int `json:"suggested_rows_to_skip"`
		} `json:"details"`
	}
	r.JSON(t, &refused)
	if r.Status != http.StatusUnprocessableEntity || !strings.HasPrefix(refused.Message, `Missing required columns: date, amount. The file's columns are: "Umsatzanzeige Girokonto", "", `) ||
		!strings.HasSuffix(refused.Message, hint) || refused.Details.Suggested == nil || *refused.Details.Suggested != 6 {
		t.Errorf("read from its first line: %d %s", r.Status, r.Body)
	}

	r = e.c.API(http.MethodPost, "/api/v1/imports", e.write, map[string]any{"type": "TransactionImport", "raw_file_content": "Kontoauszug Girokonto;;\n;;\nnichts weiter;;\n"})
	if !strings.Contains(r.Body, `If the file has lines of text above its table, set “Lines to skip before the header” to their number.`) {
		t.Errorf("a file of no table: %d %s", r.Status, r.Body)
	}

	page := testkit.NewClient(t, e.srv.URL)
	page.SignIn(e.user.Email, testkit.Password)
	page.Get("/imports/new")
	r = page.PostFile("/imports", url.Values{"type": {"auto"}, "rows_to_skip": {"0"}}, "file", "Umsaetze.csv", content)
	if got := strings.Join(strings.Fields(r.Doc(t).Find(`[data-testid="form-error"]`).Text()), " "); r.Status != http.StatusUnprocessableEntity || !strings.HasSuffix(got, hint) {
		t.Errorf("the page says (%d): %q", r.Status, got)
	}
	// Left to the file, the same upload reads.
	if r = page.PostFile("/imports", url.Values{"type": {"auto"}}, "file", "Umsaetze.csv", content); r.Status != http.StatusSeeOther {
		t.Errorf("with nothing said: %d %.500s", r.Status, r.Body)
	}
}
