package ynab

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"tally/imports/movein"
)

// categories reads the groups and categories, with their goals. YNAB's internal group becomes
// a built-in income group holding "Ready to Assign"; its other categories (Uncategorized and
// the like) are not kept.
func (a *assembler) categories() error {
	a.categoryByID = map[string]*movein.Category{}
	groups := map[string]*movein.CategoryGroup{}
	internal, cards := map[string]bool{}, map[string]bool{}
	for _, r := range a.raw.groups {
		if r.Deleted {
			continue
		}
		g := movein.CategoryGroup{ID: r.ID, Name: strings.TrimSpace(r.Name), Hidden: r.Hidden}
		switch g.Name {
		case internalGroup:
			internal[g.ID] = true
			g.Name, g.Income, g.Hidden, g.Builtin = builtinIncomeGroup, true, false, true
		case cardGroup:
			cards[g.ID] = true
		}
		a.b.Groups = append(a.b.Groups, g)
	}
	for i := range a.b.Groups {
		groups[a.b.Groups[i].ID] = &a.b.Groups[i]
	}
	for _, r := range a.raw.categories {
		if r.Deleted {
			continue
		}
		c := movein.Category{ID: r.ID, GroupID: r.GroupID, Name: strings.TrimSpace(r.Name), Hidden: r.Hidden}
		switch {
		case internal[c.GroupID] && (c.Name == readyToAssign || c.Name == toBeBudgeted):
			c.Name, c.Income, c.Hidden = "Ready to Assign", true, false
		case internal[c.GroupID]:
			a.b.Note(movein.NotKept, movein.EntityCategory, c.ID, c.Name, "it is one of YNAB's own categories: its transactions are kept without a category")
			continue
		case cards[c.GroupID]:
			c.MovesMoney = true
			a.b.Note(movein.KeptAs, movein.EntityCategory, c.ID, c.Name,
				"it is YNAB's payment category of a credit card: the money it holds moves to the card, it is not spent")
		case groups[c.GroupID] == nil:
			a.b.Note(movein.KeptAs, movein.EntityCategory, c.ID, c.Name, "its group %q is not in the file: it is kept without a group", c.GroupID)
			c.GroupID = ""
		}
		a.b.Categories = append(a.b.Categories, c)
		if g, ok := goal(r); ok {
			a.b.Goals = append(a.b.Goals, g)
		}
	}
	for i := range a.b.Categories {
		a.categoryByID[a.b.Categories[i].ID] = &a.b.Categories[i]
	}
	return nil
}

// goal reads a category's goal: target balance (TB), target balance by a date (TBD), monthly
// funding (MF), needed for spending (NEED) and debt payment (DEBT).
func goal(r category) (movein.Goal, bool) {
	if r.GoalType == "" {
		return movein.Goal{}, false
	}
	g := movein.Goal{CategoryID: r.ID, Kind: movein.GoalOther, Amount: decimal.New(r.GoalTarget, -3), Text: r.GoalType}
	if by, ok := date(r.GoalMonth); ok {
		g.By = time.Date(by.Year(), by.Month(), 1, 0, 0, 0, 0, time.UTC)
	}
	switch r.GoalType {
	case "TB", "TBD":
		g.Kind = movein.GoalBalance
	case "MF":
		g.Kind = movein.GoalMonthly
	case "NEED":
		g.Kind = movein.GoalSpending
	case "DEBT":
		g.Kind = movein.GoalDebt
	}
	if (r.GoalType == "MF" || r.GoalType == "NEED") && !monthly(r) {
		// An amount each week, year or few months is no amount each month.
		g.Kind = movein.GoalOther
		g.Text = fmt.Sprintf("%s of %s every %d of cadence %d", r.GoalType, g.Amount, deref(r.GoalEvery), deref(r.GoalCadence))
	}
	return g, true
}

// monthly reports whether a goal's amount comes round every month, as every goal's did before
// YNAB gave goals a cadence.
func monthly(r category) bool {
	return deref(r.GoalCadence) <= 1 && deref(r.GoalEvery) <= 1
}

func deref(p *int) int {
	if p == nil {
		return 0
	}
	return *p
}

// months reads each month's budgets. Every category's positive balance carries into the next
// month, and an overspend comes out of the next month's money to assign ("surplus").
func (a *assembler) months() error {
	byMonth := map[time.Time]*movein.Month{}
	for i, r := range a.raw.months {
		if r.Deleted {
			continue
		}
		m, ok := date(r.Month)
		if !ok || m.Day() != 1 {
			return movein.Errorf(movein.EntityMonth, r.Month, "months[%d] is for %q, which is no month's first day", i, r.Month)
		}
		month := byMonth[m]
		if month == nil {
			month = &movein.Month{Month: m}
			byMonth[m] = month
		}
		for _, c := range r.Categories {
			if a.categoryByID[c.ID] == nil {
				continue
			}
			month.Lines = append(month.Lines, movein.Line{CategoryID: c.ID, Budgeted: decimal.New(c.Budgeted, -3), Rollover: movein.RolloverSurplus})
		}
	}
	for _, m := range slices.SortedFunc(maps.Keys(byMonth), time.Time.Compare) {
		if len(byMonth[m].Lines) > 0 {
			a.b.Months = append(a.b.Months, *byMonth[m])
		}
	}
	return nil
}
