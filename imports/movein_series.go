package imports

import (
	"fmt"
	"time"

	"github.com/shopspring/decimal"

	"tally/imports/movein"
	"tally/models"
)

// interval is Tally's interval for a schedule's repeat, or why it has none: Tally's series
// come weekly, every other week, monthly, quarterly or yearly, once each time.
func interval(r movein.Repeat) (string, string) {
	if r.Unit == movein.UnitOnce {
		return "", "it falls on a single date, and Tally's series repeat"
	}
	if r.Times > 1 {
		return "", fmt.Sprintf("it comes %d times each period, and Tally's series come once", r.Times)
	}
	switch [2]any{r.Unit, r.Every} {
	case [2]any{movein.UnitWeek, 1}:
		return models.IntervalWeekly, ""
	case [2]any{movein.UnitWeek, 2}, [2]any{movein.UnitDay, 14}:
		return models.IntervalBiweekly, ""
	case [2]any{movein.UnitDay, 7}:
		return models.IntervalWeekly, ""
	case [2]any{movein.UnitMonth, 1}:
		return models.IntervalMonthly, ""
	case [2]any{movein.UnitMonth, 3}:
		return models.IntervalQuarterly, ""
	case [2]any{movein.UnitMonth, 12}, [2]any{movein.UnitYear, 1}:
		return models.IntervalYearly, ""
	}
	return "", fmt.Sprintf("it repeats every %d %ss, which is none of Tally's intervals (weekly, every other week, monthly, quarterly, yearly)", r.Every, r.Unit)
}

// series writes each schedule Tally's intervals can state as a confirmed recurring series;
// the others are listed with why.
func (m *moveIn) series() {
	for _, s := range m.b.Schedules {
		name := orDefault(s.Name, m.payees[s.PayeeID].Name)
		iv, why := interval(s.Repeat)
		if why == "" && s.Next.IsZero() {
			why = "it has ended"
		}
		if why != "" {
			m.note(movein.NotKept, movein.EntitySchedule, s.ID, name, "%s; it was %s", why, orDefault(s.Repeat.Source, s.Repeat.Unit))
			continue
		}
		// The last time it came: its latest transaction, else the date before its next.
		came, ok := m.scheduled[s.ID]
		lastDate := came.last
		if !ok {
			lastDate = s.Start
			if !lastDate.Before(s.Next) {
				lastDate = previous(s.Next, iv)
			}
		}
		data := map[string]any{"id": s.ID, "name": orDefault(name, "Scheduled transaction"), "amount": number(s.Amount),
			"expected_day_of_month": s.Next.Day(), "last_occurrence_date": isoDate(lastDate), "next_expected_date": isoDate(s.Next),
			"interval": iv, "tally_status": models.RecurringConfirmed, "manual": true, "occurrence_count": came.count}
		if s.AccountID != "" {
			data["account_id"] = s.AccountID
		}
		if id := m.merchant(s.PayeeID); id != "" {
			data["merchant_id"] = id
		}
		if s.CategoryID != "" {
			data["category_id"] = s.CategoryID
		}
		if !s.Min.Equal(s.Amount) || !s.Max.Equal(s.Amount) {
			data["expected_amount_min"], data["expected_amount_max"] = number(decimal.Min(s.Min, s.Max)), number(decimal.Max(s.Min, s.Max))
		}
		if c := m.b.Currency; c != "" {
			data["currency"] = c
		}
		m.add("RecurringTransaction", data)
		m.counts["series"]++
	}
}

// previous is the date one interval before next.
func previous(next time.Time, iv string) time.Time {
	switch iv {
	case models.IntervalWeekly:
		return next.AddDate(0, 0, -7)
	case models.IntervalBiweekly:
		return next.AddDate(0, 0, -14)
	case models.IntervalQuarterly:
		return next.AddDate(0, -3, 0)
	case models.IntervalYearly:
		return next.AddDate(-1, 0, 0)
	}
	return next.AddDate(0, -1, 0)
}
