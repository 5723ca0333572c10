package db_test

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"net"
	"os"
	"strings"
	"syscall"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"

	"tally/internal/db"
	"tally/testkit"
)

func TestMain(m *testing.M) { os.Exit(testkit.Main(m)) }

// TestMigrationsRollBackOneAtATime rolls back Tally's migrations one at a time, as `tally
// migrate down` does: a rollback that drops a table holding rows is refused, saying which and
// how many, until confirmed; then everything is applied again.
func TestMigrationsRollBackOneAtATime(t *testing.T) {
	ctx := context.Background()
	d := testkit.MustOpenDB(t)

	pending, err := db.Pending(ctx, d)
	if err != nil || len(pending) != 0 {
		t.Fatalf("fresh test database has pending migrations %v (err %v)", pending, err)
	}
	if _, err := d.NewRaw(`INSERT INTO exchange_rates (id, date, base, quote, rate, source)
		VALUES (gen_random_uuid(), '2026-01-02', 'EUR', 'USD', 1.1, 'ecb')`).Exec(ctx); err != nil {
		t.Fatal(err)
	}
	// Down to the migration that made exchange_rates, one at a time.
	for {
		rb, err := db.MigrateDown(ctx, d, false)
		if errors.Is(err, db.ErrRowsWouldGo) {
			if !strings.HasSuffix(rb.Migration, "_exchange_rates") || len(rb.Drops) != 1 || rb.Drops[0] != (db.DroppedTable{Name: "exchange_rates", Rows: 1}) {
				t.Fatalf("refused rollback %+v", rb)
			}
			break
		}
		if err != nil || rb.Migration == "" {
			t.Fatalf("rollback: %+v %v", rb, err)
		}
		if pending, _ := db.Pending(ctx, d); len(pending) == 0 {
			t.Fatalf("%s rolled back, yet nothing is pending", rb.Migration)
		}
	}
	var n int
	if err := d.NewRaw("SELECT count(*) FROM exchange_rates").Scan(ctx, &n); err != nil || n != 1 {
		t.Fatalf("the refused rollback changed exchange_rates: %d rows, %v", n, err)
	}
	rb, err := db.MigrateDown(ctx, d, true)
	if err != nil || !strings.HasSuffix(rb.Migration, "_exchange_rates") {
		t.Fatalf("confirmed rollback: %+v %v", rb, err)
	}
	if err := d.NewRaw("SELECT count(*) FROM pg_tables WHERE tablename = 'exchange_rates'").Scan(ctx, &n); err != nil || n != 0 {
		t.Fatalf("exchange_rates still there after the confirmed rollback (n=%d err=%v)", n, err)
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

// TestUnreachable is which errors mean the database could not take the work now (a 503 and a
// retry), and which are a bug or the client's own.
func TestUnreachable(t *testing.T) {
	for _, tc := range []struct {
		name string
		err  error
		want bool
	}{
		{"database/sql out of live connections", fmt.Errorf("query: %w", driver.ErrBadConn), true},
		{"a refused connection", &net.OpError{Op: "dial", Err: syscall.ECONNREFUSED}, true},
		{"a server shutting down", &pgconn.PgError{Code: "57P01"}, true},
		{"a read-only database", &pgconn.PgError{Code: "25006"}, true},
		{"too many connections", &pgconn.PgError{Code: "53300"}, true},
		{"a unique violation", &pgconn.PgError{Code: "23505"}, false},
		{"a cancelled request", context.Canceled, false},
		{"nothing", nil, false},
	} {
		if got := db.Unreachable(tc.err); got != tc.want {
			t.Errorf("%s: Unreachable is %v, want %v", tc.name, got, tc.want)
		}
	}
}
