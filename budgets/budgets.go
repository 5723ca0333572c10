// Package budgets plans a family's months: what each category may spend, what it spent, what
// carries over from the months before, and where the month is heading. A month's budget is a
// row of budgets (one calendar month, with the expected income) and its lines in
// budget_categories, the tables Sure's exports fill too.
//
// A parent category's line is the budget of its whole group, subcategories included, as in
// Sure: a subcategory's line is a part of it, and the group's budget is the larger of the
// parent's line and the sum of its subcategories' lines, so that budgeting on both levels never
// counts the same money twice. A parent's spent, carried, upcoming and forecast are its group's.
package budgets

import (
	"context"
	"slices"
	"time"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"
	"github.com/uptrace/bun"

	"tally/models"
	"tally/recurring"
	"tally/reports"
)

// Rollover settings: how a category's leftover goes into the next month.
const (
	RolloverOff     = "off"     // each month starts fresh
	RolloverSurplus = "surplus" // what was not spent carries into next month
	RolloverBoth    = "both"    // an overspend carries too, as a negative
)

// Rollovers are the rollover settings, in the order pages offer them.
var Rollovers = []string{RolloverOff, RolloverSurplus, RolloverBoth}

// A category's state in its month, by what it spent and where it is heading against what it
// may spend (budgeted plus carried).
const (
	StatusOnTrack = "on_track"
	StatusNear    = "near" // at 90 % of it, or heading over at this pace
	StatusOver    = "over"
)

// Expected is what a category's confirmed recurring series mean for one month, in the
// family's currency and the ledger's sign (as entries.amount: money out is positive).
type Expected = recurring.Expected

// Bills tells a budget what confirmed recurring series expect (recurring.Service). The key is
// the category id; uuid.Nil is "no category".
type Bills interface {
	ExpectedByCategory(ctx context.Context, db bun.IDB, v models.Viewer, month reports.Month, today time.Time) (map[uuid.UUID]Expected, error)
}

// Service computes and changes the families' budgets. Bills, when set, gives each category's
// upcoming bills; nil means no series are known, and nothing is upcoming.
type Service struct {
	DB    bun.IDB
	Bills Bills
}

// Category is one category's figures in a month, in the family's currency and the ledger's
// sign (spent is money out less refunds).
type Category struct {
	// ID is nil for the transactions without a category.
	ID             *uuid.UUID
	ParentID       *uuid.UUID
	Name           string // "" without a category
	Color          string
	Classification string
	Rollover       string
	// Line is the amount budgeted on the category itself: a parent's budget for its group.
	Line decimal.Decimal
	// Budgeted is the month's budget: the line, or for a parent the group's budget.
	Budgeted decimal.Decimal
	Spent    decimal.Decimal
	// Carried is what the months before leave this one, by the rollover setting.
	Carried decimal.Decimal
	// Available is budgeted plus carried less spent.
	Available decimal.Decimal
	// Upcoming is what confirmed recurring series still expect this month.
	Upcoming decimal.Decimal
	// Forecast is the month's end at this pace: spent, plus the bills to come, plus the
	// variable spending (spent less the bills already paid) going on at its pace so far. A
	// month that is over ends at what it spent; one not begun at its bills.
	Forecast decimal.Decimal
	Status   string
	// Goal is the category's goal, nil when it has none (see Progress).
	Goal *Goal
	// Subcategory is true for a category under a parent; HasChildren for a parent with any.
	Subcategory, HasChildren bool
}

// Limit is what the category may spend this month: budgeted plus carried.
func (c Category) Limit() decimal.Decimal { return c.Budgeted.Add(c.Carried) }

// Month is a family's budget for one calendar month, in the family's currency.
type Month struct {
	Month    reports.Month
	Currency string
	// ExpectedIncome is the income the family planned for; nil when it set none.
	ExpectedIncome *decimal.Decimal
	// Income is the income received so far: money in without a category or in an income
	// category (transfers and excluded transactions left out), as a positive amount.
	Income decimal.Decimal
	// Budgeted is every group's budget; Carried what they carry in; Spent all the spending,
	// without a category included, which is reports.MonthSpending's total.
	Budgeted, Carried, Spent decimal.Decimal
	// LeftToBudget is the expected income (the income received, when none is set) less
	// everything budgeted; negative when the family plans more than it earns.
	LeftToBudget decimal.Decimal
	// LeftToSpend is what was budgeted and carried less what was spent.
	LeftToSpend decimal.Decimal
	// Bills is what confirmed recurring series still expect to take this month; IncomeToCome
	// what they still expect to bring in (a positive amount), never netted against the bills.
	Bills, IncomeToCome decimal.Decimal
	// Categories are the top-level categories by name, each followed by its subcategories,
	// and last the spending without a category, if any.
	Categories []Category
	// Unconverted are the currencies of amounts no exchange rate converts: left out.
	Unconverted []string
	// Partial is true when some of the family's accounts are private and kept from the
	// reader: the spending, carries and bills are those of the accounts they can see.
	Partial bool
	// Today is the day the figures are for; Elapsed and Days say how far into the month it is
	// (0 for a month not begun, Days for one that is over).
	Today         time.Time
	Elapsed, Days int
}

// Current reports whether today falls in the month, the one month with a forecast at a pace.
func (m *Month) Current() bool { return sameMonth(m.Today, m.Month) }

// Category returns the month's figures of the category id, or nil.
func (m *Month) Category(id uuid.UUID) *Category {
	for i := range m.Categories {
		if c := &m.Categories[i]; c.ID != nil && *c.ID == id {
			return c
		}
	}
	return nil
}

func sameMonth(day time.Time, m reports.Month) bool { return reports.MonthOf(day) == m }

// Overshoot is how far the category is over what it may spend, or heading over at this pace:
// the larger of spent and the forecast, less budgeted and carried.
func (c Category) Overshoot() decimal.Decimal {
	return decimal.Max(c.Spent, c.Forecast).Sub(c.Limit())
}

// MostOver returns up to n categories over their limit or heading over, the furthest first.
// A parent with subcategories is left out: its subcategories say where.
func (m *Month) MostOver(n int) []Category {
	var out []Category
	for _, c := range m.Categories {
		if c.ID != nil && !c.HasChildren && c.Status != StatusOnTrack && c.Overshoot().IsPositive() {
			out = append(out, c)
		}
	}
	slices.SortStableFunc(out, func(a, b Category) int { return b.Overshoot().Cmp(a.Overshoot()) })
	return out[:min(n, len(out))]
}
