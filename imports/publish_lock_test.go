package imports_test

import (
	"context"
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
