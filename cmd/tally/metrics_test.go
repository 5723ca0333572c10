package main

import (
	"context"
	"io"
	"net/http"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"tally/internal/db"
	"tally/models"
	"tally/testkit"
)

// TestMetricsOnTheirOwnListener runs `tally serve` with METRICS_ADDR: /metrics answers there,
// not on the public listener, and counts requests by route, a publish and its rows and the
// time of its phases, the database pool, the job queue and the Go runtime.
func TestMetricsOnTheirOwnListener(t *testing.T) {
	bin := buildBinary(t)
	url := testkit.DatabaseURL(t)
	d, err := db.Open(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	u := testkit.MustCreateUser(t, d, testkit.UserOpts{})
	key := testkit.MustCreateAPIKey(t, d, u.ID, models.ScopeReadWrite)
	acct := testkit.MustCreateAccount(t, d, u.FamilyID, "Checking", "Depository", "")
	app, logs := startServe(t, bin, []string{"PATH=" + os.Getenv("PATH"), "DATABASE_URL=" + url,
		"SECRET_KEY_BASE=" + strings.Repeat("s", 64), "LISTEN_ADDR=127.0.0.1:0", "METRICS_ADDR=127.0.0.1:0",
		"LOG_LEVEL=info", "LOG_FORMAT=text", noRates})
	var metricsURL string
	waitFor(t, 10*time.Second, "the metrics address in the log", func() bool {
		metricsURL = logs.find(regexp.MustCompile(`serving metrics" url=(\S+)`))
		return metricsURL != ""
	})
	call := func(method, u, body string) (int, string) {
		req, _ := http.NewRequest(method, u, strings.NewReader(body))
		req.Header.Set("X-Api-Key", key)
		req.Header.Set("Content-Type", "application/json")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res.StatusCode, string(b)
	}
	if _, body := call(http.MethodGet, app+"/metrics", ""); strings.Contains(body, "tally_http_requests_total") {
		t.Errorf("/metrics answers on the public listener")
	}
	call(http.MethodGet, app+"/api/v1/accounts", "")
	status, _ := call(http.MethodPost, app+"/api/v1/imports", `{"publish": true, "date_format": "%Y-%m-%d", "account_id": "`+acct.ID.String()+
		`", "raw_file_content": "date,amount,name\n2026-01-02,-3.50,Tea\n2026-01-03,-4,Cake\n"}`)
	if status != http.StatusCreated {
		t.Fatalf("create import: %d", status)
	}
	want := []string{
		`tally_http_requests_total{method="GET",route="/api/v1/accounts",status="200"} 1`,
		`tally_import_jobs_total{job="publish",outcome="ok",type="TransactionImport"} 1`,
		`tally_import_rows_published_total{type="TransactionImport"} 2`,
		`tally_job_duration_seconds_count{kind="import_publish",outcome="completed"} 1`,
		`tally_import_publish_phase_seconds_total{phase="entries"}`, `tally_import_publish_phase_seconds_total{phase="duplicates"}`,
		`tally_db_pool_connections{state="max"}`,
		`tally_http_request_duration_seconds_bucket{method="POST",route="/api/v1/imports"`,
		`go_goroutines`, `process_resident_memory_bytes`,
	}
	var body string
	waitFor(t, 30*time.Second, "the publish in the metrics", func() bool {
		_, body = call(http.MethodGet, metricsURL, "")
		return strings.Contains(body, want[1]) && strings.Contains(body, want[3])
	})
	for _, w := range want {
		if !strings.Contains(body, w) {
			t.Errorf("metrics lack %s", w)
		}
	}
}
