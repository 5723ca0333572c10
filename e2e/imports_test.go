package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"tally/app/apptest"
	"tally/models"
	"tally/testkit"
)

// importRows is how many rows the journey's file has: a few years of a busy account. The
// progress bar does not depend on it being large (see TestImportJourney); a revert's time
// grows with the square of it until entries.parent_id has an index, which is why it is not
// larger.
const importRows = 5_000

// TestImportJourney is the journey: upload a file through the API, watch the import
// page's progress bar run to the end, and revert the import from the page.
//
// The server starts without its job worker, so that the publish stays queued while the page
// is first looked at: the progress bar is then on screen every time, not only when the
// browser happens to be faster than the worker. The worker is started once the bar is seen.
func TestImportJourney(t *testing.T) {
	t.Parallel()
	ctx := newTab(t)
	srv := startServer(t, apptest.ServerOptions{NoWorker: true})
	u := testkit.MustCreateUser(t, srv.DB, testkit.UserOpts{})
	acct := testkit.MustCreateAccount(t, srv.DB, u.FamilyID, "Everyday checking", "Depository", "1000.00")
	key := testkit.MustCreateAPIKey(t, srv.DB, u.ID, models.ScopeReadWrite)
	var id string
	journey := t // the worker started mid-journey must outlive its step

	step(t, "sign in", func(t *testing.T) {
		signInAs(t, ctx, srv, u.Email)
		wantPath(t, ctx, "/")
	})

	step(t, "upload through the API", func(t *testing.T) {
		var csv strings.Builder
		csv.WriteString("date,amount,name,category\n")
		start := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
		for i := range importRows {
			fmt.Fprintf(&csv, "%s,-%d.%02d,Purchase %d,%s\n", start.AddDate(0, 0, i%1500).Format("2006-01-02"), 1+i%90, i%100, i, []string{"Groceries", "Transport", "Eating out"}[i%3])
		}
		status, body := apiPost(t, srv.URL+"/api/v1/imports", key, map[string]any{
			"raw_file_content": csv.String(), "date_format": "%Y-%m-%d", "account_id": acct.ID.String(), "publish": "true",
		})
		if status != http.StatusCreated {
			t.Fatalf("POST /api/v1/imports: %d %s", status, body)
		}
		var created struct {
			Data struct {
				ID     string `json:"id"`
				Status string `json:"status"`
			} `json:"data"`
		}
		if err := json.Unmarshal(body, &created); err != nil {
			t.Fatalf("decode %s: %v", body, err)
		}
		if created.Data.Status != "importing" {
			t.Fatalf("created import is %s, want importing", created.Data.Status)
		}
		id = created.Data.ID
	})

	step(t, "the list shows the import", func(t *testing.T) {
		clickNav(t, ctx, "imports")
		visible(t, ctx, "imports-table")
		wantPath(t, ctx, "/imports")
		if n := count(t, ctx, "import-row"); n != 1 {
			t.Fatalf("%d imports listed, want 1", n)
		}
		wantText(t, ctx, "import-row-status", "Importing")
		shot(t, ctx, "imports-list")
		click(t, ctx, "import-link")
		visible(t, ctx, "import-summary")
		wantPath(t, ctx, "/imports/"+id)
	})

	step(t, "watch the progress bar finish", func(t *testing.T) {
		visible(t, ctx, "progress")
		wantText(t, ctx, "import-status", "Importing")
		wantText(t, ctx, "progress-count", "0 of 5,000 rows")
		if max := attr(t, ctx, "progress", "aria-valuemax"); max != "5000" {
			t.Errorf("progress bar aria-valuemax %q, want 5000", max)
		}

		// The page polls: progress recorded by the job shows up without a reload.
		if _, err := srv.DB.NewRaw("INSERT INTO import_progress (import_id, done, total) VALUES (?, 2000, 5000)", id).Exec(context.Background()); err != nil {
			t.Fatalf("record progress: %v", err)
		}
		waitText(t, ctx, "progress-count", "2,000 of 5,000 rows", 10*time.Second)
		if now := attr(t, ctx, "progress", "aria-valuenow"); now != "2000" {
			t.Errorf("progress bar aria-valuenow %q, want 2000", now)
		}
		shot(t, ctx, "import-importing")

		// Now the worker may run: the page polls, sees the end and reloads itself.
		workCtx, stop := context.WithCancel(context.Background())
		if err := srv.Jobs.Start(workCtx); err != nil {
			t.Fatalf("start the job worker: %v", err)
		}
		journey.Cleanup(func() {
			stopCtx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			_ = srv.Jobs.Stop(stopCtx)
			stop()
		})
		waitText(t, ctx, "import-status", "Complete", time.Minute)
		if n := count(t, ctx, "import-progress"); n != 0 {
			t.Errorf("a complete import still shows its progress")
		}
		wantText(t, ctx, "stat-rows", "5,000")
		wantText(t, ctx, "stat-valid", "5,000")
		wantText(t, ctx, "stat-invalid", "0")
		wantText(t, ctx, "stat-mappings", "3")
		if n := count(t, ctx, "file-row"); n != 50 {
			t.Errorf("%d rows shown, want a page of 50", n)
		}
		if n := count(t, ctx, "import-mapping"); n != 3 {
			t.Errorf("%d mappings shown, want the 3 categories", n)
		}
		var entries int
		if err := srv.DB.NewRaw("SELECT count(*) FROM entries WHERE account_id = ? AND kind = 'transaction'", acct.ID).Scan(context.Background(), &entries); err != nil {
			t.Fatal(err)
		}
		if entries != importRows {
			t.Errorf("%d entries in the account, want %d", entries, importRows)
		}
		shot(t, ctx, "import-complete")
	})

	step(t, "revert from the page", func(t *testing.T) {
		click(t, ctx, "revert-import")
		visible(t, ctx, "confirm-revert")
		shot(t, ctx, "import-confirm-revert")
		click(t, ctx, "confirm-revert-submit")
		// The flash is on the page the form leads to; the reload at the end of the revert
		// shows the page afresh, without it.
		visible(t, ctx, "flash-success")
		waitText(t, ctx, "import-status", "Pending", time.Minute)
		wantPath(t, ctx, "/imports/"+id)
		visible(t, ctx, "publish-import")
		var entries int
		if err := srv.DB.NewRaw("SELECT count(*) FROM entries WHERE account_id = ? AND kind = 'transaction'", acct.ID).Scan(context.Background(), &entries); err != nil {
			t.Fatal(err)
		}
		if entries != 0 {
			t.Errorf("%d entries left after the revert", entries)
		}
	})
}

// waitText waits until the element with data-testid id shows want. It reads the page again
// and again rather than waiting on one DOM, because the page reloads itself on the way.
func waitText(t *testing.T, ctx context.Context, id, want string, timeout time.Duration) {
	t.Helper()
	js := fmt.Sprintf(`(document.querySelector(%q) || {}).textContent || ""`, string(testID(id)))
	deadline := time.Now().Add(timeout)
	var got string
	for time.Now().Before(deadline) {
		actx, cancel := context.WithTimeout(ctx, 5*time.Second)
		v, err := chromedp.Run(actx, chromedp.Evaluate[string](js))
		cancel()
		if err == nil {
			got = strings.TrimSpace(v)
			if got == want {
				return
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("%s shows %q after %s, want %q", id, got, timeout, want)
}

// attr returns an attribute of the element with data-testid id.
func attr(t *testing.T, ctx context.Context, id, name string) string {
	t.Helper()
	res := run(t, ctx, "read "+name+" of "+id, chromedp.AttributeValue(testID(id), name))
	return res.Value
}

// shot saves a screenshot of the window (what a person sees first) as TALLY_SCREENSHOTS/name.png when that variable
// names a directory, for a person to check the layout; otherwise it does nothing.
func shot(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	dir := os.Getenv("TALLY_SCREENSHOTS")
	if dir == "" {
		return
	}
	png := run(t, ctx, "screenshot", chromedp.CaptureScreenshot())
	file := filepath.Join(dir, name+".png")
	if err := os.WriteFile(file, png, 0o644); err != nil {
		t.Fatalf("save screenshot: %v", err)
	}
	t.Logf("screenshot %s", file)
}

// apiPost sends body as JSON to url with the API key, as a program would, and returns the
// status and the body.
func apiPost(t *testing.T, url, key string, body any) (int, []byte) {
	t.Helper()
	b, err := json.Marshal(body)
	if err != nil {
		t.Fatal(err)
	}
	req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader(b))
	if err != nil {
		t.Fatalf("new request: %v", err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Api-Key", key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("POST %s: %v", url, err)
	}
	defer resp.Body.Close()
	var out bytes.Buffer
	if _, err := out.ReadFrom(resp.Body); err != nil {
		t.Fatalf("read %s: %v", url, err)
	}
	return resp.StatusCode, out.Bytes()
}
