package recurring_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun/dialect/pgdialect"

	"tally/internal/db"
	"tally/recurring"
	"tally/testkit"
)

// The bounds of detection: the whole history of a family of 500,000 transactions in 10 s, and
// 50 ms for each 1,000 transactions an import adds.
const (
	fullBound       = 10 * time.Second
	perThousandRows = 50 * time.Millisecond
)

// mustGenerate writes n transactions over the ten years up to today into the family's four
// accounts, most of them everyday spending at 1,200 merchants (a few much more often than the
// rest) at any amount, and the rest the payments of 150 monthly and 20 weekly series; dated
// from `from` days before today when from > 0, with the import id given.
func mustGenerate(b testing.TB, d *db.DB, f *family, n int, today time.Time, from int, importID *uuid.UUID) {
	b.Helper()
	ctx := context.Background()
	accts := []uuid.UUID{f.accounts[0].ID, f.accounts[1].ID, f.accounts[0].ID, f.accounts[1].ID}
	span := 3650
	if from > 0 {
		span = from
	}
	if _, err := d.NewRaw(`INSERT INTO merchants (id, family_id, name)
		SELECT gen_random_uuid(), ?, 'Merchant ' || i FROM generate_series(1, 1200) i
		ON CONFLICT DO NOTHING`, f.user.FamilyID).Exec(ctx); err != nil {
		b.Fatal(err)
	}
	// The rows are committed synchronously, as a server does by default: a vacuum cannot mark
	// visible the rows of a commit whose log is not yet flushed (the test cluster commits
	// asynchronously).
	tx, err := d.BeginTx(ctx, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer func() { _ = tx.Rollback() }()
	if _, err := tx.Exec("SET LOCAL synchronous_commit = on; SELECT setseed(0.42)"); err != nil {
		b.Fatal(err)
	}
	if _, err := tx.NewRaw(`WITH m AS (SELECT array_agg(id ORDER BY name) AS ids FROM merchants WHERE family_id = ?0),
		series AS (
			-- 150 monthly series on a day of the month and 20 weekly ones, each at its own
			-- merchant and amount, paid over the ten years
			SELECT s, (s % 28) + 1 AS dom, 9.99 + s * 3 AS amount, s <= 150 AS monthly FROM generate_series(1, 170) s
		), pays AS (
			SELECT p.* FROM (
				SELECT s.s, s.amount, (CASE WHEN s.monthly THEN date_trunc('month', ?2::date - k * interval '1 month') + (s.dom - 1) * interval '1 day'
					ELSE ?2::date - (k * 7 + s.s % 7) * interval '1 day' END)::date AS date
				FROM series s CROSS JOIN generate_series(0, 520) k
				WHERE NOT s.monthly OR k <= 120
			) p WHERE p.date <= ?2::date AND p.date > ?2::date - ?3::int
		), rows AS (
			SELECT (?1::uuid[])[1 + p.s % 4] AS account, p.date, p.amount, 'Bill ' || p.s AS name, (SELECT ids[p.s] FROM m) AS merchant FROM pays p
			UNION ALL
			SELECT (?1::uuid[])[1 + i % 4], ?2::date - floor(random() * ?3)::int, round((1 + random() * 300)::numeric, 2),
				'Card payment ' || i, m.ids[1 + floor(1200 * random() ^ 2)::int]
			FROM generate_series(1, ?4 - (SELECT count(*) FROM pays)) i CROSS JOIN m
		)
		INSERT INTO entries (id, family_id, account_id, kind, date, amount, currency, name, merchant_id, import_id)
		SELECT gen_random_uuid(), ?0, account, 'transaction', date, amount, 'USD', name, merchant, ?5 FROM rows`,
		f.user.FamilyID, pgdialect.Array(accts), today.Format(time.DateOnly), span, n, importID).Exec(ctx); err != nil {
		b.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		b.Fatal(err)
	}
	// The history is as years of autovacuum leave it, frozen and all visible; an import's rows
	// are read by detection before any vacuum, as they are after a publish.
	analyze := "ANALYZE entries"
	if importID == nil {
		analyze = "VACUUM (FREEZE, ANALYZE) entries"
	}
	if _, err := d.NewRaw(analyze).Exec(ctx); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkDetect measures detection in a family of 500,000 transactions over ten years: the
// whole history, then after an import of 1,000 transactions of the last two weeks. Each is
// reported as a ratio to its bound (10 s; 50 ms per 1,000 rows) and to a bare read of the
// same rows, and fails past its bound.
func BenchmarkDetect(b *testing.B) {
	ctx := context.Background()
	d := testkit.MustOpenDB(b)
	today := day("2026-11-20")
	f := mustFamily(b, d)
	mustGenerate(b, d, f, 500_000, today, 0, nil)
	var svc recurring.Service
	bare := func(where string, args ...any) time.Duration {
		t0 := time.Now()
		var n int
		if err := d.NewRaw("SELECT count(*) FROM (SELECT e.* FROM entries e WHERE "+where+") x", args...).Scan(ctx, &n); err != nil {
			b.Fatal(err)
		}
		return time.Since(t0)
	}

	b.Run("whole history of 500,000", func(b *testing.B) {
		var spent, floor time.Duration
		for range b.N {
			floor += bare("family_id = ?", f.user.FamilyID)
			t0 := time.Now()
			res, err := svc.Detect(ctx, d, f.user.FamilyID, today)
			spent += time.Since(t0)
			if err != nil || res.Found < 150 {
				b.Fatalf("%+v, %v", res, err)
			}
		}
		report(b, "the whole history", spent, floor, fullBound, "ms/detect", "x-bound-10s")
	})
	b.Run("after an import of 1,000", func(b *testing.B) {
		var spent, floor time.Duration
		for range b.N {
			importID := uuid.Must(uuid.NewV7())
			mustGenerate(b, d, f, 1000, today, 14, &importID)
			floor += bare("import_id = ?", importID)
			t0 := time.Now()
			res, err := svc.DetectNew(ctx, d, f.user.FamilyID, recurring.Scope{ImportID: &importID}, today)
			spent += time.Since(t0)
			if err != nil || res.Read < 1000 {
				b.Fatalf("%+v, %v", res, err)
			}
		}
		report(b, "an import of 1,000 rows", spent, floor, perThousandRows, "ms/1000-rows", "x-bound-50ms")
	})
}

// report gives a detection's time per run, as a ratio to its bound and to a bare read of the
// same rows (floor), and fails the benchmark past its bound.
func report(b *testing.B, what string, spent, floor, bound time.Duration, unit, boundUnit string) {
	per := spent / time.Duration(b.N)
	b.ReportMetric(float64(per)/1e6, unit)
	b.ReportMetric(float64(per)/float64(bound), boundUnit)
	b.ReportMetric(float64(spent)/float64(floor), "x-bare-read")
	if per > bound {
		b.Errorf("detection over %s took %s, past its bound of %s", what, per, bound)
	}
}
