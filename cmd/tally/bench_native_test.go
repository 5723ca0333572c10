package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"

	"tally/internal/db"
	"tally/models"
	"tally/testkit"
)

// The mix of the NDJSON benchmark: 200,000 records, most of them ledger entries, as in a real
// family export.
const (
	benchAccounts     = 10
	benchCategories   = 50
	benchTags         = 20
	benchMerchants    = 30
	benchTransactions = 150_000
	benchTrades       = 20_000
	benchValuations   = 10_000
	benchBalances     = 200_000 - benchAccounts - benchCategories - benchTags - benchMerchants - benchTransactions - benchTrades - benchValuations
)

// nativeFile writes the benchmark's records as NDJSON lines.
func nativeFile() []string {
	var lines []string
	add := func(typ string, data map[string]any) { lines = append(lines, record(typ, data)) }
	day := func(i int) string {
		return time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC).AddDate(0, 0, i).Format(time.DateOnly)
	}
	for i := range benchAccounts {
		typ := "Depository"
		if i%5 == 4 {
			typ = "Investment"
		}
		add("Account", map[string]any{"id": fmt.Sprintf("a%d", i), "name": fmt.Sprintf("Account %d", i), "balance": "1000.00", "currency": "USD", "accountable_type": typ})
	}
	for i := range benchCategories {
		add("Category", map[string]any{"id": fmt.Sprintf("c%d", i), "name": fmt.Sprintf("Category %d", i)})
	}
	for i := range benchTags {
		add("Tag", map[string]any{"id": fmt.Sprintf("t%d", i), "name": fmt.Sprintf("Tag %d", i)})
	}
	for i := range benchMerchants {
		add("Merchant", map[string]any{"id": fmt.Sprintf("m%d", i), "name": fmt.Sprintf("Merchant %d", i)})
	}
	for i := range benchTransactions {
		add("Transaction", map[string]any{"id": fmt.Sprintf("x%d", i), "account_id": fmt.Sprintf("a%d", i%benchAccounts), "date": day(i % 1500),
			"amount": fmt.Sprintf("%d.%02d", 1+i%500, i%100), "name": fmt.Sprintf("Payee %d", i%1000), "category_id": fmt.Sprintf("c%d", i%benchCategories),
			"merchant_id": fmt.Sprintf("m%d", i%benchMerchants), "tag_ids": []string{fmt.Sprintf("t%d", i%benchTags)}})
	}
	for i := range benchTrades {
		add("Trade", map[string]any{"id": fmt.Sprintf("r%d", i), "account_id": fmt.Sprintf("a%d", 4+5*(i%2)), "date": day(i % 1500),
			"ticker": fmt.Sprintf("T%d", i%40), "qty": "2", "price": "50.25", "amount": "100.50", "currency": "USD"})
	}
	for i := range benchValuations {
		add("Valuation", map[string]any{"id": fmt.Sprintf("v%d", i), "account_id": fmt.Sprintf("a%d", i%benchAccounts), "date": day(i / benchAccounts),
			"amount": "1000.00", "kind": map[bool]string{true: "opening_anchor", false: "reconciliation"}[i < benchAccounts]})
	}
	for i := range benchBalances {
		add("Balance", map[string]any{"account_id": fmt.Sprintf("a%d", i%benchAccounts), "date": day(i / benchAccounts), "balance": "1000.00"})
	}
	return lines
}

// record is one NDJSON line of the native format.
func record(typ string, data map[string]any) string {
	b, _ := json.Marshal(map[string]any{"type": typ, "data": data})
	return string(b)
}

// chunks splits lines into parts of at most max bytes.
func chunks(lines []string, max int) [][]byte {
	var out [][]byte
	var cur bytes.Buffer
	for _, l := range lines {
		if cur.Len()+len(l)+1 > max {
			out = append(out, bytes.Clone(cur.Bytes()))
			cur.Reset()
		}
		if cur.Len() > 0 {
			cur.WriteByte('\n')
		}
		cur.WriteString(l)
	}
	return append(out, cur.Bytes())
}

// BenchmarkNativeImport measures an NDJSON family export of 200,000 records through the real
// server as an import session (its chunks uploaded, then published to complete), against the
// physical limit of the same work: a bare COPY of the same records into tables shaped like
// the ones they land in, in the same run. It reports the ratio, records per second and the
// server's peak memory.
func BenchmarkNativeImport(b *testing.B) {
	bin := buildBinary(b)
	url := testkit.DatabaseURL(b)
	d, err := db.Open(context.Background(), url)
	if err != nil {
		b.Fatal(err)
	}
	defer d.Close()
	u := testkit.MustCreateUser(b, d, testkit.UserOpts{})
	key := testkit.MustCreateAPIKey(b, d, u.ID, models.ScopeReadWrite)
	lines := nativeFile()
	parts := chunks(lines, 9*1024*1024)
	size := 0
	for _, p := range parts {
		size += len(p)
	}
	b.Logf("%d records, %d chunks, %.1f MB", len(lines), len(parts), float64(size)/1024/1024)
	server, m := startProcess(b, bin, url, regexp.MustCompile(`listening on (http://\S+)`), "serve")
	base := m[1]
	copyTime := bareNativeCopy(b, url, u.FamilyID)

	b.ResetTimer()
	var elapsed time.Duration
	for range b.N {
		start := time.Now()
		id := publishSession(b, d, base, key, parts)
		elapsed += time.Since(start)
		b.StopTimer()
		var readback string
		d.NewRaw("SELECT readback->>'status' FROM imports WHERE id = ?", id).Scan(context.Background(), &readback)
		if readback != "matched" {
			b.Fatalf("readback %s", readback)
		}
		// Remove the data for the next round, outside the measurement.
		for _, q := range []string{"DELETE FROM accounts WHERE import_id = ?", "DELETE FROM categories WHERE import_id = ?",
			"DELETE FROM tags WHERE import_id = ?", "DELETE FROM merchants WHERE import_id = ?"} {
			d.NewRaw(q, id).Exec(context.Background())
		}
		b.StartTimer()
	}
	per := elapsed / time.Duration(b.N)
	peak := peakRSS(b, server.Process.Pid)
	records := float64(len(lines))
	b.ReportMetric(records/per.Seconds(), "records/s")
	b.ReportMetric(per.Seconds()/copyTime.Seconds(), "x-copy")
	b.ReportMetric(float64(peak)/1024, "peak-rss-MB")
	fmt.Printf("native import: %d records (%.1f MB, %d chunks) in %s, %.0f records/s; bare COPY %s; ratio %.2fx (bound %gx); server peak RSS %d MB (bound %d MB)\n",
		len(lines), float64(size)/1024/1024, len(parts), per.Round(time.Millisecond), records/per.Seconds(), copyTime.Round(time.Millisecond),
		per.Seconds()/copyTime.Seconds(), nativeImportBound, peak/1024, nativeImportPeakMB)
	if ratio := per.Seconds() / copyTime.Seconds(); ratio > nativeImportBound {
		b.Errorf("the native import took %.2fx the bare COPY, over its bound of %gx", ratio, nativeImportBound)
	}
	if peak/1024 >= nativeImportPeakMB {
		b.Errorf("the server peaked at %d MB RSS, over its bound of %d MB", peak/1024, nativeImportPeakMB)
	}
}

// The native import's bounds, as its output prints them: its time over the bare COPY of the
// same records, and the server's peak memory.
const (
	nativeImportBound  = 4.0
	nativeImportPeakMB = 300
)

// publishSession sends the NDJSON parts as the chunks of an import session, publishes it, and
// waits until it is complete, as a client of the native import does. It returns the import's id.
func publishSession(b *testing.B, d *db.DB, base, key string, parts [][]byte) uuid.UUID {
	call := func(path string, body any, want int) map[string]any {
		raw, _ := json.Marshal(body)
		req, _ := http.NewRequest(http.MethodPost, base+path, bytes.NewReader(raw))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("X-Api-Key", key)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		defer resp.Body.Close()
		var out struct{ Data map[string]any }
		json.NewDecoder(resp.Body).Decode(&out)
		if resp.StatusCode != want {
			b.Fatalf("POST %s: %d %v", path, resp.StatusCode, out)
		}
		return out.Data
	}
	s := call("/api/v1/import_sessions", map[string]any{"expected_chunks": len(parts)}, http.StatusCreated)
	id := s["id"].(string)
	for i, p := range parts {
		call("/api/v1/import_sessions/"+id+"/chunks", map[string]any{"sequence": i + 1, "raw_file_content": string(p)}, http.StatusCreated)
	}
	call("/api/v1/import_sessions/"+id+"/publish", nil, http.StatusAccepted)
	waitComplete(b, d, uuid.MustParse(id))
	return uuid.MustParse(id)
}

// bareNativeCopy times COPY of the benchmark's records into tables with the columns, indexes,
// checks and foreign keys of those they land in (entries, trades, valuations, balances): the
// least work that stores them.
func bareNativeCopy(b *testing.B, url string, familyID uuid.UUID) time.Duration {
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Close(ctx)
	fam := pgtype.UUID{Bytes: familyID, Valid: true}
	accounts := make([]pgtype.UUID, benchAccounts)
	for i := range accounts {
		if err := conn.QueryRow(ctx, `INSERT INTO accounts (id, family_id, name, accountable_type, currency)
			VALUES (gen_random_uuid(), $1, $2, 'Depository', 'USD') RETURNING id`, familyID, fmt.Sprintf("Copy %d", i)).Scan(&accounts[i]); err != nil {
			b.Fatal(err)
		}
	}
	categories := make([]pgtype.UUID, benchCategories)
	for i := range categories {
		if err := conn.QueryRow(ctx, `INSERT INTO categories (id, family_id, name) VALUES (gen_random_uuid(), $1, $2) RETURNING id`,
			familyID, fmt.Sprintf("Copy category %d", i)).Scan(&categories[i]); err != nil {
			b.Fatal(err)
		}
	}
	var security pgtype.UUID
	if err := conn.QueryRow(ctx, `INSERT INTO securities (id, ticker) VALUES (gen_random_uuid(), 'COPY') RETURNING id`).Scan(&security); err != nil {
		b.Fatal(err)
	}
	for _, q := range []string{
		`CREATE TABLE copy_entries (LIKE entries INCLUDING ALL)`,
		`ALTER TABLE copy_entries ADD FOREIGN KEY (account_id, family_id) REFERENCES accounts (id, family_id)`,
		`ALTER TABLE copy_entries ADD FOREIGN KEY (category_id) REFERENCES categories (id)`,
		`CREATE TABLE copy_trades (LIKE trades INCLUDING ALL)`,
		`ALTER TABLE copy_trades ADD FOREIGN KEY (entry_id) REFERENCES copy_entries (id)`,
		`ALTER TABLE copy_trades ADD FOREIGN KEY (security_id) REFERENCES securities (id)`,
		`CREATE TABLE copy_valuations (LIKE valuations INCLUDING ALL)`,
		`ALTER TABLE copy_valuations ADD FOREIGN KEY (entry_id) REFERENCES copy_entries (id)`,
		`CREATE TABLE copy_balances (LIKE balances INCLUDING ALL)`,
		`ALTER TABLE copy_balances ADD FOREIGN KEY (account_id) REFERENCES accounts (id)`,
	} {
		if _, err := conn.Exec(ctx, q); err != nil {
			b.Fatal(err)
		}
	}
	newID := func() pgtype.UUID { return pgtype.UUID{Bytes: uuid.Must(uuid.NewV7()), Valid: true} }
	day := func(i int) time.Time { return time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC).AddDate(0, 0, i) }
	amount := func(s string) pgtype.Numeric { var n pgtype.Numeric; n.Scan(s); return n }
	var entries, trades, valuations, balances [][]any
	for i := range benchTransactions {
		entries = append(entries, []any{newID(), fam, accounts[i%benchAccounts], "transaction", day(i % 1500),
			amount(fmt.Sprintf("%d.%02d", 1+i%500, i%100)), "USD", fmt.Sprintf("Payee %d", i%1000), categories[i%benchCategories]})
	}
	for i := range benchTrades {
		id := newID()
		entries = append(entries, []any{id, fam, accounts[4], "trade", day(i % 1500), amount("100.50"), "USD", "Buy COPY", pgtype.UUID{}})
		trades = append(trades, []any{id, security, amount("2"), amount("50.25"), "USD"})
	}
	for i := range benchValuations {
		id := newID()
		entries = append(entries, []any{id, fam, accounts[i%benchAccounts], "valuation", day(i / benchAccounts), amount("1000"), "USD", "Valuation", pgtype.UUID{}})
		valuations = append(valuations, []any{id, "reconciliation"})
	}
	for i := range benchBalances {
		balances = append(balances, []any{newID(), fam, accounts[i%benchAccounts], day(i / benchAccounts), "USD", amount("1000")})
	}
	start := time.Now()
	for _, c := range []struct {
		table string
		cols  []string
		rows  [][]any
	}{
		{"copy_entries", []string{"id", "family_id", "account_id", "kind", "date", "amount", "currency", "name", "category_id"}, entries},
		{"copy_trades", []string{"entry_id", "security_id", "qty", "price", "currency"}, trades},
		{"copy_valuations", []string{"entry_id", "kind"}, valuations},
		{"copy_balances", []string{"id", "family_id", "account_id", "date", "currency", "balance"}, balances},
	} {
		if _, err := conn.CopyFrom(ctx, pgx.Identifier{c.table}, c.cols, pgx.CopyFromRows(c.rows)); err != nil {
			b.Fatal(strings.Join([]string{c.table, err.Error()}, ": "))
		}
	}
	return time.Since(start)
}
