package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"tally/internal/db"
	"tally/testkit"
)

// scaleSizes are the file sizes BenchmarkScale runs, from TALLY_BENCH_ROWS (a comma-separated
// list; `make bench-check` sets 20000) or every size of the matrix.
func scaleSizes(b *testing.B) []int {
	spec := os.Getenv("TALLY_BENCH_ROWS")
	if spec == "" {
		return []int{1_000, 20_000, 100_000, 245_000, 500_000}
	}
	var sizes []int
	for _, f := range strings.Split(spec, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			b.Fatalf("TALLY_BENCH_ROWS %q: %q is not a row count", spec, f)
		}
		sizes = append(sizes, n)
	}
	return sizes
}

// scaleShape is a file of n rows: the date, amount, name and note layout up to 245,000 rows,
// the compact date, amount and name one past it (so that 500,000 rows stay under 10 MB).
func scaleShape(n int) csvShape {
	shape := csvShapes[2]
	if n > shape.rows {
		shape = csvShapes[3]
	}
	shape.name, shape.rows = strconv.Itoa(n), n
	return shape
}

// The bounds of BenchmarkScale. A path's cost is taken over the bare COPY of the same rows in
// the same round, less what the same path costs for no rows at all (its floor: the request,
// the job's start, the answer), which is measured with an empty file in the same run. So a
// path that grows faster than its rows crosses its bound at any size, while one of a fixed
// cost does not.
var scaleBounds = map[string]float64{
	"publish":         2,   // upload with publish=true, to complete
	"publish+":        2,   // the publish of an import uploaded for review, to complete
	"browser publish": 2,   // the publish button of an import uploaded through the form, to complete
	"reimport":        2,   // the same file again, every row a duplicate, to complete
	"revert":          2,   // to pending again
	"delete":          2,   // of the reverted import with its staged rows
	"export":          2,   // the family's NDJSON export, streamed to the end
	"handback":        1.5, // a publish killed with SIGKILL, from its second start to complete, over the first
}

// scaleSlack multiplies every bound: 1 in `make bench`, and TALLY_BENCH_SLACK in `make
// bench-check`, which runs in CI on a shared machine where one round can take several times
// the next. With 2, a path that grows with the square of its rows still fails at 20,000 rows
// (it is then tens of times the COPY), while the noise of such a machine does not.
func scaleSlack(b *testing.B) float64 {
	v := os.Getenv("TALLY_BENCH_SLACK")
	if v == "" {
		return 1
	}
	f, err := strconv.ParseFloat(v, 64)
	if err != nil || f < 1 {
		b.Fatalf("TALLY_BENCH_SLACK %q must be a number of at least 1", v)
	}
	return f
}

// reviewOverPublish is the most an upload for review may take as a multiple of the publish of
// the same file: it does part of the publish's work.
const reviewOverPublish = 1.0

// BenchmarkScale is the scale matrix: for each size of scaleSizes, on a fresh database and on
// one that already holds an import of the same size, it times every path a client takes with
// a file (and a person's upload for review, through the upload form as a browser sends it),
// from its request to the answer it waits for, against a bare COPY of the same rows in
// the same round. It fails when a ratio passes its bound (scaleBounds, reviewOverPublish).
func BenchmarkScale(b *testing.B) {
	bin := buildBinary(b)
	for _, n := range scaleSizes(b) {
		for _, used := range []bool{false, true} {
			state := "fresh"
			if used {
				state = "used"
			}
			b.Run(fmt.Sprintf("%d/%s", n, state), func(b *testing.B) { benchScale(b, bin, n, used) })
		}
	}
}

// scaleRun is one size and state of the matrix, with its server and the timings of its rounds.
type scaleRun struct {
	b      *testing.B
	srv    *benchServer
	page   *testkit.Client
	acct   string
	times  map[string][]time.Duration
	floors map[string]time.Duration
}

func (r *scaleRun) time(path string, fn func()) {
	start := time.Now()
	fn()
	r.times[path] = append(r.times[path], time.Since(start))
}

func benchScale(b *testing.B, bin string, n int, used bool) {
	srv := newBenchServer(b, bin)
	r := &scaleRun{b: b, srv: srv, times: map[string][]time.Duration{}, floors: map[string]time.Duration{}}
	r.acct = testkit.MustCreateAccount(b, srv.d, srv.user.FamilyID, "Checking", "Depository", "").ID.String()
	r.page = testkit.NewClient(b, srv.base)
	r.page.SignIn(srv.user.Email, testkit.Password)
	shape := scaleShape(n)
	file := shape.csv()
	if used {
		// The two years before the file, as many rows, published: the staged rows' table and
		// entries have statistics, and none of them is the new file's. (A file over the same
		// days is the re-import's case.)
		earlier := shape
		earlier.line = func(i int) string {
			line := shape.line(i)
			return day(i).AddDate(-2, 0, 0).Format("2006-01-02") + line[len("2006-01-02"):]
		}
		waitStatus(b, srv.d, postImport(b, srv.base, srv.key, r.request(earlier.csv(), true)), "complete")
	}
	r.measureFloors(shape)
	bare := newBareCopy(b, srv.url, srv.user.FamilyID, shape)
	defer bare.close()

	b.ResetTimer()
	for range b.N {
		for range scaleRounds(n) {
			r.times["copy"] = append(r.times["copy"], bare.run(b))
			r.round(file, shape)
		}
	}
	r.handback(bin, file, shape)
	b.StopTimer()
	r.report(n, used)
}

// scaleRounds is how many rounds a size gets: medians of three where a round is quick, one
// round for the largest files.
func scaleRounds(n int) int {
	if n > 100_000 {
		return 1
	}
	return 3
}

func (r *scaleRun) request(csv string, publish bool) []byte {
	body, _ := json.Marshal(map[string]any{"raw_file_content": csv, "date_format": "%Y-%m-%d",
		"publish": strconv.FormatBool(publish), "account_id": r.acct})
	return body
}

// round takes the file through every path once, as a client does, and leaves the database as
// it found it.
func (r *scaleRun) round(file string, shape csvShape) {
	b, srv := r.b, r.srv
	var reviewed, again uuid.UUID
	testkit.Checkpoint(b)
	r.time("review", func() { reviewed = postImport(b, srv.base, srv.key, r.request(file, false)) })
	r.time("import page", func() { r.get("/imports/" + reviewed.String()) })
	testkit.Checkpoint(b)
	var browsed string
	r.time("browser review", func() { browsed = r.browserUpload(file) })
	// Then the person's publish button, to complete; the import goes again before the API's
	// reviewed import is published, so that its rows are not duplicates of these.
	browsedID := uuid.MustParse(strings.TrimPrefix(browsed, "/imports/"))
	testkit.Checkpoint(b)
	r.time("browser publish", func() {
		if resp := r.page.PostForm(browsed+"/publish", nil); resp.Status != http.StatusSeeOther {
			b.Fatalf("the publish button: %d %.300s", resp.Status, resp.Body)
		}
		waitStatus(b, srv.d, browsedID, "complete")
	})
	if _, entries := importStatus(b, srv.d, browsedID); entries != shape.rows {
		b.Fatalf("the browser's publish wrote %d entries, want %d", entries, shape.rows)
	}
	removeImport(b, srv.d, browsedID)
	r.time("rows page", func() { r.api(http.MethodGet, "/api/v1/imports/"+reviewed.String()+"/rows", http.StatusOK) })
	r.time("publish+", func() {
		r.api(http.MethodPost, "/api/v1/imports/"+reviewed.String()+"/publish", http.StatusAccepted)
		waitStatus(b, srv.d, reviewed, "complete")
	})
	if _, entries := importStatus(b, srv.d, reviewed); entries != shape.rows {
		b.Fatalf("the reviewed import published %d entries, want %d", entries, shape.rows)
	}
	testkit.Checkpoint(b)
	r.time("reimport", func() {
		again = postImport(b, srv.base, srv.key, r.request(file, true))
		waitStatus(b, srv.d, again, "complete")
	})
	if _, entries := importStatus(b, srv.d, again); entries != 0 {
		b.Fatalf("the same file again published %d entries, want none (every row a duplicate)", entries)
	}
	r.time("export", func() { r.export(shape.rows) })
	testkit.Checkpoint(b)
	r.time("revert", func() {
		r.api(http.MethodPost, "/api/v1/imports/"+reviewed.String()+"/revert", http.StatusAccepted)
		waitStatus(b, srv.d, reviewed, "pending")
	})
	r.time("delete", func() { r.api(http.MethodDelete, "/api/v1/imports/"+reviewed.String(), http.StatusNoContent) })
	removeImport(b, srv.d, again)
	testkit.Checkpoint(b)
	var published uuid.UUID
	r.time("publish", func() {
		published = postImport(b, srv.base, srv.key, r.request(file, true))
		waitStatus(b, srv.d, published, "complete")
	})
	removeImport(b, srv.d, published)
}

// measureFloors times the paths with a file of one row that is already in the ledger, so that
// each does its fixed work and no row's: the floor subtracted from the path before it is
// compared with the COPY.
func (r *scaleRun) measureFloors(shape csvShape) {
	one := shape
	one.rows = 1
	saved := r.times
	r.times = map[string][]time.Duration{}
	for range 3 {
		r.round(one.csv(), one)
	}
	for path, ds := range r.times {
		r.floors[path] = median(ds)
	}
	r.times = saved
}

// handback publishes the file through a server that is killed with SIGKILL midway, starts a
// new one, and times the publish it does once the job is handed back (from the second
// attempt's start to complete), to be compared with a first publish of the same import. The
// wait for the hand-back itself (the rescuer's, by design) is not counted. Files too small to
// be caught midway are left out, and TALLY_BENCH_HANDBACK=off leaves it out (`make
// bench-check`: the hand-back waits for the rescuer, about 15 s, and one attempt is noisy).
func (r *scaleRun) handback(bin, file string, shape csvShape) {
	b, srv := r.b, r.srv
	if shape.rows < 20_000 || os.Getenv("TALLY_BENCH_HANDBACK") == "off" {
		return
	}
	ctx := context.Background()
	id := postImport(b, srv.base, srv.key, r.request(file, false))
	r.api(http.MethodPost, "/api/v1/imports/"+id.String()+"/publish", http.StatusAccepted)
	for done := 0; done == 0; time.Sleep(time.Millisecond) {
		_ = srv.d.NewRaw("SELECT done FROM import_progress WHERE import_id = ?", id).Scan(ctx, &done)
		if status, _ := importStatus(b, srv.d, id); status == "complete" {
			b.Logf("the publish of %d rows ended before it could be caught; no hand-back measured", shape.rows)
			removeImport(b, srv.d, id)
			return
		}
	}
	kill(b, srv.process)
	var m []string
	srv.process, m = startProcess(b, bin, srv.url, regexp.MustCompile(`listening on (http://\S+)`), "serve")
	srv.base = m[1]
	r.page = r.page.At(srv.base)
	const job = "FROM river_job WHERE kind = 'import_publish' AND args->>'import_id' = ?"
	for {
		var attempt int
		if err := srv.d.NewRaw("SELECT attempt "+job, id.String()).Scan(ctx, &attempt); err != nil {
			b.Fatal(err)
		}
		if attempt >= 2 {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	waitStatus(b, srv.d, id, "complete")
	var secs float64
	if err := srv.d.NewRaw("SELECT extract(epoch FROM clock_timestamp() - attempted_at)::float8 "+job, id.String()).Scan(ctx, &secs); err != nil {
		b.Fatal(err)
	}
	took := time.Duration(secs * float64(time.Second))
	if _, entries := importStatus(b, srv.d, id); entries != shape.rows {
		b.Fatalf("the handed-back publish left %d entries, want %d", entries, shape.rows)
	}
	r.times["handback"] = []time.Duration{took}
	removeImport(b, srv.d, id)
}

// report prints every path's median and its ratios, and fails past a bound.
func (r *scaleRun) report(n int, used bool) {
	b := r.b
	slack := scaleSlack(b)
	cp := median(r.times["copy"])
	fmt.Printf("scale %d rows, %s database: bare COPY %s\n", n, map[bool]string{false: "fresh", true: "used"}[used], cp.Round(time.Millisecond))
	for _, path := range []string{"review", "browser review", "browser publish", "import page", "rows page", "publish", "publish+", "reimport", "export", "revert", "delete"} {
		ds, ok := r.times[path]
		if !ok {
			continue
		}
		m, floor := median(ds), r.floors[path]
		ratio := max(m-floor, 0).Seconds() / cp.Seconds() // a path as quick as its floor costs its rows nothing
		bound, bounded := scaleBounds[path]
		bound *= slack
		line := fmt.Sprintf("  %-14s %9s (floor %7s) %6.2fx the COPY", path, m.Round(time.Millisecond), floor.Round(time.Millisecond), ratio)
		if bounded {
			line += fmt.Sprintf(" (bound %.1fx)", bound)
		}
		fmt.Println(line + "  rounds " + rounded(ds))
		b.ReportMetric(ratio, strings.ReplaceAll(path, " ", "-")+"-x-copy")
		if bounded && ratio > bound {
			b.Errorf("%d rows, %s: %s took %s (%s over its floor), %.2fx the bare COPY's %s; the bound is %.1fx",
				n, map[bool]string{false: "fresh", true: "used"}[used], path, m.Round(time.Millisecond), (m - floor).Round(time.Millisecond), ratio, cp.Round(time.Millisecond), bound)
		}
	}
	if ds, ok := r.times["handback"]; ok {
		first := median(r.times["publish+"])
		ratio, bound := ds[0].Seconds()/first.Seconds(), scaleBounds["handback"]*slack
		fmt.Printf("  %-14s %9s, %.2fx the first publish of a reviewed import (%s; bound %.1fx)\n", "handback", ds[0].Round(time.Millisecond), ratio, first.Round(time.Millisecond), bound)
		b.ReportMetric(ratio, "handback-x-first")
		if ratio > bound {
			b.Errorf("%d rows: the handed-back publish took %s, %.2fx the first (%s); the bound is %.1fx", n, ds[0].Round(time.Millisecond), ratio, first.Round(time.Millisecond), bound)
		}
	}
	publish := median(r.times["publish"])
	for _, path := range []string{"review", "browser review"} {
		review := median(r.times[path])
		if ratio := review.Seconds() / publish.Seconds(); ratio > reviewOverPublish*slack {
			b.Errorf("%d rows: the %s took %s, %.2fx the publish of the same file (%s); the bound is %.1fx",
				n, path, review.Round(time.Millisecond), ratio, publish.Round(time.Millisecond), reviewOverPublish*slack)
		}
	}
}

// browserUpload is a person's upload for review: the upload form, the file sent with it as
// multipart, and the import's page the answer sends them to, with what was found. It returns
// that page's path.
func (r *scaleRun) browserUpload(file string) string {
	r.get("/imports/new")
	resp := r.page.PostFile("/imports", url.Values{"account_id": {r.acct}, "date_format": {"%Y-%m-%d"}}, "file", "statement.csv", []byte(file))
	if resp.Status != http.StatusSeeOther || !strings.HasPrefix(resp.Location(), "/imports/") {
		r.b.Fatalf("the browser's upload: %d to %q %.300s", resp.Status, resp.Location(), resp.Body)
	}
	r.get(resp.Location())
	return resp.Location()
}

// get fetches a page as the signed-in person and fails on anything but 200.
func (r *scaleRun) get(path string) {
	if resp := r.page.Get(path); resp.Status != http.StatusOK {
		r.b.Fatalf("GET %s: %d", path, resp.Status)
	}
}

// api sends a request with the family's key and fails unless it answers want.
func (r *scaleRun) api(method, path string, want int) {
	req, _ := http.NewRequest(method, r.srv.base+path, nil)
	req.Header.Set("X-Api-Key", r.srv.key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		r.b.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != want {
		r.b.Fatalf("%s %s: %d %.300s", method, path, resp.StatusCode, body)
	}
}

// export streams the family's export to the end and checks that it holds at least rows lines.
func (r *scaleRun) export(rows int) {
	req, _ := http.NewRequest(http.MethodGet, r.srv.base+"/api/v1/export", nil)
	req.Header.Set("X-Api-Key", r.srv.key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		r.b.Fatal(err)
	}
	defer resp.Body.Close()
	var lines int
	buf := make([]byte, 64<<10)
	for {
		n, err := resp.Body.Read(buf)
		lines += bytes.Count(buf[:n], []byte("\n"))
		if err == io.EOF {
			break
		}
		if err != nil {
			r.b.Fatalf("export: %v", err)
		}
	}
	if resp.StatusCode != http.StatusOK || lines < rows {
		r.b.Fatalf("export: %d with %d lines, want at least the %d transactions", resp.StatusCode, lines, rows)
	}
}

// waitStatus waits until the import has status, failing if it fails.
func waitStatus(b *testing.B, d *db.DB, id uuid.UUID, status string) {
	pollStatus(b, d, id, func(now string) bool {
		if now == "failed" {
			b.Fatalf("import %s failed", id)
		}
		return now == status
	})
}
