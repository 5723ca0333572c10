package models

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"
	"github.com/uptrace/bun"

	"tally/internal/apperr"
)

// DailyBalance is an account's balance at the end of a day.
type DailyBalance struct {
	Date    time.Time       `bun:"day,type:date"`
	Balance decimal.Decimal `bun:"balance,type:numeric"`
}

// maxBalanceYears bounds the range of DailyBalances: ten years is some 3,650 points.
const maxBalanceYears = 10

// checkBalanceRange reports what is wrong with a range of days for DailyBalances, on the
// fields start_date and end_date.
func checkBalanceRange(start, end time.Time) error {
	var v apperr.Validation
	switch {
	case end.Before(start):
		v.Add("start_date", "start_date must be on or before end_date")
	case start.AddDate(maxBalanceYears, 0, 0).Before(end):
		v.Add("end_date", fmt.Sprintf("end_date must be within %d years of start_date", maxBalanceYears))
	}
	return v.Err()
}

// DailyBalances returns the family's account's balance on every day from start to end, from
// its ledger (the balances table is written by native imports only). Transactions count, split
// parts and trades do not; an outflow lowers an asset and raises what a liability owes.
//
// A manual account's balance on a day is its latest valuation on or before that day plus the
// transactions dated after the valuation up to the day (all of them up to the day when there
// is no valuation): on the day of its latest entry and after, it is what RecomputeBalances
// stores. A provider's account starts from the balance the provider reports and walks back
// through the posted transactions dated after each day (a pending one is not in that balance
// yet).
//
// Each is one query over the account's entries from the first day on (from the last
// valuation before it, for a manual account), through entries_account_date_idx: grouped daily
// sums walked with window sums over generate_series.
func DailyBalances(ctx context.Context, db bun.IDB, familyID, accountID uuid.UUID, start, end time.Time) ([]DailyBalance, error) {
	if err := checkBalanceRange(start, end); err != nil {
		return nil, err
	}
	a, err := AccountByID(ctx, db, familyID, accountID)
	if err != nil {
		return nil, err
	}
	sign := -1 // an outflow (a positive amount) lowers an asset
	if a.Type().Liability {
		sign = 1
	}
	query := manualBalances
	if a.Source != nil {
		query = providerBalances
	}
	args := balanceArgs{Account: a.ID, Start: start.Format(time.DateOnly), End: end.Format(time.DateOnly), Sign: sign, Balance: a.Balance}
	out := []DailyBalance{}
	err = db.NewRaw(query, &args).Scan(ctx, &out)
	if err != nil && !isNoRows(err) {
		return nil, err
	}
	return out, nil
}

// balanceArgs are the named arguments of the balance queries.
type balanceArgs struct {
	Account uuid.UUID       `bun:"account,type:uuid"`
	Start   string          `bun:"start"`
	End     string          `bun:"end"`
	Sign    int             `bun:"sign"`
	Balance decimal.Decimal `bun:"balance,type:numeric"`
}

// manualBalances walks the days from the latest valuation on or before the first day (the
// anchor), with the transactions after it: those before the first day in one sum, then each
// day's. Each later valuation starts a segment: the day's balance is the segment's valuation
// plus the transactions after the valuation's day.
const manualBalances = `
WITH anchor AS (
	SELECT date, amount FROM entries
	WHERE account_id = ?account AND kind = 'valuation' AND date <= ?start::date
	ORDER BY date DESC, created_at DESC LIMIT 1
), since AS (
	SELECT coalesce((SELECT date FROM anchor), '-infinity'::date) AS date
), before AS (
	SELECT coalesce(sum(amount), 0) AS amount FROM entries
	WHERE account_id = ?account AND kind = 'transaction' AND parent_id IS NULL
		AND date > (SELECT date FROM since) AND date < ?start::date
), flows AS (
	SELECT date AS day, sum(amount) AS amount FROM entries
	WHERE account_id = ?account AND kind = 'transaction' AND parent_id IS NULL
		AND date > (SELECT date FROM since) AND date >= ?start::date AND date <= ?end::date
	GROUP BY date
), resets AS (
	SELECT DISTINCT ON (date) date AS day, amount FROM entries
	WHERE account_id = ?account AND kind = 'valuation' AND date > ?start::date AND date <= ?end::date
	ORDER BY date, created_at DESC
), walk AS (
	SELECT d.day::date AS day, r.amount AS reset,
		sum(coalesce(f.amount, 0)) OVER w AS flow,
		count(r.amount) OVER w AS segment
	FROM generate_series(?start::date, ?end::date, interval '1 day') AS d(day)
	LEFT JOIN flows f ON f.day = d.day
	LEFT JOIN resets r ON r.day = d.day
	WINDOW w AS (ORDER BY d.day)
)
SELECT day, CASE WHEN segment = 0
	THEN coalesce((SELECT amount FROM anchor), 0) + ?sign * ((SELECT amount FROM before) + flow)
	ELSE first_value(reset) OVER s + ?sign * (flow - first_value(flow) OVER s) END AS balance
FROM walk
WINDOW s AS (PARTITION BY segment ORDER BY day)
ORDER BY day`

// providerBalances walks back from the provider's balance: a day's balance is it less the
// posted transactions dated after the day.
const providerBalances = `
WITH flows AS (
	SELECT date AS day, sum(amount) AS amount FROM entries
	WHERE account_id = ?account AND kind = 'transaction' AND parent_id IS NULL AND NOT pending AND date > ?start::date
	GROUP BY 1
)
SELECT d.day::date AS day,
	?balance::numeric - ?sign * ((SELECT coalesce(sum(amount), 0) FROM flows) - sum(coalesce(f.amount, 0)) OVER (ORDER BY d.day)) AS balance
FROM generate_series(?start::date, ?end::date, interval '1 day') AS d(day)
LEFT JOIN flows f ON f.day = d.day
ORDER BY d.day`
