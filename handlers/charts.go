package handlers

import (
	"time"

	"github.com/google/uuid"
	"github.com/labstack/echo/v4"

	"tally/internal/i18n"
	"tally/models"
	"tally/reports"
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
		viewer, err := a.viewer(c)
		if err != nil {
			return r, end, end, err
		}
		if first, err = models.HistoryStart(c.Request().Context(), a.DB, viewer, account, end); err != nil {
			return r, end, end, err
		}
	}
	return r, r.Start(end, first), end, nil
}

// netWorthHistory is the dashboard's chart of net worth in the family's currency, each
// currency converted at each day's rate, with the currencies no rate converts drawn apart.
func (a *app) netWorthHistory(c echo.Context) (views.BalanceHistory, *reports.NetWorth, error) {
	u := currentUser(c)
	r, start, end, err := a.chartDays(c, "30d", nil)
	if err != nil {
		return views.BalanceHistory{}, nil, err
	}
	viewer, err := a.viewer(c)
	if err != nil {
		return views.BalanceHistory{}, nil, err
	}
	nw, err := reports.FamilyNetWorth(c.Request().Context(), a.DB, viewer, u.Family.Currency, start, end)
	if err != nil {
		return views.BalanceHistory{}, nil, err
	}
	in := inPersonsStyle(c)
	h := views.BalanceHistory{ID: netWorthHistoryID, Title: i18n.T(in, "dashboard.net_worth"), Path: "/", Range: r,
		Empty: i18n.T(in, "dashboard.net_worth_empty")}
	if nw.Points != nil {
		h.Series = append(h.Series, models.BalanceSeries{Currency: nw.Currency, Points: nw.Points, Monthly: nw.Monthly})
	}
	h.Series = append(h.Series, nw.Unconverted...)
	return h, nw, nil
}

// accountHistory is an account page's chart of its balance, marking the days a bank's balance
// differs from it.
func (a *app) accountHistory(c echo.Context, acct *models.Account, rec *models.Reconciliation) (views.BalanceHistory, error) {
	r, start, end, err := a.chartDays(c, "90d", &acct.ID)
	if err != nil {
		return views.BalanceHistory{}, err
	}
	viewer, err := a.viewer(c)
	if err != nil {
		return views.BalanceHistory{}, err
	}
	points, err := models.DailyBalances(c.Request().Context(), a.DB, viewer, acct.ID, start, end)
	if err != nil {
		return views.BalanceHistory{}, err
	}
	in := inPersonsStyle(c)
	h := views.BalanceHistory{ID: balanceHistoryID, Title: i18n.T(in, "account.balance"), Path: "/accounts/" + acct.ID.String(), Range: r,
		Series: []models.BalanceSeries{{Currency: acct.Currency, Points: points}}}
	for _, cp := range rec.Checkpoints {
		if cp.Differs() {
			h.Marks = append(h.Marks, views.ChartMark{Date: cp.Date, Label: i18n.T(in, "account.bank_differs",
				"Bank", views.UserMoney(in, cp.Bank, acct.Currency), "Date", views.UserDate(in, cp.Date),
				"Difference", views.UserMoney(in, cp.Difference, acct.Currency))})
		}
	}
	return h, nil
}
