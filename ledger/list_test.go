package ledger_test

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun/dialect/pgdialect"

	"tally/internal/db"
	"tally/ledger"
	"tally/models"
	"tally/testkit"
)

func TestMain(m *testing.M) { os.Exit(testkit.Main(m)) }

// TestListPageIsReadOffTheIndex checks the plan of a page deep in a family's transactions,
// among another family's: an index scan of (family, date, id) that starts at the cursor and
// reads one page's rows, with no sort. That is what keeps the last page as cheap as the first,
// for the whole family and for a member from whom a private account is kept alike.
func TestListPageIsReadOffTheIndex(t *testing.T) {
	t.Parallel()
	d := testkit.MustOpenDB(t)
	ctx := context.Background()
	var families [2]struct{ id, acct string }
	for i := range families {
		u := testkit.MustCreateUser(t, d, testkit.UserOpts{})
		families[i].id = u.FamilyID.String()
		families[i].acct = testkit.MustCreateAccount(t, d, u.FamilyID, "Checking", "Depository", "").ID.String()
		if _, err := d.NewRaw(`INSERT INTO entries (id, family_id, account_id, kind, date, amount, currency, name)
			SELECT gen_random_uuid(), ?, ?, 'transaction', date '2026-11-01' - (i % 700), i % 300, 'USD', 'Shop ' || i
			FROM generate_series(1, 30000) AS i`, families[i].id, families[i].acct).Exec(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := d.NewRaw("ANALYZE entries").Exec(ctx); err != nil {
		t.Fatal(err)
	}
	familyID := uuid.MustParse(families[0].id)
	private := testkit.MustCreateAccount(t, d, familyID, "Mine", "Depository", "").ID
	for _, viewer := range []models.Viewer{models.FamilyViewer(familyID), {FamilyID: familyID, Hidden: []uuid.UUID{private}}} {
		listPageIsReadOffTheIndex(t, d, viewer)
	}
}

func listPageIsReadOffTheIndex(t *testing.T, d *db.DB, viewer models.Viewer) {
	t.Helper()
	ctx := context.Background()
	// Walk to a page deep in the list, then capture its query.
	var after *ledger.Cursor
	for range 40 {
		_, next, err := ledger.List(ctx, d, viewer, ledger.Filter{}, after, 500)
		if err != nil || next == nil {
			t.Fatalf("walk: %v, next %v", err, next)
		}
		after = next
	}
	queries := testkit.RecordQueries(d, `FROM "entries"`)
	page, _, err := ledger.List(ctx, d, viewer, ledger.Filter{}, after, 500)
	if err != nil || len(page) != 500 {
		t.Fatalf("deep page: %v, %d rows", err, len(page))
	}
	plan, raw := testkit.Explain(t, d, queries.Last(t))
	var scans []testkit.PlanNode
	sorted := false
	plan.Walk(func(n testkit.PlanNode) {
		if strings.Contains(n.Type, "Sort") {
			sorted = true
		}
		if n.Index == "entries_family_date_idx" {
			scans = append(scans, n)
		}
	})
	if len(scans) != 1 || sorted {
		t.Fatalf("the page is not read off entries_family_date_idx without a sort:\n%s", raw)
	}
	if s := scans[0]; !strings.Contains(s.IndexCond, "ROW(") || s.ActualRows > 501 {
		t.Errorf("the index scan does not start at the cursor (cond %q, %v rows read):\n%s", s.IndexCond, s.ActualRows, raw)
	}
}

// TestSearchUsesIndexes checks the plans of the page's two queries for a search with an
// account and a date range, in a family among another: the rows and their totals are read
// through an index of entries, never by reading the whole table.
func TestSearchUsesIndexes(t *testing.T) {
	t.Parallel()
	d := testkit.MustOpenDB(t)
	ctx := context.Background()
	var familyID uuid.UUID
	var accts []uuid.UUID
	for i := range 2 {
		u := testkit.MustCreateUser(t, d, testkit.UserOpts{})
		var mine []uuid.UUID
		for j := range 4 {
			mine = append(mine, testkit.MustCreateAccount(t, d, u.FamilyID, "Account "+string(rune('A'+j)), "Depository", "").ID)
		}
		if _, err := d.NewRaw(`INSERT INTO entries (id, family_id, account_id, kind, date, amount, currency, name)
			SELECT gen_random_uuid(), ?, (?::uuid[])[1 + i % 4], 'transaction', date '2026-11-01' - (i % 1100), i % 300, 'USD', 'Merchant ' || (i % 997)
			FROM generate_series(1, 40000) AS i`, u.FamilyID, pgdialect.Array(mine)).Exec(ctx); err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			familyID, accts = u.FamilyID, mine
		}
	}
	if _, err := d.NewRaw("ANALYZE entries").Exec(ctx); err != nil {
		t.Fatal(err)
	}
	start := time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)
	f := ledger.Filter{Query: "merchant 12", AccountIDs: accts[:1], Start: &start}

	for _, tc := range []struct {
		name, sql string // sql is in the query, and only in it
		run       func() error
	}{
		{"rows", `FROM "entries" AS "e"`, func() error { _, _, err := ledger.Rows(ctx, d, models.FamilyViewer(familyID), f, nil, 50); return err }},
		{"totals", "FROM entries AS e", func() error { _, err := ledger.Totals(ctx, d, models.FamilyViewer(familyID), f); return err }},
	} {
		queries := testkit.RecordQueries(d, tc.sql)
		if err := tc.run(); err != nil {
			t.Fatal(err)
		}
		name := tc.name
		plan, raw := testkit.Explain(t, d, queries.Last(t))
		indexed, seq := false, false
		plan.Walk(func(n testkit.PlanNode) {
			if strings.HasPrefix(n.Index, "entries_") {
				indexed = true
			}
			if n.Type == "Seq Scan" && n.Relation == "entries" {
				seq = true
			}
		})
		if !indexed || seq {
			t.Errorf("%s: the plan does not read entries through an index:\n%s", name, raw)
		}
	}
}
