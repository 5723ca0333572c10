package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/shopspring/decimal"

	"tally/internal/benchstat"
	"tally/internal/db"
	"tally/internal/scalefile"
	"tally/merchants"
	"tally/models"
	"tally/testkit"
)

// csvShape is a 10 MB transaction file of one layout: its rows as CSV, and the same rows as
// the entries columns a bare COPY writes.
type csvShape struct {
	name       string
	header     string
	rows       int
	dateFormat string // "" is %Y-%m-%d
	line       func(i int) string
	// columns and values are the entries columns the rows fill, for the bare COPY; ref holds
	// the family's categories and tags when the shape uses them.
	columns []string
	values  func(i int, ref copyRefs) []any
	// transfers is how many transfers the publish proposes between the file's accounts.
	transfers int
}

type copyRefs struct {
	categories []pgtype.UUID
	tags       [][16]byte
}

func day(i int) time.Time { return time.Date(2023, 1, 1, 0, 0, 0, 0, time.UTC).AddDate(0, 0, i%700) }

// The layouts: a full file with categories, tags and two accounts (about 136,000 rows), one of
// two accounts with a transfer between them in every ten rows (230,000 rows), a file of date,
// amount, name and a note (245,000 rows), a compact one of date, amount and name (500,000
// rows), and the densest a 10 MB file can be, a short date and an amount (1,150,000 rows).
// Each is just under 10 MB.
var csvShapes = []csvShape{
	{name: "categorised", header: "date,amount,name,category,tags,account,notes\n", rows: 135_796,
		line: func(i int) string {
			return fmt.Sprintf("%s,-%d.%02d,Merchant %d,Category %d,tag%d|weekly,%s,Note %d\n",
				day(i).Format("2006-01-02"), 1+i%500, i%100, i%1000, i%20, i%7, []string{"Checking", "Credit Card"}[i%2], i)
		},
		columns: []string{"date", "amount", "name", "notes", "category_id", "tag_ids"},
		values: func(i int, r copyRefs) []any {
			return []any{day(i), -float64(100*(1+i%500)+i%100) / 100, fmt.Sprintf("Merchant %d", i%1000), fmt.Sprintf("Note %d", i),
				r.categories[i%20], [][16]byte{r.tags[i%7], r.tags[7]}}
		}},
	{name: "transfers", header: "date,amount,name,account\n", rows: 230_000, transfers: 23_000,
		line:    func(i int) string { return transferLine(i) },
		columns: []string{"date", "amount", "name"},
		values: func(i int, _ copyRefs) []any {
			date, cents, name, _ := transferRow(i)
			return []any{date, float64(cents) / 100, name}
		}},
	{name: "245k", header: scalefile.Header, rows: 245_000, line: scalefile.Line, // cmd/benchcompare's file too
		columns: []string{"date", "amount", "name", "notes"},
		values: func(i int, _ copyRefs) []any {
			return []any{scalefile.Day(i), float64(scalefile.Cents(i)) / 100, scalefile.Merchant(i), scalefile.Note(i)}
		}},
	{name: "500k", header: "date,amount,name\n", rows: 500_000,
		line:    func(i int) string { return fmt.Sprintf("%s,-%d,M%d\n", day(i).Format("2006-01-02"), 1+i%90, i%100) },
		columns: []string{"date", "amount", "name", "notes"},
		values: func(i int, _ copyRefs) []any {
			return []any{day(i), -float64(1 + i%90), fmt.Sprintf("M%d", i%100), ""}
		}},
	{name: "densest", header: "date,amount\n", rows: 1_150_000, dateFormat: "%y%m%d",
		line:    func(i int) string { return fmt.Sprintf("%s,%d\n", day(i).Format("060102"), 1+i%9) },
		columns: []string{"date", "amount", "name", "notes"},
		values: func(i int, _ copyRefs) []any {
			return []any{day(i), float64(1 + i%9), "Imported item", ""}
		}},
}

// transferRow is row i of the transfers layout, in groups of ten rows: the first two a
// transfer, the money leaving Checking and arriving in Savings on the same day, each of its
// own amount, and the other eight spending in either account, none the opposite of another.
func transferRow(i int) (date time.Time, cents int, name, account string) {
	group := i / 10
	account = []string{"Checking", "Savings"}[i%2]
	switch i % 10 {
	case 0:
		return day(group), -(100 + group), fmt.Sprintf("Transfer %d", group), account
	case 1:
		return day(group), 100 + group, fmt.Sprintf("Transfer %d", group), account
	}
	return day(group), -(1_000_000 + i), fmt.Sprintf("Merchant %d", i%1000), account
}

func transferLine(i int) string {
	date, cents, name, account := transferRow(i)
	return fmt.Sprintf("%s,%s,%s,%s\n", date.Format("2006-01-02"), decimal.New(int64(cents), -2).StringFixed(2), name, account)
}

func (s csvShape) csv() string {
	var b strings.Builder
	b.WriteString(s.header)
	for i := range s.rows {
		b.WriteString(s.line(i))
	}
	return b.String()
}

// BenchmarkImportPublish measures a 10 MB TransactionImport through the real server, from
// POST to complete as a client sees it, against the physical limit of the same work: the
// faithful floor, a COPY of the same rows into a clone of entries with all its indexes,
// generated columns, triggers and foreign keys (bareCopy), in the same run. It reports the
// ratio, rows per second and the server's peak memory, for each layout of csvShapes, and fails
// past publishFileBound or past peakBoundMB.
func BenchmarkImportPublish(b *testing.B) {
	bin := buildBinary(b)
	for _, shape := range csvShapes {
		b.Run(shape.name, func(b *testing.B) { benchPublish(b, bin, shape) })
	}
}

// publishFileBound is the most a 10 MB file's publish may take over its floor, whatever its
// layout: the transfer-heavy one (a transfer in every ten rows, each proposed by the publish)
// takes the longest.
const publishFileBound = 2.0

// publishRounds is how many times each shape is published, each time after a bare COPY of
// the same rows: the medians of the two are compared, so that one slow moment of a shared
// machine moves neither.
const publishRounds = 3

// benchServer is what a benchmark through the real server needs: a fresh database, a
// family's user with an API key that can write, and `tally serve` on that database.
type benchServer struct {
	url, base, key string
	metrics        string // the server's /metrics
	d              *db.DB
	user           *models.User
	process        *exec.Cmd
}

func newBenchServer(b *testing.B, bin string) *benchServer {
	url := testkit.DatabaseURL(b)
	d, err := db.Open(context.Background(), url)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(d.Close)
	u := testkit.MustCreateUser(b, d, testkit.UserOpts{})
	// The metrics' port is found free, then given to the server, which logs its listeners
	// only at the info level.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	metricsAddr := ln.Addr().String()
	ln.Close()
	process, m := startProcessWith(b, bin, url, []string{"METRICS_ADDR=" + metricsAddr}, regexp.MustCompile(`listening on (http://\S+)`), "serve")
	return &benchServer{url: url, base: m[1], metrics: "http://" + metricsAddr + "/metrics",
		key: testkit.MustCreateAPIKey(b, d, u.ID, models.ScopeReadWrite), d: d, user: u, process: process}
}

// publishMetric is a line of the server's metrics about publishes: the time of a phase, or
// the sum and count of the publish jobs' times.
var publishMetric = regexp.MustCompile(`(?m)^(?:tally_import_publish_phase_seconds_total\{phase="([\w ]+)"\}|` +
	`tally_import_job_duration_seconds_(sum|count)\{job="publish",type="TransactionImport"\}) (\S+)$`)

// publishMetrics reads the server's publish metrics, once it has counted at least jobs
// publish jobs (a job is counted just after it commits): each phase's seconds by its name,
// the jobs' seconds as "job" and their count as "jobs".
func (s *benchServer) publishMetrics(b *testing.B, jobs float64) map[string]float64 {
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		resp, err := http.Get(s.metrics)
		if err != nil {
			b.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		out := map[string]float64{}
		for _, m := range publishMetric.FindAllStringSubmatch(string(body), -1) {
			v, _ := strconv.ParseFloat(m[3], 64)
			out[map[string]string{"": m[1], "sum": "job", "count": "jobs"}[m[2]]] = v
		}
		if out["jobs"] >= jobs {
			return out
		}
		if time.Now().After(deadline) {
			b.Fatalf("the server's metrics count %.0f publishes, want %.0f", out["jobs"], jobs)
		}
	}
}

func benchPublish(b *testing.B, bin string, shape csvShape) {
	csv := shape.csv()
	if len(csv) > 10*1024*1024 {
		b.Fatalf("the %s file is %d bytes, over the 10 MB limit", shape.name, len(csv))
	}
	srv := newBenchServer(b, bin)
	d, u := srv.d, srv.user
	dateFormat := shape.dateFormat
	if dateFormat == "" {
		dateFormat = "%Y-%m-%d"
	}
	request := map[string]any{"raw_file_content": csv, "date_format": dateFormat, "publish": "true"}
	if !strings.Contains(shape.header, "account") {
		request["account_id"] = testkit.MustCreateAccount(b, d, u.FamilyID, "Checking", "Depository", "").ID.String()
	}
	body, _ := json.Marshal(request)
	bare := newBareCopy(b, srv.url, u.FamilyID, shape)
	defer bare.close()

	b.ResetTimer()
	var copies, publishes []time.Duration
	for range b.N {
		for range publishRounds {
			copies = append(copies, bare.run(b))
			publishes = append(publishes, publishOnceThen(b, d, srv.base, srv.key, body, shape, func(id uuid.UUID) {
				var n int
				if err := d.NewRaw(`SELECT count(*) FROM transfers t JOIN entries e ON e.id = t.inflow_entry_id WHERE e.import_id = ?`, id).Scan(context.Background(), &n); err != nil {
					b.Fatal(err)
				}
				if n != shape.transfers {
					b.Fatalf("%d transfers proposed, want %d", n, shape.transfers)
				}
			}))
		}
	}
	b.StopTimer()
	per, copyTime := benchstat.Median(publishes), benchstat.Median(copies)
	peak := peakRSS(b, srv.process.Process.Pid)
	b.ReportMetric(float64(shape.rows)/per.Seconds(), "rows/s")
	b.ReportMetric(per.Seconds()/copyTime.Seconds(), "x-copy")
	b.ReportMetric(float64(peak)/1024, "peak-rss-MB")
	ratio, bound := per.Seconds()/copyTime.Seconds(), publishFileBound
	fmt.Printf("import publish (%s): %d rows (%.1f MB) in %s, %.0f rows/s; bare COPY %s; ratio %.2fx (bound %.1fx; medians of %d rounds, publishes %s, copies %s); server peak RSS %d MB (bound %d MB)\n",
		shape.name, shape.rows, float64(len(csv))/1024/1024, per.Round(time.Millisecond), float64(shape.rows)/per.Seconds(),
		copyTime.Round(time.Millisecond), ratio, bound, len(publishes), rounded(publishes), rounded(copies), peak/1024, peakBoundMB)
	if ratio > bound {
		b.Errorf("the %s file's publish took %s, %.2fx the bare COPY's %s; the bound is %.1fx", shape.name, per.Round(time.Millisecond), ratio, copyTime.Round(time.Millisecond), bound)
	}
	if peak/1024 > peakBoundMB {
		b.Errorf("the server peaked at %d MB publishing the %s file; the bound is %d MB", peak/1024, shape.name, peakBoundMB)
	}
}

// peakBoundMB is the most memory the server may take for one file of the import size limit.
const peakBoundMB = 300

// publishOnce uploads the file with publish=true and waits until the import is complete, as a
// client does; it then takes the import away again, outside the measurement.
func publishOnce(b *testing.B, d *db.DB, base, key string, body []byte, shape csvShape) time.Duration {
	return publishOnceThen(b, d, base, key, body, shape, nil)
}

// publishOnceThen is publishOnce, with a look at the published import (inspect) before it is
// taken away.
func publishOnceThen(b *testing.B, d *db.DB, base, key string, body []byte, shape csvShape, inspect func(uuid.UUID)) time.Duration {
	testkit.Checkpoint(b)
	start := time.Now()
	id := postImport(b, base, key, body)
	waitComplete(b, d, id)
	elapsed := time.Since(start)
	if _, n := importStatus(b, d, id); n != shape.rows {
		b.Fatalf("%d entries, want %d", n, shape.rows)
	}
	if inspect != nil {
		inspect(id)
	}
	removeImport(b, d, id)
	return elapsed
}

// postImport sends an import request to the server and returns the new import's id.
func postImport(b *testing.B, base, key string, body []byte) uuid.UUID {
	return postImportAs(b, base, key, body, "application/json")
}

// postImportAs is postImport of a body of contentType (a multipart upload's).
func postImportAs(b *testing.B, base, key string, body []byte, contentType string) uuid.UUID {
	req, _ := http.NewRequest(http.MethodPost, base+"/api/v1/imports", bytes.NewReader(body))
	req.Header.Set("Content-Type", contentType)
	req.Header.Set("X-Api-Key", key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	var created struct {
		Data  struct{ ID, Status string }
		Error string
	}
	json.NewDecoder(resp.Body).Decode(&created)
	resp.Body.Close()
	if resp.StatusCode != http.StatusCreated {
		b.Fatalf("create: %d %s", resp.StatusCode, created.Error)
	}
	return uuid.MustParse(created.Data.ID)
}

// waitComplete waits until the import's publish is complete, as a client does, failing if it
// ends otherwise.
func waitComplete(b *testing.B, d *db.DB, id uuid.UUID) {
	pollStatus(b, d, id, func(status string) bool {
		if status != "complete" && status != "importing" {
			b.Fatalf("import ended %s", status)
		}
		return status == "complete"
	})
}

// pollStatus reads the import's status until done says it is what the caller waits for.
func pollStatus(b *testing.B, d *db.DB, id uuid.UUID, done func(status string) bool) {
	// Poll the status alone: counting the import's entries while the publish writes them
	// would scan every uncommitted row, and load the machine the publish runs on.
	for {
		var status string
		if err := d.NewRaw("SELECT status FROM imports WHERE id = ?", id).Scan(context.Background(), &status); err != nil {
			b.Fatal(err)
		}
		if done(status) {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// removeImport takes the import and its entries away again, outside the measurement.
func removeImport(b *testing.B, d *db.DB, id uuid.UUID) {
	// Gone for the next round, with the space they took made free again, as the bare COPY's
	// table is new each round.
	for _, q := range []string{"DELETE FROM entries WHERE import_id = ?", "DELETE FROM imports WHERE id = ?", "VACUUM entries, import_rows, imports"} {
		if _, err := d.NewRaw(q, id).Exec(context.Background()); err != nil {
			b.Fatalf("%s: %v", q, err)
		}
	}
}

// bareCopy is the physical limit of a publish, its faithful floor: COPY of the shape's rows
// into a clone of entries (cloneEntries: its columns, generated columns, checks, indexes,
// foreign keys and triggers), each row as the publish writes it, with the ids of its
// category, tags and merchant.
type bareCopy struct {
	conn    *pgx.Conn
	columns []string
	data    [][]any
}

func newBareCopy(b *testing.B, url string, familyID uuid.UUID, shape csvShape) *bareCopy {
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		b.Fatal(err)
	}
	var acct pgtype.UUID
	if err := conn.QueryRow(ctx, `INSERT INTO accounts (id, family_id, name, accountable_type, currency)
		VALUES (gen_random_uuid(), $1, 'Copy target', 'Depository', 'USD') RETURNING id`, familyID).Scan(&acct); err != nil {
		b.Fatal(err)
	}
	var refs copyRefs
	refs.categories = make([]pgtype.UUID, 20)
	for i := range refs.categories {
		if err := conn.QueryRow(ctx, `INSERT INTO categories (id, family_id, name) VALUES (gen_random_uuid(), $1, $2) RETURNING id`,
			familyID, fmt.Sprintf("Copy category %d", i)).Scan(&refs.categories[i]); err != nil {
			b.Fatal(err)
		}
	}
	refs.tags = make([][16]byte, 8)
	for i := range refs.tags {
		refs.tags[i] = uuid.New()
	}
	fam := pgtype.UUID{Bytes: familyID, Valid: true}
	// The entries an import writes carry its id and source, and so index them: so do these.
	importID := pgtype.UUID{Bytes: uuid.New(), Valid: true}
	c := &bareCopy{conn: conn, columns: append([]string{"id", "family_id", "account_id", "kind", "currency", "import_id", "source"}, shape.columns...)}
	c.columns = append(c.columns, "merchant_id")
	name := slices.Index(shape.columns, "name")
	merchants := map[string]pgtype.UUID{}
	c.data = make([][]any, shape.rows)
	for i := range c.data {
		id, _ := uuid.NewV7()
		row := append([]any{pgtype.UUID{Bytes: id, Valid: true}, fam, acct, "transaction", "USD", importID, "import"}, shape.values(i, refs)...)
		c.data[i] = append(row, merchantOf(b, conn, familyID, merchants, row[7+name].(string)))
	}
	return c
}

// merchantOf is the merchant a publish gives a row of the bank text text (merchants.Name),
// created in the family on first sight, as the publish creates it; none where the text names
// nobody. The bare COPY writes it, as the publish does: an entry with a merchant is one more
// foreign key to check and one more index to write, which the rows cost however they arrive.
func merchantOf(b *testing.B, conn *pgx.Conn, familyID uuid.UUID, known map[string]pgtype.UUID, text string) pgtype.UUID {
	m := merchants.Name(text)
	if m == "" {
		return pgtype.UUID{}
	}
	id, ok := known[m]
	if !ok {
		if err := conn.QueryRow(context.Background(), `INSERT INTO merchants (id, family_id, name) VALUES (gen_random_uuid(), $1, $2) RETURNING id`, familyID, "Copy "+m).Scan(&id); err != nil {
			b.Fatalf("merchant %q: %v", m, err)
		}
		known[m] = id
	}
	return id
}

// run times one COPY into a new clone of entries with all its parts (the faithful floor),
// which is dropped afterwards.
func (c *bareCopy) run(b *testing.B) time.Duration { return c.runWithout(b, entriesParts{}) }

// runWithout times one COPY into a new clone of entries without the parts named in without.
func (c *bareCopy) runWithout(b *testing.B, without entriesParts) time.Duration {
	ctx := context.Background()
	if err := cloneEntries(ctx, c.conn, "copy_entries", without); err != nil {
		b.Fatal(err)
	}
	testkit.Checkpoint(b)
	start := time.Now()
	if _, err := c.conn.CopyFrom(ctx, pgx.Identifier{"copy_entries"}, c.columns, pgx.CopyFromRows(c.data)); err != nil {
		b.Fatal(err)
	}
	elapsed := time.Since(start)
	// Gone before the import is measured, so that autovacuum does not spend its time on it.
	// (What its triggers added to the month and category totals stays: no path reads them.)
	if _, err := c.conn.Exec(ctx, `DROP TABLE copy_entries`); err != nil {
		b.Fatal(err)
	}
	return elapsed
}

func (c *bareCopy) close() { c.conn.Close(context.Background()) }

// rounded lists ds to the millisecond.
func rounded(ds []time.Duration) string {
	out := make([]string, len(ds))
	for i, d := range ds {
		out[i] = d.Round(time.Millisecond).String()
	}
	return strings.Join(out, " ")
}

// peakRSS reads a process's peak resident memory in KB.
func peakRSS(b *testing.B, pid int) int {
	s, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		b.Fatal(err)
	}
	for _, line := range strings.Split(string(s), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "VmHWM:" {
			n, _ := strconv.Atoi(f[1])
			return n
		}
	}
	return 0
}

// BenchmarkPublishWithRules publishes the 245,000-row file through the real server with no
// rules and with 200 (name conditions of every operator, some with an amount too, setting
// categories, tags and names), in alternating rounds, and reports the ratio of their medians.
func BenchmarkPublishWithRules(b *testing.B) {
	bin := buildBinary(b)
	shape := csvShapes[1]
	ctx := context.Background()
	srv := newBenchServer(b, bin)
	d, u := srv.d, srv.user
	acct := testkit.MustCreateAccount(b, d, u.FamilyID, "Checking", "Depository", "")
	body, _ := json.Marshal(map[string]any{"raw_file_content": shape.csv(), "date_format": "%Y-%m-%d", "publish": "true", "account_id": acct.ID.String()})

	var categories, tags []string
	for i := range 20 {
		id := uuid.Must(uuid.NewV7()).String()
		categories = append(categories, id)
		if _, err := d.NewRaw("INSERT INTO categories (id, family_id, name) VALUES (?, ?, ?)", id, u.FamilyID, fmt.Sprintf("Category %d", i)).Exec(ctx); err != nil {
			b.Fatal(err)
		}
		id = uuid.Must(uuid.NewV7()).String()
		tags = append(tags, id)
		if _, err := d.NewRaw("INSERT INTO tags (id, family_id, name) VALUES (?, ?, ?)", id, u.FamilyID, fmt.Sprintf("tag %d", i)).Exec(ctx); err != nil {
			b.Fatal(err)
		}
	}
	addRules := func() {
		for k := range 200 {
			merchant := fmt.Sprintf("merchant %d", k*5)
			cond := []map[string]any{
				{"condition_type": "transaction_name", "operator": "like", "value": merchant},
				{"condition_type": "transaction_name", "operator": "starts_with", "value": merchant},
				{"condition_type": "transaction_name", "operator": "=", "value": merchant},
				{"condition_type": "transaction_name", "operator": "matches", "value": "^" + merchant + "$"},
			}[k%4 : k%4+1]
			if k%3 == 0 {
				cond = append(cond, map[string]any{"condition_type": "transaction_amount", "operator": ">", "value": "10"})
			}
			actions := []map[string]any{{"action_type": "set_transaction_category", "value": categories[k%20]}}
			if k%5 == 0 {
				actions = append(actions, map[string]any{"action_type": "set_transaction_tags", "value": tags[k%20]})
			}
			if k%7 == 0 {
				actions = append(actions, map[string]any{"action_type": "set_transaction_name", "value": fmt.Sprintf("Shop %d", k)})
			}
			cj, _ := json.Marshal(cond)
			aj, _ := json.Marshal(actions)
			if _, err := d.NewRaw("INSERT INTO rules (id, family_id, name, active, position, conditions, actions) VALUES (?, ?, ?, true, ?, ?, ?)",
				uuid.Must(uuid.NewV7()), u.FamilyID, fmt.Sprintf("Rule %d", k), k, string(cj), string(aj)).Exec(ctx); err != nil {
				b.Fatal(err)
			}
		}
	}
	changedBy := func(id uuid.UUID) int {
		var n int
		if err := d.NewRaw("SELECT count(*) FROM entries WHERE import_id = ? AND category_id IS NOT NULL", id).Scan(ctx, &n); err != nil {
			b.Fatal(err)
		}
		return n
	}

	b.ResetTimer()
	var plain, ruled []time.Duration
	var categorised int
	for range b.N {
		for range publishRounds {
			if _, err := d.NewRaw("DELETE FROM rules WHERE family_id = ?", u.FamilyID).Exec(ctx); err != nil {
				b.Fatal(err)
			}
			plain = append(plain, publishOnce(b, d, srv.base, srv.key, body, shape))
			addRules()
			ruled = append(ruled, publishOnceThen(b, d, srv.base, srv.key, body, shape, func(id uuid.UUID) { categorised = changedBy(id) }))
		}
	}
	b.StopTimer()
	if categorised == 0 {
		b.Fatal("the rules categorised nothing")
	}
	ratio := benchstat.Median(ruled).Seconds() / benchstat.Median(plain).Seconds()
	b.ReportMetric(ratio, "x-no-rules")
	fmt.Printf("publish with 200 rules (245k): %s against %s without; ratio %.2fx (target <= 1.3x; medians of %d rounds, with %s, without %s); %d of %d rows categorised by the rules\n",
		benchstat.Median(ruled).Round(time.Millisecond), benchstat.Median(plain).Round(time.Millisecond), ratio, len(ruled), rounded(ruled), rounded(plain), categorised, shape.rows)
}
