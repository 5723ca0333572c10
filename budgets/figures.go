package budgets

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"

	"tally/models"
	"tally/reports"
)

// nearShare is the share of its limit at which a category is near it.
var nearShare = decimal.RequireFromString("0.9")

// budget is the month's budget of the category id: its line, or for a parent the larger of
// its line and its subcategories' lines together (they are parts of it).
func (l *ledger) budget(id uuid.UUID, m reports.Month) decimal.Decimal {
	own := l.lines[m][id]
	kids := l.children[id]
	if len(kids) == 0 {
		return own
	}
	var parts decimal.Decimal
	for _, k := range kids {
		parts = parts.Add(l.lines[m][k])
	}
	return decimal.Max(own, parts)
}

// spentIn is what the category id spent in month m, its subcategories included.
func (l *ledger) spentIn(id uuid.UUID, m reports.Month) decimal.Decimal {
	s := l.spent[m][id]
	for _, k := range l.children[id] {
		s = s.Add(l.spent[m][k])
	}
	return s
}

// ownBudget is the part of the category id's month budget that is its own: for a parent, what
// its group's budget holds beyond its subcategories' lines.
func (l *ledger) ownBudget(id uuid.UUID, m reports.Month) decimal.Decimal {
	own := l.budget(id, m)
	for _, k := range l.children[id] {
		own = own.Sub(l.lines[m][k])
	}
	return own
}

// carried is what the months before month leave the category id: for a parent, its own carry
// and each of its subcategories', so that a group's available is the sum of its parts' (a
// surplus carried by one subcategory is the group's too).
func (l *ledger) carried(id uuid.UUID, month reports.Month) decimal.Decimal {
	c := l.ownCarried(id, month)
	for _, k := range l.children[id] {
		c = c.Add(l.ownCarried(k, month))
	}
	return c
}

// ownCarried is what the months before month leave the category id by its rollover setting,
// of its own budget and its own spending: from the first month it had a budget, each month's
// budget plus what came in less what it spent goes on to the next, all of it (both) or only
// when positive (surplus). A month without a line or spending passes on what came in as it
// is, under either setting (it is never negative under surplus), so the walk steps over such
// months: its cost is the months that hold something, however far apart they are.
func (l *ledger) ownCarried(id uuid.UUID, month reports.Month) decimal.Decimal {
	if c, ok := l.own[carry{id, month}]; ok {
		return c
	}
	c := l.walk(id, month)
	l.own[carry{id, month}] = c
	return c
}

// carry names a category's carry into a month.
type carry struct {
	id    uuid.UUID
	month reports.Month
}

func (l *ledger) walk(id uuid.UUID, month reports.Month) decimal.Decimal {
	rollover := l.cats[id].Rollover
	var carried decimal.Decimal
	if rollover == RolloverOff {
		return carried
	}
	started := false
	for _, m := range l.held {
		if !m.First().Before(month.First()) {
			break
		}
		l.walked++
		b := l.ownBudget(id, m)
		if !started && b.IsZero() {
			continue
		}
		started = true
		carried = b.Add(carried).Sub(l.spent[m][id])
		if rollover == RolloverSurplus && carried.IsNegative() {
			carried = decimal.Zero
		}
	}
	return carried
}

// figures computes the end month's budget from the ledger, with the bills the series expect.
func (s *Service) figures(ctx context.Context, fam *models.Family, l *ledger, today time.Time) (*Month, error) {
	month := l.end
	expected := map[uuid.UUID]Expected{}
	if s.Bills != nil {
		var err error
		if expected, err = s.Bills.ExpectedByCategory(ctx, s.DB, l.viewer, month, today); err != nil {
			return nil, fmt.Errorf("expected bills of %s: %w", month, err)
		}
	}
	out := &Month{Month: month, Currency: fam.Currency, ExpectedIncome: l.expected, Income: l.income[month],
		Unconverted: l.unconverted, Today: today, Days: month.Last().Day(), Partial: l.viewer.HidesAny()}
	switch {
	case today.Before(month.First()):
	case today.After(month.Last()):
		out.Elapsed = out.Days
	default:
		out.Elapsed = today.Day()
	}
	places := int32(models.CurrencyDecimals(fam.Currency))
	groupExpected := func(id uuid.UUID) Expected {
		e := expected[id]
		for _, k := range l.children[id] {
			e.Paid, e.Upcoming = e.Paid.Add(expected[k].Paid), e.Upcoming.Add(expected[k].Upcoming)
		}
		return e
	}
	row := func(id *uuid.UUID) Category {
		c := Category{ID: id, Rollover: RolloverOff, Status: StatusOnTrack}
		var e Expected
		if id == nil {
			c.Spent, e = l.spent[month][uuid.Nil], expected[uuid.Nil]
		} else {
			cat := l.cats[*id]
			c.ParentID, c.Name, c.Color, c.Classification, c.Rollover = cat.ParentID, cat.Name, cat.Color, cat.Classification, cat.Rollover
			c.Subcategory, c.HasChildren = cat.ParentID != nil, len(l.children[*id]) > 0
			c.Line, c.Budgeted, c.Spent = l.lines[month][*id], l.budget(*id, month), l.spentIn(*id, month)
			c.Carried, e = l.carried(*id, month), groupExpected(*id)
			c.Goal = l.goals[*id]
		}
		c.Available, c.Upcoming = c.Limit().Sub(c.Spent), e.Upcoming
		c.Forecast = c.Spent.Add(c.Upcoming)
		// Only the spending no series explains goes on at a pace: a bill paid on the 1st is
		// not spent again every day of the month.
		variable := c.Spent.Sub(e.Paid)
		switch {
		case out.Elapsed == out.Days && !out.Current():
			c.Forecast = c.Spent // the month is over
		case out.Current():
			if variable.IsPositive() {
				rest := decimal.NewFromInt(int64(out.Days - out.Elapsed))
				c.Forecast = c.Forecast.Add(variable.Mul(rest).Div(decimal.NewFromInt(int64(out.Elapsed))))
			}
		}
		c.Forecast = c.Forecast.Round(places)
		limit := c.Limit()
		switch {
		case c.Spent.GreaterThan(limit) && c.Spent.IsPositive():
			c.Status = StatusOver
		case limit.IsPositive() && c.Forecast.GreaterThan(limit):
			c.Status = StatusNear
		case limit.IsPositive() && variable.IsPositive() && c.Spent.GreaterThanOrEqual(limit.Mul(nearShare)):
			// Near by what it spent only when some of it is not a bill paid as planned: a
			// category whose bills are all paid and explained is on track.
			c.Status = StatusNear
		}
		return c
	}
	shown := func(c Category) bool {
		return c.Classification == models.CategoryExpense || !c.Line.IsZero() || !c.Spent.IsZero() || !c.Upcoming.IsZero() || !c.Carried.IsZero()
	}
	for i := 0; i < len(l.order); {
		id := l.order[i]
		group := []Category{row(&id)}
		kids := l.children[id]
		for _, k := range kids {
			if c := row(&k); shown(c) {
				group = append(group, c)
			}
		}
		i += 1 + len(kids)
		if len(group) == 1 && !shown(group[0]) {
			continue
		}
		out.Categories = append(out.Categories, group...)
		out.Budgeted, out.Carried = out.Budgeted.Add(group[0].Budgeted), out.Carried.Add(group[0].Carried)
	}
	if none := row(nil); !none.Spent.IsZero() || !none.Upcoming.IsZero() {
		out.Categories = append(out.Categories, none)
	}
	for _, v := range l.spent[month] {
		out.Spent = out.Spent.Add(v)
	}
	for _, e := range expected {
		if bills := e.Upcoming.Add(e.Incoming); bills.IsPositive() {
			out.Bills = out.Bills.Add(bills)
		}
		out.IncomeToCome = out.IncomeToCome.Add(e.Incoming)
	}
	income := out.Income
	if out.ExpectedIncome != nil {
		income = *out.ExpectedIncome
	}
	out.LeftToBudget = income.Sub(out.Budgeted)
	out.LeftToSpend = out.Budgeted.Add(out.Carried).Sub(out.Spent)
	return out, nil
}
