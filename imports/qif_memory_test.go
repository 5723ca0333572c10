package imports_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"tally/imports"
	"tally/internal/memtest"
)

// largeQIF is a 10 MB QIF bank account of 330,000 records, and how many it holds.
func largeQIF() ([]byte, int) {
	var b strings.Builder
	b.WriteString("!Type:Bank\n")
	n := 0
	for ; b.Len() < 10<<20-100; n++ {
		fmt.Fprintf(&b, "D03/02/2026\nT-%d.%02d\nPShop %d\n^\n", 1+n%50, n%100, n%1000)
	}
	return []byte(b.String()), n
}

// TestLargeQIFUploadsInLittleMemory uploads a 10 MB QIF file through Create and bounds the heap
// the upload holds. Its rows are built as COPY takes them; when they were all built first, the
// upload peaked at 610 MB before the first was stored.
func TestLargeQIFUploadsInLittleMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("uploads a 10 MB file")
	}
	im := newImporter(t)
	content, n := largeQIF()
	req := imports.Request{FamilyID: im.user.FamilyID, UserID: im.user.ID, Type: string(imports.QifImport),
		AccountID: new(im.account("Checking").String()), Upload: imports.Upload{Content: content, Present: true}}
	var d *imports.Detail
	var err error
	u := memtest.Measure(func() { d, err = im.s.Create(context.Background(), req) })
	if err != nil {
		t.Fatal(err)
	}
	if d.RowsCount != n {
		t.Fatalf("%d rows, want %d", d.RowsCount, n)
	}
	peak, live := u.MB()
	t.Logf("%d records: peak heap %.1f MB, live %.1f MB", n, peak, live)
	// What stays is the text and the parsed records, about 300 bytes each.
	if live > 160 || peak > 300 {
		t.Errorf("the upload held %.1f MB live and peaked at %.1f MB, want under 160 MB and 300 MB", live, peak)
	}
}
