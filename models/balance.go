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
// It is one query over the account's entries from the first day on (from the last valuation
// before it, for a manual account), through entries_account_date_idx: grouped daily sums
// walked with window sums over generate_series (balanceWalk, which DailyNetWorth shares).
func DailyBalances(ctx context.Context, db bun.IDB, familyID, accountID uuid.UUID, start, end time.Time) ([]DailyBalance, error) {
	if err := checkBalanceRange(start, end); err != nil {
		return nil, err
	}
	a, err := AccountByID(ctx, db, familyID, accountID)
	if err != nil {
		return nil, err
	}
	out := []DailyBalance{}
	err = db.NewRaw(balanceWalk+"SELECT day, balance FROM balances ORDER BY day", newBalanceArgs([]Account{*a}, start, end)).Scan(ctx, &out)
	if err != nil && !isNoRows(err) {
		return nil, err
	}
	return out, nil
}

// BalanceSeries is a balance in one currency at the end of every day of a range.
type BalanceSeries struct {
	Currency string
	Points   []DailyBalance
}

// DailyNetWorth returns the family's net worth on every day from start to end, one series per
// currency (Tally converts none), in the order of the currencies' codes: on each day, the sum
// of DailyBalances over the family's open accounts, assets added and liabilities taken away.
// A family without open accounts has no series.
//
// It is one query for every account at once, the walk of DailyBalances partitioned by
// account and summed per currency and day, so its cost grows with the entries read and the
// days drawn, never with a query per account or per day.
func DailyNetWorth(ctx context.Context, db bun.IDB, familyID uuid.UUID, start, end time.Time) ([]BalanceSeries, error) {
	if err := checkBalanceRange(start, end); err != nil {
		return nil, err
	}
	all, err := AccountsForFamily(ctx, db, familyID)
	if err != nil {
		return nil, err
	}
	var open []Account
	for _, a := range all {
		if a.Status != AccountDisabled { // closed accounts are kept for history, out of totals
			open = append(open, a)
		}
	}
	if len(open) == 0 {
		return nil, nil
	}
	var rows []struct {
		Currency string `bun:"currency"`
		DailyBalance
	}
	// An account's sign turns an outflow into its balance's change (-1 for an asset); its
	// balance counts towards net worth with the opposite sign, so a liability's is taken away.
	err = db.NewRaw(balanceWalk+`SELECT a.currency, b.day, sum(-a.sign * b.balance) AS balance
		FROM balances b JOIN accts a USING (account)
		GROUP BY a.currency, b.day ORDER BY a.currency, b.day`, newBalanceArgs(open, start, end)).Scan(ctx, &rows)
	if err != nil && !isNoRows(err) {
		return nil, err
	}
	var out []BalanceSeries
	for _, r := range rows {
		if len(out) == 0 || out[len(out)-1].Currency != r.Currency {
			out = append(out, BalanceSeries{Currency: r.Currency})
		}
		s := &out[len(out)-1]
		s.Points = append(s.Points, r.DailyBalance)
	}
	return out, nil
}

// HistoryStart is the first day of the family's history, or of one account's when accountID is
// set: the date of its earliest entry, but no more than the ten years a balance series spans
// before end. With no entries it is end.
func HistoryStart(ctx context.Context, db bun.IDB, familyID uuid.UUID, accountID *uuid.UUID, end time.Time) (time.Time, error) {
	q := db.NewSelect().TableExpr("entries").ColumnExpr("min(date)").Where("family_id = ?", familyID)
	if accountID != nil {
		q.Where("account_id = ?", *accountID)
	}
	var first *time.Time
	if err := q.Scan(ctx, &first); err != nil {
		return time.Time{}, err
	}
	floor := end.AddDate(-maxBalanceYears, 0, 0)
	switch {
	case first == nil || first.After(end):
		return end, nil
	case first.Before(floor):
		return floor, nil
	}
	return first.UTC(), nil
}

// balanceArgs are the named arguments of balanceWalk: the accounts, as parallel arrays, and
// the range.
type balanceArgs struct {
	Accounts  []uuid.UUID `bun:"accounts,array"`
	Signs     []int       `bun:"signs,array"`
	Balances  []string    `bun:"balances,array"`
	Providers []bool      `bun:"providers,array"`
	Ccys      []string    `bun:"currencies,array"`
	Start     string      `bun:"start"`
	End       string      `bun:"end"`
}

func newBalanceArgs(accts []Account, start, end time.Time) *balanceArgs {
	args := &balanceArgs{Start: start.Format(time.DateOnly), End: end.Format(time.DateOnly)}
	for _, a := range accts {
		sign := -1 // an outflow (a positive amount) lowers an asset
		if a.Type().Liability {
			sign = 1
		}
		args.Accounts = append(args.Accounts, a.ID)
		args.Signs = append(args.Signs, sign)
		args.Balances = append(args.Balances, a.Balance.String())
		args.Providers = append(args.Providers, a.Source != nil)
		args.Ccys = append(args.Ccys, a.Currency)
	}
	return args
}

// balanceWalk is the one rule of daily balances, as CTEs ending in balances(account, day,
// balance) for every account of accts on every day from ?start to ?end; the statement that
// follows it selects from them. Each account's entries are read through
// entries_account_date_idx, by LATERAL subqueries so that the planner probes the index per
// account rather than scanning every family's entries.
//
// A day's balance is the account's opening balance plus its sign times the transactions from
// the first day up to the day. A manual account opens on its latest valuation on or before the
// first day (the anchor) plus the transactions after it and before the first day (summed from
// account_month_totals and at most two months of entries, so an account's long history is
// never added up row by row), counts only
// transactions after the anchor, and each later valuation starts a segment: the day's balance
// is then the segment's valuation plus the transactions after the valuation's day. A
// provider's account opens on its reported balance less the posted transactions from the
// first day on (those after the last day included), and counts posted transactions only.
const balanceWalk = `
WITH accts AS (
	SELECT * FROM unnest(?accounts::uuid[], ?signs::int[], ?balances::numeric[], ?providers::boolean[], ?currencies::text[])
		AS a(account, sign, balance, provider, currency)
), anchors AS (
	SELECT a.account, a.sign, a.provider, coalesce(v.date, '-infinity'::date) AS since,
		CASE WHEN a.provider
		THEN a.balance - a.sign * (SELECT coalesce(sum(amount), 0) FROM entries
			WHERE account_id = a.account AND kind = 'transaction' AND parent_id IS NULL AND NOT pending
				AND date >= ?start::date)
		-- The transactions from the day after the valuation (lo) to the day before the first:
		-- whole months from account_month_totals, the two ragged ends from entries.
		ELSE coalesce(v.amount, 0) + a.sign * (
			(SELECT coalesce(sum(t.amount), 0) FROM account_month_totals t WHERE t.account_id = a.account
				AND t.month >= date_trunc('month', r.lo)::date AND t.month < date_trunc('month', ?start::date)::date)
			+ (SELECT coalesce(sum(amount), 0) FROM entries WHERE account_id = a.account AND kind = 'transaction' AND parent_id IS NULL
				AND date >= date_trunc('month', ?start::date)::date AND date < ?start::date)
			- (SELECT coalesce(sum(amount), 0) FROM entries WHERE account_id = a.account AND kind = 'transaction' AND parent_id IS NULL
				AND date >= date_trunc('month', r.lo)::date AND date < r.lo))
		END AS opening
	FROM accts a
	LEFT JOIN LATERAL (
		SELECT date, amount FROM entries
		WHERE account_id = a.account AND kind = 'valuation' AND date <= ?start::date AND NOT a.provider
		ORDER BY date DESC, created_at DESC LIMIT 1
	) v ON true
	CROSS JOIN LATERAL (SELECT least(coalesce(v.date, '-infinity'::date) + 1, ?start::date) AS lo) r
), flows AS (
	SELECT an.account, f.day, f.amount FROM anchors an
	CROSS JOIN LATERAL (
		SELECT date AS day, sum(amount) AS amount FROM entries
		WHERE account_id = an.account AND kind = 'transaction' AND parent_id IS NULL
			AND date > an.since AND date >= ?start::date AND date <= ?end::date
			AND NOT (an.provider AND pending)
		GROUP BY date
	) f
), resets AS (
	SELECT an.account, r.day, r.amount FROM anchors an
	CROSS JOIN LATERAL (
		SELECT DISTINCT ON (date) date AS day, amount FROM entries
		WHERE account_id = an.account AND kind = 'valuation' AND date > ?start::date AND date <= ?end::date
		ORDER BY date, created_at DESC
	) r
	WHERE NOT an.provider
), walk AS (
	SELECT an.account, an.sign, an.opening, d.day::date AS day, r.amount AS reset,
		sum(coalesce(f.amount, 0)) OVER w AS flow,
		count(r.amount) OVER w AS segment
	FROM anchors an
	CROSS JOIN generate_series(?start::date, ?end::date, interval '1 day') AS d(day)
	LEFT JOIN flows f ON f.account = an.account AND f.day = d.day
	LEFT JOIN resets r ON r.account = an.account AND r.day = d.day
	WINDOW w AS (PARTITION BY an.account ORDER BY d.day)
), balances AS (
	SELECT account, day, CASE WHEN segment = 0
		THEN opening + sign * flow
		ELSE first_value(reset) OVER s + sign * (flow - first_value(flow) OVER s) END AS balance
	FROM walk
	WINDOW s AS (PARTITION BY account, segment ORDER BY day)
)
`
