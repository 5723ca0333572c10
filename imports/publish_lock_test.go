package imports_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/google/uuid"

	"tally/internal/db"
	"tally/testkit"
)

// analyzeProbe is told of a publish's end inside its transaction, and tries there what another
// family's publish does first, from a connection of its own: ANALYZE the staged rows, waiting
// at most a moment for the lock.
type analyzeProbe struct {
	url string
	err error
	ran bool
}

func (p *analyzeProbe) Emit(ctx context.Context, _ db.Tx, _ uuid.UUID, _ string, _ any) error {
	other, err := db.Open(ctx, p.url)
	if err != nil {
		return err
	}
	defer other.Close()
	p.ran = true
	_, p.err = other.NewRaw("SET lock_timeout = '500ms'; ANALYZE import_rows").Exec(ctx)
	return nil
}

// TestAPublishLetsOtherPublishesAnalyze checks that a publish holds no lock on the staged rows'
// statistics while it writes: another publish, of any family, can gather them at the same
// time, instead of waiting for the first to commit.
func TestAPublishLetsOtherPublishesAnalyze(t *testing.T) {
	t.Parallel()
	url := testkit.DatabaseURL(t)
	d, err := db.Open(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(d.Close)
	im := newImporterOn(t, d)
	probe := &analyzeProbe{url: url}
	im.s.Events = probe
	acct := im.account("Checking")
	up := im.upload("date,amount,name\n2026-01-02,-4.50,Coffee\n2026-01-03,-12.00,Lunch\n", &acct)
	if status := im.publish(up.ID); status != "complete" {
		t.Fatalf("the publish ended %s", status)
	}
	if !probe.ran {
		t.Fatal("the publish told nobody of its end, so nothing was tried inside it")
	}
	if probe.err != nil {
		t.Fatalf("another publish could not gather the staged rows' statistics while this one wrote: %v", probe.err)
	}
}

// TestALargePublishLeavesEntriesAnalyzed publishes 2,000 rows into a young database: the
// planner then knows the entries are there (their statistics are refreshed with the publish),
// rather than planning the next import's duplicate search over the empty table it last saw.
// An import too small to matter leaves the statistics to autovacuum.
func TestALargePublishLeavesEntriesAnalyzed(t *testing.T) {
	im := newImporter(t)
	// Autovacuum could analyze the table meanwhile and pass the test for the publish: not on
	// this database.
	if _, err := im.d.NewRaw("ALTER TABLE entries SET (autovacuum_enabled = false)").Exec(context.Background()); err != nil {
		t.Fatal(err)
	}
	known := func() float64 {
		var n float64
		if err := im.d.NewRaw("SELECT reltuples FROM pg_class WHERE oid = 'entries'::regclass").Scan(context.Background(), &n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	acct := im.account("Checking")
	var csv strings.Builder
	csv.WriteString("date,amount,name\n")
	for i := range 2_000 {
		fmt.Fprintf(&csv, "2026-01-%02d,-%d.25,Shop %d\n", 1+i%28, 1+i, i)
	}
	small := im.upload("date,amount,name\n2026-02-02,-4.50,Coffee\n", &acct)
	if status := im.publish(small.ID); status != "complete" {
		t.Fatalf("the publish ended %s", status)
	}
	if n := known(); n > 0 {
		t.Fatalf("one row analyzed entries (%v rows known)", n)
	}
	up := im.upload(csv.String(), &acct)
	if status := im.publish(up.ID); status != "complete" {
		t.Fatalf("the publish ended %s", status)
	}
	if n := known(); n < 2_000 {
		t.Fatalf("after a publish of 2,000 rows the planner knows of %v entries", n)
	}
}
