package db_test

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"net"
	"os"
	"syscall"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"

	"tally/internal/db"
	"tally/testkit"
)

func TestMain(m *testing.M) { os.Exit(testkit.Main(m)) }

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
