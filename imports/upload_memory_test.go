package imports_test

import (
	"context"
	"testing"

	"tally/imports"
	"tally/imports/bankfile"
	"tally/imports/bankfile/bankfiletest"
	"tally/internal/memtest"
)

// TestLargeStatementUploadsInLittleMemory uploads 10 MB statement files through Create, from
// the bytes to the rows stored, and bounds the heap the upload holds. Rows are built one at a
// time as COPY takes them; when they were all built first, an MT940 of 350,000 entries peaked
// at 774 MB on the way, and a 10 MB OFX at 199 MB.
func TestLargeStatementUploadsInLittleMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("uploads three 10 MB files")
	}
	im := newImporter(t)
	cases := []struct {
		typ  imports.Type
		file func(int) ([]byte, int)
		// live bounds what the upload holds: the text and the reader's entries, kept until
		// their rows are stored; peak adds the garbage of the rows built meanwhile.
		live, peak float64
	}{
		{imports.Mt940Import, bankfiletest.LargeMT940, 160, 300},
		{imports.OfxImport, bankfiletest.LargeOFX, 80, 160},
		{imports.CamtImport, bankfiletest.LargeCAMT, 50, 120},
	}
	for _, c := range cases {
		t.Run(string(c.typ), func(t *testing.T) {
			content, n := c.file(bankfile.MaxBytes)
			req := imports.Request{FamilyID: im.user.FamilyID, UserID: im.user.ID, Type: string(c.typ),
				Upload: imports.Upload{Content: content, Present: true}}
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
			t.Logf("%d entries: peak heap %.1f MB, live %.1f MB", n, peak, live)
			if live > c.live || peak > c.peak {
				t.Errorf("the upload held %.1f MB live and peaked at %.1f MB, want under %.0f MB and %.0f MB", live, peak, c.live, c.peak)
			}
		})
	}
}
