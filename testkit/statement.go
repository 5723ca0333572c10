package testkit

import (
	"bytes"
	"testing"

	"github.com/go-pdf/fpdf"
)

// StatementPDF draws a one-page checking statement in Courier, as a bank prints it: dated
// lines with a signed amount and the running balance, between an opening balance of 1,000.00
// and a closing balance of 2,119.75. Without the electricity bill (-120.25) its lines no
// longer add up to the closing balance, and the next line's running balance does not follow.
func StatementPDF(tb testing.TB, withElectric bool) []byte {
	tb.Helper()
	doc := fpdf.New("P", "mm", "Letter", "")
	doc.SetFont("Courier", "", 9)
	doc.AddPage()
	y := 15.0
	row := func(cells ...string) { // date, description, amount, balance
		xs := []float64{15, 45, 150, 185}
		for i, text := range cells {
			if text == "" {
				continue
			}
			x := xs[i]
			if i >= 2 { // amounts are right-aligned on their column's edge
				x -= doc.GetStringWidth(text)
			}
			doc.SetXY(x, y)
			doc.CellFormat(doc.GetStringWidth(text), 4.5, text, "", 0, "L", false, 0, "")
		}
		y += 4.5
	}
	row("FIRST EXAMPLE BANK")
	row("Statement period: 01/01/2024 - 01/31/2024")
	row("Opening balance", "", "", "1,000.00")
	row("Date", "Description", "Amount", "Balance")
	row("01/02/2024", "PAYROLL ACME CORP", "2,500.00", "3,500.00")
	row("01/03/2024", "RENT JANUARY", "-1,200.00", "2,300.00")
	if withElectric {
		row("01/10/2024", "ELECTRIC COMPANY", "-120.25", "2,179.75")
	}
	row("01/15/2024", "ATM WITHDRAWAL", "-60.00", "2,119.75")
	row("Closing balance", "", "", "2,119.75")
	var buf bytes.Buffer
	if err := doc.Output(&buf); err != nil {
		tb.Fatal(err)
	}
	return buf.Bytes()
}
