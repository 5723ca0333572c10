package main

import (
	"context"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"

	"tally/imports/actual/actualtest"
	"tally/internal/benchstat"
	"tally/models"
	"tally/testkit"
)

// moveInOverNative bounds a move-in of an Actual budget over Tally's own NDJSON import of the
// same rows (issue 41): each from its upload to complete, the read-back included.
const moveInOverNative = 2.0

// moveInRounds is how many times each import runs, alternating which goes first, so that the
// ledger the rounds leave behind weighs on both alike.
const moveInRounds = 3

// BenchmarkMoveIn moves a ten-year Actual budget (actualtest.TenYears: 100,000 transactions
// with splits and transfers, 80 categories, 120 budget months) into a fresh family through the
// real server, as a client does: the export uploaded with publish=true, to complete with its
// read-back. In the same run and alternating with it, the same accounts, categories, payees,
// transactions, transfers and budgets go into another fresh family as Tally's own NDJSON
// import (an import session's chunks, published to complete). It prints both medians and
// their ratio, end to end, and fails when the move-in takes more than moveInOverNative times
// the NDJSON import.
func BenchmarkMoveIn(b *testing.B) {
	bin := buildBinary(b)
	gen := actualtest.Generate(actualtest.TenYears)
	export := gen.Zip(b)
	lines := nativeMoveIn(gen)
	parts := chunks(lines, 9*1024*1024)
	size := 0
	for _, p := range parts {
		size += len(p)
	}
	body, contentType := multipartFile(map[string]string{"type": "ActualImport", "publish": "true"}, "budget.zip", "application/zip", export)
	srv := newBenchServer(b, bin)

	b.ResetTimer()
	var moveIns, natives []time.Duration
	for range b.N {
		for round := range moveInRounds {
			moveIn := func() {
				key := freshFamily(b, srv)
				start := time.Now()
				id := postImportAs(b, srv.base, key, body, contentType)
				waitComplete(b, srv.d, id)
				moveIns = append(moveIns, time.Since(start))
				checkReadback(b, srv, id, `move_in->'readback'->>'status'`)
			}
			native := func() {
				key := freshFamily(b, srv)
				start := time.Now()
				id := publishSession(b, srv.d, srv.base, key, parts)
				natives = append(natives, time.Since(start))
				checkReadback(b, srv, id, `readback->>'status'`)
			}
			if round%2 == 0 {
				moveIn()
				native()
			} else {
				native()
				moveIn()
			}
		}
	}
	b.StopTimer()
	m, n := benchstat.Median(moveIns), benchstat.Median(natives)
	ratio, bound := m.Seconds()/n.Seconds(), moveInOverNative
	peak := peakRSS(b, srv.process.Process.Pid)
	b.ReportMetric(ratio, "x-native")
	b.ReportMetric(float64(peak)/1024, "peak-rss-MB")
	fmt.Printf("move-in of a ten-year Actual budget (%d transactions, %.1f MB zip): %s; the same %d records as NDJSON (%.1f MB, %d chunks): %s; ratio %.2fx (bound %.1fx; medians of %d rounds, move-ins %s, NDJSON %s); server peak RSS %d MB\n",
		len(gen.Transactions), float64(len(export))/1024/1024, m.Round(time.Millisecond), len(lines), float64(size)/1024/1024, len(parts),
		n.Round(time.Millisecond), ratio, bound, len(moveIns), rounded(moveIns), rounded(natives), peak/1024)
	if ratio > bound {
		b.Errorf("the move-in took %s, %.2fx the NDJSON import of the same rows (%s); the bound is %.1fx", m.Round(time.Millisecond), ratio, n.Round(time.Millisecond), bound)
	}
}

// BenchmarkMoveInMemory uploads an Actual export of the move-in's largest size (just under
// actual.MaxExportBytes zipped: 280,000 transactions, the rest as in actualtest.TenYears) for
// review to a server of its own, so that the server reads, converts and stores the whole of
// it, and fails when the server's memory peaks past 300 MB.
func BenchmarkMoveInMemory(b *testing.B) {
	shape := actualtest.TenYears
	shape.Transactions = 280_000
	export := actualtest.Generate(shape).Zip(b)
	b.Logf("the export is %.1f MB zipped", float64(len(export))/1024/1024)
	body, contentType := multipartFile(map[string]string{"type": "ActualImport"}, "budget.zip", "application/zip", export)
	uploadPeaks(b, []uploadCase{{fmt.Sprintf("a %.0f MB Actual export", float64(len(export))/1024/1024),
		func(string) ([]byte, string) { return body, contentType }, 1, http.StatusCreated}})
}

// freshFamily is a new family on the server, with a key of its user's that can write.
func freshFamily(b *testing.B, srv *benchServer) string {
	u := testkit.MustCreateUser(b, srv.d, testkit.UserOpts{})
	return testkit.MustCreateAPIKey(b, srv.d, u.ID, models.ScopeReadWrite)
}

// checkReadback fails unless the import's read-back (the expression of its column) matched.
func checkReadback(b *testing.B, srv *benchServer, id uuid.UUID, readback string) {
	var status string
	if err := srv.d.NewRaw("SELECT coalesce("+readback+", '') FROM imports WHERE id = ?", id).Scan(context.Background(), &status); err != nil {
		b.Fatal(err)
	}
	if status != "matched" {
		var all string
		srv.d.NewRaw("SELECT concat(readback::text, move_in->'readback') FROM imports WHERE id = ?", id).Scan(context.Background(), &all)
		b.Fatalf("import %s read back %q: %.1000s", id, status, all)
	}
}

// nativeMoveIn is the generated budget as Tally's own NDJSON records: the accounts with the
// balance their transactions make, the groups as parent categories, the payees as merchants,
// the transactions with their splits' lines, a Transfer of each pair, and each month's budget.
func nativeMoveIn(gen *actualtest.Budget) []string {
	var lines []string
	add := func(typ string, data map[string]any) { lines = append(lines, record(typ, data)) }
	// Actual's cents, money in positive, in the ledger's sign (money out positive).
	ledger := func(cents int64) string { return decimal.New(cents, -2).Neg().String() }
	balances := map[string]int64{}
	for _, t := range gen.Transactions {
		balances[t.Account] += t.Cents
	}
	payees := map[string]string{}
	for _, p := range gen.Payees {
		payees[p.ID] = p.Name
	}
	for _, a := range gen.Accounts {
		add("Account", map[string]any{"id": a.ID, "name": a.Name, "accountable_type": "Depository", "status": "active",
			"balance": decimal.New(balances[a.ID], -2).String(), "skip_opening_balance_import": true})
	}
	for _, g := range gen.Groups {
		add("Category", map[string]any{"id": "group:" + g.ID, "name": g.Name, "classification": classification(g.Income)})
	}
	for _, c := range gen.Categories {
		rollover := "surplus"
		if c.Carryover {
			rollover = "both"
		}
		add("Category", map[string]any{"id": c.ID, "name": c.Name, "parent_id": "group:" + c.Group, "classification": classification(c.Income),
			"budget_rollover": rollover})
	}
	for _, p := range gen.Payees {
		add("Merchant", map[string]any{"id": p.ID, "name": p.Name})
	}
	for _, t := range gen.Transactions {
		data := map[string]any{"id": t.ID, "account_id": t.Account, "date": t.Date.Format(time.DateOnly), "amount": ledger(t.Cents), "notes": t.Notes}
		if name, ok := payees[t.Payee]; ok {
			data["name"], data["merchant_id"] = name, t.Payee
		} else {
			data["name"] = "Transfer"
		}
		if t.Category != "" {
			data["category_id"] = t.Category
		}
		var split []map[string]any
		for _, p := range t.Parts {
			split = append(split, map[string]any{"id": p.ID, "amount": ledger(p.Cents), "category_id": p.Category, "name": data["name"], "merchant_id": t.Payee})
		}
		if split != nil {
			data["split_lines"] = split
		}
		add("Transaction", data)
		if t.Transfer != "" && t.Cents < 0 {
			add("Transfer", map[string]any{"outflow_transaction_id": t.ID, "inflow_transaction_id": t.Transfer, "status": "confirmed"})
		}
	}
	for _, m := range gen.Months {
		id := "month:" + m.Month.Format("2006-01")
		add("Budget", map[string]any{"id": id, "start_date": m.Month.Format(time.DateOnly), "end_date": m.Month.AddDate(0, 1, -1).Format(time.DateOnly)})
		for _, l := range m.Lines {
			add("BudgetCategory", map[string]any{"budget_id": id, "category_id": l.Category, "budgeted_spending": decimal.New(l.Cents, -2).String()})
		}
	}
	return lines
}

func classification(income bool) string {
	if income {
		return "income"
	}
	return "expense"
}
