package imports_test

import (
	"context"
	"testing"

	"tally/imports"
	"tally/imports/actual/actualtest"
	"tally/internal/memtest"
)

// TestLargeMoveInInLittleMemory moves a ten-year Actual budget in (100,000 transactions, 45 MB
// of records) through Create, from the export to the records stored, and bounds the heap it
// holds; then publishes it, its records read a piece at a time as at Create, and reads it
// back. When the records were read whole, at Create and at publish, they alone held 150 MB,
// and Create 227 MB in all: over the 256 MB a server holds its heap to, once the export's
// upload is counted, so that its collector ran without end and the upload timed out.
func TestLargeMoveInInLittleMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("moves in a budget of 100,000 transactions")
	}
	im := newImporter(t)
	export := actualtest.Generate(actualtest.TenYears).Zip(t)
	req := imports.Request{FamilyID: im.user.FamilyID, UserID: im.user.ID, Type: string(imports.ActualImport),
		Upload: imports.Upload{Content: export, Present: true, FromFile: true}}
	var d *imports.Detail
	var err error
	u := memtest.Measure(func() { d, err = im.s.Create(context.Background(), req) })
	if err != nil {
		t.Fatal(err)
	}
	peak, live := u.MB()
	t.Logf("%.1f MB export: peak heap %.0f MB, live %.0f MB", memtest.MB(uint64(len(export))), peak, live)
	if live > 160 {
		t.Errorf("the move-in held %.0f MB live, want under 160 MB", live)
	}
	if len(d.Import.Problems) > 0 {
		t.Fatalf("the move-in's records have problems: %v", d.Import.Problems)
	}
	if status := im.publish(d.ID); status != imports.StatusComplete {
		t.Fatalf("publish ended %s", status)
	}
	got, err := imports.Get(context.Background(), im.d, im.user.FamilyID, d.ID)
	if err != nil {
		t.Fatal(err)
	}
	if rb := got.MoveIn.Readback; rb == nil || rb.Status != imports.ReadbackMatched {
		t.Errorf("read back %+v, want matched", rb)
	}
	if got.Readback == nil || got.Readback.Status != imports.ReadbackMatched {
		t.Errorf("the records read back %+v, want matched", got.Readback)
	}
}
