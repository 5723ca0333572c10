package handlers_test

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"tally/app/apptest"
	"tally/internal/db"
	"tally/internal/metrics"
	"tally/models"
	"tally/testkit"
)

// TestARequestPastItsTimeIsStoppedAndWritesNothing holds a lock on an account so that a
// rename through the API waits for it past REQUEST_TIMEOUT: the request answers 503 with
// Retry-After and a message that says nothing was changed, and the name is unchanged once the
// lock goes.
func TestARequestPastItsTimeIsStoppedAndWritesNothing(t *testing.T) {
	t.Parallel()
	srv := apptest.StartServer(t, apptest.ServerOptions{NoWorker: true, Env: map[string]string{"REQUEST_TIMEOUT": "1s"}})
	u := testkit.MustCreateUser(t, srv.DB, testkit.UserOpts{})
	key := testkit.MustCreateAPIKey(t, srv.DB, u.ID, models.ScopeReadWrite)
	acct := testkit.MustCreateAccount(t, srv.DB, u.FamilyID, "Checking", "Depository", "")
	ctx := context.Background()
	tx, err := srv.DB.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.NewRaw("SELECT 1 FROM accounts WHERE id = ? FOR UPDATE", acct.ID).Exec(ctx); err != nil {
		t.Fatal(err)
	}
	started := time.Now()
	r := apptest.NewClient(t, srv).API(http.MethodPatch, "/api/v1/accounts/"+acct.ID.String(), key, map[string]any{"name": "Renamed"})
	took := time.Since(started)
	if err := tx.Rollback(); err != nil {
		t.Fatal(err)
	}
	if r.Status != http.StatusServiceUnavailable || r.Header.Get("Retry-After") == "" || !strings.Contains(r.Body, `"error":"request_timeout"`) ||
		!strings.Contains(r.Body, "nothing was changed") {
		t.Fatalf("after %s: %d %s", took, r.Status, r.Body)
	}
	if a, err := models.AccountByID(ctx, srv.DB, models.FamilyViewer(u.FamilyID), acct.ID); err != nil || a.Name != "Checking" {
		t.Errorf("the account is now %q (%v): a stopped request wrote", a.Name, err)
	}
}

// TestAStalledBodyIsCut sends a request whose body stops arriving: the server closes the
// connection once REQUEST_BODY_TIMEOUT passes with no byte, instead of holding it forever.
func TestAStalledBodyIsCut(t *testing.T) {
	t.Parallel()
	srv := apptest.StartServer(t, apptest.ServerOptions{NoWorker: true, Env: map[string]string{"REQUEST_BODY_TIMEOUT": "1s"}})
	conn, err := net.Dial("tcp", strings.TrimPrefix(srv.URL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := io.WriteString(conn, "POST /api/v1/imports HTTP/1.1\r\nHost: tally\r\nX-Api-Key: whatever\r\n"+
		"Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n{\"type\": \"Transac"); err != nil {
		t.Fatal(err)
	}
	started := time.Now()
	_ = conn.SetReadDeadline(time.Now().Add(20 * time.Second))
	// Whatever the server answers, it must end the connection: reading to the end returns.
	_, err = io.Copy(io.Discard, bufio.NewReader(conn))
	if took := time.Since(started); err != nil || took > 10*time.Second {
		t.Fatalf("the connection was still open after %s (%v)", took.Round(time.Millisecond), err)
	}
}

// TestMadeUpMethodsShareOneMetricsSeries sends requests with methods nobody defined: they are
// counted under "other", so that a stranger cannot grow /metrics at will.
func TestMadeUpMethodsShareOneMetricsSeries(t *testing.T) {
	t.Parallel()
	srv := apptest.StartServer(t, apptest.ServerOptions{NoWorker: true})
	c := apptest.NewClient(t, srv)
	for _, m := range []string{"BREW", "WHEN", "FOO"} {
		c.Do(m, "/nowhere-"+m, nil, nil)
	}
	methods := map[string]bool{}
	ch := make(chan prometheus.Metric, 10_000)
	metrics.HTTPRequests.Collect(ch)
	close(ch)
	for m := range ch {
		var pb dto.Metric
		if err := m.Write(&pb); err != nil {
			t.Fatal(err)
		}
		for _, l := range pb.GetLabel() {
			if l.GetName() == "method" {
				methods[l.GetValue()] = true
			}
		}
	}
	if methods["BREW"] || methods["WHEN"] || methods["FOO"] || !methods["other"] {
		t.Errorf("methods labelled: %v", methods)
	}
}

// TestAReadOnlyDatabaseAnswers503 sets the test's database read-only, as a standby or a
// maintenance window would, and drops the server's one connection so that its next one sees
// it: after the request that meets the dropped connection, API reads and writes answer 503
// with Retry-After (not 500), nothing is written, and once the database takes writes again
// the same requests work.
func TestAReadOnlyDatabaseAnswers503(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dbURL := testkit.DatabaseURL(t)
	// One connection: once the dropped one is met, every request has a read-only session.
	d, err := db.Open(ctx, dbURL+"&pool_max_conns=1")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(d.Close)
	srv := apptest.StartServer(t, apptest.ServerOptions{NoWorker: true, DB: d})
	u := testkit.MustCreateUser(t, srv.DB, testkit.UserOpts{})
	key := testkit.MustCreateAPIKey(t, srv.DB, u.ID, models.ScopeReadWrite)
	acct := testkit.MustCreateAccount(t, srv.DB, u.FamilyID, "Checking", "Depository", "")
	api := apptest.NewClient(t, srv)
	readOnly := func(on bool) {
		t.Helper()
		// A connection of its own, outside the server's pool, whose every connection goes.
		conn, err := pgx.Connect(ctx, dbURL)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close(ctx)
		stmts := []string{"SET default_transaction_read_only = off"}
		if on {
			stmts = append(stmts, "DO $$ BEGIN EXECUTE format('ALTER DATABASE %I SET default_transaction_read_only = on', current_database()); END $$")
		} else {
			stmts = append(stmts, "DO $$ BEGIN EXECUTE format('ALTER DATABASE %I RESET default_transaction_read_only', current_database()); END $$")
		}
		stmts = append(stmts, "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()")
		for _, q := range stmts {
			if _, err := conn.Exec(ctx, q); err != nil {
				t.Fatalf("%s: %v", q, err)
			}
		}
	}

	readOnly(true)
	// This one meets the connection that was dropped (57P01), itself a 503 of an outage.
	api.API(http.MethodGet, "/api/v1/accounts", key, nil)
	for _, req := range []struct{ method, path string }{
		{http.MethodGet, "/api/v1/accounts"}, // the key's last use is written even on a read
		{http.MethodGet, "/api/v1/accounts/" + acct.ID.String()},
		{http.MethodPatch, "/api/v1/accounts/" + acct.ID.String()},
	} {
		r := api.API(req.method, req.path, key, map[string]any{"name": "Renamed"})
		if r.Status != http.StatusServiceUnavailable || r.Header.Get("Retry-After") == "" {
			t.Errorf("%s %s on a read-only database: %d Retry-After %q %.300s", req.method, req.path, r.Status, r.Header.Get("Retry-After"), r.Body)
		}
	}
	if a, err := models.AccountByID(ctx, srv.DB, models.FamilyViewer(u.FamilyID), acct.ID); err != nil || a.Name != "Checking" {
		t.Errorf("the account is %q (%v) after a refused rename", a.Name, err)
	}
	readOnly(false)
	// The first request may meet a connection that was dropped, itself a 503.
	deadline := time.Now().Add(10 * time.Second)
	for {
		r := api.API(http.MethodPatch, "/api/v1/accounts/"+acct.ID.String(), key, map[string]any{"name": "Renamed"})
		if r.Status == http.StatusOK {
			break
		}
		if r.Status != http.StatusServiceUnavailable || time.Now().After(deadline) {
			t.Fatalf("the rename once the database takes writes again: %d %.300s", r.Status, r.Body)
		}
		time.Sleep(200 * time.Millisecond)
	}
}
