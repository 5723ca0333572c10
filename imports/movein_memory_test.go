package imports_test

import (
	"context"
	"runtime/debug"
	"testing"
	"time"

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
	im.s.Limits.MoveInReadTime = 10 * time.Minute // the time a loaded machine takes is not what is measured
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

// TestFiftyMBMoveInInLittleMemory takes the path a person takes with an Actual export of the
// largest size a move-in accepts (280,000 transactions, 44 MB zipped, 119 MB of records):
// uploaded for review (Create without publish), then published. It runs under the memory
// limit `tally serve` sets (256 MiB) and bounds the heap each step takes above the export at
// its peak, garbage included, as a server's memory follows it. When the records were made in
// one buffer and stored as one value, the records alone were held three times over (the
// buffer and the database driver's two copies of it).
func TestFiftyMBMoveInInLittleMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("moves in a budget of 280,000 transactions")
	}
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(256 << 20))
	im := newImporter(t)
	im.s.Limits.MoveInReadTime = 10 * time.Minute // the time a loaded machine takes is not what is measured
	shape := actualtest.TenYears
	shape.Transactions = 280_000
	export := actualtest.Generate(shape).Zip(t)
	req := imports.Request{FamilyID: im.user.FamilyID, UserID: im.user.ID, Type: string(imports.ActualImport),
		Upload: imports.Upload{Content: export, Present: true, FromFile: true}}
	var d *imports.Detail
	var err error
	upload := memtest.Measure(func() { d, err = im.s.Create(context.Background(), req) })
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Import.Problems) > 0 {
		t.Fatalf("the move-in's records have problems: %v", d.Import.Problems)
	}
	var status string
	publish := memtest.Measure(func() { status = im.publish(d.ID) })
	if status != imports.StatusComplete {
		t.Fatalf("publish ended %s", status)
	}
	for _, step := range []struct {
		name string
		u    memtest.Usage
	}{{"the upload for review", upload}, {"the publish", publish}} {
		peak, live := step.u.MB()
		t.Logf("%.1f MB export, %s: peak heap %.0f MB, live %.0f MB", memtest.MB(uint64(len(export))), step.name, peak, live)
		if peak > 240 {
			t.Errorf("%s peaked at %.0f MB of heap, want under 240 MB", step.name, peak)
		}
	}
}
