// Package pgtmp runs a private PostgreSQL cluster from the system's server binaries, or from
// the npm package of them on a machine that has none (binaries.go).
//
// The cluster listens only on a Unix socket in a directory of its own, so it never clashes with
// another server on the machine. When the process runs as root, initdb and postgres run as the
// postgres user (or nobody, where there is no postgres user), because both refuse to run as
// root.
package pgtmp

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
)

// Options says where the cluster lives and how durable it is.
type Options struct {
	// DataDir holds the cluster. It is created by initdb when it has no PG_VERSION yet, and
	// reused otherwise.
	DataDir string
	// Fast trades durability for speed (fsync off): right for tests, wrong for anything kept.
	Fast bool
	// Log receives the server's output; nil discards it.
	Log *os.File
	// BinDir holds initdb and postgres; empty means the system's (BinDir).
	BinDir string
}

// Cluster is a running private PostgreSQL server.
type Cluster struct {
	dataDir   string
	socketDir string
	cmd       *exec.Cmd
	done      chan error
	// start makes the server process again, for Restart.
	start func() *exec.Cmd
}

// Start initialises the data directory if needed, starts the server and waits until it
// accepts connections.
func Start(ctx context.Context, opts Options) (*Cluster, error) {
	bindir := opts.BinDir
	if bindir == "" {
		var err error
		if bindir, err = BinDir(); err != nil {
			return nil, err
		}
	}
	cred, err := serverCredential()
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(opts.DataDir, 0o700); err != nil {
		return nil, fmt.Errorf("create postgres data dir: %w", err)
	}
	// The socket lives in a short path of its own: Unix socket paths are limited to 107 bytes.
	socketDir, err := os.MkdirTemp("", "tally-pg-")
	if err != nil {
		return nil, fmt.Errorf("create postgres socket dir: %w", err)
	}
	for _, dir := range []string{opts.DataDir, socketDir} {
		if err := chownForServer(dir, cred); err != nil {
			return nil, err
		}
	}
	if cred != nil {
		for _, dir := range []string{opts.DataDir, bindir} {
			if err := checkReachable(dir); err != nil {
				return nil, err
			}
		}
	}

	if _, err := os.Stat(filepath.Join(opts.DataDir, "PG_VERSION")); errors.Is(err, os.ErrNotExist) {
		initdb := exec.CommandContext(ctx, filepath.Join(bindir, "initdb"),
			"-D", opts.DataDir, "-U", "postgres", "-A", "trust", "-E", "UTF8", "--locale=C.UTF-8", "--no-sync")
		initdb.SysProcAttr = sysProcAttr(cred)
		if out, err := initdb.CombinedOutput(); err != nil {
			return nil, fmt.Errorf("initdb: %w\n%s", err, out)
		}
	}

	args := []string{"-D", opts.DataDir, "-k", socketDir, "-h", "", "-c", "max_connections=200"}
	if opts.Fast {
		args = append(args, "-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off")
	}
	newCmd := func() *exec.Cmd {
		cmd := exec.Command(filepath.Join(bindir, "postgres"), args...)
		cmd.SysProcAttr = sysProcAttr(cred)
		if opts.Log != nil {
			cmd.Stdout, cmd.Stderr = opts.Log, opts.Log
		}
		return cmd
	}
	c := &Cluster{dataDir: opts.DataDir, socketDir: socketDir, start: newCmd}
	if err := c.run(ctx); err != nil {
		c.Stop()
		return nil, err
	}
	return c, nil
}

// run starts the server process and waits until it accepts connections.
func (c *Cluster) run(ctx context.Context) error {
	cmd := c.start()
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start postgres: %w", err)
	}
	c.cmd, c.done = cmd, make(chan error, 1)
	go func() { c.done <- cmd.Wait() }()
	return c.waitReady(ctx, 30*time.Second)
}

// Down stops the server and leaves it stopped, at the same address, until Up: clients see
// their connections dropped and new ones refused, as in a restart or an outage.
func (c *Cluster) Down() {
	c.shutdown()
}

// Up starts a server stopped by Down again, on the same data and socket.
func (c *Cluster) Up(ctx context.Context) error {
	return c.run(ctx)
}

// shutdown asks the server to stop (fast shutdown: sessions are ended, transactions rolled
// back) and waits for it, killing it after 20 seconds.
func (c *Cluster) shutdown() {
	if c.cmd == nil || c.cmd.Process == nil {
		return
	}
	_ = c.cmd.Process.Signal(syscall.SIGINT)
	select {
	case <-c.done:
	case <-time.After(20 * time.Second):
		_ = c.cmd.Process.Kill()
		<-c.done
	}
	c.cmd = nil
}

// URL returns a connection URL for database name on this cluster.
func (c *Cluster) URL(database string) string {
	q := url.Values{"host": {c.socketDir}, "sslmode": {"disable"}}
	return (&url.URL{Scheme: "postgres", User: url.User("postgres"), Path: "/" + database, RawQuery: q.Encode()}).String()
}

// SocketDir is the directory holding the server's Unix socket.
func (c *Cluster) SocketDir() string { return c.socketDir }

// EnsureDatabase creates database name unless it exists.
func (c *Cluster) EnsureDatabase(ctx context.Context, name string) error {
	conn, err := pgx.Connect(ctx, c.URL("postgres"))
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	var exists bool
	if err := conn.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)", name).Scan(&exists); err != nil {
		return err
	}
	if exists {
		return nil
	}
	_, err = conn.Exec(ctx, "CREATE DATABASE "+pgx.Identifier{name}.Sanitize())
	return err
}

// Stop shuts the server down (a fast shutdown) and removes the socket directory.
func (c *Cluster) Stop() error {
	defer os.RemoveAll(c.socketDir)
	c.shutdown()
	return nil
}

func (c *Cluster) waitReady(ctx context.Context, limit time.Duration) error {
	deadline := time.Now().Add(limit)
	for {
		conn, err := pgx.Connect(ctx, c.URL("postgres"))
		if err == nil {
			conn.Close(ctx)
			return nil
		}
		select {
		case err := <-c.done:
			return fmt.Errorf("postgres exited while starting: %v (data dir %s)", err, c.dataDir)
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("postgres did not accept connections within %s: %w", limit, err)
		}
	}
}

// BinDir finds the PostgreSQL server binaries: pg_config's bindir when it has initdb, else the
// newest /usr/lib/postgresql/*/bin.
func BinDir() (string, error) {
	if out, err := exec.Command("pg_config", "--bindir").Output(); err == nil {
		dir := strings.TrimSpace(string(out))
		if _, err := os.Stat(filepath.Join(dir, "initdb")); err == nil {
			return dir, nil
		}
	}
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	sort.Slice(dirs, func(i, j int) bool { return versionOf(dirs[i]) > versionOf(dirs[j]) })
	for _, dir := range dirs {
		if _, err := os.Stat(filepath.Join(dir, "initdb")); err == nil {
			return dir, nil
		}
	}
	return "", errors.New("PostgreSQL server binaries (initdb, postgres) not found: install PostgreSQL 15 or newer (Debian: apt-get install postgresql)")
}

func versionOf(bindir string) int {
	n, _ := strconv.Atoi(filepath.Base(filepath.Dir(bindir)))
	return n
}

// serverCredential returns the ids of the user the server runs as when this process runs as
// root: postgres, or nobody on a machine without a PostgreSQL installation. Nil otherwise.
func serverCredential() (*syscall.Credential, error) {
	if os.Geteuid() != 0 {
		return nil, nil
	}
	u, err := user.Lookup("postgres")
	if err != nil {
		if u, err = user.Lookup("nobody"); err != nil {
			return nil, errors.New("running as root, but there is neither a postgres nor a nobody user to run the database server as")
		}
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}, nil
}

func sysProcAttr(cred *syscall.Credential) *syscall.SysProcAttr {
	// Setpgid keeps a terminal's ^C away from the server so that Stop can shut it down in
	// order; Pdeathsig stops it if this process dies without calling Stop.
	return &syscall.SysProcAttr{Credential: cred, Setpgid: true, Pdeathsig: syscall.SIGQUIT}
}

func chownForServer(dir string, cred *syscall.Credential) error {
	if cred == nil {
		return nil
	}
	return filepath.Walk(dir, func(path string, _ os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		return os.Lchown(path, int(cred.Uid), int(cred.Gid))
	})
}

// checkReachable reports a clear error when the postgres user cannot reach dir, typically
// because it is below /root.
func checkReachable(dir string) error {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	for p := filepath.Dir(abs); ; p = filepath.Dir(p) {
		info, err := os.Stat(p)
		if err != nil {
			return err
		}
		if info.Mode().Perm()&0o001 == 0 {
			return fmt.Errorf("the database server's user cannot reach %s because %s is not traversable by others: use a data directory outside it (TALLY_DATA_DIR)", abs, p)
		}
		if p == "/" {
			return nil
		}
	}
}

// Running returns a connection URL for database on the server that already runs on dataDir,
// read from its postmaster.pid (whose fifth line is the socket directory).
func Running(ctx context.Context, dataDir, database string) (string, bool) {
	b, err := os.ReadFile(filepath.Join(dataDir, "postmaster.pid"))
	if err != nil {
		return "", false
	}
	lines := strings.Split(string(b), "\n")
	if len(lines) < 5 || strings.TrimSpace(lines[4]) == "" {
		return "", false
	}
	c := &Cluster{socketDir: strings.TrimSpace(lines[4])}
	conn, err := pgx.Connect(ctx, c.URL(database))
	if err != nil {
		return "", false
	}
	conn.Close(ctx)
	return c.URL(database), true
}
