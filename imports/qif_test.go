package imports_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"tally/imports"
)

// A QIF file's rows are its kept records, its opening balance, then the records left out, each
// with its line, whatever the order in the file; and a security listed after the account
// section still names the trades' ticker. The file is read again as the rows are stored, so
// what comes late must have been found by a first read.
func TestQIFRowsInTheirOrderWithWhatComesLate(t *testing.T) {
	im := newImporter(t)
	qif := "!Type:Invst\n" +
		"D1/10/2024\nNBuy\nYAcme Corp\nI10\nQ2\nT20.00\n^\n" +
		"D1/1/2024\nPOpening Balance\nT100.00\n^\n" +
		"D1/11/2024\nNSell\nYAcme Corp\nTabc\n^\n" +
		"D1/12/2024\nNDiv\nYAcme Corp\nT5.00\n^\n" +
		"!Type:Security\nNAcme Corp\nSACME\n^\n"
	d, err := im.s.Create(context.Background(), imports.Request{FamilyID: im.user.FamilyID, UserID: im.user.ID, Type: string(imports.QifImport),
		AccountID: new(im.account("Broker").String()), Upload: imports.Upload{Content: []byte(qif), Present: true}})
	if err != nil {
		t.Fatal(err)
	}
	rows, _, err := imports.Rows(context.Background(), im.d, imports.RowFilter{ImportID: d.Import.ID, Page: 1, PerPage: 10})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range rows {
		got = append(got, fmt.Sprintf("%d line %d: %s%s", r.RowNumber, r.Line, r.Name, strings.Join(r.Errors, "; ")))
	}
	want := []string{"1 line 2: Buy 2 shares of ACME", "2 line 18: Dividend: Acme Corp", "3 line 9: Opening balance",
		`4 line 13: amount "abc" is not a number`}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("rows\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
