package handlers

import (
	"fmt"
	"net/http"
	"net/url"
	"time"

	"github.com/labstack/echo/v4"

	"tally/fx"
	"tally/internal/apperr"
	"tally/models"
)

// ExchangeRateJSON is ExchangeRate in the OpenAPI document: one of the family's own rates.
type ExchangeRateJSON struct {
	ID        string  `json:"id"`
	Date      string  `json:"date"`
	Base      string  `json:"base"`
	Quote     string  `json:"quote"`
	Rate      string  `json:"rate"`
	Source    string  `json:"source"`
	CreatedAt apiTime `json:"created_at"`
	UpdatedAt apiTime `json:"updated_at"`
}

func exchangeRateJSON(r *fx.Rate) ExchangeRateJSON {
	return ExchangeRateJSON{ID: r.ID.String(), Date: r.Date.Format(time.DateOnly), Base: r.Base, Quote: r.Quote,
		Rate: r.Rate.String(), Source: r.Source, CreatedAt: apiTime(r.CreatedAt), UpdatedAt: apiTime(r.UpdatedAt)}
}

// ExchangeRateQuoteJSON is ExchangeRateQuote: the rate that converts base into quote on a day,
// and where it comes from.
type ExchangeRateQuoteJSON struct {
	Base  string `json:"base"`
	Quote string `json:"quote"`
	On    string `json:"on"`
	Rate  string `json:"rate"`
	// Date is the rate's own date, AgeDays how many days before On it is.
	Date    string  `json:"date"`
	AgeDays int     `json:"age_days"`
	Source  *string `json:"source"`
}

func exchangeRateQuoteJSON(c fx.Conversion, on time.Time) ExchangeRateQuoteJSON {
	out := ExchangeRateQuoteJSON{Base: c.From, Quote: c.To, On: on.Format(time.DateOnly), Rate: c.Rate.String(),
		Date: c.Date.Format(time.DateOnly), AgeDays: int(on.Sub(c.Date).Hours() / 24)}
	if c.Source != "" {
		out.Source = &c.Source
	}
	return out
}

// exchangeRateRequest is the body of POST /api/v1/exchange_rates.
type exchangeRateRequest struct {
	Date  string `json:"date"`
	Base  string `json:"base"`
	Quote string `json:"quote"`
	Rate  string `json:"rate"`
}

// apiExchangeRates is GET /api/v1/exchange_rates. With base and quote, it answers the rate
// that converts one into the other on date (today in the family's time zone when not given),
// by fx.Quote's rules; otherwise a page of the family's own rates, newest first, narrowed by
// whichever of base, quote and date are given.
func (a *app) apiExchangeRates(c echo.Context) error {
	ctx, u, query := c.Request().Context(), currentUser(c), c.QueryParams()
	var v apperr.Validation
	base, quote, date := queryCurrency(&v, query, "base"), queryCurrency(&v, query, "quote"), queryDate(&v, query, "date")
	if err := v.Err(); err != nil {
		return err
	}
	if base != "" && quote != "" {
		on := u.Family.Today()
		if date != nil {
			on = *date
		}
		conv, err := fx.Quote(ctx, a.DB, u.FamilyID, base, quote, on)
		if err != nil {
			return err
		}
		return c.JSON(http.StatusOK, map[string]any{"data": exchangeRateQuoteJSON(conv, on)})
	}
	page, per := pageParams(c)
	list, total, err := fx.Rates(ctx, a.DB, u.FamilyID, fx.Filter{Base: base, Quote: quote, Date: date}, models.Page{Number: page, Size: per})
	if err != nil {
		return err
	}
	out := make([]ExchangeRateJSON, len(list))
	for i := range list {
		out[i] = exchangeRateJSON(&list[i])
	}
	return c.JSON(http.StatusOK, map[string]any{"data": out, "meta": pageMeta(page, per, total)})
}

// queryCurrency reads an optional currency code from the query parameter name, recording a
// problem on it.
func queryCurrency(v *apperr.Validation, query url.Values, name string) string {
	s := query.Get(name)
	if s != "" && !models.ValidCurrency(s) {
		v.Add(name, fmt.Sprintf("%s %q is not a three-letter ISO currency code such as EUR", name, s))
	}
	return s
}

// apiExchangeRateCreate is POST /api/v1/exchange_rates: the family's own rate for a pair on a
// date, replacing the one it had; family admins only (fx.SetRate), as on the page.
func (a *app) apiExchangeRateCreate(c echo.Context) error {
	var req exchangeRateRequest
	if err := decodeStrict(c, &req, "an exchange rate"); err != nil {
		return err
	}
	r, err := fx.SetRate(c.Request().Context(), a.DB, currentUser(c),
		fx.RateInput{Date: req.Date, Base: req.Base, Quote: req.Quote, Rate: req.Rate})
	if err != nil {
		return err
	}
	return c.JSON(http.StatusCreated, map[string]any{"data": exchangeRateJSON(r)})
}

// apiExchangeRateDelete is DELETE /api/v1/exchange_rates/{id}: the family's own rates only,
// by a family admin (fx.DeleteRate).
func (a *app) apiExchangeRateDelete(c echo.Context) error {
	id, err := pathID(c)
	if err != nil {
		return err
	}
	if err := fx.DeleteRate(c.Request().Context(), a.DB, currentUser(c), id); err != nil {
		return err
	}
	return c.NoContent(http.StatusNoContent)
}
