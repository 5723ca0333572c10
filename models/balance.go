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

// DailyBalances returns the family's account's balance (one the viewer may see) at the end of every day from start to
// end, walked from its anchor through its ledger (balanceWalk): transactions count, split parts
// and trades do not; an outflow lowers an asset and raises what a liability owes.
func DailyBalances(ctx context.Context, db bun.IDB, v Viewer, accountID uuid.UUID, start, end time.Time) ([]DailyBalance, error) {
	if err := checkBalanceRange(start, end); err != nil {
		return nil, err
	}
	a, err := AccountByID(ctx, db, v, accountID)
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
	// Monthly says the points are the range's month ends and its last day, not every day: a
	// range of more than ChartDays days (DailyNetWorth).
	Monthly bool
}

// ChartDays is the most days a chart draws one by one; a longer range is drawn at its month
// ends, and DailyNetWorth reads only those.
const ChartDays = 400

// DailyNetWorth returns the family's net worth on every day from start to end, one series per
// currency (reports.FamilyNetWorth converts them), in the order of the currencies' codes: on
// each day, the sum of DailyBalances over the family's open accounts the viewer may see, assets added and
// liabilities taken away. A family without open accounts has no series. A range of more than
// ChartDays days gives only its month ends and its last day (Monthly), as its chart draws it.
//
// It is one query for every account at once, the walk of DailyBalances partitioned by
// account and summed per currency and day, so its cost grows with the entries read and the
// days drawn, never with a query per account or per day; the monthly walk reads no entry but
// those of the last day's month, whatever the history's length.
func DailyNetWorth(ctx context.Context, db bun.IDB, v Viewer, start, end time.Time) ([]BalanceSeries, error) {
	if err := checkBalanceRange(start, end); err != nil {
		return nil, err
	}
	all, err := AccountsForFamily(ctx, db, v)
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
	walk, monthly := balanceWalk, end.Sub(start) >= ChartDays*24*time.Hour
	if monthly {
		walk = monthEndWalk
	}
	err = db.NewRaw(walk+`SELECT a.currency, b.day, sum(-a.sign * b.balance) AS balance
		FROM balances b JOIN accts a USING (account)
		GROUP BY a.currency, b.day ORDER BY a.currency, b.day`, newBalanceArgs(open, start, end)).Scan(ctx, &rows)
	if err != nil && !isNoRows(err) {
		return nil, err
	}
	var out []BalanceSeries
	for _, r := range rows {
		if len(out) == 0 || out[len(out)-1].Currency != r.Currency {
			out = append(out, BalanceSeries{Currency: r.Currency, Monthly: monthly})
		}
		s := &out[len(out)-1]
		s.Points = append(s.Points, r.DailyBalance)
	}
	return out, nil
}

// HistoryStart is the first day of the family's history the viewer may see, or of one
// account's when accountID is set: the date of its earliest entry, but no more than the ten years a balance series spans
// before end. With no entries it is end.
func HistoryStart(ctx context.Context, db bun.IDB, v Viewer, accountID *uuid.UUID, end time.Time) (time.Time, error) {
	q := db.NewSelect().TableExpr("entries AS e").ColumnExpr("min(e.date)").Where("e.family_id = ?", v.FamilyID)
	v.VisibleAccounts(q.QueryBuilder(), "e.account_id")
	if accountID != nil {
		q.Where("e.account_id = ?", *accountID)
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

// balanceArgs are the named arguments of balancePoints and balanceWalk: the accounts, as
// parallel arrays, and the range.
type balanceArgs struct {
	Accounts  []uuid.UUID `bun:"accounts,array"`
	Signs     []int       `bun:"signs,array"`
	Balances  []string    `bun:"balances,array"`
	Providers []bool      `bun:"providers,array"`
	Valued    []bool      `bun:"valued,array"`
	Ccys      []string    `bun:"currencies,array"`
	Start     string      `bun:"start"`
	End       string      `bun:"end"`
}

func newBalanceArgs(accts []Account, start, end time.Time) *balanceArgs {
	args := &balanceArgs{Start: start.Format(time.DateOnly), End: end.Format(time.DateOnly)}
	for _, a := range accts {
		args.Accounts = append(args.Accounts, a.ID)
		args.Signs = append(args.Signs, a.flowSign())
		args.Balances = append(args.Balances, a.Balance.String())
		args.Providers = append(args.Providers, a.Source != nil)
		args.Valued = append(args.Valued, a.Type().Valued)
		args.Ccys = append(args.Ccys, a.Currency)
	}
	return args
}

// flowSign turns a transaction's amount into the change of the account's balance: an outflow
// (a positive amount) lowers an asset (-1) and raises what a liability owes (1).
func (a *Account) flowSign() int {
	if a.Type().Liability {
		return 1
	}
	return -1
}

// flowSQL is an SQL expression of the sum of the transactions of account acct (split parts
// left out) dated from lo to hi, both included, leaving pending ones out where posted holds.
// Each argument is an SQL expression; lo and hi may be '-infinity' and 'infinity'. Whole
// months come from account_month_totals and the ragged ends from entries, so its cost is the
// months spanned plus at most two months of entries, however long the account's history.
func flowSQL(acct, lo, hi, posted string) string {
	entries := `coalesce((SELECT sum(fe.amount) FROM entries fe
			WHERE fe.account_id = ` + acct + ` AND fe.kind = 'transaction' AND fe.parent_id IS NULL AND NOT ((` + posted + `) AND fe.pending)
				AND %s), 0)`
	return `(CASE WHEN (` + lo + `)::date > (` + hi + `)::date THEN 0 ELSE
		coalesce((SELECT sum(CASE WHEN ` + posted + ` THEN ft.posted ELSE ft.amount END) FROM account_month_totals ft
			WHERE ft.account_id = ` + acct + ` AND ft.month >= date_trunc('month', (` + lo + `)::date) AND ft.month <= (` + hi + `)::date), 0)
		- ` + fmt.Sprintf(entries, `fe.date >= date_trunc('month', (`+lo+`)::date) AND fe.date < (`+lo+`)::date`) + `
		- ` + fmt.Sprintf(entries, `fe.date > (`+hi+`)::date AND fe.date < date_trunc('month', (`+hi+`)::date) + interval '1 month'`) + `
	END)`
}

// balancePoints is the one rule of which balances an account's history is walked from, as CTEs
// ending in offsets(account, date, off): for each of the account's governing points, the
// constant that, added to the account's sign times its transactions dated up to a day (its
// cumulative flow), gives the day's balance while the point governs.
//
//   - A bank-fed account (provider) has one point, its reported balance, which takes in every
//     posted transaction (pending ones are not in a bank's balance yet); it has no row here,
//     as its constant needs no entry: balanceWalk and balancesAt derive it.
//   - Any other account's point is its anchor, the anchor valuation written last (a balance a
//     person typed, or the first one an import gave the account), which takes in the
//     transactions dated before its day and those of its day added up to its as_of (all of
//     them when as_of is null).
//   - An account whose value moves without transactions (AccountType.Valued) takes each
//     valuation that is not a checkpoint as its value from its day on, the latest of a day.
//
// A point governs the days from its own to the next point's; the days before the first point
// are walked back from it. Every other valuation is a checkpoint, compared with the walk and
// never a reset, so the history moves only where an entry moves it.
//
// A point's constant is its amount less the sign times the flow it takes in: the flow up to
// the day before it (summed by flowSQL between consecutive points, so a point's cost is
// the months since the one before) plus what it takes in of its own day.
var balancePoints = `
WITH accts AS (
	SELECT * FROM unnest(?accounts::uuid[], ?signs::int[], ?balances::numeric[], ?providers::boolean[], ?valued::boolean[], ?currencies::text[])
		AS a(account, sign, balance, provider, valued, currency)
), points AS (
	SELECT a.account, a.sign, p.entry, p.date, p.amount,
		lag(p.date) OVER (PARTITION BY a.account ORDER BY p.date) AS prev,
		(SELECT coalesce(sum(e.amount), 0) FROM entries e
			WHERE e.account_id = a.account AND e.kind = 'transaction' AND e.parent_id IS NULL AND e.date = p.date
				AND (p.as_of IS NULL OR e.created_at <= p.as_of)) AS own_day
	FROM accts a
	CROSS JOIN LATERAL (
		SELECT * FROM (
			SELECT e.id AS entry, e.date, e.amount, v.as_of FROM entries e JOIN valuations v ON v.entry_id = e.id
			WHERE e.account_id = a.account AND e.kind = 'valuation' AND v.kind IN ('opening_anchor', 'current_anchor')
			ORDER BY e.created_at DESC, e.date DESC, e.id DESC LIMIT 1
		) anchor WHERE NOT a.valued
		UNION ALL
		(SELECT DISTINCT ON (e.date) e.id, e.date, e.amount, v.as_of FROM entries e JOIN valuations v ON v.entry_id = e.id
		WHERE a.valued AND e.account_id = a.account AND e.kind = 'valuation' AND v.kind <> 'checkpoint'
		ORDER BY e.date, e.created_at DESC)
	) p
	WHERE NOT a.provider
), offsets AS (
	SELECT p.account, p.date, p.amount - p.sign * (p.own_day
		+ sum(` + flowSQL("p.account", "coalesce(p.prev, '-infinity'::date)", "p.date - 1", "false") + `) OVER (PARTITION BY p.account ORDER BY p.date)) AS off
	FROM points p
), governing AS (
	-- The constant of each account on a day ?start: its latest point on or before that day,
	-- else its first point, else (no balance known) 0; a provider's from its reported balance.
	SELECT a.account, a.sign, a.provider, a.currency,
		CASE WHEN a.provider THEN a.balance - a.sign * ` + flowSQL("a.account", "'-infinity'", "'infinity'", "true") + `
		ELSE coalesce(
			(SELECT off FROM offsets o WHERE o.account = a.account AND o.date <= ?start::date ORDER BY o.date DESC LIMIT 1),
			(SELECT off FROM offsets o WHERE o.account = a.account ORDER BY o.date LIMIT 1),
			0) END AS off
	FROM accts a
)`

// balanceWalk is the one rule of daily balances, as CTEs ending in balances(account, day,
// balance) for every account of accts on every day from ?start to ?end; the statement that
// follows it selects from them. A day's balance is its governing point's constant
// (balancePoints) plus the account's sign times its cumulative flow: the flow before ?start
// (flowSQL) and the running sum of the days' flows from ?start, read per account through
// entries_account_date_idx by LATERAL subqueries, so that the planner probes the index per
// account rather than scanning every family's entries. A point inside the range starts a
// segment with its own constant.
var balanceWalk = balancePoints + `, starts AS (
	SELECT g.*, ` + flowSQL("g.account", "'-infinity'", "?start::date - 1", "g.provider") + ` AS before FROM governing g
), flows AS (
	SELECT s.account, f.day, f.amount FROM starts s
	CROSS JOIN LATERAL (
		SELECT date AS day, sum(amount) AS amount FROM entries
		WHERE account_id = s.account AND kind = 'transaction' AND parent_id IS NULL
			AND date >= ?start::date AND date <= ?end::date AND NOT (s.provider AND pending)
		GROUP BY date
	) f
), walk AS (
	SELECT s.account, s.sign, s.off, s.before, d.day::date AS day, o.off AS reset,
		sum(coalesce(f.amount, 0)) OVER w AS flow,
		count(o.off) OVER w AS segment
	FROM starts s
	CROSS JOIN generate_series(?start::date, ?end::date, interval '1 day') AS d(day)
	LEFT JOIN flows f ON f.account = s.account AND f.day = d.day
	LEFT JOIN offsets o ON o.account = s.account AND o.date = d.day AND o.date > ?start::date
	WINDOW w AS (PARTITION BY s.account ORDER BY d.day)
), balances AS (
	SELECT account, day, coalesce(first_value(reset) OVER s, off) + sign * (before + flow) AS balance
	FROM walk
	WINDOW s AS (PARTITION BY account, segment ORDER BY day)
)
`

// monthEndWalk is balanceWalk at the month ends of the range and its last day only, as CTEs
// ending in balances(account, day, balance). A month end's cumulative flow is the running sum
// of account_month_totals, so it reads no entry; the last day, inside its month, takes away
// the entries dated after it in that month. Each day's constant is its governing point's, as
// in balancePoints.
var monthEndWalk = balancePoints + `, days AS (
	SELECT least((date_trunc('month', m) + interval '1 month - 1 day')::date, ?end::date) AS day
	FROM generate_series(date_trunc('month', ?start::date), date_trunc('month', ?end::date), interval '1 month') AS m
), totals AS (
	SELECT g.account, t.month,
		sum(CASE WHEN g.provider THEN t.posted ELSE t.amount END) OVER (PARTITION BY g.account ORDER BY t.month) AS cum
	FROM governing g JOIN account_month_totals t ON t.account_id = g.account
), balances AS (
	SELECT g.account, d.day,
		coalesce((SELECT off FROM offsets o WHERE o.account = g.account AND o.date <= d.day ORDER BY o.date DESC LIMIT 1), g.off)
		+ g.sign * (
			coalesce((SELECT x.cum FROM totals x WHERE x.account = g.account AND x.month <= d.day ORDER BY x.month DESC LIMIT 1), 0)
			- coalesce((SELECT sum(e.amount) FROM entries e
				WHERE e.account_id = g.account AND e.kind = 'transaction' AND e.parent_id IS NULL AND NOT (g.provider AND e.pending)
					AND e.date > d.day AND e.date < date_trunc('month', d.day) + interval '1 month'), 0)) AS balance
	FROM governing g CROSS JOIN days d
)
`
