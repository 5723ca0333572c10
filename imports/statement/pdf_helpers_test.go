package statement

import (
	"bytes"
	"testing"

	"github.com/go-pdf/fpdf"
)

// The tests build their statements as real PDFs, drawing each piece of text where a bank's
// layout would put it: labels left-aligned, amounts right-aligned against a column edge. The
// extractors then have to recover the columns from positions, as they do with real files.

// pdfCell is text drawn on a row: left-aligned from x, or right-aligned to end at x (in mm).
type pdfCell struct {
	x     float64
	right bool
	text  string
}

type pdfRow []pdfCell

// at draws text left-aligned from x.
func at(x float64, text string) pdfCell { return pdfCell{x: x, text: text} }

// upTo draws text right-aligned, ending at x.
func upTo(x float64, text string) pdfCell { return pdfCell{x: x, right: true, text: text} }

// buildPDF draws the pages' rows in 9-point Courier, one row every 4.5 mm.
func buildPDF(t testing.TB, pages ...[]pdfRow) []byte {
	t.Helper()
	doc := fpdf.New("P", "mm", "Letter", "")
	doc.SetAutoPageBreak(false, 0)
	doc.SetFont("Courier", "", 9)
	tr := doc.UnicodeTranslatorFromDescriptor("") // the core fonts are cp1252: "£" needs translating
	const rowHeight = 4.5
	for _, rows := range pages {
		doc.AddPage()
		y := 15.0
		for _, row := range rows {
			for _, c := range row {
				c.text = tr(c.text)
				if c.right {
					w := doc.GetStringWidth(c.text)
					doc.SetXY(c.x-w, y)
					doc.CellFormat(w, rowHeight, c.text, "", 0, "R", false, 0, "")
				} else {
					doc.SetXY(c.x, y)
					doc.CellFormat(doc.GetStringWidth(c.text), rowHeight, c.text, "", 0, "L", false, 0, "")
				}
			}
			y += rowHeight
		}
	}
	var buf bytes.Buffer
	if err := doc.Output(&buf); err != nil {
		t.Fatalf("building the test PDF: %v", err)
	}
	return buf.Bytes()
}

// blank is an empty row.
var blank = pdfRow{}

// footer is a row far below the table, as page footers are.
func footer(rows []pdfRow, text string) []pdfRow {
	for len(rows) < 50 {
		rows = append(rows, blank)
	}
	return append(rows, pdfRow{at(95, text)})
}
