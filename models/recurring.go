package models

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"

	"tally/internal/apperr"
	"tally/internal/dates"
)

// The statuses of a recurring series: detection proposes it, a person confirms or ignores it.
// Only confirmed series give bills to come; an ignored one is kept so that detection never
// proposes it again.
const (
	RecurringProposed  = "proposed"
	RecurringConfirmed = "confirmed"
	RecurringIgnored   = "ignored"
)

// RecurringStatuses are the statuses a series may have, in the order the page lists them.
var RecurringStatuses = []string{RecurringProposed, RecurringConfirmed, RecurringIgnored}

// The intervals of a recurring series.
const (
	IntervalWeekly   = "weekly"
	IntervalBiweekly = "biweekly"
	IntervalMonthly  = "monthly"
	// IntervalMonthlyLastWorkingDay is monthly on the month's last day from Monday to Friday.
	IntervalMonthlyLastWorkingDay = "monthly_last_working_day"
	IntervalQuarterly             = "quarterly"
	IntervalYearly                = "yearly"
)

// RecurringIntervals are the intervals a series may have.
var RecurringIntervals = []string{IntervalWeekly, IntervalBiweekly, IntervalMonthly, IntervalMonthlyLastWorkingDay,
	IntervalQuarterly, IntervalYearly}

// RecurringStatusOf is the status of a series a native file brings: Tally's own (tally_status)
// when it has one, else Sure's, whose active series the family saw and kept (confirmed) and
// whose inactive ones it dropped (ignored).
func RecurringStatusOf(tally, sure string) string {
	if slices.Contains(RecurringStatuses, tally) {
		return tally
	}
	if sure == "inactive" {
		return RecurringIgnored
	}
	return RecurringConfirmed
}

// Recurring is a recurring series of a family's transactions: a bill, a subscription, a
// salary. Amount is in the ledger's sign (money out is positive) and the series' currency.
type Recurring struct {
	bun.BaseModel `bun:"table:recurring_transactions,alias:r"`

	ID         uuid.UUID       `bun:"id,pk,type:uuid"`
	FamilyID   uuid.UUID       `bun:"family_id,type:uuid"`
	AccountID  *uuid.UUID      `bun:"account_id,type:uuid"`
	MerchantID *uuid.UUID      `bun:"merchant_id,type:uuid"`
	CategoryID *uuid.UUID      `bun:"category_id,type:uuid"`
	Name       string          `bun:"name"`
	Amount     decimal.Decimal `bun:"amount,type:numeric"`
	Currency   string          `bun:"currency"`
	Interval   string          `bun:"interval"`
	// DayOfMonth is the day a monthly, quarterly or yearly series is paid on (the last day of
	// a shorter month when past it); a weekly one's is its last payment's.
	DayOfMonth      int       `bun:"expected_day_of_month"`
	LastOccurrence  time.Time `bun:"last_occurrence_date,type:date"`
	NextExpected    time.Time `bun:"next_expected_date,type:date"`
	Status          string    `bun:"status"`
	OccurrenceCount int       `bun:"occurrence_count"`
	// Manual is set once a person edited the series: detection then keeps its name, amount,
	// interval and category, and only moves its dates and counts.
	Manual     bool             `bun:"manual"`
	AmountMin  *decimal.Decimal `bun:"expected_amount_min,type:numeric"`
	AmountMax  *decimal.Decimal `bun:"expected_amount_max,type:numeric"`
	AmountAvg  *decimal.Decimal `bun:"expected_amount_avg,type:numeric"`
	LastAmount *decimal.Decimal `bun:"last_amount,type:numeric"`
	Confidence decimal.Decimal  `bun:"confidence,type:numeric"`
	// Tolerance is the share by which a payment may differ from Amount and be one of the series.
	Tolerance decimal.Decimal `bun:"tolerance,type:numeric"`
	// MatchKey is the group detection found the series in ('m:<merchant>' or 'n:<name>').
	MatchKey  *string    `bun:"match_key"`
	ImportID  *uuid.UUID `bun:"import_id,type:uuid"`
	CreatedAt time.Time  `bun:"created_at,nullzero,default:now()"`
	UpdatedAt time.Time  `bun:"updated_at,nullzero,default:now()"`

	// AccountName, MerchantName and CategoryName are read with the series.
	AccountName  string `bun:"account_name,scanonly"`
	MerchantName string `bun:"merchant_name,scanonly"`
	CategoryName string `bun:"category_name,scanonly"`
}

// recurringQuery selects the family's series that v may see with the names of their account,
// merchant and category.
func recurringQuery(db bun.IDB, list any, v Viewer) *bun.SelectQuery {
	q := db.NewSelect().Model(list).
		ColumnExpr("r.*").
		ColumnExpr("coalesce(a.name, '') AS account_name, coalesce(m.name, '') AS merchant_name, coalesce(c.name, '') AS category_name").
		Join("LEFT JOIN accounts a ON a.id = r.account_id").
		Join("LEFT JOIN merchants m ON m.id = r.merchant_id").
		Join("LEFT JOIN categories c ON c.id = r.category_id").
		Where("r.family_id = ?", v.FamilyID)
	return visibleSeries(q, v)
}

// visibleSeries keeps to the series v may see: those of an account v can see, and those of
// no account (a bill paid from whichever account). A private account's series tells of the
// account, so it is as hidden as the account.
func visibleSeries(q *bun.SelectQuery, v Viewer) *bun.SelectQuery {
	if !v.HidesAny() {
		return q
	}
	cond, args := v.VisibleSQL("r.account_id")
	return q.Where("(r.account_id IS NULL OR "+cond+")", args...)
}

// MaxRecurringSeries bounds a family's recurring series, whatever their status: a household
// pays a few dozen bills, subscriptions and salaries, and keeps the series it ignored so that
// they are not proposed again, so even years of them stay far below it. Every read that walks
// the series (the forecast, the bills to come, a budget's expectations) is bounded by it, and
// what makes series (detection, a native import) never goes past it: one 7.7 MB file once
// made 24,000 of them, and a year's forecast of those took half a minute and 161 MB.
const MaxRecurringSeries = 500

// LockRecurringSeries holds the family's series until the transaction ends, so that two
// writers (two detections, a detection and an import) never add the same series twice or count
// the same room below MaxRecurringSeries.
func LockRecurringSeries(ctx context.Context, db bun.IDB, familyID uuid.UUID) error {
	_, err := db.NewRaw("SELECT pg_advisory_xact_lock(hashtextextended('recurring:' || ?::text, 0))", familyID).Exec(ctx)
	return err
}

// RecurringRoom is how many series the family may still add below MaxRecurringSeries (none
// when it has more, from before the bound). Writers ask it under LockRecurringSeries.
func RecurringRoom(ctx context.Context, db bun.IDB, familyID uuid.UUID) (int, error) {
	n, err := db.NewSelect().Model((*Recurring)(nil)).Where("family_id = ?", familyID).Count(ctx)
	return max(MaxRecurringSeries-int(n), 0), err
}

// TooManyRecurring is the refusal of adding `adding` series to a family with room for `room`,
// named on field: it says the bound, what was asked and the room left.
func TooManyRecurring(field string, room, adding int) error {
	e := apperr.Errorf(apperr.Invalid, "A family keeps at most %d recurring series: this adds %d, and there is room for %d more.",
		MaxRecurringSeries, adding, room).WithSlug("too_many_recurring_series")
	return e.WithFields(map[string][]string{field: {e.Message}})
}

// RecurringSeries returns one page of the family's series that v may see: proposed first, then
// confirmed, then ignored, each by the next expected date; and how many there are.
func RecurringSeries(ctx context.Context, db bun.IDB, v Viewer, p Page) ([]Recurring, int, error) {
	return RecurringSeriesOf(ctx, db, v, p, RecurringStatuses...)
}

// RecurringSeriesOf returns one page of the family's series that v may see with one of
// statuses, in the order of RecurringStatuses and then by the next expected date; and how
// many there are.
func RecurringSeriesOf(ctx context.Context, db bun.IDB, v Viewer, p Page, statuses ...string) ([]Recurring, int, error) {
	list := []Recurring{}
	if err := recurringQuery(db, &list, v).Where("r.status IN (?)", bun.In(statuses)).
		OrderExpr("array_position(?::text[], r.status), r.next_expected_date, lower(r.name), r.id", pgdialect.Array(RecurringStatuses)).
		Offset(int64(p.Offset())).Limit(int64(p.Size)).Scan(ctx); err != nil {
		return nil, 0, err
	}
	total, err := visibleSeries(db.NewSelect().Model((*Recurring)(nil)), v).
		Where("r.family_id = ? AND r.status IN (?)", v.FamilyID, bun.In(statuses)).Count(ctx)
	return list, int(total), err
}

// RecurringByStatus returns the family's series that v may see with one of statuses, by the
// next expected date: all of them, up to MaxRecurringSeries. A family past the bound (its
// series came before it) gets those due first, so that no read of them costs more than the
// bound allows.
func RecurringByStatus(ctx context.Context, db bun.IDB, v Viewer, statuses ...string) ([]Recurring, error) {
	list := []Recurring{}
	err := recurringQuery(db, &list, v).Where("r.status IN (?)", bun.In(statuses)).
		OrderExpr("r.next_expected_date, lower(r.name), r.id").Limit(MaxRecurringSeries).Scan(ctx)
	return list, err
}

// RecurringByID returns the family's series with id, if v may see it: one of a private account
// kept from v is not found, as another family's.
func RecurringByID(ctx context.Context, db bun.IDB, v Viewer, id uuid.UUID) (*Recurring, error) {
	r := new(Recurring)
	err := recurringQuery(db, r, v).Where("r.id = ?", id).Scan(ctx)
	return r, notFound(err, "recurring series")
}

// RecurringInput is a person's change to a series: confirm or ignore it (Status), or edit it.
// Nil leaves a field as it is. CategoryID "" takes the category away.
type RecurringInput struct {
	Status     *string
	Name       *string
	Amount     *string
	Interval   *string
	NextDate   *string
	CategoryID *string
	// PaymentsCategory is the category the series' payments carry most, which confirming it
	// without a CategoryID gives it (recurring.Update) without making it a person's edit.
	PaymentsCategory *uuid.UUID
}

// UpdateRecurring applies in to the family's series. An edit of the name, amount, interval,
// next date or category marks the series as a person's (Manual), so that detection keeps
// those values.
func UpdateRecurring(ctx context.Context, db bun.IDB, viewer Viewer, id uuid.UUID, in RecurringInput) (*Recurring, error) {
	familyID := viewer.FamilyID
	r, err := RecurringByID(ctx, db, viewer, id)
	if err != nil {
		return nil, err
	}
	var v apperr.Validation
	var cols []string
	if in.Status != nil {
		if !slices.Contains(RecurringStatuses, *in.Status) {
			v.Add("status", fmt.Sprintf("Status %q must be one of %s", *in.Status, strings.Join(RecurringStatuses, ", ")))
		}
		r.Status, cols = *in.Status, append(cols, "status")
		if r.Status == RecurringConfirmed {
			// A person vouched for it.
			r.Confidence, cols = decimal.NewFromInt(1), append(cols, "confidence")
			if in.PaymentsCategory != nil && in.CategoryID == nil {
				r.CategoryID, cols = in.PaymentsCategory, append(cols, "category_id")
			}
		}
	}
	edited := false
	if in.Name != nil {
		name := strings.TrimSpace(*in.Name)
		switch {
		case name == "":
			v.Add("name", "Name can't be blank")
		case len([]rune(name)) > 200:
			v.Add("name", "Name must be at most 200 characters")
		}
		r.Name, cols, edited = name, append(cols, "name"), true
	}
	if in.Amount != nil {
		amount, err := ParseAmount(*in.Amount, r.Currency)
		switch {
		case err != nil:
			v.Add("amount", apperr.As(err).Message)
		case amount.IsZero():
			v.Add("amount", "Amount must not be zero: money out is positive, money in negative")
		}
		r.Amount, cols, edited = amount, append(cols, "amount"), true
	}
	if in.Interval != nil {
		if !slices.Contains(RecurringIntervals, *in.Interval) {
			v.Add("interval", fmt.Sprintf("Interval %q must be one of %s", *in.Interval, strings.Join(RecurringIntervals, ", ")))
		}
		r.Interval, cols, edited = *in.Interval, append(cols, "interval"), true
	}
	if in.NextDate != nil {
		d, err := dates.Day("next_date", *in.NextDate)
		v.Merge(err)
		r.NextExpected, r.DayOfMonth = d, d.Day()
		cols, edited = append(cols, "next_expected_date", "expected_day_of_month"), true
	}
	if in.CategoryID != nil {
		r.CategoryID = nil
		if s := strings.TrimSpace(*in.CategoryID); s != "" {
			cid, err := uuid.Parse(s)
			if err == nil {
				_, err = CategoryByID(ctx, db, FamilyViewer(familyID), cid)
			}
			if err != nil {
				v.Add("category_id", fmt.Sprintf("Category %q is not one of the family's categories", s))
			}
			r.CategoryID = &cid
		}
		cols, edited = append(cols, "category_id"), true
	}
	if err := v.Err(); err != nil {
		return nil, err
	}
	if edited {
		r.Manual, cols = true, append(cols, "manual")
	}
	if len(cols) == 0 {
		return r, nil
	}
	r.UpdatedAt = time.Now()
	if _, err := db.NewUpdate().Model(r).Column(append(cols, "updated_at")...).
		Where("id = ? AND family_id = ?", id, familyID).Exec(ctx); err != nil {
		return nil, err
	}
	return RecurringByID(ctx, db, viewer, id)
}
