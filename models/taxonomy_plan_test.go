package models_test

import (
	"context"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/uptrace/bun/dialect/pgdialect"

	"tally/models"
	"tally/testkit"
)

// TestMerchantsKeptFromAViewerAreFoundThroughIndexes checks a page of a family's merchants
// for a member kept from one of its accounts: the merchants that only that account's
// transactions use are left out, and counted out of the total, and they are found by reading
// that account's entries through its index, not the family's whole history, and looking up
// only those merchants' other uses. With nothing hidden, as in most households, the query has
// no such condition at all.
func TestMerchantsKeptFromAViewerAreFoundThroughIndexes(t *testing.T) {
	ctx := context.Background()
	d := testkit.MustOpenDB(t)
	u := testkit.MustCreateUser(t, d, testkit.UserOpts{})
	shared := testkit.MustCreateAccount(t, d, u.FamilyID, "Joint", "Depository", "100")
	private := testkit.MustCreateAccount(t, d, u.FamilyID, "Mine", "Depository", "100")
	var merchants []uuid.UUID
	if err := d.NewRaw(`INSERT INTO merchants (id, family_id, name) SELECT gen_random_uuid(), ?, 'Shop ' || i
		FROM generate_series(1, 300) AS i RETURNING id`, u.FamilyID).Scan(ctx, &merchants); err != nil {
		t.Fatal(err)
	}
	// Every 20th transaction is the private account's: the 15 merchants 300 / 20 of those
	// are its alone.
	if _, err := d.NewRaw(`INSERT INTO entries (id, family_id, account_id, kind, date, amount, currency, name, merchant_id)
		SELECT gen_random_uuid(), ?, CASE WHEN i % 20 = 0 THEN ?::uuid ELSE ?::uuid END, 'transaction', date '2026-11-01' - (i % 365),
			i % 300, 'USD', 'Shop ' || i, (?::uuid[])[1 + i % 300]
		FROM generate_series(1, 30000) AS i`, u.FamilyID, private.ID, shared.ID, pgdialect.Array(merchants)).Exec(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := d.NewRaw("ANALYZE entries; ANALYZE merchants").Exec(ctx); err != nil {
		t.Fatal(err)
	}
	queries := testkit.RecordQueries(d, "transactions_count")
	if _, total, err := models.Merchants(ctx, d, models.FamilyViewer(u.FamilyID), models.Page{Number: 1, Size: 50}); err != nil || total != 300 {
		t.Fatalf("the family's merchants: %d, %v", total, err)
	}
	if q := queries.Last(t); strings.Contains(q, "ARRAY(") || strings.Contains(q, "EXISTS") {
		t.Errorf("with nothing hidden, the merchants are read with a condition on the hidden accounts:\n%s", q)
	}
	v := models.Viewer{FamilyID: u.FamilyID, UserID: uuid.New(), Hidden: []uuid.UUID{private.ID}}
	list, total, err := models.Merchants(ctx, d, v, models.Page{Number: 1, Size: 300})
	if err != nil || total != 285 || len(list) != 285 {
		t.Fatalf("the merchants seen: %d of %d, %v", len(list), total, err)
	}
	plan, raw := testkit.Explain(t, d, queries.Last(t))
	accountIndex, merchantIndex := false, false
	plan.Walk(func(n testkit.PlanNode) {
		accountIndex = accountIndex || n.Index == "entries_account_date_idx" && strings.Contains(n.IndexCond, "account_id")
		merchantIndex = merchantIndex || n.Index == "entries_merchant_idx" && n.Loops > 0 && n.Loops <= 15
	})
	if !accountIndex || !merchantIndex {
		t.Errorf("the hidden account's merchants are not read through its index (%v), or their other uses through the merchants' (%v):\n%s",
			accountIndex, merchantIndex, raw)
	}
}
