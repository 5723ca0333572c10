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
	FillGoal       = "goal"        // what each month needs to reach Target by the month By
)

// FillStrategies are the strategies, in the order pages offer them.
var FillStrategies = []string{FillLastBudget, FillLastSpent, FillAverage3, FillAverage12, FillGoal}

// Fill is a quick fill of a month: of one category (CategoryID) or of all of them.
type Fill struct {
	Strategy   string
	CategoryID *uuid.UUID
	// Target and By are a goal's: the amount to have by the end of the month By.
	Target *decimal.Decimal
	By     *reports.Month
}

// Fill sets the month's amounts by f's strategy. A parent's amount is its group's (what the
// group spent); a figure below zero (a month of refunds) is zero. Filling the whole month
// sets every expense category and any category with an amount already; last_budget also
// takes the month before's expected income when the month has none, so that it copies a month
// to the next. A goal is for one category: it sets what each month from this one to By needs
// to reach Target with what the category carries in, and turns the category's surplus
// rollover on (off, nothing saved would reach the goal). Problems are on strategy,
// category_id, target and by.
func (s *Service) Fill(ctx context.Context, fam *models.Family, month reports.Month, f Fill, today time.Time) error {
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
	switch f.Strategy {
	case FillAverage3:
		months = 3
	case FillAverage12:
		months = 12
	case FillGoal:
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
		} else {
			months = 0
		}
	}
	if err := v.Err(); err != nil {
		return err
	}
	start := month
	for range months {
		start = start.Prev()
	}
	l, err := s.read(ctx, fam, start, month, today)
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
			n := 0
			for m := month; !m.First().After(f.By.First()); m = m.Next() {
				n++
			}
			d = f.Target.Sub(l.carried(id, month)).Div(decimal.NewFromInt(int64(n))).RoundCeil(places)
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
		if f.CategoryID != nil && *f.CategoryID != id || f.CategoryID == nil && !has && cats[id].Classification != models.CategoryExpense {
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
		if f.Strategy == FillGoal && cats[*f.CategoryID].Rollover == RolloverOff {
			if err := setRollover(ctx, tx, fam.ID, *f.CategoryID, RolloverSurplus); err != nil {
				return err
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
