package e2e

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"golang.org/x/text/encoding/charmap"

	"tally/app/apptest"
	"tally/testkit"
)

// TestAGermanExportReadsWithoutOptions drops a German bank's export (Windows-1252, a preamble,
// semicolons, day-first dates, decimal commas) on the upload form with no options at all: the
// import page shows what it guessed and what each row reads as, a changed column reads the
// file again in place, and the published transactions carry the right names.
func TestAGermanExportReadsWithoutOptions(t *testing.T) {
	t.Parallel()
	ctx := newTab(t)
	srv := startServer(t, apptest.ServerOptions{})
	u := testkit.MustCreateUser(t, srv.DB, testkit.UserOpts{})
	testkit.MustCreateAccount(t, srv.DB, u.FamilyID, "Girokonto", "Depository", "")
	content := "\"Umsätze Girokonto\";\"Zeitraum: 01.01.2026 - 31.01.2026\";\n\n" +
		"\"Buchungstag\";\"Wertstellung\";\"Empfänger\";\"Verwendungszweck\";\"Betrag (€)\"\n" +
		"\"02.01.2026\";\"02.01.2026\";\"Bäckerei Müller\";\"Brötchen\";\"-3,50\"\n" +
		"\"13.01.2026\";\"14.01.2026\";\"Arbeitgeber GmbH\";\"Gehalt Januar\";\"2.345,67\"\n"
	file, err := charmap.Windows1252.NewEncoder().Bytes([]byte(content))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "umsaetze.csv")
	if err := os.WriteFile(path, file, 0o600); err != nil {
		t.Fatal(err)
	}

	step(t, "the file is read with nothing chosen", func(t *testing.T) {
		signInAs(t, ctx, srv, u.Email)
		visit(t, ctx, srv.URL+"/imports/new")
		choose(t, ctx, "field-type", "TransactionImport")
		chooseLabel(t, ctx, "field-account_id", "Girokonto")
		uploadFile(t, ctx, "field-file", path)
		click(t, ctx, "new-import-submit")
		visible(t, ctx, "configure-form")
		wantText(t, ctx, "stat-valid", "2")
		wantText(t, ctx, "unmapped-columns", "Not imported: Wertstellung")
		if got := inputValue(t, ctx, "configure-name"); got != "Empfänger" {
			t.Errorf("the name column shows %q", got)
		}
		if got := inputValue(t, ctx, "configure-date-format"); got != "%d.%m.%Y" {
			t.Errorf("the date format shows %q", got)
		}
		if got := inputValue(t, ctx, "configure-separator"); got != "semicolon" {
			t.Errorf("the separator shows %q", got)
		}
		if got := text(t, ctx, "file-row-read"); got != "2026-01-02 · Bäckerei Müller · money out $3.50" {
			t.Errorf("the first row reads as %q", got)
		}
		shot(t, ctx, "import-guessed")
	})

	step(t, "another name column reads the file again in place", func(t *testing.T) {
		// The select's change posts the form with htmx, which swaps the page's content: the
		// select is not read back (it may be gone), the rows below are waited for.
		change := func(id, value string) {
			js := fmt.Sprintf(`(() => { const s = document.querySelector(%q); s.value = %q; s.dispatchEvent(new Event("change", {bubbles: true})); return s.value })()`,
				string(testID(id)), value)
			if got := run(t, ctx, "choose "+value+" in "+id, chromedp.Evaluate[string](js)); got != value {
				t.Fatalf("%s has no option %q", id, value)
			}
		}
		change("configure-name", "Verwendungszweck")
		waitText(t, ctx, "file-row-read", "2026-01-02 · Brötchen · money out $3.50", 10*time.Second)
		waitText(t, ctx, "unmapped-columns", "Not imported: Wertstellung, Empfänger", 10*time.Second)
		change("configure-name", "Empfänger")
		waitText(t, ctx, "file-row-read", "2026-01-02 · Bäckerei Müller · money out $3.50", 10*time.Second)
	})

	step(t, "published, the transactions have their names", func(t *testing.T) {
		click(t, ctx, "publish-import")
		waitText(t, ctx, "import-status", "Complete", time.Minute)
		var names []string
		if err := srv.DB.NewRaw("SELECT name FROM entries WHERE kind = 'transaction' ORDER BY date").Scan(context.Background(), &names); err != nil {
			t.Fatal(err)
		}
		if len(names) != 2 || names[0] != "Bäckerei Müller" || names[1] != "Arbeitgeber GmbH" {
			t.Errorf("published %v", names)
		}
	})
}
