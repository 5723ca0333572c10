package imports

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"
	"github.com/uptrace/bun/dialect/pgdialect"

	"tally/budgets"
	"tally/imports/movein"
)

// noteGoalsHeld names the goals on categories the family has a goal for already.
func (s *Service) noteGoalsHeld(ctx context.Context, familyID uuid.UUID, m *moveIn) error {
	if len(m.goalList) == 0 {
		return nil
	}
	var rows []struct {
		Category string          `bun:"name"`
		Kind     string          `bun:"kind"`
		Amount   decimal.Decimal `bun:"amount"`
		By       *time.Time      `bun:"by_month"`
	}
	if err := s.DB.NewRaw(`SELECT c.name, g.kind, g.amount, g.by_month FROM category_goals g JOIN categories c ON c.id = g.category_id
		WHERE g.family_id = ?`, familyID).Scan(ctx, &rows); err != nil {
		return fmt.Errorf("the family's goals: %w", err)
	}
	theirs := make(map[string]MoveInGoal, len(rows))
	for _, r := range rows {
		g := MoveInGoal{Kind: r.Kind, Amount: r.Amount}
		if r.By != nil {
			g.By = r.By.Format("2006-01")
		}
		theirs[r.Category] = g
	}
	for _, g := range m.goalList {
		have, ok := theirs[g.Category]
		if !ok || have.Kind == g.Kind && have.Amount.Equal(g.Amount) && have.By == g.By {
			continue // none, or this one already (an earlier move-in of the same budget)
		}
		m.note(movein.NotKept, movein.EntityGoal, g.CategoryID, g.Category,
			"your category %q has a goal already (%s), which stays; %s's was %s", g.Category, have.describe(), sourceName(m.b.Source), g.Source)
	}
	return nil
}

// describe says a goal in a few words: "300 each month", "1200 by 2027-06".
func (g MoveInGoal) describe() string {
	switch {
	case g.Kind == budgets.GoalMonthly:
		return g.Amount.String() + " each month"
	case g.By != "":
		return "a balance of " + g.Amount.String() + " by " + g.By
	}
	return "a balance of " + g.Amount.String()
}

// writeGoals writes a move-in's goals on the categories its records became, after them. A
// category that has a goal keeps it: the family's own, or the one an earlier move-in of the
// same budget wrote, so that importing it again adds nothing.
func (w *nativeWriter) writeGoals(ctx context.Context, goals []MoveInGoal) error {
	for _, g := range goals {
		category, ok := w.lookup("Category", g.CategoryID)
		if !ok {
			w.skip("goals")
			continue
		}
		var by *time.Time
		if g.By != "" {
			if t, err := time.Parse("2006-01", g.By); err == nil {
				by = &t
			}
		}
		res, err := w.tx.NewRaw(`INSERT INTO category_goals (id, family_id, category_id, kind, amount, by_month, currency, import_id)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (category_id) DO NOTHING`,
			uuid.Must(uuid.NewV7()), w.im.FamilyID, category, g.Kind, g.Amount, by, w.currency, w.im.ID).Exec(ctx)
		if err != nil {
			return fmt.Errorf("goal of %q: %w", g.Category, err)
		}
		if n, _ := res.RowsAffected(); n == 1 {
			w.summary.of("goals").Created++
		} else {
			w.skip("goals")
		}
	}
	return nil
}

// goalsKept counts the move-in's goals' categories that hold a goal now, theirs or the
// family's, for the read-back.
func (w *nativeWriter) goalsKept(ctx context.Context, goals []MoveInGoal) (int, error) {
	ids := make([]uuid.UUID, 0, len(goals))
	for _, g := range goals {
		if id, ok := w.lookup("Category", g.CategoryID); ok {
			ids = append(ids, id)
		}
	}
	var n int
	err := w.tx.NewRaw(`SELECT count(*) FROM category_goals WHERE category_id = ANY(?)`, pgdialect.Array(ids)).Scan(ctx, &n)
	return n, err
}
