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

// Kinds of a category's goal.
const (
	GoalMonthly = "monthly" // budget Amount each month
	GoalBalance = "balance" // have Amount in the category, by the month By when it is set
)

// GoalKinds are the kinds of goal, in the order pages offer them.
var GoalKinds = []string{GoalMonthly, GoalBalance}

// Goal is what a category aims at, kept with it for every month.
type Goal struct {
	Kind   string
	Amount decimal.Decimal
	// By is the month a balance goal is due, at its end; nil for none (and for a monthly goal).
	By *reports.Month
}

// Progress is how far a category is towards its goal in a month: for a monthly goal what the
// month budgets (a parent's, its group's), for a balance goal what the category has available.
// ToGo is what is still missing, never below zero.
func (c Category) Progress() (have, toGo decimal.Decimal) {
	if c.Goal == nil {
		return decimal.Zero, decimal.Zero
	}
	have = c.Budgeted
	if c.Goal.Kind == GoalBalance {
		have = c.Available
	}
	return have, decimal.Max(c.Goal.Amount.Sub(have), decimal.Zero)
}

// Check records every problem of g, a goal in currency, on the fields goal.kind, goal.amount
// and goal.by.
func (g Goal) Check(v *apperr.Validation, currency string) {
	if !slices.Contains(GoalKinds, g.Kind) {
		v.Add("goal.kind", "goal.kind must be one of: "+strings.Join(GoalKinds, ", "))
	}
	if !g.Amount.IsPositive() {
		v.Add("goal.amount", "goal.amount must be an amount more than zero")
	} else {
		validAmount(v, "goal.amount", g.Amount, currency)
	}
	if g.By != nil && g.Kind == GoalMonthly {
		v.Add("goal.by", "goal.by is for a balance goal only: a monthly goal is the same every month")
	}
}

// setGoal stores the category's goal in the family's currency, or removes it (nil). A goal a
// person sets is theirs, whichever import made the one it replaces.
func setGoal(ctx context.Context, tx bun.Tx, fam *models.Family, categoryID uuid.UUID, g *Goal) error {
	if g == nil {
		if _, err := tx.NewRaw(`DELETE FROM category_goals WHERE category_id = ? AND family_id = ?`, categoryID, fam.ID).Exec(ctx); err != nil {
			return fmt.Errorf("remove goal: %w", err)
		}
		return nil
	}
	_, err := tx.NewRaw(`
		INSERT INTO category_goals (id, family_id, category_id, kind, amount, by_month, currency) VALUES (?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (category_id) DO UPDATE SET kind = EXCLUDED.kind, amount = EXCLUDED.amount, by_month = EXCLUDED.by_month,
			currency = EXCLUDED.currency, import_id = NULL, updated_at = now()`,
		uuid.Must(uuid.NewV7()), fam.ID, categoryID, g.Kind, g.Amount, goalBy(g), fam.Currency).Exec(ctx)
	if err != nil {
		return fmt.Errorf("goal: %w", err)
	}
	return nil
}

func goalBy(g *Goal) *time.Time {
	if g.By == nil {
		return nil
	}
	first := g.By.First()
	return &first
}

// goals reads the family's goals by category: a few rows, one per category at most.
func (s *Service) goals(ctx context.Context, familyID uuid.UUID) (map[uuid.UUID]*Goal, error) {
	var rows []struct {
		CategoryID uuid.UUID       `bun:"category_id"`
		Kind       string          `bun:"kind"`
		Amount     decimal.Decimal `bun:"amount"`
		By         *time.Time      `bun:"by_month"`
	}
	if err := s.DB.NewRaw(`SELECT category_id, kind, amount, by_month FROM category_goals WHERE family_id = ?`, familyID).Scan(ctx, &rows); err != nil {
		return nil, fmt.Errorf("goals: %w", err)
	}
	out := make(map[uuid.UUID]*Goal, len(rows))
	for _, r := range rows {
		g := &Goal{Kind: r.Kind, Amount: r.Amount}
		if r.By != nil {
			by := reports.MonthOf(*r.By)
			g.By = &by
		}
		out[r.CategoryID] = g
	}
	return out, nil
}

// monthsTo is how many months from month to the goal's due month, both counted: 1 for a goal
// with no due month, or one already due, which the month is to reach alone.
func (g *Goal) monthsTo(month reports.Month) int {
	if g.By == nil {
		return 1
	}
	// Counted, not walked: a due month far ahead costs no more than a near one.
	ahead := (g.By.Year-month.Year)*12 + int(g.By.Month) - int(month.Month)
	return max(ahead, 0) + 1
}
