package transfers_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/uptrace/bun/dialect/pgdialect"

	"tally/internal/db"
	"tally/testkit"
	"tally/transfers"
)

// TestMatchAfterAnAbortedPublishProbesIndexes checks the plans of the match as a publish handed
// back after a crash runs it: its import's transactions are written again beside the dead ones
// of the first attempt, and the dead transfers that attempt proposed, in a database too young
// for any of them to be in the statistics. Every look at transfers, rejected_transfers and
// entries is an index probe for the row at hand: the anti-joins read the whole of transfers for
// every candidate (3.8 s of a 100,000-row publish whose first attempt matched in 0.5 s). Run
// also after the dead rows were analyzed (by autovacuum, or a revert and its vacuum), when the
// statistics take entries for empty and every index of it looks as good as another.
func TestMatchAfterAnAbortedPublishProbesIndexes(t *testing.T) {
	for _, c := range []struct {
		name     string
		analyzed bool
		rows     int
	}{
		{"dead rows", false, 20_000},
		// Fewer rows: the wrong index reads the family's transactions for every key.
		{"dead rows analyzed", true, 4_000},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			d := testkit.MustOpenDB(t)
			f := newFamily(t, d)
			checking, savings := f.account("Checking", "Depository"), f.account("Savings", "Depository")
			importID := uuid.New()
			ids := make([]uuid.UUID, c.rows)
			for i := range ids {
				ids[i] = uuid.Must(uuid.NewV7())
			}
			// The import's transactions, in groups of ten: the first two a transfer from
			// checking to savings, the rest spending of amounts without a counterpart.
			write := func(tx db.Tx) {
				if _, err := tx.NewRaw(`INSERT INTO entries (id, family_id, account_id, kind, date, amount, currency, name, import_id, source)
					SELECT id, ?, CASE WHEN i % 2 = 0 THEN ?::uuid ELSE ?::uuid END, 'transaction', date '2025-01-01' + i / 10 % 300,
						CASE i % 10 WHEN 0 THEN 100 + i / 10 WHEN 1 THEN -(100 + i / 10) ELSE 100000 + i END, 'USD', 'Row ' || i, ?, 'import'
					FROM (SELECT id, (n - 1)::int AS i FROM unnest(?::uuid[]) WITH ORDINALITY AS r(id, n)) r`,
					f.id, checking, savings, importID, pgdialect.Array(ids)).Exec(ctx); err != nil {
					t.Fatal(err)
				}
			}
			match := func(ctx context.Context, tx db.Tx) int {
				n, err := transfers.Match(ctx, tx, f.id, transfers.Scope{ImportID: &importID})
				if err != nil {
					t.Fatal(err)
				}
				return n
			}
			// The queries are recorded in the first attempt and explained in the second, after
			// its writes and before its match: the match's own proposals would hide its work.
			keys := testkit.RecordQueries(d, "SELECT k.account_id, k.currency, k.amount")
			pairs := testkit.RecordQueries(d, "SELECT n.id AS a, o.id AS b")
			crashed := errors.New("the worker is gone")
			if err := d.InTx(ctx, func(ctx context.Context, tx db.Tx) error {
				write(tx)
				if n := match(ctx, tx); n != c.rows/10 {
					t.Fatalf("the first attempt proposed %d transfers, want %d", n, c.rows/10)
				}
				return crashed
			}); !errors.Is(err, crashed) {
				t.Fatal(err)
			}
			if c.analyzed {
				if _, err := d.NewRaw("ANALYZE entries").Exec(ctx); err != nil {
					t.Fatal(err)
				}
			}

			if err := d.InTx(ctx, func(ctx context.Context, tx db.Tx) error {
				write(tx)
				for _, q := range []*testkit.QueryRecorder{keys, pairs} {
					plan, raw := testkit.Explain(t, tx, q.Last(t))
					plan.Walk(func(n testkit.PlanNode) {
						switch {
						case n.Loops <= 1:
						case n.Type == "Seq Scan" || n.Type == "Materialize":
							table := n.Relation
							if len(n.Plans) > 0 {
								table = n.Plans[0].Relation
							}
							t.Errorf("%s is read whole for each row (%s, %v times):\n%s", table, n.Type, n.Loops, raw)
						case strings.HasPrefix(n.Index, "entries_") && n.Index != "entries_transfer_match_idx" && n.Index != "entries_parent_id_idx":
							t.Errorf("entries are probed through %s, not by family, amount and date (%v times):\n%s", n.Index, n.Loops, raw)
						}
					})
				}
				if n := match(ctx, tx); n != c.rows/10 {
					t.Errorf("the second attempt proposed %d transfers, want %d", n, c.rows/10)
				}
				return nil
			}); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestMatchStagedReadsTheRowsOnce checks the plans of a publish's match over its staged rows:
// a file of transfers between two accounts, beside the family's transactions. Each query
// reads the staged rows in one pass, and reaches the family's transactions only by probing
// them by family, amount and date: joined with themselves in SQL, the rows of an import
// (estimated at a few) were read again for every row, and a 230,000-row file never finished.
func TestMatchStagedReadsTheRowsOnce(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := testkit.MustOpenDB(t)
	f := newFamily(t, d)
	checking, savings := f.account("Checking", "Depository"), f.account("Savings", "Depository")
	const rows = 20_000
	// The family's transactions: a counterpart for a hundred spendings of the file.
	for i := range 100 {
		f.txn(savings, 1+i%28, fmt.Sprint(-(100_000 + 10*i + 2)), "USD", "EARLIER")
	}
	var queries []*testkit.QueryRecorder
	for _, q := range []string{"SELECT DISTINCT s.currency, s.amount", "OR s.amount = ANY", "WITH ORDINALITY AS n"} {
		queries = append(queries, testkit.RecordQueries(d, q))
	}
	if err := d.InTx(ctx, func(ctx context.Context, tx db.Tx) error {
		// In groups of ten: the first two a transfer from checking to savings, the rest
		// spending of amounts without a counterpart in the file (as the publish benchmark's).
		ps, err := transfers.MatchStaged(ctx, tx, f.id, false, `SELECT gen_random_uuid() AS id, CASE WHEN i % 2 = 0 THEN ?::uuid ELSE ?::uuid END AS account_id,
				'Depository' AS accountable_type, 'USD' AS currency,
				CASE i % 10 WHEN 0 THEN 100 + i / 10 WHEN 1 THEN -(100 + i / 10) ELSE 100000 + i END::numeric(19, 4) AS amount,
				date '2026-03-01' + i / 10 % 28 AS date, 'standard' AS transaction_kind
			FROM generate_series(0, ? - 1) AS i`, checking, savings, rows)
		if err != nil {
			return err
		}
		if len(ps.List) != rows/10+100 {
			t.Errorf("proposed %d transfers, want %d", len(ps.List), rows/10+100)
		}
		for _, q := range queries {
			plan, raw := testkit.Explain(t, tx, q.Last(t))
			plan.Walk(func(n testkit.PlanNode) {
				switch {
				case n.Loops <= 1:
				case strings.HasSuffix(n.Type, "Scan") && !strings.HasPrefix(n.Type, "Index"), n.Type == "Materialize", n.Type == "Hash":
					t.Errorf("rows are read again for each row (%s of %s, %v times):\n%s", n.Type, n.Relation, n.Loops, raw)
				case strings.HasPrefix(n.Index, "entries_") && n.Index != "entries_transfer_match_idx" && n.Index != "entries_parent_id_idx":
					t.Errorf("entries are probed through %s, not by family, amount and date (%v times):\n%s", n.Index, n.Loops, raw)
				}
			})
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
}
