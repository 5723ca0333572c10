package db_test

import (
	"context"
	"errors"
	"os"
	"testing"

	"tally/internal/db"
	"tally/internal/testkit"
)

func TestMain(m *testing.M) { os.Exit(testkit.Main(m)) }

func TestMigrationsApplyAndRollBack(t *testing.T) {
	ctx := context.Background()
	d := testkit.MustOpenDB(t)

	pending, err := db.Pending(ctx, d)
	if err != nil || len(pending) != 0 {
		t.Fatalf("fresh test database has pending migrations %v (err %v)", pending, err)
	}
	rolled, err := db.MigrateDown(ctx, d)
	if err != nil || len(rolled) == 0 {
		t.Fatalf("rollback: %v %v", rolled, err)
	}
	var n int
	if err := d.NewRaw("SELECT count(*) FROM pg_tables WHERE tablename = 'entries'").Scan(ctx, &n); err != nil || n != 0 {
		t.Fatalf("entries table still there after rollback (n=%d err=%v)", n, err)
	}
	if _, err := db.MigrateUp(ctx, d); err != nil {
		t.Fatalf("migrate up again: %v", err)
	}
	if pending, _ := db.Pending(ctx, d); len(pending) != 0 {
		t.Fatalf("pending after re-applying: %v", pending)
	}
}

func TestInTxRollsBackOnError(t *testing.T) {
	ctx := context.Background()
	d := testkit.MustOpenDB(t)
	boom := errors.New("boom")
	err := d.InTx(ctx, func(ctx context.Context, tx db.Tx) error {
		if _, err := tx.NewRaw("INSERT INTO families (id, name) VALUES (gen_random_uuid(), 'a')").Exec(ctx); err != nil {
			return err
		}
		// The pgx side of the transaction sees the bun side's row.
		var n int
		if err := tx.Pgx.QueryRow(ctx, "SELECT count(*) FROM families").Scan(&n); err != nil || n != 1 {
			t.Errorf("pgx side sees %d families (err %v), want 1", n, err)
		}
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("InTx returned %v, want boom", err)
	}
	var n int
	if err := d.NewRaw("SELECT count(*) FROM families").Scan(ctx, &n); err != nil || n != 0 {
		t.Fatalf("families after rollback = %d (err %v), want 0", n, err)
	}
}
