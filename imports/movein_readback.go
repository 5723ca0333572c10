package imports

import (
	"context"
	"fmt"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"
	"github.com/uptrace/bun/dialect/pgdialect"
)

// MoveInExpected is what a move-in's source says its accounts and budget months hold, for
// the read-back after publishing.
type MoveInExpected struct {
	Accounts []ExpectedAccount `json:"accounts"`
	Months   []ExpectedMonth   `json:"months"`
}

// ExpectedAccount is one account of the source: its transactions' count and sum (in the
// ledger's sign) and the balance they make.
type ExpectedAccount struct {
	ID           string          `json:"source_id"`
	Name         string          `json:"name"`
	Transactions int             `json:"transactions"`
	Sum          decimal.Decimal `json:"sum"`
	Balance      decimal.Decimal `json:"balance"`
}

// ExpectedMonth is one budget month of the source: how many categories it budgets, and how much.
type ExpectedMonth struct {
	Month    string          `json:"month"` // YYYY-MM
	Lines    int             `json:"lines"`
	Budgeted decimal.Decimal `json:"budgeted"`
}

// MoveInReadback is what a move-in's publish read back: matched, or each figure that is not
// the source's, named.
type MoveInReadback struct {
	Status     string   `json:"status"` // matched or mismatch
	Mismatches []string `json:"mismatches"`
}

// expect records what the source's accounts and months hold.
func (m *moveIn) expect() *MoveInExpected {
	e := &MoveInExpected{}
	for _, a := range m.b.Accounts {
		e.Accounts = append(e.Accounts, *m.ledger[a.ID])
	}
	for _, mo := range m.b.Months {
		x := ExpectedMonth{Month: mo.Month.Format("2006-01"), Lines: len(mo.Lines)}
		for _, l := range mo.Lines {
			x.Budgeted = x.Budgeted.Add(l.Budgeted)
		}
		e.Months = append(e.Months, x)
	}
	return e
}

// moveInReadback reads back, after the records are written, each account's transactions
// (count and sum of the source's), the balance of each account the import created, each
// month's budget lines and that each goal's category has a goal, against what the source holds.
func (w *nativeWriter) moveInReadback(ctx context.Context, mi *MoveIn) (*MoveInReadback, error) {
	rb := &MoveInReadback{Status: ReadbackMatched, Mismatches: []string{}}
	exp := mi.Expected
	if exp == nil {
		return rb, nil
	}
	source := moveInSources[w.im.Type]
	var ids []uuid.UUID
	for _, a := range exp.Accounts {
		if id, ok := w.lookup("Account", a.ID); ok {
			ids = append(ids, id)
		}
	}
	var accounts []struct {
		ID      uuid.UUID       `bun:"id"`
		Balance decimal.Decimal `bun:"balance"`
		Own     bool            `bun:"own"`
		N       int             `bun:"n"`
		Sum     decimal.Decimal `bun:"sum"`
	}
	// The source's transactions in an account: those a move-in of it made, and those the
	// account held already that this one merged them into.
	if err := w.tx.NewRaw(`WITH ours AS (
			SELECT e.account_id, e.amount FROM entries e WHERE e.account_id = ANY(?2) AND e.kind = 'transaction' AND e.parent_id IS NULL
				AND (e.source = ?1 OR EXISTS (SELECT 1 FROM import_links l WHERE l.import_id = ?0 AND l.entity = 'transactions' AND l.record_id = e.id)))
		SELECT a.id, a.balance, a.import_id IS NOT DISTINCT FROM ?0 AS own,
			(SELECT count(*) FROM ours o WHERE o.account_id = a.id) AS n,
			(SELECT coalesce(sum(o.amount), 0) FROM ours o WHERE o.account_id = a.id) AS sum
		FROM accounts a WHERE a.id = ANY(?2)`, w.im.ID, source, pgdialect.Array(ids)).Scan(ctx, &accounts); err != nil {
		return nil, err
	}
	byID := map[uuid.UUID]int{}
	for i, a := range accounts {
		byID[a.ID] = i
	}
	for _, want := range exp.Accounts {
		id, _ := w.lookup("Account", want.ID)
		i, ok := byID[id]
		if !ok {
			rb.Mismatches = append(rb.Mismatches, fmt.Sprintf("account %q is not in the family", want.Name))
			continue
		}
		got := accounts[i]
		if got.N != want.Transactions || !got.Sum.Equal(want.Sum) {
			rb.Mismatches = append(rb.Mismatches, fmt.Sprintf("account %q holds %d transactions of %s adding up to %s; %s has %d adding up to %s",
				want.Name, got.N, sourceName(source), got.Sum, sourceName(source), want.Transactions, want.Sum))
		}
		if got.Own && !got.Balance.Equal(want.Balance) {
			rb.Mismatches = append(rb.Mismatches, fmt.Sprintf("account %q has a balance of %s; %s shows %s", want.Name, got.Balance, sourceName(source), want.Balance))
		}
	}
	months, err := w.budgetLines(ctx, exp)
	if err != nil {
		return nil, err
	}
	for _, want := range exp.Months {
		got := months[want.Month]
		if got.Lines != want.Lines || !got.Budgeted.Equal(want.Budgeted) {
			rb.Mismatches = append(rb.Mismatches, fmt.Sprintf("budget month %s has %d lines budgeting %s; %s has %d budgeting %s",
				want.Month, got.Lines, got.Budgeted, sourceName(source), want.Lines, want.Budgeted))
		}
	}
	goals, err := w.goalsKept(ctx, mi.Goals)
	if err != nil {
		return nil, err
	}
	if goals != len(mi.Goals) {
		rb.Mismatches = append(rb.Mismatches, fmt.Sprintf("%d of the %d categories with a goal in %s have a goal in the family", goals, len(mi.Goals), sourceName(source)))
	}
	if len(rb.Mismatches) > 0 {
		rb.Status = ReadbackMismatch
	}
	return rb, nil
}

// budgetLines reads each of the source's months' budget as the family now holds it.
func (w *nativeWriter) budgetLines(ctx context.Context, exp *MoveInExpected) (map[string]ExpectedMonth, error) {
	var ids []uuid.UUID
	for _, mo := range exp.Months {
		if id, ok := w.lookup("Budget", "month:"+mo.Month); ok {
			ids = append(ids, id)
		}
	}
	var rows []struct {
		Start    string          `bun:"start"`
		N        int             `bun:"n"`
		Budgeted decimal.Decimal `bun:"budgeted"`
	}
	if err := w.tx.NewRaw(`SELECT to_char(b.start_date, 'YYYY-MM') AS start, count(c.id) AS n, coalesce(sum(c.budgeted_spending), 0) AS budgeted
		FROM budgets b LEFT JOIN budget_categories c ON c.budget_id = b.id WHERE b.id = ANY(?) GROUP BY b.start_date`,
		pgdialect.Array(ids)).Scan(ctx, &rows); err != nil {
		return nil, err
	}
	out := make(map[string]ExpectedMonth, len(rows))
	for _, r := range rows {
		out[r.Start] = ExpectedMonth{Month: r.Start, Lines: r.N, Budgeted: r.Budgeted}
	}
	return out, nil
}
