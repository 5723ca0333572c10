package budgets

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"
	"github.com/uptrace/bun"

	"tally/internal/apperr"
	"tally/models"
	"tally/reports"
)

// Quick-fill strategies: what a category's amount is set to.
const (
	FillLastBudget = "last_budget" // the month before's amount
	FillLastSpent  = "last_spent"  // what it spent the month before
	FillAverage3   = "average_3"   // what it spent a month on average over the 3 months before
	FillAverage12  = "average_12"  // the same over 12 months
	FillGoal       = "goal"        // towards the category's goal, or Target by the month By
)

// FillStrategies are the strategies, in the order pages offer them.
var FillStrategies = []string{FillLastBudget, FillLastSpent, FillAverage3, FillAverage12, FillGoal}

// Fill is a quick fill of a month: of one category (CategoryID) or of all of them.
type Fill struct {
	Strategy   string
	CategoryID *uuid.UUID
	// Target and By are an unstored goal's: the amount to have by the end of the month By.
	// Without either, a goal fill uses the stored goals.
	Target *decimal.Decimal
	By     *reports.Month
}

// storedGoals are the goals a goal fill without a target budgets towards: the category's, or
// with none named every category's. A named category without a goal is a problem on target.
func (s *Service) storedGoals(ctx context.Context, familyID uuid.UUID, categoryID *uuid.UUID, cats map[uuid.UUID]*category, v *apperr.Validation) (map[uuid.UUID]*Goal, error) {
	goals, err := s.goals(ctx, familyID)
	if err != nil || categoryID == nil {
		return goals, err
	}
	g := goals[*categoryID]
	if g == nil {
		if cats[*categoryID] != nil {
			v.Add("target", "The category has no goal: set one, or give target and by")
		}
		return nil, nil
	}
	return map[uuid.UUID]*Goal{*categoryID: g}, nil
}

// Fill sets the month's amounts by f's strategy. A parent's amount is its group's (what the
// group spent); a figure below zero (a month of refunds) is zero. Filling the whole month
// sets every expense category and any category with an amount already; last_budget also
// takes the month before's expected income when the month has none, so that it copies a month
// to the next. A goal fill budgets towards the category's stored goal (without a category,
// every category's that has one), or towards Target by the month By when the fill names them:
// a monthly goal's amount, or what each month from this one to the due month (this one, when
// none) needs to reach a balance with what the category carries in; a balance goal turns the
// category's surplus rollover on (off, nothing saved would reach it). Problems are on
// strategy, category_id, target and by. An average is of the spending viewer can see: the
// amounts it writes must not tell them of what they cannot.
func (s *Service) Fill(ctx context.Context, fam *models.Family, viewer models.Viewer, month reports.Month, f Fill, today time.Time) error {
	cats, err := s.categories(ctx, s.DB, fam.ID)
	if err != nil {
		return err
	}
	var v apperr.Validation
	if !slices.Contains(FillStrategies, f.Strategy) {
		v.Add("strategy", "strategy must be one of: "+strings.Join(FillStrategies, ", "))
	}
	if f.CategoryID != nil && cats[*f.CategoryID] == nil {
		v.Add("category_id", "category_id is not one of your categories")
	}
	months := 1
	var goals map[uuid.UUID]*Goal // what a goal fill budgets towards, by category
	switch f.Strategy {
	case FillAverage3:
		months = 3
	case FillAverage12:
		months = 12
	case FillGoal:
		months = 0
		if f.Target == nil && f.By == nil {
			if goals, err = s.storedGoals(ctx, fam.ID, f.CategoryID, cats, &v); err != nil {
				return err
			}
			break
		}
		if f.CategoryID == nil {
			v.Add("category_id", "A goal is for one category: give its category_id")
		}
		if f.Target == nil || !f.Target.IsPositive() {
			v.Add("target", "target must be an amount more than zero")
		} else {
			validAmount(&v, "target", *f.Target, fam.Currency)
		}
		if f.By == nil || f.By.First().Before(month.First()) {
			v.Add("by", "by must be a month (2026-10) no earlier than "+month.String())
		}
		if v.Err() == nil {
			goals = map[uuid.UUID]*Goal{*f.CategoryID: {Kind: GoalBalance, Amount: *f.Target, By: f.By}}
		}
	}
	if err := v.Err(); err != nil {
		return err
	}
	start := month
	for range months {
		start = start.Prev()
	}
	l, err := s.read(ctx, fam, viewer, start, month, today)
	if err != nil {
		return err
	}
	places := int32(models.CurrencyDecimals(fam.Currency))
	value := func(id uuid.UUID) decimal.Decimal {
		var d decimal.Decimal
		switch f.Strategy {
		case FillLastBudget:
			d = l.lines[month.Prev()][id]
		case FillGoal:
			d = goals[id].Amount
			if g := goals[id]; g.Kind == GoalBalance {
				n := decimal.NewFromInt(int64(g.monthsTo(month)))
				d = g.Amount.Sub(l.carried(id, month)).Div(n).RoundCeil(places)
			}
		default:
			for m := start; m.First().Before(month.First()); m = m.Next() {
				d = d.Add(l.spentIn(id, m))
			}
			d = d.Div(decimal.NewFromInt(int64(months))).Round(places)
		}
		return decimal.Max(d, decimal.Zero)
	}
	var lines []Line
	for _, id := range l.order {
		_, has := l.lines[month][id]
		if f.CategoryID != nil && *f.CategoryID != id || f.CategoryID == nil && !has && cats[id].Classification != models.CategoryExpense ||
			f.Strategy == FillGoal && goals[id] == nil {
			continue
		}
		if d := value(id); has || !d.IsZero() {
			lines = append(lines, Line{CategoryID: id, Budgeted: d})
		}
	}
	return s.DB.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		id, err := ensureBudget(ctx, tx, fam, month)
		if err != nil {
			return err
		}
		for _, line := range lines {
			if err := setLine(ctx, tx, fam, id, line.CategoryID, line.Budgeted); err != nil {
				return err
			}
		}
		for id, g := range goals {
			if g.Kind == GoalBalance && cats[id].Rollover == RolloverOff {
				if err := setRollover(ctx, tx, fam.ID, id, RolloverSurplus); err != nil {
					return err
				}
			}
		}
		if f.Strategy == FillLastBudget && f.CategoryID == nil {
			if err := copyIncome(ctx, tx, fam.ID, id, month); err != nil {
				return err
			}
		}
		return syncTotal(ctx, tx, id)
	})
}

// copyIncome gives the budget the month before's expected income when it has none.
func copyIncome(ctx context.Context, tx bun.Tx, familyID, budgetID uuid.UUID, month reports.Month) error {
	_, err := tx.NewRaw(`
		UPDATE budgets b SET expected_income = p.expected_income, currency = p.currency, updated_at = now()
		FROM budgets p
		WHERE b.id = ? AND b.expected_income IS NULL AND p.family_id = ? AND p.start_date = ? AND p.expected_income IS NOT NULL`,
		budgetID, familyID, month.Prev().First()).Exec(ctx)
	if err != nil {
		return fmt.Errorf("copy expected income: %w", err)
	}
	return nil
}
