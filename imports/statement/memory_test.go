package statement

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"tally/internal/memtest"
)

// TestParseOfAHostileTextCostsLittle parses the most transactions the text's bounds let
// through, 1,000,000 short lines of 16 MB, and checks that Parse keeps the first
// maxTransactions, says it left the rest out, and stays small. With every line's words held
// and no bound on transactions, it took 1.1 GB.
func TestParseOfAHostileTextCostsLittle(t *testing.T) {
	if testing.Short() {
		t.Skip("parses 16 MB of text")
	}
	pages := make([]string, maxPages)
	for i := range pages {
		pages[i] = strings.Repeat("01/02/24 A 1.00\n", maxLinesPerPage)
	}
	var st *Statement
	u := memtest.Measure(func() { st = Parse(pages, Options{}) })
	if len(st.Lines) != maxTransactions || !strings.Contains(strings.Join(st.Problems, "\n"), "more transactions than this reader goes") {
		t.Fatalf("%d lines, problems %q; want %d and the rest left out", len(st.Lines), st.Problems, maxTransactions)
	}
	peak, live := u.MB()
	t.Logf("%d lines: peak heap %.1f MB, live %.1f MB", maxPages*maxLinesPerPage, peak, live)
	if peak > 160 {
		t.Errorf("Parse peaked at %.1f MB, want under 160 MB", peak)
	}
}

// A glyph drawn far right on a line of its own is a line of hundreds of blanks: the Go reader
// refuses a PDF whose text would pass maxTextBytes, as pdftotext's output is refused, rather
// than hold it.
func TestGoReaderRefusesTextPastTheBound(t *testing.T) {
	var content strings.Builder
	// 45,000 lines, each 383 blanks and an "A": 17 MB of text.
	content.WriteString("BT /F1 1 Tf\n")
	const lines = 45_000
	for i := range lines {
		fmt.Fprintf(&content, "1 0 0 1 230 %.1f Tm (A) Tj\n", float64(lines-i)/2)
	}
	content.WriteString("ET\n")
	pdf := pagesPDF(1, streamObject("", []byte(content.String())))
	_, err := ExtractTextWith(context.Background(), pdf, MethodGo)
	var xe *ExtractError
	if !errors.Is(err, ErrTooComplex) || !errors.As(err, &xe) || !strings.Contains(xe.Detail(), "text is longer than 16 MB") {
		t.Fatalf("error %v, want the text refused as too long", err)
	}
}
