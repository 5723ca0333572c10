package testkit

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/go-pdf/fpdf"
)

// The large files below are what the memory tests and benchmarks of the file readers upload:
// each is as dense as its format is in real exports, filled to size bytes, and comes with how
// many rows it makes.

// LargeQIF is a QIF bank account of records of about 32 bytes.
func LargeQIF(size int) (content []byte, records int) {
	var b strings.Builder
	b.WriteString("!Type:Bank\n")
	for ; b.Len() < size-100; records++ {
		fmt.Fprintf(&b, "D03/02/2026\nT-%d.%02d\nPShop %d\n^\n", 1+records%50, records%100, records%1000)
	}
	return []byte(b.String()), records
}

// LargeAppExport is a transaction export of a budgeting app as the app writes it: typ is
// ExternalAppAImport (Mint), ExternalAppBImport (Actual Budget) or ExternalAppCImport (YNAB).
func LargeAppExport(typ string, size int) (content []byte, rows int) {
	header, line := map[string]string{
		"ExternalAppAImport": "Date,Description,Original Description,Amount,Transaction Type,Category,Account Name,Labels,Notes\n",
		"ExternalAppBImport": "Account,Date,Payee,Notes,Category_Group,Category,Amount,Split_Amount,Cleared\n",
		"ExternalAppCImport": "Account,Flag,Date,Payee,Category Group/Category,Category Group,Category,Memo,Outflow,Inflow,Cleared\n",
	}[typ], map[string]func(int) string{
		"ExternalAppAImport": func(i int) string {
			return fmt.Sprintf("%s,Shop %d,SHOP %d STORE,%d.%02d,debit,Groceries,Mint Checking,food,\n", day(i, "01/02/2006"), i%1000, i%1000, 1+i%500, i%100)
		},
		"ExternalAppBImport": func(i int) string {
			return fmt.Sprintf("Actual Checking,%s,Shop %d,,Food,Groceries,-%d.%02d,,true\n", day(i, time.DateOnly), i%1000, 1+i%500, i%100)
		},
		"ExternalAppCImport": func(i int) string {
			return fmt.Sprintf("YNAB Checking,,%s,Shop %d,Food: Groceries,Food,Groceries,,$%d.%02d,$0.00,Cleared\n", day(i, "01/02/2006"), i%1000, 1+i%500, i%100)
		},
	}[typ]
	if line == nil {
		panic("LargeAppExport: no export of type " + typ)
	}
	return filled(size, header, line)
}

// LargeCategories is a CategoryImport file: a category of its own on every line, under one
// of 20 parents.
func LargeCategories(size int) (content []byte, rows int) {
	return filled(size, "name,color,parent_category,lucide_icon\n", func(i int) string {
		return fmt.Sprintf("Category %d,#407706,Parent %d,shopping-basket\n", i, i%20)
	})
}

// LargeMerchants is a MerchantImport file of a merchant on every line.
func LargeMerchants(size int) (content []byte, rows int) {
	return filled(size, "name,color,website\n", func(i int) string {
		return fmt.Sprintf("Merchant %d,#ffffff,merchant%d.test\n", i, i)
	})
}

// LargeRules is a RuleImport file of rules that each set a category by a name condition.
func LargeRules(size int) (content []byte, rows int) {
	return filled(size, "name,resource_type,active,effective_date,conditions,actions\n", func(i int) string {
		return fmt.Sprintf(`Rule %d,transaction,true,2024-01-01,[{"condition_type":"transaction_name","operator":"like","value":"shop %d"}],`+
			`[{"action_type":"set_transaction_category","value":"Category %d"}]`+"\n", i, i, i%20)
	})
}

// filled is header and then line(0), line(1), ... up to size bytes.
func filled(size int, header string, line func(int) string) ([]byte, int) {
	var b strings.Builder
	b.WriteString(header)
	n := 0
	for next := line(0); b.Len()+len(next) <= size; next = line(n) {
		b.WriteString(next)
		n++
	}
	return []byte(b.String()), n
}

func day(i int, layout string) string {
	return time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC).AddDate(0, 0, i%700).Format(layout)
}

// LargeStatementPDF is a checking statement of up to 500 pages (as many as the statement
// reader reads), drawn in 7-point Courier with its streams left uncompressed, as some banks'
// systems write them: about 100 lines a page, each a date, a description, a reference, the
// amount and the running balance, between an opening and a closing balance that they add up
// to. It stops at the page that would take it past size bytes.
func LargeStatementPDF(tb testing.TB, size int) (content []byte, lines int) {
	tb.Helper()
	const rowHeight, perPage, maxPages = 2.6, 100, 500
	// A page's size is near enough the same as the first's: the pages are drawn once it is known.
	one := statementPages(tb, 1, perPage, rowHeight)
	pages := min(maxPages, max(1, size/len(one)))
	for {
		pdf := statementPages(tb, pages, perPage, rowHeight)
		if len(pdf) <= size || pages == 1 {
			return pdf, pages*perPage - 2
		}
		pages--
	}
}

// statementPages draws the statement of LargeStatementPDF on pages pages: its first line is
// the opening balance and its last the closing balance.
func statementPages(tb testing.TB, pages, perPage int, rowHeight float64) []byte {
	doc := fpdf.New("P", "mm", "Letter", "")
	doc.SetCompression(false)
	doc.SetAutoPageBreak(false, 0)
	doc.SetFont("Courier", "", 7)
	cents := int64(100_000_000)
	money := func(c int64) string {
		sign := ""
		if c < 0 {
			sign, c = "-", -c
		}
		return fmt.Sprintf("%s%d.%02d", sign, c/100, c%100)
	}
	row := func(y float64, cells ...string) { // date, description, reference, amount, balance
		xs := []float64{10, 32, 110, 165, 200}
		for i, text := range cells {
			x := xs[i]
			if i >= 3 { // amounts are right-aligned on their column's edge
				x -= doc.GetStringWidth(text)
			}
			doc.SetXY(x, y)
			doc.CellFormat(doc.GetStringWidth(text), rowHeight, text, "", 0, "L", false, 0, "")
		}
	}
	n := 0
	for p := range pages {
		doc.AddPage()
		for r := range perPage {
			y := 8 + float64(r)*rowHeight
			switch {
			case p == 0 && r == 0:
				row(y, "Opening balance", "", "", "", money(cents))
			case p == pages-1 && r == perPage-1:
				row(y, "Closing balance", "", "", "", money(cents))
			default:
				amount := -int64(100*(1+n%500) + n%100)
				cents += amount
				row(y, day(n, "01/02/2006"), fmt.Sprintf("CARD PURCHASE SHOP %d", n%1000), fmt.Sprintf("REF-%07d-A", n), money(amount), money(cents))
				n++
			}
		}
	}
	var buf bytes.Buffer
	if err := doc.Output(&buf); err != nil {
		tb.Fatal(err)
	}
	return buf.Bytes()
}
