package actual

import (
	"maps"
	"slices"
	"time"

	"github.com/shopspring/decimal"

	"tally/imports/movein"
)

// months reads the budget of each month: zero_budgets for an envelope budget, reflect_budgets
// for a tracking one (Actual keeps both when a budget changes style, and shows the one of its
// style), and zero_budget_months' money held for the next month.
func (r *reader) months() error {
	table := "zero_budgets"
	if r.b.Style == movein.Tracking {
		table = "reflect_budgets"
	}
	if !r.db.has(table) {
		return nil
	}
	byMonth := map[time.Time]*movein.Month{}
	monthOf := func(t time.Time) *movein.Month {
		if m := byMonth[t]; m != nil {
			return m
		}
		m := &movein.Month{Month: t}
		byMonth[t] = m
		return m
	}
	n := 0
	err := r.db.each(table, []string{"id", "month", "category", "amount", "carryover"}, "ORDER BY month, category", func(row row) error {
		category := row.text("category")
		if r.categoryByID[category] == nil {
			return nil // a deleted category's budget, which Actual no longer shows
		}
		amount, carryover := row.int("amount"), row.bool("carryover")
		if amount == 0 && !carryover {
			return nil
		}
		month, ok := yearMonth(row.int("month"))
		if !ok {
			return movein.Errorf(movein.EntityMonth, row.text("id"), "%s row %q has month %s, which is no month", table, row.text("id"), row.text("month"))
		}
		n++
		if err := movein.Count(movein.EntityMonth, n); err != nil {
			return err
		}
		m := monthOf(month)
		m.Lines = append(m.Lines, movein.Line{CategoryID: category, Budgeted: decimal.New(amount, -2), Rollover: r.rollover(carryover)})
		return nil
	})
	if err != nil {
		return err
	}
	if r.b.Style == movein.Envelope && r.db.has("zero_budget_months") {
		err = r.db.each("zero_budget_months", []string{"id", "buffered"}, "WHERE buffered IS NOT NULL AND buffered != 0", func(row row) error {
			month, err := time.Parse("2006-01", row.text("id"))
			if err != nil {
				return movein.Errorf(movein.EntityMonth, row.text("id"), "zero_budget_months row %q is named for no month", row.text("id"))
			}
			monthOf(month).Held = decimal.New(row.int("buffered"), -2)
			return nil
		})
		if err != nil {
			return err
		}
	}
	for _, t := range slices.SortedFunc(maps.Keys(byMonth), time.Time.Compare) {
		r.b.Months = append(r.b.Months, *byMonth[t])
	}
	return nil
}

// rollover is what Actual does with a category's leftover. In an envelope budget a surplus
// always carries, and an overspend carries only with the carryover flag (else it comes out
// of next month's "to budget"). In a tracking budget nothing carries unless the flag is on,
// and then everything does.
func (r *reader) rollover(carryover bool) string {
	switch {
	case carryover:
		return movein.RolloverBoth
	case r.b.Style == movein.Envelope:
		return movein.RolloverSurplus
	}
	return movein.RolloverOff
}

// yearMonth reads Actual's YYYYMM months.
func yearMonth(n int64) (time.Time, bool) {
	y, m := int(n/100), time.Month(n%100)
	return time.Date(y, m, 1, 0, 0, 0, 0, time.UTC), y >= 1000 && y <= 9999 && m >= 1 && m <= 12
}
