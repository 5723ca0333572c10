package sniff

import (
	"os"
	"path/filepath"
	"testing"

	"tally/imports/parse"
)

// preambleFiles are German exports with a preamble above the table, written from the banks'
// published layouts with made-up accounts, in testdata/preamble: each as the bank writes it
// (name.csv), and as a spreadsheet saves it again after opening it (name_resaved.csv: every
// line, blank ones too, padded with empty cells to the table's width, quotes only where a cell
// needs them, CRLF; Excel in Windows-1252, LibreOffice in UTF-8).
var preambleFiles = []struct {
	name, bank string
	skip       int // lines before the header
	header     string
	rows       int // records under the header
}{
	// The account and the period as lines of text.
	{"sparkasse_umsatzanzeige", "a Sparkasse's Umsatzanzeige", 6, "Buchungstag", 3},
	// The account and its balance, each a pair of quoted cells, blank lines quoted too.
	{"dkb", "DKB", 4, "Buchungsdatum", 2},
	// "Kontonummer:";"DE…"; and the period, each line ended by a separator.
	{"dkb_classic", "DKB before 2023", 6, "Buchungstag", 2},
	// Six lines of preamble above a table of two rows: more preamble lines than rows.
	{"dkb_visa", "DKB's credit card", 7, "Umsatz abgerechnet und nicht im Saldo enthalten", 2},
	// The account, the period, the balance and a sentence.
	{"ing_de", "ING Germany", 13, "Buchung", 2},
	// A lone separator first; pending rows ("offen", no date yet) first under the header, and
	// the old balance below the table.
	{"comdirect", "Comdirect", 4, "Buchungstag", 4},
}

// preambleText is a file of testdata/preamble, decoded as an upload is.
func preambleText(t testing.TB, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "preamble", name))
	if err != nil {
		t.Fatal(err)
	}
	text, _ := parse.Text(b)
	return text
}

// A bank's preamble is passed over whether or not a spreadsheet padded its lines to the
// table's width: the header is the line followed by rows of dates and amounts.
func TestTableSkipsABanksPreamble(t *testing.T) {
	for _, f := range preambleFiles {
		for _, v := range []struct{ name, file string }{
			{"as the bank wrote it", f.name + ".csv"},
			{"re-saved from a spreadsheet", f.name + "_resaved.csv"},
		} {
			t.Run(f.bank+", "+v.name, func(t *testing.T) {
				l, ok := Table(preambleText(t, v.file))
				if !ok {
					t.Fatal("no table found")
				}
				if l.Separator != ';' || l.Skip != f.skip || l.Headers[0] != f.header || len(l.Samples) != f.rows {
					t.Errorf("separator %q, skip %d, headers %q, %d samples; want ';', %d, %q…, %d",
						l.Separator, l.Skip, l.Headers, len(l.Samples), f.skip, f.header, f.rows)
				}
			})
		}
	}
}

// Without rows of dates and amounts to go by (a date written as no pattern reads it), the
// header is the line that names columns, else the one with the most cells; never a title
// padded to the table's width.
func TestTableFallsBackToTheLineThatNamesColumns(t *testing.T) {
	for _, c := range []struct {
		name, text string
		skip       int
		header     string
	}{
		{"dates with times", "Umsatzanzeige Girokonto;;;\nKonto;DE12500105170123456789;;\nDatum;Empfänger;Verwendungszweck;Betrag\n" +
			"2026-03-24 18:34:12;REWE;Einkauf;-23,45\n2026-03-20 09:00:00;ACME;Gehalt;2450\n", 2, "Datum"},
		{"headers nobody uses", "Report;;\nFoo;Bar;Baz\nx;y;z\nu;v;w\n", 1, "Foo"},
	} {
		l, ok := Table(c.text)
		if !ok || l.Skip != c.skip || l.Headers[0] != c.header {
			t.Errorf("%s: %v skip %d headers %q, want %d and %q…", c.name, ok, l.Skip, l.Headers, c.skip, c.header)
		}
	}
}
