package handlers_test

import (
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/google/uuid"
	"golang.org/x/text/encoding/charmap"

	"tally/app/apptest"
	"tally/models"
	"tally/testkit"
)

// guessBody is the part of ImportDetail that says what was read off the file.
type guessBody struct {
	Data struct {
		ID            string `json:"id"`
		Status        string `json:"status"`
		Configuration struct {
			DateColLabel   *string  `json:"date_col_label"`
			AmountColLabel *string  `json:"amount_col_label"`
			NameColLabel   *string  `json:"name_col_label"`
			NotesColLabel  *string  `json:"notes_col_label"`
			DateFormat     *string  `json:"date_format"`
			NumberFormat   string   `json:"number_format"`
			ColSep         string   `json:"col_sep"`
			RowsToSkip     int      `json:"rows_to_skip"`
			Guessed        []string `json:"guessed"`
		} `json:"configuration"`
		UnmappedColumns []string `json:"unmapped_columns"`
		Stats           struct {
			ValidRowsCount int `json:"valid_rows_count"`
		} `json:"stats"`
	} `json:"data"`
}

func (e *importEnv) guessed(t *testing.T, r *testkit.Response) guessBody {
	t.Helper()
	var b guessBody
	r.JSON(t, &b)
	return b
}

// The file: a "Description" column was ignored and every transaction was called
// "Imported item". It is the name now, and configuration says it was chosen.
func TestImportTakesTheNameFromADescriptionColumn(t *testing.T) {
	t.Parallel()
	e := newImportEnv(t, apptest.ServerOptions{})
	acct := testkit.MustCreateAccount(t, e.srv.DB, e.user.FamilyID, "Checking", "Depository", "")
	b := e.guessed(t, e.create(t, map[string]any{"account_id": acct.ID.String(),
		"raw_file_content": "Date,Description,Category,Amount,Reference,Card No.\n01/02/2026,Corner Coffee,Dining,-3.50,A1,1234\n01/03/2026,Landlord,Housing,-900.00,A2,1234\n"}, http.StatusCreated))
	c := b.Data.Configuration
	if deref(c.NameColLabel) != "Description" || !slices.Contains(c.Guessed, "name_col_label") {
		t.Errorf("name column %s, guessed %v", deref(c.NameColLabel), c.Guessed)
	}
	// Date, Category and Amount are read under their own names, not guessed.
	if c.DateColLabel != nil || slices.Contains(c.Guessed, "date_col_label") || c.ColSep != "comma" {
		t.Errorf("configuration %+v", c)
	}
	if deref(c.NotesColLabel) != "Reference" || !slices.Contains(c.Guessed, "notes_col_label") {
		t.Errorf("notes column %s, guessed %v", deref(c.NotesColLabel), c.Guessed)
	}
	if !slices.Equal(b.Data.UnmappedColumns, []string{"Card No."}) {
		t.Errorf("unmapped columns %v, want [Card No.]", b.Data.UnmappedColumns)
	}
	e.c.API(http.MethodPost, "/api/v1/imports/"+b.Data.ID+"/publish", e.write, nil)
	if done := e.waitFor(t, b.Data.ID); done.Data.Status != "complete" {
		t.Fatalf("publish ended %s: %s", done.Data.Status, deref(done.Data.Error))
	}
	names := e.strings(t, "SELECT name || ' / ' || notes FROM entries WHERE import_id = ? ORDER BY date", uuid.MustParse(b.Data.ID))
	if !slices.Equal(names, []string{"Corner Coffee / A1", "Landlord / A2"}) {
		t.Errorf("entries named %v", names)
	}
}

// A German bank's export as it comes: Windows-1252, a preamble, semicolons, day-first dates
// and decimal commas, in German headers. Sent with no configuration at all, it reads right.
func TestImportReadsAGermanExportWithNoConfiguration(t *testing.T) {
	t.Parallel()
	e := newImportEnv(t, apptest.ServerOptions{})
	acct := testkit.MustCreateAccount(t, e.srv.DB, e.user.FamilyID, "Girokonto", "Depository", "")
	text := "\"Umsätze Girokonto\";\"Zeitraum: 01.01.2026 - 31.01.2026\";\n\"Kontostand vom 31.01.2026:\";\"1.234,56 EUR\";\n\n" +
		"\"Buchungstag\";\"Wertstellung\";\"Empfänger\";\"Verwendungszweck\";\"Betrag (€)\"\n" +
		"\"02.01.2026\";\"02.01.2026\";\"Bäckerei Müller\";\"Brötchen\";\"-3,50\"\n" +
		"\"13.01.2026\";\"14.01.2026\";\"Arbeitgeber GmbH\";\"Gehalt Januar\";\"2.345,67\"\n"
	file, err := charmap.Windows1252.NewEncoder().Bytes([]byte(text))
	if err != nil {
		t.Fatal(err)
	}
	body, ct := multipartBody(t, map[string]string{"account_id": acct.ID.String(), "publish": "true"}, "umsaetze.csv", "text/csv", file)
	r := e.c.Do(http.MethodPost, "/api/v1/imports", body, map[string]string{"Content-Type": ct, "X-Api-Key": e.write})
	if r.Status != http.StatusCreated {
		t.Fatalf("create: %d %s", r.Status, r.Body)
	}
	b := e.guessed(t, r)
	c := b.Data.Configuration
	if c.ColSep != "semicolon" || c.RowsToSkip != 3 || deref(c.DateFormat) != "%d.%m.%Y" || c.NumberFormat != "1.234,56" ||
		deref(c.DateColLabel) != "Buchungstag" || deref(c.AmountColLabel) != "Betrag (€)" || deref(c.NameColLabel) != "Empfänger" ||
		deref(c.NotesColLabel) != "Verwendungszweck" {
		t.Errorf("configuration %+v (date %s, amount %s, name %s, notes %s, format %s)", c, deref(c.DateColLabel), deref(c.AmountColLabel),
			deref(c.NameColLabel), deref(c.NotesColLabel), deref(c.DateFormat))
	}
	for _, f := range []string{"col_sep", "rows_to_skip", "date_format", "number_format", "date_col_label", "amount_col_label", "name_col_label", "notes_col_label"} {
		if !slices.Contains(c.Guessed, f) {
			t.Errorf("guessed %v lacks %s", c.Guessed, f)
		}
	}
	if !slices.Equal(b.Data.UnmappedColumns, []string{"Wertstellung"}) {
		t.Errorf("unmapped columns %v, want [Wertstellung]", b.Data.UnmappedColumns)
	}
	if done := e.waitFor(t, b.Data.ID); done.Data.Status != "complete" {
		t.Fatalf("publish ended %s: %s", done.Data.Status, deref(done.Data.Error))
	}
	got := e.strings(t, "SELECT date::text || ' ' || name || ' ' || notes || ' ' || amount::numeric(19,2)::text FROM entries WHERE import_id = ? ORDER BY date",
		uuid.MustParse(b.Data.ID))
	// Tally stores outflows as positive amounts (inflows_positive files are flipped).
	want := []string{"2026-01-02 Bäckerei Müller Brötchen 3.50", "2026-01-13 Arbeitgeber GmbH Gehalt Januar -2345.67"}
	if !slices.Equal(got, want) {
		t.Errorf("entries\n got %q\nwant %q", got, want)
	}
}

// The German layout: the purpose is the only text, and every row was "Imported item"
// with the text in its notes. Without a column of the other party the purpose is the name;
// with one (the French file here) that is the name and the purpose goes into the notes.
func TestImportNamesRowsByThePurposeWhenNoColumnNamesTheOtherParty(t *testing.T) {
	t.Parallel()
	e := newImportEnv(t, apptest.ServerOptions{})
	acct := testkit.MustCreateAccount(t, e.srv.DB, e.user.FamilyID, "Girokonto", "Depository", "")
	cases := []struct {
		name, file, nameCol, notesCol string
		entries                       []string
	}{
		{"a German account", "Buchungstag;Wertstellung;Verwendungszweck;Betrag;Währung\n" +
			"02.01.2026;02.01.2026;REWE Markt Grünwald EC 12345;-23,45;EUR\n05.01.2026;05.01.2026;Miete Januar Wohnung 3;-900,00;EUR\n",
			"Verwendungszweck", "", []string{"REWE Markt Grünwald EC 12345 / ", "Miete Januar Wohnung 3 / "}},
		{"a French account naming the other party", "Date;Bénéficiaire;Libellé;Montant\n" +
			"02/01/2026;EDF;PRLV SEPA EDF FACTURE 123;-110,00\n03/01/2026;Boulangerie Paul;CB BOULANGERIE PAUL 02/01;-4,20\n",
			"Bénéficiaire", "Libellé", []string{"EDF / PRLV SEPA EDF FACTURE 123", "Boulangerie Paul / CB BOULANGERIE PAUL 02/01"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := e.guessed(t, e.create(t, map[string]any{"account_id": acct.ID.String(), "raw_file_content": c.file, "publish": "true"}, http.StatusCreated))
			cfg := b.Data.Configuration
			notes := ""
			if cfg.NotesColLabel != nil {
				notes = *cfg.NotesColLabel
			}
			if deref(cfg.NameColLabel) != c.nameCol || notes != c.notesCol || !slices.Contains(cfg.Guessed, "name_col_label") {
				t.Errorf("name column %q, notes column %q, guessed %v", deref(cfg.NameColLabel), notes, cfg.Guessed)
			}
			if done := e.waitFor(t, b.Data.ID); done.Data.Status != "complete" {
				t.Fatalf("publish ended %s: %s", done.Data.Status, deref(done.Data.Error))
			}
			got := e.strings(t, "SELECT name || ' / ' || notes FROM entries WHERE import_id = ? ORDER BY date", uuid.MustParse(b.Data.ID))
			if !slices.Equal(got, c.entries) {
				t.Errorf("entries %q, want %q", got, c.entries)
			}
		})
	}
}

// A date that reads two ways (03-04-2026) is not guessed: the rows say what is wrong and the
// person chooses.
func TestImportDoesNotGuessAnAmbiguousDateFormat(t *testing.T) {
	t.Parallel()
	e := newImportEnv(t, apptest.ServerOptions{})
	acct := testkit.MustCreateAccount(t, e.srv.DB, e.user.FamilyID, "Checking", "Depository", "")
	b := e.guessed(t, e.create(t, map[string]any{"account_id": acct.ID.String(),
		"raw_file_content": "date,name,amount\n03-04-2026,Coffee,-3.50\n05-06-2026,Rent,-900\n"}, http.StatusCreated))
	if c := b.Data.Configuration; c.DateFormat != nil || slices.Contains(c.Guessed, "date_format") {
		t.Errorf("an ambiguous date format was chosen: %s, guessed %v", deref(c.DateFormat), c.Guessed)
	}
	if b.Data.Stats.ValidRowsCount != 0 {
		t.Errorf("%d rows valid with dates read the default way", b.Data.Stats.ValidRowsCount)
	}
	// The same file with the format named publishes.
	b = e.guessed(t, e.create(t, map[string]any{"account_id": acct.ID.String(), "date_format": "%d-%m-%Y",
		"raw_file_content": "date,name,amount\n03-04-2026,Coffee,-3.50\n05-06-2026,Rent,-900\n"}, http.StatusCreated))
	if b.Data.Stats.ValidRowsCount != 2 || slices.Contains(b.Data.Configuration.Guessed, "date_format") {
		t.Errorf("with the format named: %d valid rows, guessed %v", b.Data.Stats.ValidRowsCount, b.Data.Configuration.Guessed)
	}
}

// What the request says is never overridden by a guess.
func TestImportKeepsTheLabelsItIsGiven(t *testing.T) {
	t.Parallel()
	e := newImportEnv(t, apptest.ServerOptions{})
	acct := testkit.MustCreateAccount(t, e.srv.DB, e.user.FamilyID, "Checking", "Depository", "")
	b := e.guessed(t, e.create(t, map[string]any{"account_id": acct.ID.String(), "name_col_label": "Memo", "col_sep": "comma",
		"raw_file_content": "Date,Description,Memo,Amount\n01/02/2026,CARD 1234,Coffee,-3.50\n"}, http.StatusCreated))
	c := b.Data.Configuration
	if deref(c.NameColLabel) != "Memo" || slices.Contains(c.Guessed, "name_col_label") || slices.Contains(c.Guessed, "col_sep") {
		t.Errorf("configuration %+v", c)
	}
	if !slices.Contains(b.Data.UnmappedColumns, "Description") {
		t.Errorf("unmapped columns %v lack Description", b.Data.UnmappedColumns)
	}
}

// A file that has none of the required columns says which columns it has.
func TestMissingColumnsNameTheColumnsFound(t *testing.T) {
	t.Parallel()
	e := newImportEnv(t, apptest.ServerOptions{})
	r := e.create(t, map[string]any{"raw_file_content": "Foo,Bar\nx,y\nz,w\n"}, http.StatusUnprocessableEntity)
	if !strings.Contains(string(r.Body), `Missing required columns: date, amount. The file's columns are: \"Foo\", \"Bar\".`) {
		t.Errorf("error %s", r.Body)
	}
}

// A pending import's mapping changes without uploading the file again: PATCH reads the stored
// file with the new configuration and replaces the rows; what was not sent stays.
func TestImportConfigurationChangesWithoutAnotherUpload(t *testing.T) {
	t.Parallel()
	e := newImportEnv(t, apptest.ServerOptions{})
	acct := testkit.MustCreateAccount(t, e.srv.DB, e.user.FamilyID, "Checking", "Depository", "")
	b := e.guessed(t, e.create(t, map[string]any{"account_id": acct.ID.String(), "date_format": "%d-%m-%Y",
		"raw_file_content": "date,Description,Memo,amount\n03-04-2026,CARD 1234,Coffee,-3.50\n05-06-2026,CARD 1234,Rent,-900\n"}, http.StatusCreated))
	id := b.Data.ID
	if deref(b.Data.Configuration.NameColLabel) != "Description" {
		t.Fatalf("name column %s", deref(b.Data.Configuration.NameColLabel))
	}
	rowNames := func() []string {
		return e.strings(t, "SELECT name FROM import_rows WHERE import_id = ? ORDER BY row_number", uuid.MustParse(id))
	}
	if got := rowNames(); !slices.Equal(got, []string{"CARD 1234", "CARD 1234"}) {
		t.Fatalf("rows named %v", got)
	}

	r := e.c.API(http.MethodPatch, "/api/v1/imports/"+id, e.write, map[string]any{"name_col_label": "Memo"})
	if r.Status != http.StatusOK {
		t.Fatalf("configure: %d %s", r.Status, r.Body)
	}
	b = e.guessed(t, r)
	c := b.Data.Configuration
	if deref(c.NameColLabel) != "Memo" || slices.Contains(c.Guessed, "name_col_label") || deref(c.DateFormat) != "%d-%m-%Y" {
		t.Errorf("configuration after PATCH %+v", c)
	}
	if !slices.Equal(b.Data.UnmappedColumns, []string{"Description"}) || b.Data.Stats.ValidRowsCount != 2 {
		t.Errorf("unmapped %v, %d valid rows", b.Data.UnmappedColumns, b.Data.Stats.ValidRowsCount)
	}
	if got := rowNames(); !slices.Equal(got, []string{"Coffee", "Rent"}) {
		t.Errorf("rows named %v after PATCH", got)
	}

	// A configuration that cannot read the file changes nothing.
	r = e.c.API(http.MethodPatch, "/api/v1/imports/"+id, e.write, map[string]any{"date_format": "%Q"})
	if r.Status != http.StatusUnprocessableEntity {
		t.Errorf("a bad date format: %d %s", r.Status, r.Body)
	}
	if got := rowNames(); !slices.Equal(got, []string{"Coffee", "Rent"}) {
		t.Errorf("rows named %v after a refused PATCH", got)
	}
	// The file cannot change, and a published import cannot be configured.
	r = e.c.API(http.MethodPatch, "/api/v1/imports/"+id, e.write, map[string]any{"raw_file_content": "date,amount\n"})
	if r.Status != http.StatusUnprocessableEntity || !strings.Contains(string(r.Body), "not_configurable") {
		t.Errorf("a new file: %d %s", r.Status, r.Body)
	}
	e.c.API(http.MethodPost, "/api/v1/imports/"+id+"/publish", e.write, nil)
	if done := e.waitFor(t, id); done.Data.Status != "complete" {
		t.Fatalf("publish ended %s", done.Data.Status)
	}
	r = e.c.API(http.MethodPatch, "/api/v1/imports/"+id, e.write, map[string]any{"name_col_label": "Description"})
	if r.Status != http.StatusConflict {
		t.Errorf("configuring a published import: %d %s", r.Status, r.Body)
	}
	names := e.strings(t, "SELECT name FROM entries WHERE import_id = ? ORDER BY date", uuid.MustParse(id))
	if !slices.Equal(names, []string{"Coffee", "Rent"}) {
		t.Errorf("published %v", names)
	}
	// Another family's import is not found, and reading needs read_write.
	stranger := testkit.MustCreateUser(t, e.srv.DB, testkit.UserOpts{})
	key := testkit.MustCreateAPIKey(t, e.srv.DB, stranger.ID, models.ScopeReadWrite)
	if r := e.c.API(http.MethodPatch, "/api/v1/imports/"+id, key, map[string]any{"name_col_label": "Memo"}); r.Status != http.StatusNotFound {
		t.Errorf("another family: %d", r.Status)
	}
	if r := e.c.API(http.MethodPatch, "/api/v1/imports/"+id, e.read, map[string]any{"name_col_label": "Memo"}); r.Status != http.StatusForbidden {
		t.Errorf("a read key: %d", r.Status)
	}
}

// A card export with a column for money out and one for money in reads each row's amount
// from whichever is filled, as an outflow or an inflow whatever its sign; a German export's
// Soll and Haben are found by their names.
func TestImportReadsDebitAndCreditColumns(t *testing.T) {
	t.Parallel()
	e := newImportEnv(t, apptest.ServerOptions{})
	acct := testkit.MustCreateAccount(t, e.srv.DB, e.user.FamilyID, "Card", "CreditCard", "")
	done := e.publish(t, map[string]any{"account_id": acct.ID.String(),
		"raw_file_content": "Transaction Date,Posted Date,Card No.,Description,Category,Debit,Credit\n" +
			"2026-01-02,2026-01-03,1234,COFFEE SHOP,Dining,3.50,\n2026-01-04,2026-01-05,1234,PAYMENT THANK YOU,Payment,,100.00\n" +
			"2026-01-06,2026-01-07,1234,REFUND,Shopping,,-20.00\n"})
	got := e.strings(t, "SELECT name || ' ' || amount::numeric(19,2)::text FROM entries WHERE import_id = ? ORDER BY date", uuid.MustParse(done.Data.ID))
	// The ledger's sign: money out is positive.
	want := []string{"COFFEE SHOP 3.50", "PAYMENT THANK YOU -100.00", "REFUND -20.00"}
	if !slices.Equal(got, want) {
		t.Errorf("entries %q, want %q", got, want)
	}

	b := e.guessed(t, e.create(t, map[string]any{"account_id": acct.ID.String(),
		"raw_file_content": "Buchungstag;Text;Soll;Haben\n02.01.2026;Bäckerei;3,50;\n13.01.2026;Gehalt;;2.345,67\n"}, http.StatusCreated))
	c := b.Data.Configuration
	for _, f := range []string{"debit_col_label", "credit_col_label", "number_format", "date_format", "date_col_label", "name_col_label"} {
		if !slices.Contains(c.Guessed, f) {
			t.Errorf("guessed %v lacks %s", c.Guessed, f)
		}
	}
	if b.Data.Stats.ValidRowsCount != 2 || len(b.Data.UnmappedColumns) != 0 {
		t.Errorf("%d valid rows, unmapped %v", b.Data.Stats.ValidRowsCount, b.Data.UnmappedColumns)
	}
	amounts := e.strings(t, "SELECT amount::numeric(19,2)::text FROM import_rows WHERE import_id = ? ORDER BY row_number", uuid.MustParse(b.Data.ID))
	if !slices.Equal(amounts, []string{"3.50", "-2345.67"}) {
		t.Errorf("amounts %v", amounts)
	}
}
