package handlers

import (
	"net/http"
	"net/url"
	"strconv"

	"github.com/google/uuid"
	"github.com/labstack/echo/v4"
	"github.com/shopspring/decimal"

	"tally/models"
	"tally/views"
)

const entriesPerPage = 25

// dashboard shows net worth with its chart, accounts and recent transactions. An htmx request
// for another page of transactions gets only the table, one for another range of the chart
// only the chart.
func (a *app) dashboard(c echo.Context) error {
	ctx := c.Request().Context()
	u := currentUser(c)
	list, err := a.entryList(c, models.EntryFilter{FamilyID: u.FamilyID}, "/", true)
	if err != nil {
		return err
	}
	if isFragment(c, "entries") {
		return a.render(c, http.StatusOK, views.EntriesTable(list))
	}
	history, err := a.netWorthHistory(c)
	if err != nil {
		return err
	}
	if isFragment(c, history.ID) {
		return a.render(c, http.StatusOK, views.BalanceHistoryCard(history))
	}
	accts, err := models.AccountsForFamily(ctx, a.DB, u.FamilyID)
	if err != nil {
		return err
	}
	groups := groupAccounts(accts)
	return a.render(c, http.StatusOK, views.DashboardPage(views.Dashboard{Groups: groups, NetWorth: netWorth(accts), History: history, Entries: list}))
}

// entryList loads the page of entries the request asks for (?page=N).
func (a *app) entryList(c echo.Context, f models.EntryFilter, base string, showAccount bool) (views.EntryList, error) {
	n, _ := strconv.Atoi(c.QueryParam("page"))
	p := models.Page{Number: n, Size: entriesPerPage}.Normalize(entriesPerPage, entriesPerPage)
	rows, more, err := models.Entries(c.Request().Context(), a.DB, f, p)
	if err != nil {
		return views.EntryList{}, err
	}
	l := views.EntryList{Rows: rows, ShowAccount: showAccount}
	// Another page keeps the rest of the view (the chart's range, say).
	pageURL := func(n int) string {
		q := url.Values{}
		for k, v := range c.QueryParams() {
			q[k] = v
		}
		q.Set("page", strconv.Itoa(n))
		return base + "?" + q.Encode()
	}
	if p.Number > 1 {
		l.PrevURL = pageURL(p.Number - 1)
	}
	if more {
		l.NextURL = pageURL(p.Number + 1)
	}
	return l, nil
}

// isFragment reports whether an htmx request targets the element with id.
func isFragment(c echo.Context, id string) bool {
	h := c.Request().Header
	return h.Get("HX-Request") == "true" && h.Get("HX-Target") == id && h.Get("HX-History-Restore-Request") != "true"
}

// groupAccounts groups accounts by type, in the order of models.AccountTypes, with each
// group's total of open accounts per currency.
func groupAccounts(accts []models.Account) []views.AccountGroup {
	byType := map[string][]models.Account{}
	for _, a := range accts {
		byType[a.AccountableType] = append(byType[a.AccountableType], a)
	}
	var groups []views.AccountGroup
	for _, t := range models.AccountTypes {
		list := byType[t.Name]
		if len(list) == 0 {
			continue
		}
		groups = append(groups, views.AccountGroup{Type: t, Accounts: list, Totals: totals(list, false)})
	}
	return groups
}

// netWorth is assets minus liabilities of the open accounts, per currency.
func netWorth(accts []models.Account) []views.Total {
	return totals(accts, true)
}

func totals(accts []models.Account, signed bool) []views.Total {
	sums := map[string]decimal.Decimal{}
	var order []string
	for _, a := range accts {
		if a.Status == models.AccountDisabled {
			continue
		}
		if _, ok := sums[a.Currency]; !ok {
			order = append(order, a.Currency)
		}
		amt := a.Balance
		if signed && a.Type().Liability {
			amt = amt.Neg()
		}
		sums[a.Currency] = sums[a.Currency].Add(amt)
	}
	out := make([]views.Total, 0, len(order))
	for _, cur := range order {
		out = append(out, views.Total{Currency: cur, Amount: sums[cur]})
	}
	if len(out) == 0 && signed {
		out = append(out, views.Total{Currency: "USD", Amount: decimal.Zero})
	}
	return out
}

// pathID parses the :id route parameter. A malformed id is simply not found.
func pathID(c echo.Context) (uuid.UUID, error) {
	id, err := uuid.Parse(c.Param("id"))
	if err != nil {
		return uuid.Nil, echo.ErrNotFound
	}
	return id, nil
}
