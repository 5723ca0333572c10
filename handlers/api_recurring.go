package handlers

import (
	"encoding/json"
	"net/http"
	"strconv"
	"time"

	"github.com/labstack/echo/v4"

	"tally/internal/apperr"
	"tally/models"
	"tally/recurring"
)

// RecurringJSON is RecurringSeries in the OpenAPI document.
type RecurringJSON struct {
	ID          string  `json:"id"`
	Name        string  `json:"name"`
	AccountID   *string `json:"account_id"`
	MerchantID  *string `json:"merchant_id"`
	CategoryID  *string `json:"category_id"`
	Amount      string  `json:"amount"`
	Currency    string  `json:"currency"`
	Interval    string  `json:"interval"`
	NextDate    string  `json:"next_date"`
	LastDate    string  `json:"last_date"`
	LastAmount  *string `json:"last_amount"`
	Occurrences int     `json:"occurrences"`
	Status      string  `json:"status"`
	Confidence  string  `json:"confidence"`
}

func recurringJSON(r *models.Recurring) RecurringJSON {
	out := RecurringJSON{ID: r.ID.String(), Name: r.Name, AccountID: uuidString(r.AccountID), MerchantID: uuidString(r.MerchantID),
		CategoryID: uuidString(r.CategoryID), Amount: amountString(r.Amount, r.Currency), Currency: r.Currency, Interval: r.Interval,
		NextDate: r.NextExpected.Format(time.DateOnly), LastDate: r.LastOccurrence.Format(time.DateOnly),
		Occurrences: r.OccurrenceCount, Status: r.Status, Confidence: r.Confidence.StringFixed(2)}
	if r.LastAmount != nil {
		s := amountString(*r.LastAmount, r.Currency)
		out.LastAmount = &s
	}
	return out
}

// decodeRecurring reads a change to a series. category_id null takes the category away.
func decodeRecurring(c echo.Context) (models.RecurringInput, error) {
	var req struct {
		Status     *string         `json:"status"`
		Name       *string         `json:"name"`
		Amount     *string         `json:"amount"`
		Interval   *string         `json:"interval"`
		NextDate   *string         `json:"next_date"`
		CategoryID json.RawMessage `json:"category_id"`
	}
	if err := decodeStrict(c, &req, "a change to a recurring series"); err != nil {
		return models.RecurringInput{}, err
	}
	in := models.RecurringInput{Status: req.Status, Name: req.Name, Amount: req.Amount, Interval: req.Interval, NextDate: req.NextDate}
	if len(req.CategoryID) > 0 {
		var s *string
		if err := json.Unmarshal(req.CategoryID, &s); err != nil {
			var v apperr.Validation
			v.Add("category_id", "category_id must be a category's id, or null for none")
			return in, v.Err()
		}
		if s == nil {
			s = new(string)
		}
		in.CategoryID = s
	}
	return in, nil
}

// recurringAPI is how the API serves the family's recurring series as the caller may see
// them (a private account's series are not found by whom it is kept from); detection creates
// them.
var recurringAPI = apiResource[models.Recurring, RecurringJSON, models.RecurringInput]{
	list: models.RecurringSeries, byID: models.RecurringByID, update: recurring.Update,
	decode: decodeRecurring, json: recurringJSON}

// apiRecurring is GET /api/v1/recurring: a page of the family's series, proposed first.
func (a *app) apiRecurring(c echo.Context) error { return recurringAPI.index(a, c) }

// apiRecurringShow is GET /api/v1/recurring/{id}.
func (a *app) apiRecurringShow(c echo.Context) error { return recurringAPI.show(a, c) }

// apiRecurringUpdate is PATCH /api/v1/recurring/{id}: confirm, ignore or edit a series.
func (a *app) apiRecurringUpdate(c echo.Context) error { return recurringAPI.change(a, c) }

// ForecastJSON is AccountForecast in the OpenAPI document.
type ForecastJSON struct {
	AccountID      string            `json:"account_id"`
	Currency       string            `json:"currency"`
	Balance        string            `json:"balance"`
	FirstBelowZero *string           `json:"first_below_zero"`
	Days           []ForecastDayJSON `json:"days"`
}

// ForecastDayJSON is one day of a forecast.
type ForecastDayJSON struct {
	Date    string     `json:"date"`
	Balance string     `json:"balance"`
	Bills   []BillJSON `json:"bills"`
}

// BillJSON is a payment a confirmed series is expected to make.
type BillJSON struct {
	SeriesID string `json:"series_id"`
	Name     string `json:"name"`
	Date     string `json:"date"`
	Amount   string `json:"amount"`
	Currency string `json:"currency"`
}

func billJSON(b recurring.Bill) BillJSON {
	return BillJSON{SeriesID: b.SeriesID.String(), Name: b.Name, Date: b.Date.Format(time.DateOnly),
		Amount: amountString(b.Amount, b.Currency), Currency: b.Currency}
}

// apiAccountForecast is GET /api/v1/accounts/{id}/forecast?days=30: a current account's
// balance at the end of each of the next days (1 to 365, 30 by default), today first.
func (a *app) apiAccountForecast(c echo.Context) error {
	id, err := pathID(c)
	if err != nil {
		return err
	}
	days := 30
	if s := c.QueryParam("days"); s != "" {
		if days, err = strconv.Atoi(s); err != nil {
			days = 0 // Forecast refuses it, naming the field
		}
	}
	u := currentUser(c)
	v, err := a.viewer(c)
	if err != nil {
		return err
	}
	f, err := a.Recurring.Forecast(c.Request().Context(), a.DB, v, id, u.Family.Today(), days)
	if err != nil {
		return err
	}
	out := ForecastJSON{AccountID: f.AccountID.String(), Currency: f.Currency, Balance: amountString(f.Balance, f.Currency),
		Days: make([]ForecastDayJSON, len(f.Days))}
	if f.BelowZero != nil {
		s := f.BelowZero.Format(time.DateOnly)
		out.FirstBelowZero = &s
	}
	for i, d := range f.Days {
		day := ForecastDayJSON{Date: d.Date.Format(time.DateOnly), Balance: amountString(d.Balance, f.Currency), Bills: []BillJSON{}}
		for _, b := range d.Bills {
			day.Bills = append(day.Bills, billJSON(b))
		}
		out.Days[i] = day
	}
	return c.JSON(http.StatusOK, map[string]any{"data": out})
}
