package handlers

import (
	"cmp"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"time"

	"github.com/google/uuid"
	"github.com/labstack/echo/v4"
	"github.com/shopspring/decimal"

	"tally/fx"
	"tally/models"
	"tally/reports"
	"tally/views"
)

const entriesPerPage = 25

// dashboard shows net worth with its chart, accounts and recent transactions. An htmx request
// for another page of transactions gets only the table, one for another range of the chart
// only the chart.
func (a *app) dashboard(c echo.Context) error {
	viewer, err := a.viewer(c)
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	u := currentUser(c)
	list, err := a.entryList(c, models.EntryFilter{Viewer: viewer}, "/", true)
	if err != nil {
		return err
	}
	if isFragment(c, "entries") {
		return a.render(c, http.StatusOK, views.EntriesTable(list))
	}
	history, nw, err := a.netWorthHistory(c)
	if err != nil {
		return err
	}
	if isFragment(c, history.ID) {
		return a.render(c, http.StatusOK, views.BalanceHistoryCard(history))
	}
	accts, err := models.AccountsForFamily(ctx, a.DB, viewer)
	if err != nil {
		return err
	}
	rates := todayRates(nw)
	groups := groupAccounts(accts, u.Family.Currency, rates, lastDay(nw))
	today := u.Family.Today()
	v, err := a.viewer(c)
	if err != nil {
		return err
	}
	thisMonth, err := a.Budgets.Month(ctx, u.Family, v, reports.MonthOf(today), today)
	if err != nil {
		return err
	}
	bills, err := a.Recurring.Upcoming(ctx, a.DB, v, today, views.ComingUpDays)
	if err != nil {
		return err
	}
	troubles, err := a.bankTroubles(ctx, u, nil)
	if err != nil {
		return err
	}
	d := views.Dashboard{Groups: groups, NetWorth: netWorthToday(nw), History: history, Entries: list,
		ThisMonth: thisMonth, ComingUp: views.ComingUp{Bills: bills}, BankTroubles: troubles, SomePrivate: viewer.HidesAny()}
	// A currency the net worth leaves out may be the rates feed's doing.
	if len(nw.Unconverted) > 0 {
		if d.Feed, err = fx.FeedStatus(ctx, a.DB); err != nil {
			return err
		}
	}
	return a.render(c, http.StatusOK, views.DashboardPage(d))
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
	if p.Number > 1 {
		l.PrevURL = pageLink(c, base, "page", p.Number-1)
	}
	if more {
		l.NextURL = pageLink(c, base, "page", p.Number+1)
	}
	return l, nil
}

// pageLink is base with the request's query and page n in its parameter param: another page
// keeps the rest of the view (the chart's range, another list's page).
func pageLink(c echo.Context, base, param string, n int) string {
	q := url.Values{}
	for k, v := range c.QueryParams() {
		q[k] = v
	}
	q.Set(param, strconv.Itoa(n))
	return base + "?" + q.Encode()
}

// isFragment reports whether an htmx request targets the element with id.
func isFragment(c echo.Context, id string) bool {
	h := c.Request().Header
	return h.Get("HX-Request") == "true" && h.Get("HX-Target") == id && h.Get("HX-History-Restore-Request") != "true"
}

// groupAccounts groups accounts by type, in the order of models.AccountTypes, with each
// group's total of open accounts in currency at today's rates.
func groupAccounts(accts []models.Account, currency string, rates map[string]fx.Conversion, today time.Time) []views.AccountGroup {
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
		groups = append(groups, views.AccountGroup{Type: t, Accounts: list, Total: convert(totals(list), currency, rates, today)})
	}
	return groups
}

// totals sums the open accounts per currency, in the order the currencies first appear.
func totals(accts []models.Account) []views.Total {
	sums := map[string]decimal.Decimal{}
	var order []string
	for _, a := range accts {
		if a.Status == models.AccountDisabled {
			continue
		}
		if _, ok := sums[a.Currency]; !ok {
			order = append(order, a.Currency)
		}
		sums[a.Currency] = sums[a.Currency].Add(a.Balance)
	}
	out := make([]views.Total, 0, len(order))
	for _, cur := range order {
		out = append(out, views.Total{Currency: cur, Amount: sums[cur]})
	}
	return out
}

// convert sums amounts into currency at the rates given, each currency's own amount kept as a
// part with its rate; one without a rate is a part the total leaves out.
func convert(amounts []views.Total, currency string, rates map[string]fx.Conversion, on time.Time) views.Converted {
	c := views.Converted{Total: views.Total{Currency: currency}}
	places := int32(models.CurrencyDecimals(currency))
	foreign := false
	for _, t := range amounts {
		part := views.ConvertedPart{Total: t, On: on}
		switch r, ok := rates[t.Currency]; {
		case t.Currency == currency:
			c.Total.Amount = c.Total.Amount.Add(t.Amount)
		case ok:
			part.Rate = &r
			c.Total.Amount = c.Total.Amount.Add(t.Amount.Mul(r.Rate).Round(places))
			foreign = true
		default:
			part.Missing, foreign = true, true
		}
		c.Parts = append(c.Parts, part)
	}
	// The family's currency first.
	slices.SortStableFunc(c.Parts, func(x, y views.ConvertedPart) int {
		return cmp.Compare(ownFirst(x.Currency, currency), ownFirst(y.Currency, currency))
	})
	if !foreign {
		c.Parts = nil // one currency: the total says it all
	}
	return c
}

// ownFirst orders the currency own before any other.
func ownFirst(c, own string) int {
	if c == own {
		return 0
	}
	return 1
}

// todayRates are the rates of a net worth's last day, by currency.
func todayRates(nw *reports.NetWorth) map[string]fx.Conversion {
	rates := map[string]fx.Conversion{}
	for _, p := range nw.Parts {
		rates[p.Currency] = p.Rate
	}
	return rates
}

// netWorthToday is a net worth's last day as a converted total: assets less liabilities in
// each currency, the parts the daily walk found.
func netWorthToday(nw *reports.NetWorth) views.Converted {
	c := views.Converted{Total: views.Total{Currency: nw.Currency, Amount: nw.Last()}}
	if len(nw.Parts) == 0 && len(nw.Unconverted) == 1 {
		// Everything is in one currency no rate converts: that is the net worth, in its own
		// money, with the note that it is not in the family's.
		s := nw.Unconverted[0]
		c.Total = views.Total{Currency: s.Currency, Amount: s.Points[len(s.Points)-1].Balance}
	}
	if len(nw.Parts) <= 1 && len(nw.Unconverted) == 0 {
		return c
	}
	for _, p := range nw.Parts {
		part := views.ConvertedPart{Total: views.Total{Currency: p.Currency, Amount: p.Amount}, On: p.Rate.Date}
		if p.Currency != nw.Currency {
			r := p.Rate
			part.Rate, part.On = &r, lastDay(nw)
		}
		c.Parts = append(c.Parts, part)
	}
	for _, s := range nw.Unconverted {
		c.Parts = append(c.Parts, views.ConvertedPart{Total: views.Total{Currency: s.Currency, Amount: s.Points[len(s.Points)-1].Balance}, Missing: true})
	}
	return c
}

// lastDay is the last day of a net worth's range.
func lastDay(nw *reports.NetWorth) time.Time {
	if len(nw.Points) > 0 {
		return nw.Points[len(nw.Points)-1].Date
	}
	if len(nw.Unconverted) > 0 {
		s := nw.Unconverted[0].Points
		return s[len(s)-1].Date
	}
	return time.Time{}
}

// pathID parses the :id route parameter. A malformed id is simply not found.
func pathID(c echo.Context) (uuid.UUID, error) { return pathParamID(c, "id") }

// pathParamID parses the route parameter name as an id; a malformed one is not found.
func pathParamID(c echo.Context, name string) (uuid.UUID, error) {
	id, err := uuid.Parse(c.Param(name))
	if err != nil {
		return uuid.Nil, echo.ErrNotFound
	}
	return id, nil
}
