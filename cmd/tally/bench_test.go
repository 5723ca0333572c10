package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"

	"tally/internal/db"
	"tally/internal/testkit"
	"tally/models"
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
}

type copyRefs struct {
	categories []pgtype.UUID
	tags       [][16]byte
}

func day(i int) time.Time { return time.Date(2023, 1, 1, 0, 0, 0, 0, time.UTC).AddDate(0, 0, i%700) }

// The layouts: a full file with categories, tags and two accounts (about 136,000 rows), a file
// of date, amount, name and a note (245,000 rows), a compact one of date, amount and name
// (500,000 rows), and the densest a 10 MB file can be, a short date and an amount (1,150,000
// rows). Each is just under 10 MB.
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
	{name: "245k", header: "date,amount,name,notes\n", rows: 245_000,
		line: func(i int) string {
			return fmt.Sprintf("%s,-%d.%02d,Merchant %d,N%d\n", day(i).Format("2006-01-02"), 1+i%500, i%100, i%1000, i)
		},
		columns: []string{"date", "amount", "name", "notes"},
		values: func(i int, _ copyRefs) []any {
			return []any{day(i), -float64(100*(1+i%500)+i%100) / 100, fmt.Sprintf("Merchant %d", i%1000), fmt.Sprintf("N%d", i)}
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

func (s csvShape) csv() string {
	var b strings.Builder
	b.WriteString(s.header)
	for i := range s.rows {
		b.WriteString(s.line(i))
	}
	return b.String()
}

// BenchmarkImportPublish measures a 10 MB TransactionImport through the real server, from
// POST to complete as a client sees it, against the physical limit of the same work: a bare
// COPY of the same rows into a table shaped like entries, with its indexes, checks and foreign
// keys, in the same run. It reports the ratio, rows per second and the server's peak memory,
// for each layout of csvShapes.
func BenchmarkImportPublish(b *testing.B) {
	bin := buildBinary(b)
	for _, shape := range csvShapes {
		b.Run(shape.name, func(b *testing.B) { benchPublish(b, bin, shape) })
	}
}

func benchPublish(b *testing.B, bin string, shape csvShape) {
	url := testkit.DatabaseURL(b)
	d, err := db.Open(context.Background(), url)
	if err != nil {
		b.Fatal(err)
	}
	defer d.Close()
	u := testkit.MustCreateUser(b, d, testkit.UserOpts{})
	key := testkit.MustCreateAPIKey(b, d, u.ID, models.ScopeReadWrite)
	csv := shape.csv()
	if len(csv) > 10*1024*1024 {
		b.Fatalf("the %s file is %d bytes, over the 10 MB limit", shape.name, len(csv))
	}
	server, m := startProcess(b, bin, url, regexp.MustCompile(`listening on (http://\S+)`), "serve")
	base := m[1]
	copyTime := bareCopy(b, url, u.FamilyID, shape)
	dateFormat := shape.dateFormat
	if dateFormat == "" {
		dateFormat = "%Y-%m-%d"
	}
	request := map[string]any{"raw_file_content": csv, "date_format": dateFormat, "publish": "true"}
	if !strings.Contains(shape.header, "account") {
		request["account_id"] = testkit.MustCreateAccount(b, d, u.FamilyID, "Checking", "Depository", "0").ID.String()
	}

	b.ResetTimer()
	var elapsed time.Duration
	for range b.N {
		body, _ := json.Marshal(request)
		start := time.Now()
		req, _ := http.NewRequest(http.MethodPost, base+"/api/v1/imports", bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
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
		id := uuid.MustParse(created.Data.ID)
		// Poll the status alone: counting the import's entries while the publish writes them
		// would scan every uncommitted row, and load the machine the publish runs on.
		for {
			var status string
			if err := d.NewRaw("SELECT status FROM imports WHERE id = ?", id).Scan(context.Background(), &status); err != nil {
				b.Fatal(err)
			}
			if status == "complete" {
				break
			}
			if status != "importing" {
				b.Fatalf("import ended %s", status)
			}
			time.Sleep(5 * time.Millisecond)
		}
		elapsed += time.Since(start)
		b.StopTimer()
		if _, n := importStatus(b, d, id); n != shape.rows {
			b.Fatalf("%d entries, want %d", n, shape.rows)
		}
		// Revert for the next round, outside the measurement.
		d.NewRaw("DELETE FROM entries WHERE import_id = ?", id).Exec(context.Background())
		b.StartTimer()
	}
	per := elapsed / time.Duration(b.N)
	peak := peakRSS(b, server.Process.Pid)
	b.ReportMetric(float64(shape.rows)/per.Seconds(), "rows/s")
	b.ReportMetric(per.Seconds()/copyTime.Seconds(), "x-copy")
	b.ReportMetric(float64(peak)/1024, "peak-rss-MB")
	fmt.Printf("import publish (%s): %d rows (%.1f MB) in %s, %.0f rows/s; bare COPY %s; ratio %.2fx (target <= 2x); server peak RSS %d MB (target < 300 MB)\n",
		shape.name, shape.rows, float64(len(csv))/1024/1024, per.Round(time.Millisecond), float64(shape.rows)/per.Seconds(),
		copyTime.Round(time.Millisecond), per.Seconds()/copyTime.Seconds(), peak/1024)
}

// bareCopy times COPY of the shape's rows into a table with entries' columns, indexes, checks
// and foreign keys: the least work that stores them.
func bareCopy(b *testing.B, url string, familyID uuid.UUID, shape csvShape) time.Duration {
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Close(ctx)
	var acct pgtype.UUID
	if err := conn.QueryRow(ctx, `INSERT INTO accounts (id, family_id, name, accountable_type, currency)
		VALUES (gen_random_uuid(), $1, 'Copy target', 'Depository', 'USD') RETURNING id`, familyID).Scan(&acct); err != nil {
		b.Fatal(err)
	}
	for _, q := range []string{
		`CREATE TABLE copy_entries (LIKE entries INCLUDING ALL)`,
		`ALTER TABLE copy_entries ADD FOREIGN KEY (account_id, family_id) REFERENCES accounts (id, family_id)`,
		`ALTER TABLE copy_entries ADD FOREIGN KEY (category_id) REFERENCES categories (id)`,
	} {
		if _, err := conn.Exec(ctx, q); err != nil {
			b.Fatal(err)
		}
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
	columns := append([]string{"id", "family_id", "account_id", "kind", "currency", "import_id", "source"}, shape.columns...)
	data := make([][]any, shape.rows)
	for i := range data {
		id, _ := uuid.NewV7()
		data[i] = append([]any{pgtype.UUID{Bytes: id, Valid: true}, fam, acct, "transaction", "USD", importID, "import"}, shape.values(i, refs)...)
	}
	start := time.Now()
	if _, err := conn.CopyFrom(ctx, pgx.Identifier{"copy_entries"}, columns, pgx.CopyFromRows(data)); err != nil {
		b.Fatal(err)
	}
	return time.Since(start)
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
