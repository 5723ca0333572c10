package e2e

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"tally/app/apptest"
	"tally/testkit"
)

// uploadFile picks the file at path in the file input with data-testid id.
func uploadFile(t *testing.T, ctx context.Context, id, path string) {
	t.Helper()
	run(t, ctx, "choose "+path, chromedp.SetUploadFiles(testID(id), []string{path}))
}

// TestUploadImportsInTheBrowser uploads a Tally export and a PDF statement from the New import
// page, publishes each from its page and checks what the pages say: the export's readback and
// the statement's reconciliation.
func TestUploadImportsInTheBrowser(t *testing.T) {
	t.Parallel()
	ctx := newTab(t)
	srv := startServer(t, apptest.ServerOptions{})
	u := testkit.MustCreateUser(t, srv.DB, testkit.UserOpts{})
	testkit.MustCreateAccount(t, srv.DB, u.FamilyID, "Everyday checking", "Depository", "")
	dir := t.TempDir()
	export := filepath.Join(dir, "family.ndjson")
	content, err := os.ReadFile("../handlers/testdata/family.ndjson")
	if err != nil {
		t.Fatal(err)
	}
	statement := filepath.Join(dir, "january.pdf")
	csv := filepath.Join(dir, "bank.csv")
	csvContent := []byte("Posted;Amount;Payee\n02/01/2024;-12,50;Bakery\n03/01/2024;1.500,00;Salary\n")
	for path, data := range map[string][]byte{export: content, statement: testkit.StatementPDF(t, true), csv: csvContent} {
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
	}

	step(t, "sign in and open the upload form", func(t *testing.T) {
		signInAs(t, ctx, srv, u.Email)
		clickNav(t, ctx, "imports")
		visible(t, ctx, "imports-empty")
		click(t, ctx, "imports-empty-upload")
		visible(t, ctx, "new-import-form")
		wantPath(t, ctx, "/imports/new")
	})

	step(t, "a missing file is named", func(t *testing.T) {
		choose(t, ctx, "field-type", "NativeImport")
		click(t, ctx, "new-import-submit")
		visible(t, ctx, "error-file")
		wantText(t, ctx, "error-file", "Choose the file to upload.")
		shot(t, ctx, "import-new-error")
	})

	step(t, "a CSV is read with the options given", func(t *testing.T) {
		choose(t, ctx, "field-type", "TransactionImport")
		uploadFile(t, ctx, "field-file", csv)
		chooseLabel(t, ctx, "field-account_id", "Everyday checking")
		click(t, ctx, "csv-options")
		fill(t, ctx, "field-date_format", "%d/%m/%Y")
		choose(t, ctx, "field-number_format", "1.234,56")
		choose(t, ctx, "field-col_sep", "semicolon")
		fill(t, ctx, "field-date_col_label", "Posted")
		fill(t, ctx, "field-name_col_label", "Payee")
		click(t, ctx, "new-import-submit")
		visible(t, ctx, "import-summary")
		wantText(t, ctx, "stat-valid", "2")
		wantText(t, ctx, "stat-invalid", "0")
		wantText(t, ctx, "row-limit", "Up to 1,310,720 rows can be published in one import.")
		click(t, ctx, "publish-import")
		waitText(t, ctx, "import-status", "Complete", time.Minute)
		visit(t, ctx, srv.URL+"/imports/new")
	})

	step(t, "a Tally export is verified after publish", func(t *testing.T) {
		choose(t, ctx, "field-type", "NativeImport")
		uploadFile(t, ctx, "field-file", export)
		click(t, ctx, "new-import-submit")
		visible(t, ctx, "import-verification")
		wantText(t, ctx, "readback-status", "Not verified yet")
		if n := count(t, ctx, "import-record-row"); n != 15 {
			t.Errorf("%d record families listed, want the 15 of the file", n)
		}
		click(t, ctx, "publish-import")
		waitText(t, ctx, "import-status", "Complete", time.Minute)
		wantText(t, ctx, "readback-status", "Verified: matches the file")
		shot(t, ctx, "import-native-verified")
	})

	step(t, "a PDF statement reconciles and publishes into its account", func(t *testing.T) {
		visit(t, ctx, srv.URL+"/imports/new")
		choose(t, ctx, "field-type", "PdfImport")
		uploadFile(t, ctx, "field-file", statement)
		chooseLabel(t, ctx, "field-account_id", "Everyday checking")
		click(t, ctx, "new-import-submit")
		visible(t, ctx, "statement-info")
		wantText(t, ctx, "statement-opening", "1000.00")
		wantText(t, ctx, "statement-closing", "2119.75")
		wantText(t, ctx, "stat-valid", "4")
		if n := count(t, ctx, "file-row"); n != 4 {
			t.Errorf("%d statement lines shown, want 4", n)
		}
		shot(t, ctx, "import-pdf")
		click(t, ctx, "publish-import")
		waitText(t, ctx, "import-status", "Complete", time.Minute)
		var n int
		if err := srv.DB.NewRaw("SELECT count(*) FROM entries e JOIN accounts a ON a.id = e.account_id WHERE a.name = 'Everyday checking' AND e.kind = 'transaction'").
			Scan(context.Background(), &n); err != nil {
			t.Fatal(err)
		}
		if n != 6 { // the CSV's two, and the statement's four
			t.Errorf("%d transactions in the account after publishing the statement, want 6", n)
		}
	})
}

// chooseLabel selects the option whose text is label in the select with data-testid id.
func chooseLabel(t *testing.T, ctx context.Context, id, label string) {
	t.Helper()
	js := `(() => { const s = document.querySelector('[data-testid="` + id + `"]');
		const o = [...s.options].find(o => o.textContent.trim() === ` + "`" + label + "`" + `);
		if (!o) return false; s.value = o.value; s.dispatchEvent(new Event('change', {bubbles: true})); return true; })()`
	if !run(t, ctx, "choose "+label, chromedp.Evaluate[bool](js)) {
		t.Fatalf("%s has no option %q", id, label)
	}
}

// TestARefusedUploadKeepsTheChosenFile: a CSV uploaded as an OFX file is refused in words for
// a person, and the form comes back with the file still chosen, so that choosing "Detect from
// the file" and uploading again reads it, without choosing the file a second time.
func TestARefusedUploadKeepsTheChosenFile(t *testing.T) {
	t.Parallel()
	ctx := newTab(t)
	srv := startServer(t, apptest.ServerOptions{})
	u := testkit.MustCreateUser(t, srv.DB, testkit.UserOpts{})
	testkit.MustCreateAccount(t, srv.DB, u.FamilyID, "Sapphire", "CreditCard", "")
	csv := filepath.Join(t.TempDir(), "Chase4821_Activity.csv")
	content := "Chase Sapphire Preferred (...4821) activity from 10/01/2026 to 10/31/2026\n" +
		"Transaction Date,Post Date,Description,Category,Type,Amount,Memo\n" +
		"10/02/2026,10/03/2026,STARBUCKS STORE 0815,Food & Drink,Sale,-5.75,\n"
	if err := os.WriteFile(csv, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	signInAs(t, ctx, srv, u.Email)
	visit(t, ctx, srv.URL+"/imports/new")

	step(t, "the wrong type is refused, and the file stays chosen", func(t *testing.T) {
		choose(t, ctx, "field-type", "OfxImport")
		uploadFile(t, ctx, "field-file", csv)
		chooseLabel(t, ctx, "field-account_id", "Sapphire")
		click(t, ctx, "new-import-submit")
		visible(t, ctx, "error-file")
		wantText(t, ctx, "error-file", "This file is not what “What the file is” says: it looks like Transactions (CSV). Choose “Transactions (CSV)” or “Detect from the file” there.")
		wantText(t, ctx, "file-chosen", "Still chosen: Chase4821_Activity.csv.")
		if n := run(t, ctx, "count the chosen files", chromedp.Evaluate[int](`document.querySelector('[data-testid="field-file"]').files.length`)); n != 1 {
			t.Fatalf("%d files chosen after the refusal, want the one", n)
		}
		if got := inputValue(t, ctx, "field-account_id"); got == "" {
			t.Error("the account was forgotten")
		}
		shot(t, ctx, "import-new-refused-keeps-file")
	})

	step(t, "detected from the file, the same file is read", func(t *testing.T) {
		choose(t, ctx, "field-type", "auto")
		click(t, ctx, "new-import-submit")
		visible(t, ctx, "import-summary")
		wantText(t, ctx, "stat-valid", "1")
	})
}
