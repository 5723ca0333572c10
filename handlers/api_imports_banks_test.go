package handlers_test

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/uuid"

	"tally/app/apptest"
	"tally/imports"
	"tally/models"
	"tally/testkit"
)

// presetBody is the part of ImportDetail a bank preset sets.
type presetBody struct {
	Data struct {
		ID            string `json:"id"`
		Configuration struct {
			Preset     *string  `json:"preset"`
			ProfileID  *string  `json:"profile_id"`
			ColSep     string   `json:"col_sep"`
			RowsToSkip int      `json:"rows_to_skip"`
			Guessed    []string `json:"guessed"`
		} `json:"configuration"`
		UnmappedColumns []string `json:"unmapped_columns"`
		Stats           struct {
			RowsCount        int `json:"rows_count"`
			ValidRowsCount   int `json:"valid_rows_count"`
			SkippedRowsCount int `json:"skipped_rows_count"`
		} `json:"stats"`
	} `json:"data"`
}

// uploadBank posts a file of testdata/banks into a new account in currency, with fields, and
// returns the import.
func (e *importEnv) uploadBank(t *testing.T, file, currency string, fields map[string]string) (presetBody, *models.Account) {
	t.Helper()
	content, err := os.ReadFile(filepath.Join("testdata", "banks", file))
	if err != nil {
		t.Fatal(err)
	}
	acct, err := models.CreateAccount(context.Background(), e.srv.DB, e.user.FamilyID, models.AccountInput{
		Name: strings.TrimSuffix(file, ".csv") + " " + uuid.NewString()[:4], AccountableType: "Depository", Currency: currency,
	})
	if err != nil {
		t.Fatal(err)
	}
	form := map[string]string{"account_id": acct.ID.String()}
	for k, v := range fields {
		form[k] = v
	}
	body, ct := multipartBody(t, form, file, "text/csv", content)
	r := e.c.Do(http.MethodPost, "/api/v1/imports", body, map[string]string{"Content-Type": ct, "X-Api-Key": e.write})
	if r.Status != http.StatusCreated {
		t.Fatalf("upload %s: %d %s", file, r.Status, r.Body)
	}
	var b presetBody
	r.JSON(t, &b)
	return b, acct
}

// rows are an import's rows as "date amount name", amounts as the ledger signs them (money out
// positive).
func (e *importEnv) rows(t *testing.T, id string) []string {
	return e.strings(t, "SELECT to_char(date, 'YYYY-MM-DD') || ' ' || amount::numeric(19, 2) || ' ' || name FROM import_rows WHERE import_id = ? ORDER BY row_number", uuid.MustParse(id))
}

// Each bank's export, written from its published columns, is recognised by its header (or, for
// Wells Fargo, by its rows) and read with no configuration: dates, signs, names and the rows
// that are no transactions.
func TestBankPresetsReadTheirExports(t *testing.T) {
	t.Parallel()
	e := newImportEnv(t, apptest.ServerOptions{})
	cases := []struct {
		file, preset, currency string
		fields                 map[string]string
		skipped                int
		rows                   []string
	}{
		{file: "chase_checking.csv", preset: "chase_checking", currency: "USD", rows: []string{
			"2026-03-02 5.75 STARBUCKS STORE 12345 SEATTLE WA", "2026-03-01 -2000.00 ACME CORP PAYROLL PPD ID: 123456789", "2026-03-03 120.00 CHECK 1042"}},
		{file: "chase_card.csv", preset: "chase_card", currency: "USD", rows: []string{
			"2026-03-01 84.12 WHOLEFDS MKT 10234", "2026-03-03 -500.00 AUTOMATIC PAYMENT - THANK",
			"2026-03-05 23.99 AMAZON MKTPL*2K4AB1CD3", "2026-03-07 -23.99 AMAZON MKTPL*2K4AB1CD3"}},
		{file: "bank_of_america_checking.csv", preset: "bank_of_america_checking", currency: "USD", skipped: 1, rows: []string{
			"2026-03-02 -2000.00 PAYROLL ACME CORP DES:PAYROLL ID:XXXXX", "2026-03-05 60.45 CHECKCARD 0304 TRADER JOE'S",
			"2026-03-09 250.00 Online Banking payment to CRD 1234 Confirmation# XXXXX"}},
		{file: "bank_of_america_card.csv", preset: "bank_of_america_card", currency: "USD", rows: []string{
			"2026-03-02 45.10 SHELL OIL 57444", "2026-03-04 -300.00 PAYMENT - THANK YOU"}},
		{file: "amex.csv", preset: "amex", currency: "USD", fields: map[string]string{"preset": "amex"}, rows: []string{
			"2026-03-01 18.40 UBER TRIP HELP.UBER.COM", "2026-03-03 -250.00 ONLINE PAYMENT - THANK YOU"}},
		{file: "amex_card_member.csv", preset: "amex_card_member", currency: "USD", rows: []string{
			"2026-03-01 6.50 BLUE BOTTLE COFFEE", "2026-03-05 -500.00 AUTOPAY PAYMENT - THANK YOU"}},
		{file: "amex_extended.csv", preset: "amex_extended", currency: "USD", rows: []string{
			"2026-03-02 412.30 DELTA AIR LINES", "2026-03-04 -23.99 AMAZON.COM"}},
		{file: "capital_one_card.csv", preset: "capital_one_card", currency: "USD", rows: []string{
			"2026-03-01 54.20 KROGER #123", "2026-03-03 -200.00 CAPITAL ONE ONLINE PYMT"}},
		{file: "capital_one_360.csv", preset: "capital_one_360", currency: "USD", rows: []string{
			"2026-03-01 -2000.00 Deposit from ACME CORP PAYROLL", "2026-03-03 15.49 Debit Card Purchase - NETFLIX.COM"}},
		{file: "wells_fargo.csv", preset: "wells_fargo", currency: "USD", rows: []string{
			"2026-03-02 42.17 PURCHASE AUTHORIZED ON 03/01 SAFEWAY #1234 OAKLAND CA", "2026-03-03 -1500.00 ONLINE TRANSFER FROM SAVINGS",
			"2026-03-05 80.00 CHECK # 1043"}},
		{file: "revolut.csv", preset: "revolut", currency: "GBP", skipped: 1, rows: []string{
			"2026-03-02 6.20 Pret A Manger", "2026-03-02 -500.00 Top-Up by *1234", "2026-03-03 100.50 Exchanged to EUR",
			"2026-03-04 12.40 Uber"}},
		{file: "n26.csv", preset: "n26", currency: "EUR", rows: []string{
			"2026-03-01 23.45 REWE Markt GmbH", "2026-03-02 -2100.00 ACME GmbH"}},
		{file: "n26_classic.csv", preset: "n26_classic", currency: "EUR", rows: []string{
			"2023-05-02 12.50 Lidl", "2023-05-03 -400.00 Jane Doe"}},
		{file: "wise.csv", preset: "wise", currency: "GBP", rows: []string{
			"2026-03-01 4.50 Costa Coffee", "2026-03-02 250.00 John Smith", "2026-03-03 -1000.00 ACME LTD"}},
		{file: "monzo.csv", preset: "monzo", currency: "GBP", rows: []string{
			"2026-03-01 4.95 Pret A Manger", "2026-03-02 -1800.00 ACME LTD", "2026-03-13 31.20 Tesco"}},
		{file: "ing_de.csv", preset: "ing_de", currency: "EUR", rows: []string{
			"2026-03-20 54.33 REWE Markt GmbH", "2026-03-15 -2100.00 ACME GmbH", "2026-03-02 1250.00 Vermieter Müller"}},
		{file: "ing_nl.csv", preset: "ing_nl", currency: "EUR", rows: []string{
			"2026-03-01 23.45 Albert Heijn 1234", "2026-03-02 -2500.00 Werkgever BV"}},
		{file: "sparkasse.csv", preset: "sparkasse", currency: "EUR", rows: []string{
			"2026-03-03 85.00 Stadtwerke Musterstadt", "2026-03-01 -2450.00 ACME GmbH"}},
		{file: "dkb.csv", preset: "dkb", currency: "EUR", rows: []string{
			"2026-03-20 42.80 Edeka Zentrale", "2026-03-15 -2100.00 ACME GmbH"}},
		{file: "dkb_classic.csv", preset: "dkb_classic", currency: "EUR", rows: []string{
			"2022-03-28 39.95 Telekom Deutschland GmbH", "2022-03-25 -1980.00 ACME GmbH"}},
		{file: "commerzbank.csv", preset: "commerzbank", currency: "EUR", rows: []string{
			"2026-03-24 13.99 Netflix International B.V. Ref. 1234567", "2026-03-20 -2300.00 ACME GmbH Gehalt März"}},
		{file: "comdirect.csv", preset: "comdirect", currency: "EUR", skipped: 2, rows: []string{
			"2026-03-20 85.00 Auftraggeber: Stadtwerke Musterstadt Buchungstext: Stromabschlag Maerz Ref. 4F5G6H7J8K9L0M1N/2",
			"2026-03-15 -2450.00 Auftraggeber: ACME GmbH Buchungstext: Gehalt 03/2026 Ref. 1A2B3C4D5E6F7G8H/3"}},
		{file: "bnp_paribas.csv", preset: "bnp_paribas", currency: "EUR", rows: []string{
			"2026-03-20 45.30 CARTE X1234 19/03 CARREFOUR MARKET", "2026-03-15 -2350.00 VIR SEPA RECU /DE ACME SA /MOTIF SALAIRE MARS"}},
		{file: "barclays.csv", preset: "barclays", currency: "GBP", rows: []string{
			"2026-03-01 3.20 PRET A MANGER      ON 28 FEB          BCC", "2026-03-02 -2100.00 ACME LTD           SALARY"}},
	}
	var tested []string
	for _, c := range cases {
		tested = append(tested, c.preset)
		t.Run(c.preset, func(t *testing.T) {
			t.Parallel()
			b, _ := e.uploadBank(t, c.file, c.currency, c.fields)
			d := b.Data
			if deref(d.Configuration.Preset) != c.preset {
				t.Errorf("read as %q, want %q", deref(d.Configuration.Preset), c.preset)
			}
			if d.Stats.SkippedRowsCount != c.skipped || d.Stats.ValidRowsCount != d.Stats.RowsCount {
				t.Errorf("%d rows, %d valid, %d skipped (want %d skipped)", d.Stats.RowsCount, d.Stats.ValidRowsCount, d.Stats.SkippedRowsCount, c.skipped)
			}
			if got := e.rows(t, d.ID); !slices.Equal(got, c.rows) {
				t.Errorf("rows\n got %q\nwant %q", got, c.rows)
			}
			if len(d.Configuration.Guessed) > 0 {
				t.Errorf("a preset leaves nothing to guess, but %v were", d.Configuration.Guessed)
			}
		})
	}
	for _, p := range imports.BankPresets {
		if !slices.Contains(tested, p.ID) {
			t.Errorf("preset %s has no file", p.ID)
		}
	}
}

// American Express's plain export has the header of many files; it is not taken for Amex
// unless asked, since its charges are positive.
func TestAmexPresetIsOnlyUsedWhenAsked(t *testing.T) {
	t.Parallel()
	e := newImportEnv(t, apptest.ServerOptions{})
	b, _ := e.uploadBank(t, "amex.csv", "USD", nil)
	if b.Data.Configuration.Preset != nil {
		t.Errorf("read as %s", *b.Data.Configuration.Preset)
	}
	if got := e.rows(t, b.Data.ID); got[0] != "2026-03-01 -18.40 UBER TRIP HELP.UBER.COM" {
		t.Errorf("first row %q: the signs should be the file's", got[0])
	}
	// A preset that is not one, and a preset sent as "" (none) for a bank's file.
	r := e.c.API(http.MethodPost, "/api/v1/imports", e.write, map[string]any{"raw_file_content": "Date,Amount\n01/02/2026,1\n", "preset": "chase"})
	if r.Status != http.StatusUnprocessableEntity || !strings.Contains(string(r.Body), `Preset \"chase\" is not one of: chase_checking`) {
		t.Errorf("unknown preset: %d %s", r.Status, r.Body)
	}
	b, _ = e.uploadBank(t, "dkb.csv", "EUR", map[string]string{"preset": ""})
	if b.Data.Configuration.Preset != nil || !slices.Contains(b.Data.Configuration.Guessed, "col_sep") {
		t.Errorf("with preset \"\": %+v", b.Data.Configuration)
	}
}

// A Revolut file published: the fee is money out, the reverted payment is not an entry, and
// the pending one is dated when it started.
func TestRevolutExportPublishes(t *testing.T) {
	t.Parallel()
	e := newImportEnv(t, apptest.ServerOptions{})
	b, acct := e.uploadBank(t, "revolut.csv", "GBP", map[string]string{"publish": "true"})
	if done := e.waitFor(t, b.Data.ID); done.Data.Status != "complete" {
		t.Fatalf("publish ended %s: %s", done.Data.Status, deref(done.Data.Error))
	}
	got := e.strings(t, "SELECT name || ' ' || amount::numeric(19, 2) FROM entries WHERE account_id = ? AND kind = 'transaction' ORDER BY date, name", acct.ID)
	want := []string{"Pret A Manger 6.20", "Top-Up by *1234 -500.00", "Exchanged to EUR 100.50", "Uber 12.40"}
	if !slices.Equal(got, want) {
		t.Errorf("entries %q, want %q", got, want)
	}
}

// A mapping saved from an import reads the next file with the same header into that account
// with no questions; another account's file, or another header, is read as before.
func TestImportProfileReadsTheNextFile(t *testing.T) {
	t.Parallel()
	e := newImportEnv(t, apptest.ServerOptions{})
	acct := testkit.MustCreateAccount(t, e.srv.DB, e.user.FamilyID, "Club account", "Depository", "")
	other := testkit.MustCreateAccount(t, e.srv.DB, e.user.FamilyID, "Other", "Depository", "")
	file := "Wann|Wer|Wieviel|Warum\n2026.03.02|Bakery|3,50|Rolls\n2026.03.03|Club dues|-20,00|March\n"
	var first presetBody
	e.create(t, map[string]any{"account_id": acct.ID.String(), "raw_file_content": file, "date_col_label": "Wann",
		"name_col_label": "Wer", "amount_col_label": "Wieviel", "notes_col_label": "Warum", "date_format": "%Y.%m.%d",
		"number_format": "1.234,56", "signage_convention": "inflows_negative"}, http.StatusCreated).JSON(t, &first)

	r := e.c.API(http.MethodPost, "/api/v1/imports/"+first.Data.ID+"/profile", e.write, map[string]any{"name": "Club export"})
	if r.Status != http.StatusCreated {
		t.Fatalf("save profile: %d %s", r.Status, r.Body)
	}
	var saved struct {
		Data struct {
			ID       string         `json:"id"`
			Header   []string       `json:"header"`
			Settings map[string]any `json:"settings"`
		} `json:"data"`
	}
	r.JSON(t, &saved)
	if !slices.Equal(saved.Data.Header, []string{"wann", "wer", "wieviel", "warum"}) || saved.Data.Settings["col_sep"] != "|" {
		t.Errorf("saved %+v", saved.Data)
	}
	if r := e.c.API(http.MethodPost, "/api/v1/imports/"+first.Data.ID+"/profile", e.write, map[string]any{"name": " "}); r.Status != http.StatusUnprocessableEntity {
		t.Errorf("a blank name: %d %s", r.Status, r.Body)
	}

	var next presetBody
	e.create(t, map[string]any{"account_id": acct.ID.String(), "raw_file_content": file}, http.StatusCreated).JSON(t, &next)
	if deref(next.Data.Configuration.ProfileID) != saved.Data.ID || len(next.Data.Configuration.Guessed) > 0 {
		t.Errorf("next file: %+v", next.Data.Configuration)
	}
	if got, want := e.rows(t, next.Data.ID), []string{"2026-03-02 3.50 Bakery", "2026-03-03 -20.00 Club dues"}; !slices.Equal(got, want) {
		t.Errorf("rows %q, want %q", got, want)
	}
	var elsewhere presetBody
	e.create(t, map[string]any{"account_id": other.ID.String(), "raw_file_content": file}, http.StatusCreated).JSON(t, &elsewhere)
	// Its columns are still guessed, but the signs the profile turned are the file's again.
	if elsewhere.Data.Configuration.ProfileID != nil || e.rows(t, elsewhere.Data.ID)[0] != "2026-03-02 -3.50 Bakery" {
		t.Errorf("another account's file was read with the profile: %+v %q", elsewhere.Data, e.rows(t, elsewhere.Data.ID))
	}
	// Named by id, the profile reads a file into any account of the family.
	var named presetBody
	e.create(t, map[string]any{"account_id": other.ID.String(), "raw_file_content": file, "profile_id": saved.Data.ID}, http.StatusCreated).JSON(t, &named)
	if named.Data.Stats.ValidRowsCount != 2 {
		t.Errorf("with profile_id: %+v", named.Data)
	}

	// Another family sees none of it.
	stranger := testkit.MustCreateUser(t, e.srv.DB, testkit.UserOpts{})
	key := testkit.MustCreateAPIKey(t, e.srv.DB, stranger.ID, models.ScopeReadWrite)
	if r := e.c.API(http.MethodPost, "/api/v1/imports", key, map[string]any{"raw_file_content": file, "profile_id": saved.Data.ID}); r.Status != http.StatusUnprocessableEntity ||
		!strings.Contains(string(r.Body), "profile_id") {
		t.Errorf("another family's profile: %d %s", r.Status, r.Body)
	}
	var list struct {
		Data []struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	e.c.API(http.MethodGet, "/api/v1/import_profiles", key, nil).JSON(t, &list)
	if len(list.Data) != 0 {
		t.Errorf("another family lists %d profiles", len(list.Data))
	}
	if r := e.c.API(http.MethodDelete, "/api/v1/import_profiles/"+saved.Data.ID, key, nil); r.Status != http.StatusNotFound {
		t.Errorf("another family deletes: %d", r.Status)
	}
	e.c.API(http.MethodGet, "/api/v1/import_profiles?account_id="+acct.ID.String(), e.read, nil).JSON(t, &list)
	if len(list.Data) != 1 || list.Data[0].ID != saved.Data.ID {
		t.Errorf("profiles %+v", list.Data)
	}
	if r := e.c.API(http.MethodDelete, "/api/v1/import_profiles/"+saved.Data.ID, e.write, nil); r.Status != http.StatusNoContent {
		t.Errorf("delete: %d %s", r.Status, r.Body)
	}
	e.create(t, map[string]any{"account_id": acct.ID.String(), "raw_file_content": file}, http.StatusCreated).JSON(t, &next)
	if next.Data.Configuration.ProfileID != nil {
		t.Errorf("a deleted profile still reads files")
	}
}

// The presets are listed for clients, and a pending import can be read again as a bank's
// export.
func TestImportPresetsListedAndChosenLater(t *testing.T) {
	t.Parallel()
	e := newImportEnv(t, apptest.ServerOptions{})
	var list struct {
		Data []struct {
			ID        string  `json:"id"`
			HasHeader bool    `json:"has_header"`
			Skips     *string `json:"skips"`
		} `json:"data"`
	}
	e.c.API(http.MethodGet, "/api/v1/import_presets", e.read, nil).JSON(t, &list)
	if len(list.Data) != len(imports.BankPresets) || list.Data[0].ID != "chase_checking" {
		t.Fatalf("presets %+v", list.Data)
	}
	b, _ := e.uploadBank(t, "dkb.csv", "EUR", map[string]string{"preset": ""})
	var again presetBody
	r := e.c.API(http.MethodPatch, "/api/v1/imports/"+b.Data.ID, e.write, map[string]any{"preset": "dkb"})
	if r.Status != http.StatusOK {
		t.Fatalf("patch: %d %s", r.Status, r.Body)
	}
	r.JSON(t, &again)
	if deref(again.Data.Configuration.Preset) != "dkb" {
		t.Errorf("read again as %v", again.Data.Configuration.Preset)
	}
	if got, want := e.rows(t, b.Data.ID), []string{"2026-03-20 42.80 Edeka Zentrale", "2026-03-15 -2100.00 ACME GmbH"}; !slices.Equal(got, want) {
		t.Errorf("rows %q, want %q", got, want)
	}
	// Changing a column keeps the preset.
	r = e.c.API(http.MethodPatch, "/api/v1/imports/"+b.Data.ID, e.write, map[string]any{"notes_col_label": "Umsatztyp"})
	r.JSON(t, &again)
	if r.Status != http.StatusOK || deref(again.Data.Configuration.Preset) != "dkb" {
		t.Errorf("after a column change: %d %+v", r.Status, again.Data.Configuration)
	}
	if notes := e.strings(t, "SELECT notes FROM import_rows WHERE import_id = ? ORDER BY row_number", uuid.MustParse(b.Data.ID)); !slices.Equal(notes, []string{"Ausgang", "Eingang"}) {
		t.Errorf("notes %q", notes)
	}
}

// The API says, as the page does, which rows of a file are already in the account: a count and
// a sentence before publishing, and "Nothing new" after a publish that wrote nothing.
func TestImportAPISaysWhatIsAlreadyThere(t *testing.T) {
	t.Parallel()
	e := newImportEnv(t, apptest.ServerOptions{})
	acct := testkit.MustCreateAccount(t, e.srv.DB, e.user.FamilyID, "Girokonto", "Depository", "")
	file := "date,name,amount\n2024-01-02,Coffee,-3.50\n2024-01-03,Rent,-900\n"
	body := map[string]any{"account_id": acct.ID.String(), "raw_file_content": file, "date_format": "%Y-%m-%d"}
	type noticeBody struct {
		Data struct {
			ID     string  `json:"id"`
			Notice *string `json:"notice"`
			Stats  struct {
				PendingDuplicateRowsCount int `json:"pending_duplicate_rows_count"`
			} `json:"stats"`
		} `json:"data"`
	}
	var first noticeBody
	e.create(t, body, http.StatusCreated).JSON(t, &first)
	if first.Data.Notice != nil || first.Data.Stats.PendingDuplicateRowsCount != 0 {
		t.Errorf("a first file: %+v", first.Data)
	}
	e.c.API(http.MethodPost, "/api/v1/imports/"+first.Data.ID+"/publish", e.write, nil)
	e.waitFor(t, first.Data.ID)

	var again noticeBody
	e.create(t, body, http.StatusCreated).JSON(t, &again)
	if again.Data.Stats.PendingDuplicateRowsCount != 2 || deref(again.Data.Notice) != "Nothing new: all 2 rows are already in Girokonto, and publishing will skip them." {
		t.Errorf("again: %d, %q", again.Data.Stats.PendingDuplicateRowsCount, deref(again.Data.Notice))
	}
	e.c.API(http.MethodPost, "/api/v1/imports/"+again.Data.ID+"/publish", e.write, nil)
	e.waitFor(t, again.Data.ID)
	e.c.API(http.MethodGet, "/api/v1/imports/"+again.Data.ID, e.read, nil).JSON(t, &again)
	if deref(again.Data.Notice) != "Nothing new: all 2 rows were already in Girokonto." || again.Data.Stats.PendingDuplicateRowsCount != 0 {
		t.Errorf("after publishing: %d, %q", again.Data.Stats.PendingDuplicateRowsCount, deref(again.Data.Notice))
	}
}

// A card statement that writes its charges positive is read that way into a credit card
// account; the same file into a checking account keeps the usual signs.
func TestCardStatementSignsAreGuessed(t *testing.T) {
	t.Parallel()
	e := newImportEnv(t, apptest.ServerOptions{})
	file := "Date,Description,Amount\n01/02/2026,UBER TRIP,18.40\n01/03/2026,COFFEE,4.50\n01/05/2026,PAYMENT RECEIVED,-250.00\n01/06/2026,BOOKS,12.00\n"
	card := testkit.MustCreateAccount(t, e.srv.DB, e.user.FamilyID, "Card", "CreditCard", "")
	checking := testkit.MustCreateAccount(t, e.srv.DB, e.user.FamilyID, "Checking", "Depository", "")
	var b presetBody
	e.create(t, map[string]any{"account_id": card.ID.String(), "raw_file_content": file}, http.StatusCreated).JSON(t, &b)
	if !slices.Contains(b.Data.Configuration.Guessed, "signage_convention") {
		t.Errorf("guessed %v", b.Data.Configuration.Guessed)
	}
	if got := e.rows(t, b.Data.ID); got[0] != "2026-01-02 18.40 UBER TRIP" || got[2] != "2026-01-05 -250.00 PAYMENT RECEIVED" {
		t.Errorf("card rows %q", got)
	}
	// Read again with the signs the other way, the choice is kept, not guessed again.
	r := e.c.API(http.MethodPatch, "/api/v1/imports/"+b.Data.ID, e.write, map[string]any{"signage_convention": "inflows_positive"})
	r.JSON(t, &b)
	if slices.Contains(b.Data.Configuration.Guessed, "signage_convention") || e.rows(t, b.Data.ID)[0] != "2026-01-02 -18.40 UBER TRIP" {
		t.Errorf("after choosing: %v %q", b.Data.Configuration.Guessed, e.rows(t, b.Data.ID))
	}
	e.create(t, map[string]any{"account_id": checking.ID.String(), "raw_file_content": file}, http.StatusCreated).JSON(t, &b)
	if slices.Contains(b.Data.Configuration.Guessed, "signage_convention") || e.rows(t, b.Data.ID)[0] != "2026-01-02 -18.40 UBER TRIP" {
		t.Errorf("checking: %v %q", b.Data.Configuration.Guessed, e.rows(t, b.Data.ID))
	}
}

// A file that quotes its fields with ' is read with them, and says so; read with " instead,
// its columns are not found, and the refused change leaves it as it was.
func TestSingleQuotedFileIsRead(t *testing.T) {
	t.Parallel()
	e := newImportEnv(t, apptest.ServerOptions{})
	acct := testkit.MustCreateAccount(t, e.srv.DB, e.user.FamilyID, "Checking", "Depository", "")
	file := "'Date','Payee','Amount'\n'2026-03-02','Joe''s Diner, Main St','-1,234.50'\n'2026-03-03','Books, used','-12.00'\n"
	var b struct {
		Data struct {
			ID            string `json:"id"`
			Configuration struct {
				QuoteChar string   `json:"quote_char"`
				Guessed   []string `json:"guessed"`
			} `json:"configuration"`
		} `json:"data"`
	}
	e.create(t, map[string]any{"account_id": acct.ID.String(), "raw_file_content": file}, http.StatusCreated).JSON(t, &b)
	if b.Data.Configuration.QuoteChar != "single" || !slices.Contains(b.Data.Configuration.Guessed, "quote_char") {
		t.Errorf("configuration %+v", b.Data.Configuration)
	}
	if got := e.rows(t, b.Data.ID); !slices.Equal(got, []string{"2026-03-02 1234.50 Joe's Diner, Main St", "2026-03-03 12.00 Books, used"}) {
		t.Errorf("rows %q", got)
	}
	// Read with ", the headers are 'Date' and the rest: refused, and nothing changes.
	r := e.c.API(http.MethodPatch, "/api/v1/imports/"+b.Data.ID, e.write, map[string]any{"quote_char": "double"})
	if r.Status != http.StatusUnprocessableEntity || !strings.Contains(string(r.Body), `\"'Date'\"`) {
		t.Errorf("read with double quotes: %d %s", r.Status, r.Body)
	}
	if got := e.rows(t, b.Data.ID); got[1] != "2026-03-03 12.00 Books, used" {
		t.Errorf("after a refused change: %q", got)
	}
	if r := e.c.API(http.MethodPost, "/api/v1/imports", e.write, map[string]any{"raw_file_content": file, "quote_char": "`"}); r.Status != http.StatusUnprocessableEntity ||
		!strings.Contains(string(r.Body), "quote_char") {
		t.Errorf("a backquote: %d %s", r.Status, r.Body)
	}
}

// TestImportAPIKeepsLikelyDuplicates uploads again, without its names, a file already in the
// account: the API counts its likely duplicates and names the rule on each row, keeps them all
// when asked at upload, and keeps only the rows named on publish when asked there.
func TestImportAPIKeepsLikelyDuplicates(t *testing.T) {
	t.Parallel()
	e := newImportEnv(t, apptest.ServerOptions{})
	acct := testkit.MustCreateAccount(t, e.srv.DB, e.user.FamilyID, "Girokonto", "Depository", "")
	e.publish(t, map[string]any{"account_id": acct.ID.String(), "date_format": "%Y-%m-%d",
		"raw_file_content": "date,name,amount\n2024-01-02,Coffee,-3.50\n2024-01-03,Rent,-900\n"})
	unnamed := map[string]any{"account_id": acct.ID.String(), "date_format": "%Y-%m-%d", "raw_file_content": "date,amount\n2024-01-02,-3.50\n2024-01-03,-900\n"}
	type keepBody struct {
		Data struct {
			ID                   string  `json:"id"`
			Status               string  `json:"status"`
			Notice               *string `json:"notice"`
			KeepLikelyDuplicates bool    `json:"keep_likely_duplicates"`
			Stats                struct {
				Duplicates        int `json:"duplicate_rows_count"`
				Likely            int `json:"likely_duplicate_rows_count"`
				PendingDuplicates int `json:"pending_duplicate_rows_count"`
				PendingLikely     int `json:"pending_likely_duplicate_rows_count"`
			} `json:"stats"`
		} `json:"data"`
	}
	rules := func(id string) string {
		t.Helper()
		var rows rowsBody
		e.c.API(http.MethodGet, "/api/v1/imports/"+id+"/rows", e.read, nil).JSON(t, &rows)
		var out []string
		for _, r := range rows.Data {
			out = append(out, fmt.Sprintf("%d %s duplicate=%v", r.RowNumber, r.MatchedBy, r.Duplicate))
		}
		return strings.Join(out, ", ")
	}

	var skipped keepBody
	e.create(t, unnamed, http.StatusCreated).JSON(t, &skipped)
	if s := skipped.Data.Stats; s.PendingDuplicates != 2 || s.PendingLikely != 2 || skipped.Data.KeepLikelyDuplicates ||
		deref(skipped.Data.Notice) != "2 of the 2 rows are likely duplicates of transactions in Girokonto (the same date and amount, another name): publishing will skip them unless you keep them." {
		t.Errorf("uploaded for review: %+v, %q", s, deref(skipped.Data.Notice))
	}
	if got := rules(skipped.Data.ID); got != "1 likely duplicate=false, 2 likely duplicate=false" {
		t.Errorf("rows for review: %s", got)
	}

	unnamed["keep_likely_duplicates"] = "true"
	var all keepBody
	e.create(t, unnamed, http.StatusCreated).JSON(t, &all)
	if s := all.Data.Stats; !all.Data.KeepLikelyDuplicates || s.PendingDuplicates != 0 || s.PendingLikely != 0 || rules(all.Data.ID) != "1 likely_kept duplicate=false, 2 likely_kept duplicate=false" {
		t.Errorf("kept at upload: %+v, rows %s", all.Data, rules(all.Data.ID))
	}
	if r := e.c.API(http.MethodDelete, "/api/v1/imports/"+all.Data.ID, e.write, nil); r.Status != http.StatusNoContent {
		t.Fatalf("delete: %d", r.Status)
	}

	for _, bad := range []map[string]any{{"keep_rows": []int{3}}, {"keep_rows": "2"}} {
		if r := e.c.API(http.MethodPost, "/api/v1/imports/"+skipped.Data.ID+"/publish", e.write, bad); r.Status/100 != 4 || !strings.Contains(r.Body, "keep_rows") {
			t.Errorf("publish %v: %d %s, want a refusal naming keep_rows", bad, r.Status, r.Body)
		}
	}
	if r := e.c.API(http.MethodPost, "/api/v1/imports/"+skipped.Data.ID+"/publish", e.write, map[string]any{"keep_rows": []int{2}}); r.Status != http.StatusAccepted {
		t.Fatalf("publish keeping row 2: %d %s", r.Status, r.Body)
	}
	e.waitFor(t, skipped.Data.ID)
	var done keepBody
	e.c.API(http.MethodGet, "/api/v1/imports/"+skipped.Data.ID, e.read, nil).JSON(t, &done)
	if s := done.Data.Stats; done.Data.Status != "complete" || s.Duplicates != 1 || s.Likely != 1 || rules(skipped.Data.ID) != "1 likely duplicate=true, 2 likely_kept duplicate=false" {
		t.Errorf("published: %+v, rows %s", done.Data, rules(skipped.Data.ID))
	}
	if n := e.count(t, "SELECT count(*) FROM entries WHERE account_id = ? AND amount = 900", acct.ID); n != 2 {
		t.Errorf("%d rents, want the kept row beside the first file's", n)
	}
}
