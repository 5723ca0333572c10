package e2e

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"tally/app/apptest"
	"tally/models"
	"tally/testkit"
)

// TestImportWizardReadsBankFiles drops the files people bring on the upload form with no
// options: a US bank's export with a summary above its table, a French export, a UK export
// with a column for money out and one for money in, and a file whose dates could be day or
// month first. Each is read right before anything is written, or asks; a saved profile reads
// the bank's next file, and a re-upload finds its rows already there.
func TestImportWizardReadsBankFiles(t *testing.T) {
	t.Parallel()
	ctx := newTab(t)
	srv := startServer(t, apptest.ServerOptions{})
	u := testkit.MustCreateUser(t, srv.DB, testkit.UserOpts{})
	testkit.MustCreateAccount(t, srv.DB, u.FamilyID, "Checking", "Depository", "")
	for _, a := range []struct{ name, currency string }{{"Compte courant", "EUR"}, {"Current account", "GBP"}} {
		if _, err := models.CreateAccount(context.Background(), srv.DB, u.FamilyID, models.AccountInput{
			Name: a.name, AccountableType: "Depository", Currency: a.currency,
		}); err != nil {
			t.Fatal(err)
		}
	}
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	bofa, err := os.ReadFile(filepath.Join("..", "handlers", "testdata", "banks", "bank_of_america_checking.csv"))
	if err != nil {
		t.Fatal(err)
	}
	bofaPath := write("stmt.csv", string(bofa))
	upload := func(t *testing.T, account, path string) {
		t.Helper()
		visit(t, ctx, srv.URL+"/imports/new")
		choose(t, ctx, "field-type", "TransactionImport")
		chooseLabel(t, ctx, "field-account_id", account)
		uploadFile(t, ctx, "field-file", path)
		click(t, ctx, "new-import-submit")
		visible(t, ctx, "import-summary")
	}
	// rowsRead are what the rows on the page will be, in file order.
	rowsRead := func(t *testing.T) []string {
		t.Helper()
		js := fmt.Sprintf(`Array.from(document.querySelectorAll(%q)).map(e => e.textContent.trim())`, string(testID("file-row-read")))
		return run(t, ctx, "read the rows", chromedp.Evaluate[[]string](js))
	}

	step(t, "a US export with a summary above its table", func(t *testing.T) {
		signInAs(t, ctx, srv, u.Email)
		upload(t, "Checking", bofaPath)
		wantText(t, ctx, "read-as", "Bank of America (checking) export")
		wantText(t, ctx, "stat-valid", "3")
		wantText(t, ctx, "skipped-rows", "Not imported: 1 row, the beginning balance line.")
		if got := rowsRead(t); strings.Join(got, " | ") != "2026-03-02 · PAYROLL ACME CORP DES:PAYROLL ID:XXXXX · money in $2,000.00 | "+
			"2026-03-05 · CHECKCARD 0304 TRADER JOE'S · money out $60.45 | 2026-03-09 · Online Banking payment to CRD 1234 Confirmation# XXXXX · money out $250.00" {
			t.Errorf("rows read as %q", got)
		}
		shot(t, ctx, "import-bank-preset")
		click(t, ctx, "publish-import")
		waitText(t, ctx, "import-status", "Complete", time.Minute)
		// The page reloads itself when the publish ends; load it once more to act on it.
		visit(t, ctx, srv.URL+path(t, ctx))
		if got := inputValue(t, ctx, "profile-name"); got != "Checking – Bank of America (checking)" {
			t.Errorf("the profile is offered as %q", got)
		}
		run(t, ctx, "name the profile", chromedp.SetValue(testID("profile-name"), "BofA checking"))
		click(t, ctx, "save-profile")
		visible(t, ctx, "flash-success")
	})

	step(t, "the same file again: read with the profile, and nothing new", func(t *testing.T) {
		upload(t, "Checking", bofaPath)
		wantText(t, ctx, "read-as", "Your profile “BofA checking”")
		wantText(t, ctx, "pending-duplicates", "Nothing new: all 3 rows are already in Checking, and publishing will skip them.")
		click(t, ctx, "publish-import")
		waitText(t, ctx, "import-status", "Complete", time.Minute)
		visit(t, ctx, srv.URL+path(t, ctx))
		wantText(t, ctx, "nothing-new", "Nothing new: all 3 rows were already in Checking.")
	})

	step(t, "a French export names its description Libellé", func(t *testing.T) {
		upload(t, "Compte courant", write("releve.csv", "Date;Libellé;Montant\n02/03/2026;Boulangerie Paul;-3,20\n15/03/2026;Salaire ACME;2 350,00\n"))
		if got := inputValue(t, ctx, "configure-name"); got != "Libellé" {
			t.Errorf("the name column shows %q", got)
		}
		if got := rowsRead(t); strings.Join(got, " | ") != "2026-03-02 · Boulangerie Paul · money out €3.20 | 2026-03-15 · Salaire ACME · money in €2,350.00" {
			t.Errorf("rows read as %q", got)
		}
	})

	step(t, "a UK export with money out and money in columns", func(t *testing.T) {
		upload(t, "Current account", write("statement.csv", "Date,Description,Paid out,Paid in,Balance\n02/03/2026,TESCO STORES,12.40,,987.60\n13/03/2026,ACME SALARY,,2000.00,2987.60\n"))
		if got := rowsRead(t); strings.Join(got, " | ") != "2026-03-02 · TESCO STORES · money out £12.40 | 2026-03-13 · ACME SALARY · money in £2,000.00" {
			t.Errorf("rows read as %q", got)
		}
		wantText(t, ctx, "unmapped-columns", "Not imported: Balance")
	})

	step(t, "dates that could be either way are asked about", func(t *testing.T) {
		upload(t, "Checking", write("export.csv", "Date,Description,Amount\n03/04/2026,Bakery,-3.50\n05/06/2026,Books,-12.00\n"))
		visible(t, ctx, "date-question")
		shot(t, ctx, "import-date-question")
		run(t, ctx, "answer day first", chromedp.Click(chromedp.CSS(`[data-pattern="%d/%m/%Y"]`)))
		waitText(t, ctx, "file-row-read", "2026-04-03 · Bakery · money out $3.50", 10*time.Second)
		if n := count(t, ctx, "date-question"); n != 0 {
			t.Error("the question is still asked once answered")
		}
	})
}
