package budgets

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"

	"tally/internal/apperr"
	"tally/models"
	"tally/reports"
)

// Line is one category's amount in a month's budget.
type Line struct {
	CategoryID uuid.UUID
	Budgeted   decimal.Decimal
}

// Plan is a whole month's budget: the expected income (nil for none) and every category's
// amount. A category it leaves out has no amount in the month.
type Plan struct {
	ExpectedIncome *decimal.Decimal
	Lines          []Line
}

// Put replaces the month's budget with plan, all of it or, when any part is wrong, none: the
// problems are reported together, each on its field (expected_income,
// categories[i].category_id, categories[i].budgeted).
func (s *Service) Put(ctx context.Context, fam *models.Family, month reports.Month, plan Plan) error {
	if err := s.Check(ctx, fam, plan); err != nil {
		return err
	}
	return s.DB.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		id, err := ensureBudget(ctx, tx, fam, month)
		if err != nil {
			return err
		}
		if err := setIncome(ctx, tx, fam, id, plan.ExpectedIncome); err != nil {
			return err
		}
		keep := make([]uuid.UUID, 0, len(plan.Lines))
		for _, l := range plan.Lines {
			keep = append(keep, l.CategoryID)
		}
		if _, err := tx.NewRaw(`DELETE FROM budget_categories WHERE budget_id = ? AND NOT (category_id = ANY (?::uuid[]))`,
			id, pgdialect.Array(keep)).Exec(ctx); err != nil {
			return fmt.Errorf("budget lines: %w", err)
		}
		for _, l := range plan.Lines {
			if err := setLine(ctx, tx, fam, id, l.CategoryID, l.Budgeted); err != nil {
				return err
			}
		}
		return syncTotal(ctx, tx, id)
	})
}

// Check reports every problem of plan, as Put would, without writing anything.
func (s *Service) Check(ctx context.Context, fam *models.Family, plan Plan) error {
	cats, err := s.categories(ctx, s.DB, fam.ID)
	if err != nil {
		return err
	}
	var v apperr.Validation
	if plan.ExpectedIncome != nil {
		validAmount(&v, "expected_income", *plan.ExpectedIncome, fam.Currency)
	}
	seen := map[uuid.UUID]bool{}
	for i, l := range plan.Lines {
		field := fmt.Sprintf("categories[%d]", i)
		switch {
		case cats[l.CategoryID] == nil:
			v.Add(field+".category_id", fmt.Sprintf("%s.category_id %s is not one of your categories", field, l.CategoryID))
		case seen[l.CategoryID]:
			v.Add(field+".category_id", fmt.Sprintf("%s.category_id %s is listed twice", field, l.CategoryID))
		}
		seen[l.CategoryID] = true
		validAmount(&v, field+".budgeted", l.Budgeted, fam.Currency)
	}
	return v.Err()
}

// SetIncome sets the month's expected income; nil for none.
func (s *Service) SetIncome(ctx context.Context, fam *models.Family, month reports.Month, income *decimal.Decimal) error {
	if income != nil {
		var v apperr.Validation
		validAmount(&v, "expected_income", *income, fam.Currency)
		if err := v.Err(); err != nil {
			return err
		}
	}
	return s.DB.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		id, err := ensureBudget(ctx, tx, fam, month)
		if err != nil {
			return err
		}
		return setIncome(ctx, tx, fam, id, income)
	})
}

// setIncome sets the budget's expected income, in the family's currency.
func setIncome(ctx context.Context, tx bun.Tx, fam *models.Family, budgetID uuid.UUID, income *decimal.Decimal) error {
	if _, err := tx.NewRaw(`UPDATE budgets SET expected_income = ?, currency = ?, updated_at = now() WHERE id = ?`,
		income, fam.Currency, budgetID).Exec(ctx); err != nil {
		return fmt.Errorf("expected income: %w", err)
	}
	return nil
}

// Change is what SetCategory changes of a category: its amount in the month, its rollover
// setting and its goal (which hold for every month); nil leaves either of the first two as it
// is, and SetGoal false the goal.
type Change struct {
	Budgeted *decimal.Decimal
	Rollover *string
	// SetGoal changes the goal to Goal; a nil Goal removes it.
	SetGoal bool
	Goal    *Goal
}

// SetCategory changes the category's amount in month, its rollover setting and its goal.
// Another family's category is not found; problems are on budgeted, rollover and goal.kind,
// goal.amount, goal.by.
func (s *Service) SetCategory(ctx context.Context, fam *models.Family, month reports.Month, categoryID uuid.UUID, ch Change) error {
	cats, err := s.categories(ctx, s.DB, fam.ID)
	if err != nil {
		return err
	}
	if cats[categoryID] == nil {
		return apperr.New(apperr.NotFound, "category not found")
	}
	var v apperr.Validation
	if ch.Budgeted != nil {
		validAmount(&v, "budgeted", *ch.Budgeted, fam.Currency)
	}
	if ch.Rollover != nil && !slices.Contains(Rollovers, *ch.Rollover) {
		v.Add("rollover", "rollover must be one of: "+strings.Join(Rollovers, ", "))
	}
	if ch.SetGoal && ch.Goal != nil {
		ch.Goal.Check(&v, fam.Currency)
	}
	if err := v.Err(); err != nil {
		return err
	}
	return s.DB.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		if ch.Rollover != nil {
			if err := setRollover(ctx, tx, fam.ID, categoryID, *ch.Rollover); err != nil {
				return err
			}
		}
		if ch.SetGoal {
			if err := setGoal(ctx, tx, fam, categoryID, ch.Goal); err != nil {
				return err
			}
		}
		if ch.Budgeted == nil {
			return nil
		}
		id, err := ensureBudget(ctx, tx, fam, month)
		if err != nil {
			return err
		}
		if err := setLine(ctx, tx, fam, id, categoryID, *ch.Budgeted); err != nil {
			return err
		}
		return syncTotal(ctx, tx, id)
	})
}

// MonthCategory returns the figures of the family's category id in month: its row of the
// month, or for a category the month does not show (an income category with nothing in it)
// an empty row on track with the rollover setting it has.
func (s *Service) MonthCategory(ctx context.Context, fam *models.Family, v models.Viewer, month reports.Month, id uuid.UUID) (Category, *Month, error) {
	m, err := s.Month(ctx, fam, v, month, fam.Today())
	if err != nil {
		return Category{}, nil, err
	}
	if c := m.Category(id); c != nil {
		return *c, m, nil
	}
	row := Category{ID: &id, Status: StatusOnTrack}
	if err := s.DB.NewRaw(`SELECT budget_rollover FROM categories WHERE id = ? AND family_id = ?`, id, fam.ID).Scan(ctx, &row.Rollover); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return Category{}, nil, apperr.New(apperr.NotFound, "category not found")
		}
		return Category{}, nil, fmt.Errorf("rollover: %w", err)
	}
	return row, m, nil
}

// setRollover sets the family's category's rollover setting.
func setRollover(ctx context.Context, tx bun.Tx, familyID, categoryID uuid.UUID, rollover string) error {
	if _, err := tx.NewRaw(`UPDATE categories SET budget_rollover = ?, updated_at = now() WHERE id = ? AND family_id = ?`,
		rollover, categoryID, familyID).Exec(ctx); err != nil {
		return fmt.Errorf("rollover: %w", err)
	}
	return nil
}

// categories returns the family's categories by id.
func (s *Service) categories(ctx context.Context, db bun.IDB, familyID uuid.UUID) (map[uuid.UUID]*category, error) {
	var list []category
	if err := db.NewRaw(`SELECT id, parent_id, name, color, classification, budget_rollover FROM categories WHERE family_id = ?`,
		familyID).Scan(ctx, &list); err != nil && !errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("categories: %w", err)
	}
	out := make(map[uuid.UUID]*category, len(list))
	for i := range list {
		out[list[i].ID] = &list[i]
	}
	return out, nil
}

// validAmount records a problem on field unless d is zero or more with no more decimals than
// the currency has.
func validAmount(v *apperr.Validation, field string, d decimal.Decimal, currency string) {
	places := models.CurrencyDecimals(currency)
	switch {
	case d.IsNegative():
		v.Add(field, field+" must be zero or more")
	case !d.Equal(d.Round(int32(places))):
		v.Add(field, fmt.Sprintf("%s has more decimals than %s has (%d)", field, currency, places))
	case d.GreaterThanOrEqual(decimal.New(1, 15)):
		v.Add(field, field+" is too large")
	}
}

// ensureBudget returns the id of the family's budget for month, made (in the family's
// currency) when there is none.
func ensureBudget(ctx context.Context, tx bun.Tx, fam *models.Family, month reports.Month) (uuid.UUID, error) {
	var id uuid.UUID
	err := tx.NewRaw(`
		INSERT INTO budgets (id, family_id, start_date, end_date, currency) VALUES (?, ?, ?, ?, ?)
		ON CONFLICT (family_id, start_date, end_date) DO UPDATE SET updated_at = now()
		RETURNING id`, uuid.Must(uuid.NewV7()), fam.ID, month.First(), month.Last(), fam.Currency).Scan(ctx, &id)
	if err != nil {
		return uuid.Nil, fmt.Errorf("budget of %s: %w", month, err)
	}
	return id, nil
}

// setLine sets the category's amount in the budget, in the family's currency, with who set it.
func setLine(ctx context.Context, tx bun.Tx, fam *models.Family, budgetID, categoryID uuid.UUID, amount decimal.Decimal) error {
	actor := models.ActorOf(ctx)
	_, err := tx.NewRaw(`
		INSERT INTO budget_categories (id, family_id, budget_id, category_id, budgeted_spending, currency, updated_by, updated_via)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (budget_id, category_id) DO UPDATE SET budgeted_spending = EXCLUDED.budgeted_spending,
			currency = EXCLUDED.currency, updated_at = now(), updated_by = EXCLUDED.updated_by, updated_via = EXCLUDED.updated_via`,
		uuid.Must(uuid.NewV7()), fam.ID, budgetID, categoryID, amount, fam.Currency, actor.UserID, actor.ViaOrNil()).Exec(ctx)
	if err != nil {
		return fmt.Errorf("budget line: %w", err)
	}
	return nil
}

// syncTotal keeps the budget's budgeted_spending, which Sure's exports carry, the sum of its
// groups' budgets: each parent's line or its subcategories' together, whichever is larger.
func syncTotal(ctx context.Context, tx bun.Tx, budgetID uuid.UUID) error {
	_, err := tx.NewRaw(`
		UPDATE budgets b SET budgeted_spending = (
			SELECT coalesce(sum(g), 0) FROM (
				SELECT greatest(coalesce(sum(bc.budgeted_spending) FILTER (WHERE c.parent_id IS NULL), 0),
					coalesce(sum(bc.budgeted_spending) FILTER (WHERE c.parent_id IS NOT NULL), 0)) AS g
				FROM budget_categories bc JOIN categories c ON c.id = bc.category_id
				WHERE bc.budget_id = b.id GROUP BY coalesce(c.parent_id, c.id)) groups),
			updated_at = now()
		WHERE b.id = ?`, budgetID).Exec(ctx)
	if err != nil {
		return fmt.Errorf("budget total: %w", err)
	}
	return nil
}

// LineChange is who made a budget line's last change (Actor), and when (At).
type LineChange struct {
	models.Actor
	At time.Time
}

// LineChanges is who made the last change of each line of the family's budget of month, and
// when, by category.
func (s *Service) LineChanges(ctx context.Context, familyID uuid.UUID, month reports.Month) (map[uuid.UUID]LineChange, error) {
	var rows []struct {
		CategoryID uuid.UUID  `bun:"category_id"`
		UpdatedBy  *uuid.UUID `bun:"updated_by"`
		UpdatedVia *string    `bun:"updated_via"`
		UpdatedAt  time.Time  `bun:"updated_at"`
	}
	err := s.DB.NewRaw(`SELECT bc.category_id, bc.updated_by, bc.updated_via, bc.updated_at FROM budgets b JOIN budget_categories bc ON bc.budget_id = b.id
		WHERE b.family_id = ? AND bc.family_id = ? AND b.start_date = ?`, familyID, familyID, month.First()).Scan(ctx, &rows)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("budget lines of %s: %w", month, err)
	}
	out := make(map[uuid.UUID]LineChange, len(rows))
	for _, r := range rows {
		out[r.CategoryID] = LineChange{Actor: models.RecordedActor(r.UpdatedBy, r.UpdatedVia), At: r.UpdatedAt}
	}
	return out, nil
}
