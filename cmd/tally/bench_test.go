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

// BenchmarkImportPublish measures a 10 MB TransactionImport through the real server, from
// POST to complete, against the physical limit of the same work: a bare COPY of the same rows
// into a table shaped like entries, in the same run. It reports the ratio, rows per second and
// the server's peak memory.
func BenchmarkImportPublish(b *testing.B) {
	bin := buildBinary(b)
	url := testkit.DatabaseURL(b)
	d, err := db.Open(context.Background(), url)
	if err != nil {
		b.Fatal(err)
	}
	defer d.Close()
	u := testkit.MustCreateUser(b, d, testkit.UserOpts{})
	key := testkit.MustCreateAPIKey(b, d, u.ID, models.ScopeReadWrite)
	rows := 10 * 1024 * 1024 / 70 // about 70 bytes a row: just under 10 MB
	csv := transactionCSV(rows)
	for len(csv) > 10*1024*1024 {
		rows -= 1000
		csv = transactionCSV(rows)
	}

	b.Logf("%s generated %d rows, %d bytes", time.Now().Format(time.TimeOnly), rows, len(csv))
	server, m := startProcess(b, bin, url, regexp.MustCompile(`listening on (http://\S+)`), "serve")
	base := m[1]
	b.Logf("%s server at %s", time.Now().Format(time.TimeOnly), base)
	copyTime := bareCopy(b, url, u.FamilyID, rows)
	b.Logf("%s bare copy %s", time.Now().Format(time.TimeOnly), copyTime)

	b.ResetTimer()
	var elapsed time.Duration
	for range b.N {
		body, _ := json.Marshal(map[string]any{"raw_file_content": csv, "date_format": "%Y-%m-%d", "publish": "true"})
		start := time.Now()
		req, _ := http.NewRequest(http.MethodPost, base+"/api/v1/imports", bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("X-Api-Key", key)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		var created struct{ Data struct{ ID, Status string } }
		json.NewDecoder(resp.Body).Decode(&created)
		resp.Body.Close()
		if resp.StatusCode != http.StatusCreated {
			b.Fatalf("create: %d", resp.StatusCode)
		}
		id := uuid.MustParse(created.Data.ID)
		b.Logf("%s created %s", time.Now().Format(time.TimeOnly), id)
		for {
			status, _ := importStatus(b, d, id)
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
		if _, n := importStatus(b, d, id); n != rows {
			b.Fatalf("%d entries, want %d", n, rows)
		}
		// Revert for the next round, outside the measurement.
		d.NewRaw("DELETE FROM entries WHERE import_id = ?", id).Exec(context.Background())
		b.StartTimer()
	}
	per := elapsed / time.Duration(b.N)
	peak := peakRSS(b, server.Process.Pid)
	b.ReportMetric(float64(rows)/per.Seconds(), "rows/s")
	b.ReportMetric(per.Seconds()/copyTime.Seconds(), "x-copy")
	b.ReportMetric(float64(peak)/1024, "peak-rss-MB")
	fmt.Printf("import publish: %d rows (%.1f MB) in %s, %.0f rows/s; bare COPY %s; ratio %.2fx (target <= 3x); server peak RSS %d MB (target < 200 MB)\n",
		rows, float64(len(csv))/1024/1024, per.Round(time.Millisecond), float64(rows)/per.Seconds(), copyTime.Round(time.Millisecond),
		per.Seconds()/copyTime.Seconds(), peak/1024)
}

// bareCopy times COPY of the same rows into a table with entries' columns, indexes, checks
// and foreign keys: the least work that stores them.
func bareCopy(b *testing.B, url string, familyID uuid.UUID, rows int) time.Duration {
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
	// The same rows the import writes: a category and two tags each, like transactionCSV's.
	categories := make([]pgtype.UUID, 20)
	for i := range categories {
		if err := conn.QueryRow(ctx, `INSERT INTO categories (id, family_id, name) VALUES (gen_random_uuid(), $1, $2) RETURNING id`,
			familyID, fmt.Sprintf("Copy category %d", i)).Scan(&categories[i]); err != nil {
			b.Fatal(err)
		}
	}
	tags := make([][16]byte, 8)
	for i := range tags {
		tags[i] = uuid.New()
	}
	fam := pgtype.UUID{Bytes: familyID, Valid: true}
	data := make([][]any, rows)
	for i := range data {
		id, _ := uuid.NewV7()
		amount, _ := strconv.ParseFloat(fmt.Sprintf("%d.%02d", 1+i%500, i%100), 64)
		data[i] = []any{pgtype.UUID{Bytes: id, Valid: true}, fam, acct, "transaction",
			time.Date(2023, 1, 1, 0, 0, 0, 0, time.UTC).AddDate(0, 0, i%700), amount, "USD",
			fmt.Sprintf("Merchant %d", i%1000), fmt.Sprintf("Note %d", i), categories[i%20], [][16]byte{tags[i%7], tags[7]}}
	}
	start := time.Now()
	if _, err := conn.CopyFrom(ctx, pgx.Identifier{"copy_entries"},
		[]string{"id", "family_id", "account_id", "kind", "date", "amount", "currency", "name", "notes", "category_id", "tag_ids"}, pgx.CopyFromRows(data)); err != nil {
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
