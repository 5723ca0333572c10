package actual

import (
	"context"
	"testing"

	"tally/imports/actual/actualtest"
	"tally/imports/movein"
	"tally/internal/memtest"
)

// The generated exports the benchmarks move in (actualtest) read as they were generated: every
// transaction, split part, transfer and budget line, and nothing noted but the off-budget
// accounts.
func TestGeneratedExportReadsAsGenerated(t *testing.T) {
	shape := actualtest.Shape{Seed: 7, Accounts: 6, Categories: 30, Payees: 50, Transactions: 2_000, Months: 24}
	gen := actualtest.Generate(shape)
	b := read(t, gen.Zip(t))
	var parts, transfers, lines int
	for _, tx := range b.Transactions {
		parts += len(tx.Splits)
		if tx.TransferID != "" {
			transfers++
		}
	}
	for _, m := range b.Months {
		lines += len(m.Lines)
	}
	var wantParts, wantTransfers int
	for _, tx := range gen.Transactions {
		wantParts += len(tx.Parts)
		if tx.Transfer != "" {
			wantTransfers++
		}
	}
	if len(b.Transactions) != shape.Transactions || parts != wantParts || transfers != wantTransfers || transfers == 0 || parts == 0 {
		t.Errorf("%d transactions, %d split parts, %d transfer sides; want %d, %d and %d", len(b.Transactions), parts, transfers,
			shape.Transactions, wantParts, wantTransfers)
	}
	if len(b.Months) != shape.Months || lines != shape.Months*(shape.Categories-2) {
		t.Errorf("%d months of %d lines, want %d of %d", len(b.Months), lines, shape.Months, shape.Months*(shape.Categories-2))
	}
	if len(b.Accounts) != shape.Accounts || len(b.Categories) != shape.Categories || len(b.Payees) != shape.Payees+1+shape.Accounts {
		t.Errorf("%d accounts, %d categories, %d payees", len(b.Accounts), len(b.Categories), len(b.Payees))
	}
	for _, n := range b.Notices {
		t.Errorf("notice: %s", n)
	}
}

// TestTenYearBudgetReadsInLittleMemory reads a ten-year budget of 100,000 transactions (a 16
// MB export) and bounds the heap the reader takes: the budget it returns, and a row at a time.
// When it held every row read before it made them the budget's transactions, it peaked at
// 121 MB (53 MB live).
func TestTenYearBudgetReadsInLittleMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("generates a budget of 100,000 transactions")
	}
	export := actualtest.Generate(actualtest.TenYears).Zip(t)
	var b *movein.Budget
	var err error
	u := memtest.Measure(func() { b, err = Read(context.Background(), export) })
	if err != nil {
		t.Fatal(err)
	}
	peak, live := u.MB()
	t.Logf("%d transactions: peak heap %.0f MB, live %.0f MB", len(b.Transactions), peak, live)
	if peak > 100 || live > 64 {
		t.Errorf("the reader peaked at %.0f MB with %.0f MB live, want under 100 MB and 64 MB", peak, live)
	}
}
