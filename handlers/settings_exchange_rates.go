package handlers

import (
	"net/http"
	"net/url"
	"strconv"

	"github.com/labstack/echo/v4"

	"tally/fx"
	"tally/internal/i18n"
	"tally/models"
	"tally/views"
)

// exchangeRatesPerPage is how many of the family's own rates a page lists.
const exchangeRatesPerPage = 50

// exchangeRateRoutes registers Settings › Exchange rates: anyone in the family reads the
// family's rates there; only its admins set or delete them (fx.SetRate and fx.DeleteRate
// hold that rule, for the API too), and only they are offered the forms.
func (a *app) exchangeRateRoutes(g *echo.Group) {
	r := g.Group("/settings/exchange_rates")
	r.GET("", a.exchangeRatesIndex)
	r.POST("", a.exchangeRateCreate)
	r.POST("/:id/delete", a.exchangeRateDelete)
}

func (a *app) exchangeRatesIndex(c echo.Context) error {
	return a.renderExchangeRates(c, http.StatusOK, nil)
}

// renderExchangeRates shows a page of the family's own rates, the fetched rates of its
// accounts' currencies, and form as it was submitted (nil for an empty one); to the pager's
// htmx request, only the page of rates.
func (a *app) renderExchangeRates(c echo.Context, status int, form *views.Form) error {
	ctx, u := c.Request().Context(), currentUser(c)
	page := pageNumber(c)
	list, total, err := fx.Rates(ctx, a.DB, u.FamilyID, fx.Filter{}, models.Page{Number: page, Size: exchangeRatesPerPage})
	if err != nil {
		return err
	}
	fetched, missing, err := fx.AccountRates(ctx, a.DB, u.FamilyID, u.Family.Today())
	if err != nil {
		return err
	}
	feed, err := fx.FeedStatus(ctx, a.DB)
	if err != nil {
		return err
	}
	p := views.ExchangeRates{Currency: u.Family.Currency, Today: u.Family.Today(), Rates: list, Fetched: fetched, Missing: missing, Form: form,
		MayChange: u.MaySetRates(), Feed: feed}
	pageURL := func(n int) string {
		return "/settings/exchange_rates?" + url.Values{"page": {strconv.Itoa(n)}}.Encode()
	}
	if page > 1 {
		p.PrevURL = pageURL(page - 1)
	}
	if page*exchangeRatesPerPage < total {
		p.NextURL = pageURL(page + 1)
	}
	if isFragment(c, "exchange-rates-list") {
		return a.render(c, status, views.ExchangeRatesTable(p))
	}
	return a.render(c, status, views.ExchangeRatesPage(p))
}

// exchangeRateCreate sets one of the family's own rates; a bad field shows the form again
// with its error.
func (a *app) exchangeRateCreate(c echo.Context) error {
	form := formOf(c, "date", "base", "quote", "rate")
	r, err := fx.SetRate(c.Request().Context(), a.DB, currentUser(c), fx.RateInput{
		Date: form.Value("date"), Base: form.Value("base"), Quote: form.Value("quote"),
		Rate: currentUser(c).NumberLocale().PlainNumber(form.Value("rate"))})
	if err != nil {
		status, ok := withError(inLanguage(c), form, err)
		if !ok || status == http.StatusForbidden {
			return err // a member is shown no form to show it on
		}
		return a.renderExchangeRates(c, status, form)
	}
	styled := inPersonsStyle(c)
	a.flash(c, "success", i18n.T(inLanguage(c), "rates.saved", "Date", views.UserDate(styled, r.Date), "Base", r.Base, "Rate", views.UserRate(styled, r.Rate), "Quote", r.Quote))
	return redirect(c, "/settings/exchange_rates")
}

func (a *app) exchangeRateDelete(c echo.Context) error {
	id, err := pathID(c)
	if err != nil {
		return err
	}
	if err := fx.DeleteRate(c.Request().Context(), a.DB, currentUser(c), id); err != nil {
		return err
	}
	a.flash(c, "success", i18n.T(inLanguage(c), "rates.deleted"))
	return redirect(c, "/settings/exchange_rates")
}
