package main

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"tally/imports"
	"tally/internal/db"
	"tally/models"
	"tally/testkit"
)

// TestSeveralWebAndWorkerProcesses runs two `tally serve` and a `tally worker` on one
// database, as behind a load balancer: the worker is ready on its metrics listener as
// `tally healthcheck` sees it, a session made on one web process holds on the other (and its
// sign-out too), an API key's limit is counted across both, and imports created on either are
// each published exactly once, whichever process works them.
func TestSeveralWebAndWorkerProcesses(t *testing.T) {
	bin := buildBinary(t)
	url := testkit.DatabaseURL(t)
	ctx := context.Background()
	d, err := db.Open(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	const limit = 10
	env := func(extra ...string) []string {
		return append([]string{"PATH=" + os.Getenv("PATH"), "DATABASE_URL=" + url, "SECRET_KEY_BASE=" + strings.Repeat("s", 64),
			"LISTEN_ADDR=127.0.0.1:0", "LOG_LEVEL=info", "LOG_FORMAT=text", "API_RATE_LIMIT_PER_MINUTE=" + strconv.Itoa(limit), noRates}, extra...)
	}
	webs := []string{}
	for range 2 {
		app, _ := startServe(t, bin, env())
		webs = append(webs, app)
	}
	_, _, workerLogs := launch(t, bin, env("METRICS_ADDR=127.0.0.1:0"), "worker")

	t.Run("readiness", func(t *testing.T) {
		var probes string
		waitFor(t, 30*time.Second, "the worker's metrics listener in its log", func() bool {
			probes = workerLogs.find(regexp.MustCompile(`serving metrics" url=(\S+)/metrics`))
			return probes != ""
		})
		out, err := exec.Command(bin, "healthcheck", probes+"/readyz").CombinedOutput()
		if err != nil || !strings.Contains(string(out), `"jobs":"running"`) {
			t.Errorf("healthcheck of the worker: %v %s", err, out)
		}
		// With no URL it asks LISTEN_ADDR, as in a container whose web process listens there.
		hc := exec.Command(bin, "healthcheck")
		hc.Env = []string{"LISTEN_ADDR=" + strings.TrimPrefix(webs[0], "http://")}
		if out, err := hc.CombinedOutput(); err != nil || !strings.Contains(string(out), `"status":"ready"`) {
			t.Errorf("healthcheck of the web process: %v %s", err, out)
		}
		out, err = exec.Command(bin, "healthcheck", "http://127.0.0.1:1/readyz").CombinedOutput()
		if err == nil || !strings.Contains(string(out), "not ready") {
			t.Errorf("healthcheck of nothing: %v %s", err, out)
		}
	})

	t.Run("sessions", func(t *testing.T) {
		u := testkit.MustCreateUser(t, d, testkit.UserOpts{})
		first := testkit.NewClient(t, webs[0])
		first.SignIn(u.Email, testkit.Password)
		second := first.At(webs[1])
		if r := second.Get("/settings/profile"); r.Status != http.StatusOK || !strings.Contains(r.Body, u.Email) {
			t.Fatalf("the session from the first web process on the second: %d", r.Status)
		}
		if r := second.PostForm("/sign_out", nil); r.Status != http.StatusSeeOther {
			t.Fatalf("sign out on the second: %d", r.Status)
		}
		if r := first.Get("/settings/profile"); r.Status != http.StatusSeeOther || !strings.HasPrefix(r.Header.Get("Location"), "/sessions/new") {
			t.Fatalf("after signing out on the second, the first answers %d %s", r.Status, r.Header.Get("Location"))
		}
	})

	t.Run("limits", func(t *testing.T) {
		u := testkit.MustCreateUser(t, d, testkit.UserOpts{})
		key := testkit.MustCreateAPIKey(t, d, u.ID, models.ScopeRead)
		for i := range limit {
			r := testkit.NewClient(t, webs[i%2]).API(http.MethodGet, "/api/v1/accounts", key, nil)
			if r.Status != http.StatusOK || r.Header.Get("RateLimit-Remaining") != strconv.Itoa(limit-i-1) {
				t.Fatalf("request %d on web process %d: %d with %s remaining", i+1, i%2+1, r.Status, r.Header.Get("RateLimit-Remaining"))
			}
		}
		for i, web := range webs {
			if r := testkit.NewClient(t, web).API(http.MethodGet, "/api/v1/accounts", key, nil); r.Status != http.StatusTooManyRequests || r.Header.Get("Retry-After") == "" {
				t.Errorf("request past the limit on web process %d: %d", i+1, r.Status)
			}
		}
	})

	t.Run("publish once", func(t *testing.T) {
		u := testkit.MustCreateUser(t, d, testkit.UserOpts{})
		key := testkit.MustCreateAPIKey(t, d, u.ID, models.ScopeReadWrite)
		acct := testkit.MustCreateAccount(t, d, u.FamilyID, "Checking", "Depository", "")
		const files, rows = 6, 400
		var ids []uuid.UUID
		for f := range files {
			var csv strings.Builder
			csv.WriteString("date,amount,name\n")
			for r := range rows {
				// Each file's amounts of its own: equal dates and amounts under other names
				// would be likely duplicates of the files published before.
				fmt.Fprintf(&csv, "2026-%02d-%02d,-%d.%02d,File %d row %d\n", 1+r%12, 1+r%28, 100*(f+1)+r%90, r%100, f, r)
			}
			res := testkit.NewClient(t, webs[f%2]).API(http.MethodPost, "/api/v1/imports", key, map[string]any{
				"publish": true, "date_format": "%Y-%m-%d", "account_id": acct.ID, "raw_file_content": csv.String()})
			if res.Status != http.StatusCreated {
				t.Fatalf("create import %d: %d %s", f+1, res.Status, res.Body)
			}
			var body struct {
				Data struct{ ID uuid.UUID } `json:"data"`
			}
			res.JSON(t, &body)
			ids = append(ids, body.Data.ID)
		}
		for i, id := range ids {
			if testing.Verbose() {
				var rows []map[string]any
				_ = d.NewRaw("SELECT i.status, i.error, j.state, j.attempt, j.errors::text FROM imports i LEFT JOIN river_job j ON j.args->>'import_id' = i.id::text WHERE i.id = ?", id).Scan(ctx, &rows)
				t.Logf("import %d: %v", i+1, rows)
				if i == 1 {
					time.Sleep(5 * time.Second)
					var act []map[string]any
					_ = d.NewRaw("SELECT application_name, state, wait_event_type, wait_event, left(query, 200) AS q, now() - xact_start AS age FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()").Scan(ctx, &act)
					for _, a := range act {
						t.Logf("%v", a)
					}
				}
			}
			waitFor(t, 60*time.Second, fmt.Sprintf("import %d published", i+1), func() bool {
				status, _ := importStatus(t, d, id)
				if status == imports.StatusFailed {
					t.Fatalf("import %d failed", i+1)
				}
				return status == imports.StatusComplete
			})
			if _, entries := importStatus(t, d, id); entries != rows {
				t.Errorf("import %d has %d entries, want exactly %d", i+1, entries, rows)
			}
		}
		var total, jobs int
		if err := d.NewRaw("SELECT count(*) FROM entries e JOIN accounts a ON a.id = e.account_id WHERE a.family_id = ? AND e.import_id IS NOT NULL", u.FamilyID).Scan(ctx, &total); err != nil || total != files*rows {
			t.Errorf("the family has %d imported entries (err %v), want %d", total, err, files*rows)
		}
		if err := d.NewRaw("SELECT count(*) FROM river_job WHERE kind = 'import_publish' AND args->>'import_id' IN (?)", bun.In(idStrings(ids))).Scan(ctx, &jobs); err != nil || jobs != files {
			t.Errorf("%d publish jobs (err %v), want one per import", jobs, err)
		}
	})
}

func idStrings(ids []uuid.UUID) []string {
	s := make([]string, len(ids))
	for i, id := range ids {
		s[i] = id.String()
	}
	return s
}
