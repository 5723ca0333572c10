package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/uuid"

	"tally/imports"
	"tally/internal/db"
	"tally/jobs"
	"tally/models"
	"tally/testkit"
)

func TestMain(m *testing.M) { os.Exit(testkit.Main(m)) }

// startProcess runs the tally binary with args against databaseURL and returns it, with the
// first line of its standard output that matches ready (nil: do not wait).
func startProcess(tb testing.TB, bin, databaseURL string, ready *regexp.Regexp, args ...string) (*exec.Cmd, []string) {
	tb.Helper()
	return startProcessWith(tb, bin, databaseURL, nil, ready, args...)
}

// startProcessWith is startProcess with the variables of env ("NAME=value") set as well.
func startProcessWith(tb testing.TB, bin, databaseURL string, env []string, ready *regexp.Regexp, args ...string) (*exec.Cmd, []string) {
	tb.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = append([]string{"PATH=" + os.Getenv("PATH"), "DATABASE_URL=" + databaseURL,
		"SECRET_KEY_BASE=" + strings.Repeat("s", 64), "LISTEN_ADDR=127.0.0.1:0", "LOG_LEVEL=warn", noRates}, env...)
	stdout, _ := cmd.StdoutPipe()
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	if ready == nil {
		go io.Copy(io.Discard, stdout)
		return cmd, nil
	}
	found := make(chan []string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if m := ready.FindStringSubmatch(sc.Text()); m != nil {
				found <- m
			}
		}
	}()
	select {
	case m := <-found:
		return cmd, m
	case <-time.After(30 * time.Second):
		tb.Fatalf("%s printed nothing matching %s", args[0], ready)
	}
	return nil, nil
}

// transactionCSV generates rows transactions over two accounts, with categories and tags.
func transactionCSV(rows int) string {
	var b strings.Builder
	b.WriteString("date,amount,name,category,tags,account,notes\n")
	for i := range rows {
		fmt.Fprintf(&b, "%s,-%d.%02d,Merchant %d,Category %d,tag%d|weekly,%s,Note %d\n",
			time.Date(2023, 1, 1, 0, 0, 0, 0, time.UTC).AddDate(0, 0, i%700).Format("2006-01-02"),
			1+i%500, i%100, i%1000, i%20, i%7, []string{"Checking", "Credit Card"}[i%2], i)
	}
	return b.String()
}

// queuedImport stores an import of rows transactions and queues its publish, without working
// the job.
func queuedImport(tb testing.TB, d *db.DB, rows int) (*imports.Service, *models.User, uuid.UUID) {
	tb.Helper()
	ctx := context.Background()
	u := testkit.MustCreateUser(tb, d, testkit.UserOpts{})
	svc, _, err := jobs.NewImports(d, testkit.DiscardLogger(), imports.DefaultLimits, jobs.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	df := "%Y-%m-%d"
	det, err := svc.Create(ctx, imports.Request{FamilyID: u.FamilyID, UserID: u.ID, DateFormat: &df, Publish: true,
		Upload: imports.Upload{Content: []byte(transactionCSV(rows)), Present: true}})
	if err != nil {
		tb.Fatal(err)
	}
	return svc, u, det.ID
}

func importStatus(tb testing.TB, d *db.DB, id uuid.UUID) (status string, entries int) {
	tb.Helper()
	ctx := context.Background()
	if err := d.NewRaw("SELECT status FROM imports WHERE id = ?", id).Scan(ctx, &status); err != nil {
		tb.Fatal(err)
	}
	if err := d.NewRaw("SELECT count(*) FROM entries WHERE import_id = ?", id).Scan(ctx, &entries); err != nil {
		tb.Fatal(err)
	}
	return status, entries
}

// waitFor polls cond every 50 ms until it holds, failing after within.
func waitFor(tb testing.TB, within time.Duration, what string, cond func() bool) {
	tb.Helper()
	deadline := time.Now().Add(within)
	for !cond() {
		if time.Now().After(deadline) {
			tb.Fatalf("%s: not within %s", what, within)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// kill ends a process with SIGKILL, as the kernel's OOM killer or a lost machine would.
func kill(tb testing.TB, p *exec.Cmd) {
	tb.Helper()
	if err := p.Process.Signal(syscall.SIGKILL); err != nil {
		tb.Fatal(err)
	}
	_ = p.Wait()
}

// recoveryBound is how soon after a new worker starts the work of a killed one must be done:
// the rescuer runs when the worker starts and every 15 seconds, and hands back jobs that have
// run for 10 seconds from a process with no connection left.
const recoveryBound = 60 * time.Second

// midPublishRows is how many rows a publish caught midway has: four batches, enough to catch
// the worker between two.
const midPublishRows = 20_000

// workerMidPublish starts a real worker process, with the variables of env set, on a queued
// publish of rows rows and returns once it is midway through, with the database, the import
// and the process.
func workerMidPublish(t *testing.T, rows int, env ...string) (bin, url string, d *db.DB, svc *imports.Service, u *models.User, id uuid.UUID, worker *exec.Cmd) {
	t.Helper()
	bin, url = buildBinary(t), testkit.DatabaseURL(t)
	d, err := db.Open(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(d.Close)
	svc, u, id = queuedImport(t, d, rows)
	worker, _ = startProcessWith(t, bin, url, env, nil, "worker")
	waitFor(t, 60*time.Second, "the worker midway through the publish", func() bool {
		var done int
		_ = d.NewRaw("SELECT done FROM import_progress WHERE import_id = ?", id).Scan(context.Background(), &done)
		if done >= rows {
			t.Fatalf("the publish ended before it could be caught (%d rows)", done)
		}
		return done > 0
	})
	return bin, url, d, svc, u, id, worker
}

// TestKilledWorkerLeavesNothingAndTheWorkEndsOnce kills a real worker process (SIGKILL) in the
// middle of a publish and then of a revert: nothing it did survives, and a new worker process,
// with the default settings, finishes each within a minute, exactly once.
func TestKilledWorkerLeavesNothingAndTheWorkEndsOnce(t *testing.T) {
	ctx := context.Background()
	const rows = midPublishRows
	bin, url, d, svc, u, id, worker := workerMidPublish(t, rows)
	kill(t, worker)
	if status, entries := importStatus(t, d, id); status != imports.StatusImporting || entries != 0 {
		t.Fatalf("after the kill: status %s with %d entries, want importing with none", status, entries)
	}

	started := time.Now()
	worker, _ = startProcess(t, bin, url, nil, "worker")
	waitFor(t, recoveryBound, "the publish finished by a new worker", func() bool {
		status, _ := importStatus(t, d, id)
		return status == imports.StatusComplete
	})
	t.Logf("publish finished %s after the new worker started", time.Since(started).Round(time.Second))
	if _, entries := importStatus(t, d, id); entries != rows {
		t.Fatalf("%d entries after the publish was resumed, want exactly %d", entries, rows)
	}
	// A redelivered job finds the import complete and writes nothing more.
	if err := svc.RunPublish(ctx, id); err != nil {
		t.Fatal(err)
	}
	if _, entries := importStatus(t, d, id); entries != rows {
		t.Fatalf("a redelivered job changed the entries: %d", entries)
	}

	// The revert: the worker is killed once the job is running, in or before its transaction.
	if err := svc.Revert(ctx, u.FamilyID, id); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 30*time.Second, "the revert running", func() bool {
		var running bool
		_ = d.NewRaw("SELECT EXISTS (SELECT 1 FROM river_job WHERE kind = 'import_revert' AND state = 'running' AND args->>'import_id' = ?)", id.String()).Scan(ctx, &running)
		return running
	})
	kill(t, worker)
	if status, entries := importStatus(t, d, id); status != imports.StatusReverting || entries != rows {
		t.Fatalf("after the kill: status %s with %d entries, want reverting with all %d", status, entries, rows)
	}
	started = time.Now()
	startProcess(t, bin, url, nil, "worker")
	waitFor(t, recoveryBound, "the revert finished by a new worker", func() bool {
		status, _ := importStatus(t, d, id)
		return status == imports.StatusPending
	})
	t.Logf("revert finished %s after the new worker started", time.Since(started).Round(time.Second))
	if _, entries := importStatus(t, d, id); entries != 0 {
		t.Fatalf("%d entries left after the revert", entries)
	}
	var rescued int
	if err := d.NewRaw("SELECT count(*) FROM river_job WHERE kind IN ('import_publish', 'import_revert') AND (metadata->>'tally:rescued')::int > 0").Scan(ctx, &rescued); err != nil || rescued != 2 {
		t.Fatalf("%d jobs handed back by the rescuer (err %v), want 2", rescued, err)
	}
}

// TestTerminatedWorkerFinishesItsPublish sends SIGTERM to a real worker process in the middle
// of a publish, as a deploy does: the publish finishes in the time the README promises (20
// seconds) before the process exits, and is not done again by anyone.
func TestTerminatedWorkerFinishesItsPublish(t *testing.T) {
	ctx := context.Background()
	const rows = midPublishRows
	_, _, d, _, _, id, worker := workerMidPublish(t, rows)
	if err := worker.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- worker.Wait() }()
	select {
	case err := <-exited:
		if err != nil {
			t.Errorf("the worker exited with %v", err)
		}
	case <-time.After(40 * time.Second):
		t.Fatal("the worker did not exit within 40 seconds of SIGTERM")
	}
	if status, entries := importStatus(t, d, id); status != imports.StatusComplete || entries != rows {
		t.Fatalf("after SIGTERM: status %s with %d entries, want the publish complete with %d", status, entries, rows)
	}
	var attempts int
	if err := d.NewRaw("SELECT attempt FROM river_job WHERE kind = 'import_publish' AND args->>'import_id' = ?", id.String()).Scan(ctx, &attempts); err != nil || attempts != 1 {
		t.Errorf("the publish ran %d times (%v), want once", attempts, err)
	}
}

// TestTerminatedWorkerHandsBackWhatItCannotFinish sends SIGTERM to a worker whose publish needs
// longer than its SHUTDOWN_TIMEOUT: the worker cancels it when the time is up, which rolls it
// back and hands it to the queue at once (not to the rescuer, which waits for a job to look
// abandoned), and a new worker publishes it, exactly once.
func TestTerminatedWorkerHandsBackWhatItCannotFinish(t *testing.T) {
	ctx := context.Background()
	const rows = 3 * midPublishRows
	bin, url, d, _, _, id, worker := workerMidPublish(t, rows, "SHUTDOWN_TIMEOUT=1s")
	if err := worker.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- worker.Wait() }()
	select {
	case <-exited:
	case <-time.After(15 * time.Second):
		t.Fatal("the worker did not exit within 15 seconds of SIGTERM with SHUTDOWN_TIMEOUT=1s")
	}
	if status, entries := importStatus(t, d, id); status != imports.StatusImporting || entries != 0 {
		t.Fatalf("after the worker stopped: status %s with %d entries, want importing with none", status, entries)
	}
	const job = "FROM river_job WHERE kind = 'import_publish' AND args->>'import_id' = ?"
	var state string
	if err := d.NewRaw("SELECT state "+job, id.String()).Scan(ctx, &state); err != nil || (state != "retryable" && state != "available") {
		t.Fatalf("the publish's job is %q (%v) after the worker stopped, want it handed back to the queue", state, err)
	}
	started := time.Now()
	startProcess(t, bin, url, nil, "worker")
	waitFor(t, recoveryBound, "the publish finished by a new worker", func() bool {
		status, _ := importStatus(t, d, id)
		return status == imports.StatusComplete
	})
	t.Logf("publish finished %s after the new worker started", time.Since(started).Round(time.Second))
	if _, entries := importStatus(t, d, id); entries != rows {
		t.Fatalf("%d entries after the handed-back publish, want exactly %d", entries, rows)
	}
	var rescued int
	if err := d.NewRaw("SELECT coalesce((metadata->>'tally:rescued')::int, 0) "+job, id.String()).Scan(ctx, &rescued); err != nil {
		t.Fatal(err)
	}
	if rescued != 0 {
		t.Errorf("the publish was handed back by the rescuer (%d times), not by the worker that stopped", rescued)
	}
}

// TestExportCommand writes a family's data to a file, and only that family's.
func TestExportCommand(t *testing.T) {
	url := testkit.DatabaseURL(t)
	d, err := db.Open(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	u := testkit.MustCreateUser(t, d, testkit.UserOpts{})
	testkit.MustCreateAccount(t, d, u.FamilyID, "Checking", "Depository", "250")
	other := testkit.MustCreateUser(t, d, testkit.UserOpts{})
	testkit.MustCreateAccount(t, d, other.FamilyID, "Not mine", "Depository", "1")

	out := t.TempDir() + "/family.ndjson"
	var stdout strings.Builder
	env := func(k string) string { return map[string]string{"DATABASE_URL": url}[k] }
	if err := run(context.Background(), []string{"tally", "export", "--family", u.Family.Name, "--out", out}, env, &stdout, io.Discard); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, line := range strings.Split(string(b), "\n") {
		var rec struct {
			Type string
			Data map[string]any
		}
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatalf("not JSON: %q", line)
		}
		got = append(got, fmt.Sprintf("%s %v %v", rec.Type, rec.Data["name"], rec.Data["amount"]))
	}
	if strings.Join(got, "; ") != "Account Checking <nil>; Valuation Balance when the account was created 250.0000" {
		t.Fatalf("export: %v", got)
	}
	if err := run(context.Background(), []string{"tally", "export", "--family", "Nobody"}, env, io.Discard, io.Discard); err == nil || !strings.Contains(err.Error(), "not found") {
		t.Fatalf("unknown family: %v", err)
	}
}
