package recurring

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"
	"github.com/uptrace/bun"

	"tally/internal/apperr"
	"tally/models"
)

// MaxForecastDays is the longest forecast: a year.
const MaxForecastDays = 365

// Forecast is a current account's balance over the days ahead: today's, moved by the
// payments its confirmed series are expected to make.
type Forecast struct {
	AccountID uuid.UUID
	Currency  string
	// Balance is the account's balance at the end of today as the ledger has it.
	Balance decimal.Decimal
	Days    []ForecastDay
	// BelowZero is the first day the balance would end below zero, if any.
	BelowZero *time.Time
}

// ForecastDay is one day of a forecast: the balance at its end and the payments expected on
// it.
type ForecastDay struct {
	Date    time.Time
	Balance decimal.Decimal
	Bills   []Bill
}

// CheckDays reports a forecast length outside 1..MaxForecastDays on the field days.
func CheckDays(n int) error {
	var v apperr.Validation
	if n < 1 || n > MaxForecastDays {
		v.Add("days", fmt.Sprintf("days must be a whole number from 1 to %d", MaxForecastDays))
	}
	return v.Err()
}

// Forecast returns the family's current (depository) account's balance at the end of each of
// `days` days from today: today's balance (models.DailyBalances) plus the money the confirmed
// series of the account, in its currency, are expected to bring in and take out (as Upcoming
// has them), with the first day that ends below zero. Another kind of account is refused on
// account_id. An account kept from v is not found, as another family's.
func (s *Service) Forecast(ctx context.Context, db bun.IDB, v models.Viewer, accountID uuid.UUID, today time.Time, days int) (*Forecast, error) {
	if err := CheckDays(days); err != nil {
		return nil, err
	}
	a, err := models.AccountByID(ctx, db, v, accountID)
	if err != nil {
		return nil, err
	}
	if a.AccountableType != "Depository" {
		var v apperr.Validation
		v.Add("account_id", "A forecast is made for current accounts (cash and bank); this one is "+a.Type().Label)
		return nil, v.Err()
	}
	points, err := models.DailyBalances(ctx, db, v, accountID, today, today)
	if err != nil {
		return nil, err
	}
	f := &Forecast{AccountID: a.ID, Currency: a.Currency}
	if len(points) > 0 {
		f.Balance = points[0].Balance
	}
	sch, err := loadSchedule(ctx, db, v, today, today)
	if err != nil {
		return nil, err
	}
	// Only the account's series make bills: a forecast's work and size follow them (at most
	// models.MaxRecurringSeries, each paid at most weekly) and its days, not the family's
	// other accounts.
	sch.series = slices.DeleteFunc(sch.series, func(r models.Recurring) bool {
		return r.AccountID == nil || *r.AccountID != a.ID || r.Currency != a.Currency
	})
	byDay := map[time.Time][]Bill{}
	for _, b := range sch.bills(today, today.AddDate(0, 0, days-1)) {
		byDay[b.Date] = append(byDay[b.Date], b)
	}
	balance := f.Balance
	for i := range days {
		d := ForecastDay{Date: today.AddDate(0, 0, i), Bills: byDay[today.AddDate(0, 0, i)]}
		for _, b := range d.Bills {
			balance = balance.Sub(b.Amount) // money out (positive) lowers a current account
		}
		d.Balance = balance
		if balance.IsNegative() && f.BelowZero == nil {
			day := d.Date
			f.BelowZero = &day
		}
		f.Days = append(f.Days, d)
	}
	return f, nil
}
