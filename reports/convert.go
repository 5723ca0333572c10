package reports

import (
	"context"
	"time"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"
	"github.com/uptrace/bun"

	"tally/fx"
)

// MonthConverter converts the amounts of months into one currency, each month at the rate of
// its last day, or today's for a month not over yet: the spending report's rule, which the
// budgets and the bills they expect follow too, so that their figures of a month agree. Which
// rate applies on that day is fx.Converter's rule.
type MonthConverter struct {
	rates *fx.Converter
	today time.Time
}

// NewMonthConverter reads, in one query, the rates that convert each currency of from into
// currency in months. Like fx.NewConverter it reads every rate stored from the first month's
// day to the last's, so months years apart (a budget's carry) cost the rates of those years.
func NewMonthConverter(ctx context.Context, db bun.IDB, familyID uuid.UUID, from []string, currency string, months []Month, today time.Time) (*MonthConverter, error) {
	c := &MonthConverter{today: today}
	days := make([]time.Time, len(months))
	for i, m := range months {
		days[i] = c.Day(m)
	}
	rates, err := fx.NewConverter(ctx, db, familyID, from, currency, days...)
	if err != nil {
		return nil, err
	}
	c.rates = rates
	return c, nil
}

// Day is the day whose rate converts month m: its last, or today while m is not over.
func (c *MonthConverter) Day(m Month) time.Time {
	if last := m.Last(); last.Before(c.today) {
		return last
	}
	return c.today
}

// Rate is the rate that converts currency code in month m.
func (c *MonthConverter) Rate(code string, m Month) fx.DayRate { return c.rates.On(code, c.Day(m)) }

// Convert converts v in currency code of month m, rounded to the currency's decimals; false
// when no rate converts code, which is then never summed as if one to one.
func (c *MonthConverter) Convert(v decimal.Decimal, code string, m Month) (decimal.Decimal, bool) {
	return c.rates.Convert(v, code, c.Day(m))
}
