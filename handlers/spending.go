package handlers

import (
	"net/http"
	"slices"

	"github.com/labstack/echo/v4"

	"tally/fx"
	"tally/reports"
	"tally/views"
)

// spendingReport is GET /reports/spending?month=2026-10: a month's spending by category
// beside the month before; this month, in the family's time zone, by default.
func (a *app) spendingReport(c echo.Context) error {
	u := currentUser(c)
	current := reports.MonthOf(u.Family.Today())
	month := current
	if s := c.QueryParam("month"); s != "" {
		var err error
		if month, err = reports.ParseMonth("month", s); err != nil {
			return err
		}
	}
	v, err := a.viewer(c)
	if err != nil {
		return err
	}
	list, err := reports.MonthSpending(c.Request().Context(), a.DB, v, month)
	if err != nil {
		return err
	}
	list, parts, err := reports.InCurrency(c.Request().Context(), a.DB, u.FamilyID, u.Family.Currency, list, u.Family.Today())
	if err != nil {
		return err
	}
	p := views.Spending{Month: month, Current: current, Reports: list, Parts: parts, SomePrivate: v.HidesAny()}
	// A currency left out of the total may be the rates feed's doing.
	if slices.ContainsFunc(list, func(s reports.Spending) bool { return s.Currency != u.Family.Currency }) {
		if p.Feed, err = fx.FeedStatus(c.Request().Context(), a.DB); err != nil {
			return err
		}
	}
	return a.render(c, http.StatusOK, views.SpendingPage(p))
}
