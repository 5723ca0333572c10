// Package recurring finds the series in a family's history (a rent, a subscription, a
// salary), keeps them in recurring_transactions for a person to confirm, edit or ignore, and
// tells what the confirmed ones still bring: the bills to come, what each category still
// expects this month, and an account's balance over the days ahead.
package recurring

import (
	"cmp"
	"slices"
	"time"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"

	"tally/models"
	"tally/reports"
)

// Txn is a transaction as detection reads it.
type Txn struct {
	ID        uuid.UUID // the entry
	AccountID uuid.UUID
	// Key is the group a transaction belongs to: its merchant ("m:<id>"), or without one its
	// name folded to its letters ("n:netflix"), as the SQL function recurring_key has it.
	Key      string
	Date     time.Time
	Amount   decimal.Decimal // the ledger's sign: money out is positive
	Currency string
	// Name is the merchant's name when it has one, else the transaction's. Detection copies
	// it, MerchantID and CategoryID from a series' last payment; the store leaves the three out
	// of what it reads and fills them in for the series found only (see described).
	Name       string
	MerchantID *uuid.UUID
	CategoryID *uuid.UUID
	// Utility says its category is one of energy, water and the like, whose bills vary.
	Utility bool

	units int64 // the amount's size in ten-thousandths, for comparing amounts cheaply
}

// Found is a series detection found in a group of transactions.
type Found struct {
	AccountID  uuid.UUID
	Key        string
	Currency   string
	Name       string
	MerchantID *uuid.UUID
	CategoryID *uuid.UUID
	Interval   string
	Day        int // the day of the month it is paid on (monthly, quarterly, yearly)
	// Amount is what the next payment is expected to be: the last one for a fixed amount, the
	// average for a utility.
	Amount, Min, Max, Avg, Last decimal.Decimal
	Tolerance                   decimal.Decimal
	First, LastDate, Next       time.Time
	Count                       int
	Confidence                  decimal.Decimal

	lastID uuid.UUID // the entry of the last payment
}

// Tolerances: a fixed amount may move by 2 % (a rounding, a small price change), a utility's
// bill by 10 %.
const fixedPercent, utilityPercent = 2, 10

var (
	FixedTolerance   = decimal.New(fixedPercent, -2)
	UtilityTolerance = decimal.New(utilityPercent, -2)
)

// interval is how detection recognises one interval: the gaps between payments that fit it,
// the fewest payments that make a series, and how long after its last payment a series that
// has stopped is let go.
type interval struct {
	name           string
	minGap, maxGap int // days
	minCount       int
	period         int // days, roughly
}

var intervals = []interval{
	{models.IntervalWeekly, 6, 8, 4, 7},
	{models.IntervalBiweekly, 13, 15, 3, 14},
	{models.IntervalMonthly, 26, 35, 3, 31},
	{models.IntervalQuarterly, 84, 98, 3, 92},
	{models.IntervalYearly, 360, 370, 2, 366},
}

// minFit is the share of gaps between payments that must fit the interval: one payment late
// or missed in a year of monthly ones is still a series.
var minFit = decimal.RequireFromString("0.75")

// Detect finds the series in txns as of today. A series is a group's transactions (one
// account, one currency, one direction, one merchant or name) whose amounts lie within the
// tolerance of one another and whose dates follow one interval: weekly, biweekly, monthly on
// a day or on the last working day, quarterly or yearly. A series whose last payment is more
// than two intervals ago has stopped and is left out. The result is ordered by account, key
// and amount, so that it is the same for the same history.
func Detect(txns []Txn, today time.Time) []Found {
	type groupKey struct {
		account  uuid.UUID
		currency string
		out      bool
		key      string
	}
	// The groups hold pointers into a copy of txns, so that sorting moves pointers, not Txns.
	own := slices.Clone(txns)
	groups := map[groupKey][]*Txn{}
	for i := range own {
		t := &own[i]
		if t.Amount.IsZero() || t.Key == "" {
			continue
		}
		t.units = t.Amount.Abs().Shift(4).IntPart()
		k := groupKey{t.AccountID, t.Currency, t.Amount.IsPositive(), t.Key}
		groups[k] = append(groups[k], t)
	}
	var out []Found
	for _, g := range groups {
		for _, c := range clusters(g) {
			if f, ok := fit(c, today); ok {
				out = append(out, f)
			}
		}
	}
	slices.SortFunc(out, func(a, b Found) int {
		return cmp.Or(cmp.Compare(a.AccountID.String(), b.AccountID.String()), cmp.Compare(a.Key, b.Key),
			a.Amount.Cmp(b.Amount), a.Next.Compare(b.Next))
	})
	return out
}

// clusters splits a group's transactions by amount: sorted by size, each cluster takes the
// next amount while it stays within twice the tolerance of the cluster's smallest, so that
// every member lies within the tolerance of their middle. A cluster of one is no series.
func clusters(g []*Txn) [][]*Txn {
	tol := int64(fixedPercent)
	if slices.ContainsFunc(g, func(t *Txn) bool { return t.Utility }) {
		tol = utilityPercent
	}
	slices.SortFunc(g, func(a, b *Txn) int { return cmp.Or(cmp.Compare(a.units, b.units), a.Date.Compare(b.Date)) })
	var out [][]*Txn
	start := 0
	for i := 1; i <= len(g); i++ {
		// x within the spread of the smallest s: x (1 - tol) <= s (1 + tol)
		if i < len(g) && g[i].units*(100-tol) <= g[start].units*(100+tol) {
			continue
		}
		if i-start >= 2 {
			c := slices.Clone(g[start:i])
			slices.SortFunc(c, func(a, b *Txn) int { return a.Date.Compare(b.Date) })
			out = append(out, c)
		}
		start = i
	}
	return out
}

// fit finds the interval that a cluster's dates follow best, if any does well enough, and
// describes the series.
func fit(c []*Txn, today time.Time) (Found, bool) {
	gaps := make([]int, len(c)-1)
	for i := 1; i < len(c); i++ {
		gaps[i-1] = days(c[i-1].Date, c[i].Date)
	}
	// The share of gaps that fit is compared as the count that fit: all have len(gaps) below.
	best, bestN := interval{}, 0
	for _, iv := range intervals {
		if len(c) < iv.minCount || len(c) == 2 && !c[0].Amount.Equal(c[1].Amount) {
			// Two payments a year apart are a series only when they are of the same amount:
			// in a busy group two similar amounts a year apart happen by chance.
			continue
		}
		n := 0
		for _, g := range gaps {
			if g >= iv.minGap && g <= iv.maxGap {
				n++
			}
		}
		if n > bestN {
			best, bestN = iv, n
		}
	}
	bestFit := decimal.NewFromInt(int64(bestN)).Div(decimal.NewFromInt(int64(len(gaps))))
	if bestN == 0 || bestFit.LessThan(minFit) {
		return Found{}, false
	}
	last := c[len(c)-1]
	if days(last.Date, today) > 2*best.period+3 {
		return Found{}, false // it has stopped
	}
	f := Found{AccountID: last.AccountID, Key: last.Key, Currency: last.Currency, Name: last.Name,
		MerchantID: last.MerchantID, CategoryID: last.CategoryID, Interval: best.name, Day: last.Date.Day(),
		First: c[0].Date, LastDate: last.Date, Last: last.Amount, Count: len(c), Tolerance: FixedTolerance, lastID: last.ID}
	if last.Utility {
		f.Tolerance = UtilityTolerance
	}
	dates := make([]time.Time, len(c))
	for i, t := range c {
		dates[i] = t.Date
	}
	switch best.name {
	case models.IntervalMonthly, models.IntervalQuarterly, models.IntervalYearly:
		if best.name == models.IntervalMonthly && onLastWorkingDays(dates) {
			f.Interval = models.IntervalMonthlyLastWorkingDay
		}
		f.Day = usualDay(dates)
	}
	f.Min, f.Max = c[0].Amount, c[0].Amount
	sum := decimal.Zero
	for _, t := range c {
		sum = sum.Add(t.Amount)
		if t.Amount.Abs().LessThan(f.Min.Abs()) {
			f.Min = t.Amount
		}
		if t.Amount.Abs().GreaterThan(f.Max.Abs()) {
			f.Max = t.Amount
		}
	}
	places := int32(models.CurrencyDecimals(f.Currency))
	f.Avg = sum.Div(decimal.NewFromInt(int64(len(c)))).Round(places)
	f.Amount = f.Last
	if f.Tolerance.Equal(UtilityTolerance) {
		f.Amount = f.Avg
	}
	f.Next = NextDate(f.Interval, f.Day, f.LastDate)
	f.Confidence = confidence(bestFit, f, best)
	return f, true
}

// confidence is how sure detection is of a series, from 0 to 1: the share of its gaps that
// fit its interval, times how closely its amounts keep together (1 when equal, 0.5 at the
// edge of the tolerance), times how many payments it has seen (full from six gaps, or two
// for a yearly one).
func confidence(share decimal.Decimal, f Found, iv interval) decimal.Decimal {
	spread := decimal.Zero
	if !f.Avg.IsZero() {
		spread = f.Max.Sub(f.Min).Abs().Div(f.Avg.Abs()).Div(f.Tolerance.Mul(decimal.NewFromInt(2)))
	}
	amounts := decimal.NewFromInt(1).Sub(decimal.Min(spread, decimal.NewFromInt(1)).Div(decimal.NewFromInt(2)))
	want := 6
	if iv.name == models.IntervalYearly {
		want = 2
	}
	seen := decimal.Min(decimal.NewFromInt(int64(f.Count-1)).Div(decimal.NewFromInt(int64(want))), decimal.NewFromInt(1))
	return share.Mul(amounts).Mul(seen).Round(2)
}

// usualDay is the day of the month most of dates fall on (the earliest of equally usual
// ones): a payment moved to Monday by a weekend keeps its day.
func usualDay(dates []time.Time) int {
	count := map[int]int{}
	best := 0
	for _, d := range dates {
		count[d.Day()]++
	}
	for day, n := range count {
		if best == 0 || n > count[best] || n == count[best] && day < best {
			best = day
		}
	}
	return best
}

// onLastWorkingDays reports whether three quarters of dates are their month's last working
// day.
func onLastWorkingDays(dates []time.Time) bool {
	n := 0
	for _, d := range dates {
		if d.Equal(LastWorkingDay(d.Year(), d.Month())) {
			n++
		}
	}
	return 4*n >= 3*len(dates)
}

// LastWorkingDay is the month's last day from Monday to Friday.
func LastWorkingDay(year int, month time.Month) time.Time {
	d := time.Date(year, month+1, 0, 0, 0, 0, 0, time.UTC)
	for d.Weekday() == time.Saturday || d.Weekday() == time.Sunday {
		d = d.AddDate(0, 0, -1)
	}
	return d
}

// NextDate is the date a series of interval, paid on day of the month, is next expected
// after a payment on last. A payment that a weekend pushed into the next month (the 31st
// paid on the 2nd) still counts as the month before's.
func NextDate(interval string, day int, last time.Time) time.Time {
	switch interval {
	case models.IntervalWeekly:
		return last.AddDate(0, 0, 7)
	case models.IntervalBiweekly:
		return last.AddDate(0, 0, 14)
	case models.IntervalMonthlyLastWorkingDay:
		m := reports.MonthOf(last).First()
		if last.Day() < 10 {
			m = m.AddDate(0, -1, 0) // paid early in the month after, late
		}
		next := m.AddDate(0, 1, 0)
		d := LastWorkingDay(next.Year(), next.Month())
		if !d.After(last) {
			next = next.AddDate(0, 1, 0)
			d = LastWorkingDay(next.Year(), next.Month())
		}
		return d
	}
	months := map[string]int{models.IntervalMonthly: 1, models.IntervalQuarterly: 3, models.IntervalYearly: 12}[interval]
	if months == 0 {
		months = 1
	}
	m := reports.MonthOf(last).First()
	if last.Day()+15 < day {
		m = m.AddDate(0, -1, 0) // a payment of the 31st made on the 2nd
	}
	d := onDay(m.AddDate(0, months, 0), day)
	if !d.After(last) {
		d = onDay(m.AddDate(0, 2*months, 0), day)
	}
	return d
}

// onDay is day of month m, or its last day when the month is shorter.
func onDay(m time.Time, day int) time.Time {
	last := m.AddDate(0, 1, -1).Day()
	return time.Date(m.Year(), m.Month(), min(max(day, 1), last), 0, 0, 0, 0, time.UTC)
}

// days is the number of days from a to b.
func days(a, b time.Time) int { return int(b.Sub(a).Hours()/24 + 0.5) }
