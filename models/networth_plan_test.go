package models_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun/dialect/pgdialect"

	"tally/models"
	"tally/testkit"
)

// TestNetWorthIsReadThroughIndexes checks the plan of the dashboard's net worth over 30 days
// for a family with years of history beside another family: entries are read only through
// indexes (the month totals stand for the history before the range), never scanned whole.
func TestNetWorthIsReadThroughIndexes(t *testing.T) {
	ctx := context.Background()
	d := testkit.MustOpenDB(t)
	var familyID uuid.UUID
	for i := range 2 {
		u := testkit.MustCreateUser(t, d, testkit.UserOpts{})
		var accts []uuid.UUID
		for _, typ := range []string{"Depository", "CreditCard", "Investment"} {
			accts = append(accts, testkit.MustCreateAccount(t, d, u.FamilyID, typ, typ, "100").ID)
		}
		if _, err := d.NewRaw(`INSERT INTO entries (id, family_id, account_id, kind, date, amount, currency, name)
			SELECT gen_random_uuid(), ?, (?::uuid[])[1 + i % 3], 'transaction', date '2026-11-01' - (i % 1500), i % 300, 'USD', 'Shop ' || i
			FROM generate_series(1, 30000) AS i`, u.FamilyID, pgdialect.Array(accts)).Exec(ctx); err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			familyID = u.FamilyID
		}
	}
	if _, err := d.NewRaw("ANALYZE entries; ANALYZE account_month_totals").Exec(ctx); err != nil {
		t.Fatal(err)
	}
	queries := testkit.RecordQueries(d, "account_month_totals")
	end := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	series, err := models.DailyNetWorth(ctx, d, models.FamilyViewer(familyID), end.AddDate(0, 0, -29), end)
	if err != nil || len(series) != 1 || len(series[0].Points) != 30 {
		t.Fatalf("net worth: %v, %+v", err, series)
	}
	plan, raw := testkit.Explain(t, d, queries.Last(t))
	months, accountIndex, seq := false, false, false
	plan.Walk(func(n testkit.PlanNode) {
		months = months || n.Relation == "account_month_totals"
		accountIndex = accountIndex || n.Index == "entries_account_date_idx"
		seq = seq || n.Type == "Seq Scan" && n.Relation == "entries"
	})
	if !months || !accountIndex || seq {
		t.Errorf("the net worth does not read the month totals and entries through its account index (month totals %v, index %v, entries scanned whole %v):\n%s",
			months, accountIndex, seq, raw)
	}
}
