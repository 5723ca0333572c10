package recurring

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"
	"github.com/uptrace/bun"

	"tally/models"
	"tally/reports"
)

// Bill is one payment a confirmed series is expected to make, in the ledger's sign and the
// series' currency: a negative amount is money coming in.
type Bill struct {
	SeriesID   uuid.UUID
	Name       string
	AccountID  *uuid.UUID
	CategoryID *uuid.UUID
	Date       time.Time
	Amount     decimal.Decimal
	Currency   string
	Interval   string
}

// grace is how late a payment may be and still be expected: one due two days ago that has
// not shown yet is expected today, not forgotten.
const grace = 3 // days

// payment is a transaction of a confirmed series, in the category it carries.
type payment struct {
	SeriesID   uuid.UUID       `bun:"series_id,type:uuid"`
	Date       time.Time       `bun:"date"`
	Amount     decimal.Decimal `bun:"amount"`
	CategoryID *uuid.UUID      `bun:"category_id,type:uuid"`
}

// seriesPayment is whether the transaction e (with its group as e.key) is a payment of the
// series r: of its account, currency and group, in its direction, within its tolerance.
const seriesPayment = `e.key = coalesce(r.match_key, recurring_key(r.merchant_id, r.name))
	AND (r.account_id IS NULL OR e.account_id = r.account_id) AND e.currency = r.currency
	AND (e.amount > 0) = (r.amount > 0) AND abs(e.amount - r.amount) <= abs(r.amount) * r.tolerance`

// payments returns the transactions from lo to hi of the family's confirmed series, by series
// and date: those of its account, currency and group (recurring_key), in its direction, with
// an amount within its tolerance. The range's transactions are read once, through
// entries_family_date_idx, and their groups computed once each. A split payment comes as its
// parts, in their categories, as the spending report counts it (its parts that are excluded or
// transfers left out), so that what is paid in a category is what its spending holds. Only
// the accounts v can see pay: a series of no account is not paid from one kept from v.
func payments(ctx context.Context, db bun.IDB, v models.Viewer, lo, hi time.Time) ([]payment, error) {
	var out []payment
	err := db.NewRaw(`WITH e AS MATERIALIZED (
			SELECT e.id, e.split, e.account_id, e.date, e.amount, e.currency, e.category_id, recurring_key(e.merchant_id, e.name) AS key
			FROM entries e WHERE e.family_id = ?0 AND `+ledgerFilter+` AND e.date >= ?2::date AND e.date <= ?3::date AND ?5
		), paid AS (
			SELECT r.id AS series_id, e.id, e.split, e.date, e.amount, e.category_id FROM recurring_transactions r
			JOIN e ON `+seriesPayment+`
			WHERE r.family_id = ?0 AND r.status = ?4
		)
		SELECT series_id, date, amount, category_id FROM paid WHERE NOT split
		UNION ALL
		SELECT p.series_id, p.date, s.amount, s.category_id FROM paid p JOIN entries s ON s.parent_id = p.id
		WHERE p.split AND NOT s.excluded AND s.transaction_kind NOT IN (?1)
		ORDER BY 1, 2`,
		v.FamilyID, bun.In(models.TransferKinds), lo.Format(time.DateOnly), hi.Format(time.DateOnly), models.RecurringConfirmed,
		v.VisibleQuery("e.account_id")).
		Scan(ctx, &out)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("payments of series: %w", err)
	}
	return out, nil
}

// schedule is the family's confirmed series that a viewer may see as of today, each with the date of its next
// payment, and their payments from lo to today. A series' next date is the one kept with it,
// unless a payment later than its last one has come since detection last saw it (a
// transaction added by hand, say): then it is the date after that payment.
type schedule struct {
	series []models.Recurring
	next   map[uuid.UUID]time.Time
	paid   []payment
	today  time.Time
}

func loadSchedule(ctx context.Context, db bun.IDB, v models.Viewer, lo, today time.Time) (*schedule, error) {
	series, err := models.RecurringByStatus(ctx, db, v, models.RecurringConfirmed)
	if err != nil {
		return nil, err
	}
	s := &schedule{series: series, next: map[uuid.UUID]time.Time{}, today: today}
	if len(series) == 0 {
		return s, nil
	}
	// Payments since each series' last one, but no further back than a yearly series needs:
	// a series confirmed long ago and never paid since must not make every page read years.
	from, floor := lo, today.AddDate(-1, -1, 0)
	for _, r := range series {
		if d := r.LastOccurrence.AddDate(0, 0, 1); d.Before(from) {
			from = d
		}
	}
	if from.Before(floor) && floor.Before(lo) {
		from = floor
	}
	all, err := payments(ctx, db, v, from, today)
	if err != nil {
		return nil, err
	}
	latest := map[uuid.UUID]time.Time{}
	for _, p := range all {
		latest[p.SeriesID] = p.Date.UTC() // by date, so the last one wins
		if !p.Date.Before(lo) {
			s.paid = append(s.paid, p)
		}
	}
	for _, r := range series {
		s.next[r.ID] = r.NextExpected.UTC()
		if d, ok := latest[r.ID]; ok && d.After(r.LastOccurrence) {
			s.next[r.ID] = NextDate(r.Interval, r.DayOfMonth, d)
		}
	}
	return s, nil
}

// bills are the payments of the schedule's series dated from from to to, by date. From today,
// a payment due up to grace days before that has not come is expected today.
func (s *schedule) bills(from, to time.Time) []Bill {
	var out []Bill
	for _, r := range s.series {
		d := s.next[r.ID]
		for i := 0; !d.After(to) && i < 400; i++ {
			on := d
			if from.Equal(s.today) && on.Before(from) && days(on, from) <= grace {
				on = from
			}
			if !on.Before(from) {
				out = append(out, Bill{SeriesID: r.ID, Name: r.Name, AccountID: r.AccountID, CategoryID: r.CategoryID, Date: on,
					Amount: r.Amount, Currency: r.Currency, Interval: r.Interval})
			}
			d = NextDate(r.Interval, r.DayOfMonth, d)
		}
	}
	slices.SortStableFunc(out, func(a, b Bill) int { return a.Date.Compare(b.Date) })
	return out
}

// Upcoming returns the payments the family's confirmed series that v may see are expected to
// make from today to the day `days` later, today included, by date.
func (s *Service) Upcoming(ctx context.Context, db bun.IDB, v models.Viewer, today time.Time, days int) ([]Bill, error) {
	sch, err := loadSchedule(ctx, db, v, today, today)
	if err != nil {
		return nil, err
	}
	return sch.bills(today, today.AddDate(0, 0, days-1)), nil
}

// Expected is what a category's confirmed series do in a month, in the family's currency and
// the ledger's sign.
type Expected struct {
	// Paid is what they already took this month, up to today: their transactions in the
	// category, which the month's spending counts too, so that it is explained, not spent at
	// a pace.
	Paid decimal.Decimal
	// Upcoming is what they still expect from today to the month's last day: bills less the
	// money in they bring.
	Upcoming decimal.Decimal
	// Incoming is the money in among what they still expect, as a positive amount: income is
	// no bill, and netting it against the bills would hide them.
	Incoming decimal.Decimal
}

// ExpectedByCategory returns, by category (uuid.Nil for none), what the confirmed series
// already paid in month up to today, in the categories their payments carry, and what they
// still expect in it, in the series' categories. A month past has nothing upcoming; a month
// to come has nothing paid. Amounts in another currency are converted as the budget converts
// the month's spending (reports.MonthConverter), each category's sum in a currency at once,
// so that what the series paid is the spending it explains to the cent; a currency no rate
// converts is left out, never summed as if one to one. The series and payments are those v
// may see, as the budget's spending is.
func (s *Service) ExpectedByCategory(ctx context.Context, db bun.IDB, v models.Viewer, month reports.Month, today time.Time) (map[uuid.UUID]Expected, error) {
	out := map[uuid.UUID]Expected{}
	sch, err := loadSchedule(ctx, db, v, month.First(), today)
	if err != nil || len(sch.series) == 0 {
		return out, err
	}
	familyID := v.FamilyID
	fam, err := models.FamilyByID(ctx, db, familyID)
	if err != nil {
		return nil, err
	}
	byID := map[uuid.UUID]*models.Recurring{}
	for i := range sch.series {
		byID[sch.series[i].ID] = &sch.series[i]
	}
	sums := expectedSums{}
	// A payment counts in the category it carries, whatever the series': the spending it
	// explains is that category's. What is still to come goes to the series' category.
	for _, p := range sch.paid {
		if !p.Date.After(month.Last()) {
			sums.add(p.CategoryID, byID[p.SeriesID].Currency, p.Amount, expectedPaid)
		}
	}
	if !today.After(month.Last()) {
		from := month.First()
		if today.After(from) {
			from = today
		}
		for _, b := range sch.bills(from, month.Last()) {
			kind := expectedUpcoming
			if b.Amount.IsNegative() {
				kind = expectedIncoming
			}
			sums.add(byID[b.SeriesID].CategoryID, b.Currency, b.Amount, kind)
		}
	}
	rates, err := reports.NewMonthConverter(ctx, db, familyID, sums.currencies(fam.Currency), fam.Currency, []reports.Month{month}, today)
	if err != nil {
		return nil, err
	}
	for k, sum := range sums {
		v, ok := rates.Convert(sum, k.currency, month)
		if !ok {
			continue
		}
		e := out[k.category]
		switch k.kind {
		case expectedPaid:
			e.Paid = e.Paid.Add(v)
		case expectedIncoming:
			e.Upcoming, e.Incoming = e.Upcoming.Add(v), e.Incoming.Sub(v)
		default:
			e.Upcoming = e.Upcoming.Add(v)
		}
		out[k.category] = e
	}
	return out, nil
}

// Kinds of what a series brings in a month: paid already, a bill to come, money in to come.
const (
	expectedPaid = iota
	expectedUpcoming
	expectedIncoming
)

// expectedSums are what the series bring in a month, in their own money, by category (uuid.Nil
// for none), currency and kind.
type expectedSums map[expectedKey]decimal.Decimal

type expectedKey struct {
	category uuid.UUID
	currency string
	kind     int
}

func (s expectedSums) add(category *uuid.UUID, currency string, amount decimal.Decimal, kind int) {
	k := expectedKey{currency: currency, kind: kind}
	if category != nil {
		k.category = *category
	}
	s[k] = s[k].Add(amount)
}

// currencies are the currencies of the sums other than the family's own, each once.
func (s expectedSums) currencies(own string) []string {
	var out []string
	for k := range s {
		if k.currency != own && !slices.Contains(out, k.currency) {
			out = append(out, k.currency)
		}
	}
	return out
}
