package imports

import (
	"context"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"

	"tally/models"
)

// balanceRow is a row of a transaction file as its running balance needs it: its account, its
// day, its amount and the balance printed after it, if any.
type balanceRow struct {
	Account uuid.UUID           `bun:"account"`
	Type    string              `bun:"type"`
	Date    time.Time           `bun:"date"`
	Amount  decimal.Decimal     `bun:"amount"`
	Balance decimal.NullDecimal `bun:"balance"`
}

// csvBalances records what a transaction file's mapped running-balance column says of each
// account it wrote into: the balance before its first day as a checkpoint of the day before,
// and the balance at the end of its last day as a checkpoint of that day, or as the anchor of
// an account whose balance is not known.
//
// Every row that reads counts, duplicates too: a row already in the account is still one of
// the bank's transactions, and the balance printed beside it is still the bank's. The balances
// come from the file's own arithmetic, whatever Tally writes of it, so a file whose rows are
// all in the account already still confirms (or questions) the ledger.
func (p *publisher) csvBalances(ctx context.Context) error {
	if l := p.im.BalanceColLabel; l == nil || strings.TrimSpace(*l) == "" {
		return nil
	}
	var rows []balanceRow
	if err := p.tx.NewRaw(`
		SELECT a.id AS account, a.accountable_type AS type, r.date, r.amount, (r.extra->>'balance')::numeric AS balance
		FROM import_rows r `+accountMapping+`
		JOIN accounts a ON a.id = coalesce(?::uuid, am.target_id) AND a.family_id = ?
		WHERE r.import_id = ? AND cardinality(r.errors) = 0
		ORDER BY a.id, r.row_number`, p.im.AccountID, p.im.FamilyID, p.im.ID).Scan(ctx, &rows); err != nil {
		return err
	}
	for len(rows) > 0 {
		n := 1
		for n < len(rows) && rows[n].Account == rows[0].Account {
			n++
		}
		if err := p.runningBalances(ctx, rows[:n]); err != nil {
			return err
		}
		rows = rows[n:]
	}
	return nil
}

// runningBalances records the balances of one account's rows, given in file order.
func (p *publisher) runningBalances(ctx context.Context, rows []balanceRow) error {
	// A file lists its rows oldest first unless its first row is dated after its last; a bank
	// that lists newest first lists each day's rows newest first too. A file of one day is read
	// top to bottom.
	if rows[0].Date.After(rows[len(rows)-1].Date) {
		slices.Reverse(rows)
	}
	slices.SortStableFunc(rows, func(a, b balanceRow) int { return a.Date.Compare(b.Date) })
	printed := func(r balanceRow) bool { return r.Balance.Valid }
	first, last := slices.IndexFunc(rows, printed), lastIndex(rows, printed)
	if first < 0 {
		return nil
	}
	// A row's amount is money out. It lowers what an asset holds and raises what a liability
	// owes, and Tally keeps a liability's balance as what it owes, positive. A file whose
	// amounts are money in positive (the default) is written from the holder's side, so its
	// balance is a debt written negative and is turned round; a file whose charges are
	// positive (inflows_negative) is written from the lender's side, and its balance is what
	// is owed as it stands. A file of money-out and money-in columns says its side the same
	// way, though the convention does not sign its amounts.
	t, _ := models.AccountTypeByName(rows[0].Type)
	effect, turn := decimal.NewFromInt(-1), false
	if t.Liability {
		effect, turn = decimal.NewFromInt(1), p.im.SignageConvention != InflowsNegative
	}
	balance := func(r balanceRow) decimal.Decimal {
		if turn {
			return r.Balance.Decimal.Neg()
		}
		return r.Balance.Decimal
	}
	// From the first balance printed back through the rows up to it, and from the last one on
	// through the rows after it, where a bank left a day's other lines blank.
	opening := balance(rows[first])
	for _, r := range rows[:first+1] {
		opening = opening.Sub(effect.Mul(r.Amount))
	}
	closing := balance(rows[last])
	for _, r := range rows[last+1:] {
		closing = closing.Add(effect.Mul(r.Amount))
	}

	account := rows[0].Account
	unknown, err := balanceUnknown(ctx, p.tx, account)
	if err != nil {
		return err
	}
	d := rows[0].Date.AddDate(0, 0, -1).Format(time.DateOnly)
	if _, err := p.valuation(ctx, account, d, opening, models.ValuationCheckpoint, "balance:"+d, "Running balance before the file"); err != nil {
		return err
	}
	kind, name := models.ValuationCheckpoint, "Running balance at the end of the file"
	if unknown {
		kind, name = models.ValuationCurrentAnchor, "Balance from the bank's file"
	}
	d = rows[len(rows)-1].Date.Format(time.DateOnly)
	_, err = p.valuation(ctx, account, d, closing, kind, "balance:"+d, name)
	return err
}

// lastIndex is the index of the last element of s that f holds for, or -1.
func lastIndex[T any](s []T, f func(T) bool) int {
	for i := len(s) - 1; i >= 0; i-- {
		if f(s[i]) {
			return i
		}
	}
	return -1
}
