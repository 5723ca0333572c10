package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"

	"tally/internal/pgtmp"
	"tally/internal/scalefile"
)

// lab is the private PostgreSQL every round runs on, with one migrated template database per
// build that each round's fresh database is copied from.
type lab struct {
	dir       string
	cluster   *pgtmp.Cluster
	templates map[string]string // build name: its migrated template database
	logPath   string            // the cluster's log, kept when statements are logged
	slowMS    int
	made      int // databases made, for their names
}

func startLab(ctx context.Context, slowMS int) (*lab, error) {
	dir, err := os.MkdirTemp("", "benchcompare-pg-")
	if err != nil {
		return nil, err
	}
	// The server may run as the postgres user, which must be able to reach its data dir.
	if err := os.Chmod(dir, 0o755); err != nil {
		return nil, err
	}
	l := &lab{dir: dir, templates: map[string]string{}, slowMS: slowMS}
	logFile, err := os.Create(filepath.Join(dir, "postgres.log"))
	if slowMS > 0 {
		// Kept after the lab is gone, to be read.
		logFile, err = os.CreateTemp("", "benchcompare-postgres-*.log")
	}
	if err != nil {
		return nil, err
	}
	if slowMS > 0 {
		l.logPath = logFile.Name()
	}
	bins, err := pgtmp.Choose(ctx, pgtmp.Auto, filepath.Join(dir, "data"), filepath.Join(os.TempDir(), "tally-embedded-postgres"), io.Discard)
	if err != nil {
		return nil, err
	}
	// As the tests run it (testkit): durability off, which both builds get alike.
	l.cluster, err = pgtmp.Start(ctx, pgtmp.Options{DataDir: filepath.Join(dir, "data"), Fast: true, Log: logFile, BinDir: bins.Dir})
	if err != nil {
		return nil, err
	}
	if slowMS > 0 {
		// The database in each line says whose statement it is (freshDB names them).
		if err := l.exec(ctx, "postgres", `ALTER SYSTEM SET log_line_prefix = '%m [%d] '`, `SELECT pg_reload_conf()`); err != nil {
			return nil, err
		}
	}
	return l, nil
}

func (l *lab) stop() {
	l.cluster.Stop()
	os.RemoveAll(l.dir)
}

// exec runs statements in database db, as the cluster's superuser.
func (l *lab) exec(ctx context.Context, db string, statements ...string) error {
	conn, err := pgx.Connect(ctx, l.cluster.URL(db))
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	for _, s := range statements {
		if _, err := conn.Exec(ctx, s); err != nil {
			return fmt.Errorf("%s: %w", s, err)
		}
	}
	return nil
}

// freshDB is a new database of b's schema: a copy of b's template, which b's own `tally
// migrate up` made on first use. what names it in the log.
func (l *lab) freshDB(ctx context.Context, b build, what string) (string, error) {
	tpl, ok := l.templates[b.name]
	if !ok {
		tpl = fmt.Sprintf("template_%d", len(l.templates))
		if err := l.exec(ctx, "postgres", "CREATE DATABASE "+tpl+" TEMPLATE template0"); err != nil {
			return "", err
		}
		if _, err := l.tally(ctx, b, tpl, "migrate", "up"); err != nil {
			return "", err
		}
		l.templates[b.name] = tpl
	}
	l.made++
	name := fmt.Sprintf("%s_%s_%d", what, strings.ReplaceAll(b.name, " ", "_"), l.made)
	return name, l.exec(ctx, "postgres", fmt.Sprintf("CREATE DATABASE %s TEMPLATE %s", pgx.Identifier{name}.Sanitize(), tpl))
}

func (l *lab) dropDB(ctx context.Context, name string) error {
	return l.exec(ctx, "postgres", fmt.Sprintf("DROP DATABASE %s WITH (FORCE)", pgx.Identifier{name}.Sanitize()))
}

// env is the environment a build's command runs in against database db, as the tests run it.
func (l *lab) env(db string) []string {
	return []string{"PATH=" + os.Getenv("PATH"), "HOME=" + l.dir, "DATABASE_URL=" + l.cluster.URL(db),
		"SECRET_KEY_BASE=" + strings.Repeat("s", 64), "LISTEN_ADDR=127.0.0.1:0", "LOG_LEVEL=warn", "EXCHANGE_RATES_URL=none"}
}

// tally runs a command of b's binary against db and returns what it printed.
func (l *lab) tally(ctx context.Context, b build, db string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, b.bin, args...)
	cmd.Env = l.env(db)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("tally %s: %w: %s", strings.Join(args, " "), err, stderr.String())
	}
	return string(out), nil
}

// checkpoint writes out what the cluster holds in memory, so that a timing does not pay for
// the writes of what came before it.
func (l *lab) checkpoint(ctx context.Context) error { return l.exec(ctx, "postgres", "CHECKPOINT") }

// family makes a family with an account in db through SQL, for the COPY, and returns both.
func family(ctx context.Context, conn *pgx.Conn) (familyID, accountID uuid.UUID, err error) {
	familyID, accountID = uuid.New(), uuid.New()
	if _, err = conn.Exec(ctx, `INSERT INTO families (id, name) VALUES ($1, 'Bench')`, familyID); err != nil {
		return
	}
	err = addAccount(ctx, conn, familyID, accountID)
	return
}

// addAccount adds the account the file is imported into, as both builds' schemas take it.
func addAccount(ctx context.Context, conn *pgx.Conn, familyID, accountID uuid.UUID) error {
	_, err := conn.Exec(ctx, `INSERT INTO accounts (id, family_id, name, accountable_type, currency) VALUES ($1, $2, 'Checking', 'Depository', 'USD')`, accountID, familyID)
	return err
}

// copyColumns are the entries columns the bare COPY writes: what a publish writes of each row
// of the file, in both builds' schemas.
var copyColumns = []string{"id", "family_id", "account_id", "kind", "date", "amount", "currency", "name", "notes", "merchant_id", "import_id", "source"}

// timeCopy times a COPY of the file's rows into the entries table of a fresh database of b's
// schema, with their merchants (one per name, made first): the schema's own cost of the rows.
func (l *lab) timeCopy(ctx context.Context, b build, rows int) (wall, cpu time.Duration, err error) {
	db, err := l.freshDB(ctx, b, "copy")
	if err != nil {
		return 0, 0, err
	}
	defer l.dropDB(ctx, db)
	conn, err := pgx.Connect(ctx, l.cluster.URL(db))
	if err != nil {
		return 0, 0, err
	}
	defer conn.Close(ctx)
	familyID, accountID, err := family(ctx, conn)
	if err != nil {
		return 0, 0, err
	}
	merchants := map[string]uuid.UUID{}
	for i := range min(rows, 1000) {
		id := uuid.New()
		merchants[scalefile.Merchant(i)] = id
		if _, err := conn.Exec(ctx, `INSERT INTO merchants (id, family_id, name) VALUES ($1, $2, $3)`, id, familyID, scalefile.Merchant(i)); err != nil {
			return 0, 0, err
		}
	}
	importID := uuid.New()
	data := make([][]any, rows)
	for i := range data {
		id, _ := uuid.NewV7()
		data[i] = []any{id, familyID, accountID, "transaction", scalefile.Day(i), pgtype.Numeric{Int: big.NewInt(int64(scalefile.Cents(i))), Exp: -2, Valid: true},
			"USD", scalefile.Merchant(i), scalefile.Note(i), merchants[scalefile.Merchant(i)], importID, "import"}
	}
	if err := l.checkpoint(ctx); err != nil {
		return 0, 0, err
	}
	session := []int{int(conn.PgConn().PID())}
	before, start := sampleCPU(session), time.Now()
	if _, err := conn.CopyFrom(ctx, pgx.Identifier{"entries"}, copyColumns, pgx.CopyFromRows(data)); err != nil {
		return 0, 0, err
	}
	return time.Since(start), sampleCPU(session).since(before), nil
}

// benchEmail is the user whose API key uploads the file.
const benchEmail = "bench@example.com"

// timePublish times the file's upload with publish=true to complete on a fresh database of
// b's schema, through b's own server, and checks that every row was published.
func (l *lab) timePublish(ctx context.Context, b build, file string, rows int) (wall, cpu time.Duration, err error) {
	db, err := l.freshDB(ctx, b, "publish")
	if err != nil {
		return 0, 0, err
	}
	defer l.dropDB(ctx, db)
	if l.slowMS > 0 {
		if err := l.exec(ctx, "postgres", fmt.Sprintf("ALTER DATABASE %s SET log_min_duration_statement = %d", db, l.slowMS)); err != nil {
			return 0, 0, err
		}
	}
	// The user and key as the build's own tasks make them.
	if _, err := l.tally(ctx, b, db, "users:create", "--email", benchEmail, "--password", "bench-compare-password-1", "--role", "admin", "--family", "Bench"); err != nil {
		return 0, 0, err
	}
	out, err := l.tally(ctx, b, db, "api_keys:create", "--email", benchEmail, "--scope", "read_write")
	if err != nil {
		return 0, 0, err
	}
	key := lastLine(out)
	conn, err := pgx.Connect(ctx, l.cluster.URL(db))
	if err != nil {
		return 0, 0, err
	}
	defer conn.Close(ctx)
	var familyID uuid.UUID
	if err := conn.QueryRow(ctx, `SELECT family_id FROM users WHERE email = $1`, benchEmail).Scan(&familyID); err != nil {
		return 0, 0, err
	}
	accountID := uuid.New()
	if err := addAccount(ctx, conn, familyID, accountID); err != nil {
		return 0, 0, err
	}
	body, _ := json.Marshal(map[string]any{"raw_file_content": file, "date_format": "%Y-%m-%d", "publish": "true", "account_id": accountID.String()})

	srv, err := l.serve(ctx, b, db)
	if err != nil {
		return 0, 0, err
	}
	defer srv.stop()
	if err := l.checkpoint(ctx); err != nil {
		return 0, 0, err
	}
	// The server and its database sessions, now and at complete (the sessions it opens
	// meanwhile included).
	workers := func() []int {
		pids, _ := sessions(ctx, conn, db)
		return append(pids, srv.cmd.Process.Pid)
	}
	before, start := sampleCPU(workers()), time.Now()
	id, err := upload(ctx, srv.url, key, body)
	if err != nil {
		return 0, 0, err
	}
	if err := waitComplete(ctx, conn, id); err != nil {
		return 0, 0, err
	}
	took, used := time.Since(start), sampleCPU(workers()).since(before)
	var published int
	if err := conn.QueryRow(ctx, `SELECT count(*) FROM entries WHERE import_id = $1`, id).Scan(&published); err != nil {
		return 0, 0, err
	}
	if published != rows {
		return 0, 0, fmt.Errorf("%d entries published, want %d", published, rows)
	}
	return took, used, nil
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.TrimSpace(lines[len(lines)-1])
}

// server is a build's `tally serve` on a database.
type server struct {
	cmd    *exec.Cmd
	url    string
	stderr *bytes.Buffer
}

var listening = regexp.MustCompile(`listening on (http://\S+)`)

func (l *lab) serve(ctx context.Context, b build, db string) (*server, error) {
	cmd := exec.Command(b.bin, "serve")
	cmd.Env = l.env(db)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	s := &server{cmd: cmd, stderr: &bytes.Buffer{}}
	cmd.Stderr = s.stderr
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if m := listening.FindStringSubmatch(sc.Text()); m != nil {
				found <- m[1]
			}
		}
	}()
	select {
	case s.url = <-found:
		return s, nil
	case <-time.After(60 * time.Second):
	case <-ctx.Done():
	}
	s.stop()
	return nil, fmt.Errorf("%s's server did not say it was listening: %s", b.name, s.stderr)
}

// stop ends the server as an operator does (SIGTERM), killing it if it lingers.
func (s *server) stop() {
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan struct{})
	go func() { _ = s.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		_ = s.cmd.Process.Kill()
		<-done
	}
}

// upload posts the file as a client does and returns the new import's id.
func upload(ctx context.Context, base, key string, body []byte) (uuid.UUID, error) {
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, base+"/api/v1/imports", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Api-Key", key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return uuid.Nil, err
	}
	defer resp.Body.Close()
	var created struct {
		Data  struct{ ID string }
		Error string
	}
	_ = json.NewDecoder(resp.Body).Decode(&created)
	if resp.StatusCode != http.StatusCreated {
		return uuid.Nil, fmt.Errorf("upload: %d %s", resp.StatusCode, created.Error)
	}
	return uuid.Parse(created.Data.ID)
}

// waitComplete polls the import's status until it is complete, failing if it ends otherwise.
func waitComplete(ctx context.Context, conn *pgx.Conn, id uuid.UUID) error {
	for {
		var status string
		if err := conn.QueryRow(ctx, `SELECT status FROM imports WHERE id = $1`, id).Scan(&status); err != nil {
			return err
		}
		switch status {
		case "complete":
			return nil
		case "failed":
			return errors.New("the import failed")
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(10 * time.Millisecond):
		}
	}
}
