package recurring_test

import (
	"context"
	"strings"
	"testing"

	"github.com/google/uuid"

	"tally/recurring"
	"tally/testkit"
)

// TestDetectNewProbesTheNewRowsLookAlikes holds the plan of the detection after an import:
// each new transaction's look-alikes are read from entries_merchant_idx alone (an index-only
// scan), by merchant and amount, and no scan reads the family's whole history.
func TestDetectNewProbesTheNewRowsLookAlikes(t *testing.T) {
	t.Parallel()
	d := testkit.MustOpenDB(t)
	today := day("2026-11-20")
	f := mustFamily(t, d)
	mustGenerate(t, d, f, 30_000, today, 0, nil)
	importID := uuid.Must(uuid.NewV7())
	mustGenerate(t, d, f, 300, today, 14, &importID)
	rec := testkit.RecordQueries(d, "fresh AS MATERIALIZED")
	var svc recurring.Service
	if _, err := svc.DetectNew(context.Background(), d, f.user.FamilyID, recurring.Scope{ImportID: &importID}, today); err != nil {
		t.Fatal(err)
	}
	plan, raw := testkit.Explain(t, d, rec.Last(t))
	var probed bool
	plan.Walk(func(n testkit.PlanNode) {
		if n.Relation == "entries" && n.Type == "Index Only Scan" && n.Index == "entries_merchant_idx" && strings.Contains(n.IndexCond, "amount") {
			probed = true
		}
		if n.Relation == "entries" && n.ActualRows*max(n.Loops, 1) > 5_000 {
			t.Errorf("a %s of entries read %.0f rows of %d", n.Type, n.ActualRows*max(n.Loops, 1), 30_300)
		}
	})
	if !probed || t.Failed() {
		t.Errorf("the new rows' look-alikes are not probed by merchant and amount from the index alone:\n%s", raw)
	}
}
