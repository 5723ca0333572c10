package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"tally/imports"
	"tally/internal/db"
	"tally/internal/pgtmp"
	"tally/models"
	"tally/testkit"
)

// lines collects a process's log lines.
type lines struct {
	mu  sync.Mutex
	all []string
}

func (l *lines) count(substr string) int { return len(l.matching(substr)) }

// matching returns the lines that contain substr.
func (l *lines) matching(substr string) []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []string
	for _, s := range l.all {
		if strings.Contains(s, substr) {
			out = append(out, s)
		}
	}
	return out
}

// launch runs the tally binary with env and args and returns it with its standard output's
// and standard error's lines as they come.
func launch(t *testing.T, bin string, env []string, args ...string) (cmd *exec.Cmd, stdout, stderr *lines) {
	t.Helper()
	cmd = exec.Command(bin, args...)
	cmd.Env = env
	outPipe, _ := cmd.StdoutPipe()
	errPipe, _ := cmd.StderrPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	stdout, stderr = &lines{}, &lines{}
	for pipe, l := range map[io.Reader]*lines{outPipe: stdout, errPipe: stderr} {
		go func() {
			sc := bufio.NewScanner(pipe)
			for sc.Scan() {
				l.mu.Lock()
				l.all = append(l.all, sc.Text())
				l.mu.Unlock()
			}
		}()
	}
	return cmd, stdout, stderr
}

// startServe runs `tally serve` with env and returns where it listens and its log lines.
func startServe(t *testing.T, bin string, env []string) (string, *lines) {
	t.Helper()
	_, stdout, logs := launch(t, bin, env, "serve")
	var app string
	waitFor(t, 30*time.Second, "serve saying where it listens", func() bool {
		app = stdout.find(regexp.MustCompile(`listening on (\S+)`))
		return app != ""
	})
	return app, logs
}

// find is the first submatch of re in the log lines, or "".
func (l *lines) find(re *regexp.Regexp) string {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, s := range l.all {
		if m := re.FindStringSubmatch(s); m != nil {
			return m[1]
		}
	}
	return ""
}

// TestServerRidesOutADatabaseRestart stops the database under a running `tally serve` in the
// middle of a publish: while it is down the API answers 503 with Retry-After, pages say the
// database is away, /readyz says what is not ready, and the log says so once; when it is back
// the server is ready again by itself and the publish ends, exactly once.
func TestServerRidesOutADatabaseRestart(t *testing.T) {
	bin := buildBinary(t)
	ctx := context.Background()
	pgLog, err := os.Create(filepath.Join(t.TempDir(), "postgres.log"))
	if err != nil {
		t.Fatal(err)
	}
	// The cluster may run as the postgres user, which must reach its directory.
	dir, err := os.MkdirTemp("", "tally-outage-test-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	cluster, err := pgtmp.Start(ctx, pgtmp.Options{DataDir: filepath.Join(dir, "pg"), Fast: true, Log: pgLog})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cluster.Stop() })
	if err := cluster.EnsureDatabase(ctx, "tally"); err != nil {
		t.Fatal(err)
	}
	url := cluster.URL("tally")
	env := []string{"PATH=" + os.Getenv("PATH"), "DATABASE_URL=" + url, "SECRET_KEY_BASE=" + strings.Repeat("s", 64),
		"LISTEN_ADDR=127.0.0.1:0", "LOG_LEVEL=info", "LOG_FORMAT=text", noRates}
	migrate := exec.Command(bin, "migrate", "up")
	migrate.Env = env
	if out, err := migrate.CombinedOutput(); err != nil {
		t.Fatalf("migrate: %v\n%s", err, out)
	}
	d, err := db.Open(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	u := testkit.MustCreateUser(t, d, testkit.UserOpts{})
	key := testkit.MustCreateAPIKey(t, d, u.ID, models.ScopeReadWrite)
	acct := testkit.MustCreateAccount(t, d, u.FamilyID, "Checking", "Depository", "")

	app, logs := startServe(t, bin, env)
	get := func(path string, header ...string) (int, http.Header, string) {
		req, _ := http.NewRequest(http.MethodGet, app+path, nil)
		for i := 0; i+1 < len(header); i += 2 {
			req.Header.Set(header[i], header[i+1])
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatalf("GET %s: %v", path, err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res.StatusCode, res.Header, string(b)
	}
	if status, _, body := get("/readyz"); status != http.StatusOK || !strings.Contains(body, `"jobs":"running"`) {
		t.Fatalf("/readyz before: %d %s", status, body)
	}

	const rows = 20_000
	body, _ := json.Marshal(map[string]any{"raw_file_content": transactionCSV(rows), "date_format": "%Y-%m-%d",
		"account_id": acct.ID.String(), "publish": true})
	req, _ := http.NewRequest(http.MethodPost, app+"/api/v1/imports", strings.NewReader(string(body)))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Api-Key", key)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var created struct{ Data struct{ ID uuid.UUID } }
	_ = json.NewDecoder(res.Body).Decode(&created)
	res.Body.Close()
	if res.StatusCode != http.StatusCreated {
		t.Fatalf("create: %d", res.StatusCode)
	}
	id := created.Data.ID
	waitFor(t, 60*time.Second, "the publish under way", func() bool {
		var done int
		_ = d.NewRaw("SELECT done FROM import_progress WHERE import_id = ?", id).Scan(ctx, &done)
		return done > 0
	})

	cluster.Down()
	status, header, answer := get("/api/v1/imports", "X-Api-Key", key)
	if status != http.StatusServiceUnavailable || header.Get("Retry-After") != "5" || !strings.Contains(answer, `"error":"service_unavailable"`) {
		t.Errorf("API while the database is down: %d, Retry-After %q, %s", status, header.Get("Retry-After"), answer)
	}
	for i := 0; i < 3; i++ {
		if status, _, page := get("/sessions/new"); status != http.StatusServiceUnavailable || !strings.Contains(page, "Tally can&#39;t reach its database") {
			t.Errorf("page while the database is down: %d %.300s", status, page)
		}
	}
	if status, header, answer := get("/readyz"); status != http.StatusServiceUnavailable || header.Get("Retry-After") != "5" || !strings.Contains(answer, `"database":"unreachable"`) {
		t.Errorf("/readyz while the database is down: %d, Retry-After %q, %s", status, header.Get("Retry-After"), answer)
	}
	if status, header, answer := get("/healthz"); status != http.StatusServiceUnavailable || header.Get("Retry-After") != "5" {
		t.Errorf("/healthz while the database is down: %d, Retry-After %q, %s", status, header.Get("Retry-After"), answer)
	}
	time.Sleep(2 * time.Second)
	if err := cluster.Up(ctx); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 30*time.Second, "/readyz answering 200 again", func() bool {
		status, _, _ := get("/readyz")
		return status == http.StatusOK
	})
	waitFor(t, 60*time.Second, "the interrupted publish finished", func() bool {
		status, _ := importStatus(t, d, id)
		return status == imports.StatusComplete
	})
	if _, entries := importStatus(t, d, id); entries != rows {
		t.Fatalf("%d entries after the restart, want exactly %d", entries, rows)
	}
	waitFor(t, 10*time.Second, "the log saying the database is back", func() bool { return logs.count("database reachable again") == 1 })
	if n := logs.count("database unreachable"); n != 1 {
		t.Errorf("%d warnings of the outage, want 1", n)
	}
	if errs := logs.matching("internal error"); len(errs) != 0 {
		t.Errorf("%d internal errors logged during the outage:\n%s", len(errs), strings.Join(errs, "\n"))
	}
}
