package handlers

import (
	"slices"
	"time"

	"github.com/google/uuid"
	"github.com/labstack/echo/v4"

	"tally/models"
	"tally/views"
)

// Ids of the balance charts' cards, which their range links swap with htmx.
const (
	netWorthHistoryID = "net-worth-history"
	balanceHistoryID  = "balance-history"
)

// chartDays is the range the request's ?range= names (def when it names none) and its first
// and last days, the last being today in the family's time zone. All of it starts at the
// history of the family, or of the account when one is given.
func (a *app) chartDays(c echo.Context, def string, account *uuid.UUID) (views.ChartRange, time.Time, time.Time, error) {
	u := currentUser(c)
	r := views.ChartRangeOf(c.QueryParam("range"), def)
	end := u.Family.Today()
	first := end
	if r.Days == 0 {
		var err error
		if first, err = models.HistoryStart(c.Request().Context(), a.DB, u.FamilyID, account, end); err != nil {
			return r, end, end, err
		}
	}
	return r, r.Start(end, first), end, nil
}

// netWorthHistory is the dashboard's chart of net worth, the family's currency first.
func (a *app) netWorthHistory(c echo.Context) (views.BalanceHistory, error) {
	u := currentUser(c)
	r, start, end, err := a.chartDays(c, "30d", nil)
	if err != nil {
		return views.BalanceHistory{}, err
	}
	series, err := models.DailyNetWorth(c.Request().Context(), a.DB, u.FamilyID, start, end)
	if err != nil {
		return views.BalanceHistory{}, err
	}
	rank := func(s models.BalanceSeries) int {
		if s.Currency == u.Family.Currency {
			return 0
		}
		return 1
	}
	slices.SortStableFunc(series, func(x, y models.BalanceSeries) int { return rank(x) - rank(y) })
	return views.BalanceHistory{ID: netWorthHistoryID, Title: "Net worth", Path: "/", Range: r, Series: series,
		Empty: "No open accounts: net worth is what your open accounts hold less what they owe."}, nil
}

// accountHistory is an account page's chart of its balance.
func (a *app) accountHistory(c echo.Context, acct *models.Account) (views.BalanceHistory, error) {
	r, start, end, err := a.chartDays(c, "90d", &acct.ID)
	if err != nil {
		return views.BalanceHistory{}, err
	}
	points, err := models.DailyBalances(c.Request().Context(), a.DB, acct.FamilyID, acct.ID, start, end)
	if err != nil {
		return views.BalanceHistory{}, err
	}
	return views.BalanceHistory{ID: balanceHistoryID, Title: "Balance", Path: "/accounts/" + acct.ID.String(), Range: r,
		Series: []models.BalanceSeries{{Currency: acct.Currency, Points: points}}}, nil
}
