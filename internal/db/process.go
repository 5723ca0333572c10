package db

import (
	"context"
	"crypto/rand"
	"database/sql/driver"
	"encoding/hex"
	"errors"
	"io"
	"net"
	"os"
	"strconv"
	"syscall"

	"github.com/jackc/pgx/v5/pgconn"
)

// ProcessName names this process to PostgreSQL: every connection it opens carries it as its
// application_name, and the job client's id starts with it. A job whose process has no
// connection left is a job whose process died (docs/architecture.md, Crash recovery).
var ProcessName = func() string {
	host, _ := os.Hostname()
	if len(host) > 30 {
		host = host[:30]
	}
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	return "tally/" + host + "/" + strconv.Itoa(os.Getpid()) + "/" + hex.EncodeToString(b)
}()

// Unreachable reports whether err means the database could not be reached or cannot take
// work now: a refused or dropped connection, a server shutting down or starting, one with no
// connection to spare, one that is read-only (a standby, or a database set read-only for
// maintenance), a connection that timed out. The work that failed can be tried again once it
// answers.
func Unreachable(err error) bool {
	if err == nil || errors.Is(err, context.Canceled) {
		return false
	}
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		// Class 08 is connection exceptions; 57P01-57P03 a server shutting down or starting;
		// 53300 too many connections; 25006 a write in a read-only transaction.
		switch pgErr.Code {
		case "57P01", "57P02", "57P03", "53300", "25006":
			return true
		}
		return pgErr.Code[:2] == "08"
	}
	var connectErr *pgconn.ConnectError
	var netErr net.Error
	// ErrConnClosed is a pooled connection the driver closed as its socket went away: a
	// request that took it just as the server went down gets it.
	// driver.ErrBadConn is database/sql giving up on pooled connections that all went away
	// ("driver: bad connection").
	return errors.As(err, &connectErr) || errors.As(err, &netErr) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, driver.ErrBadConn) ||
		errors.Is(err, net.ErrClosed) || errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET) ||
		errors.Is(err, pgconn.ErrConnClosed) || pgconn.Timeout(err)
}
