package budgets

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"

	"tally/models"
	"tally/reports"
)

// category is a family's category as a budget reads it.
type category struct {
	ID             uuid.UUID  `bun:"id"`
	ParentID       *uuid.UUID `bun:"parent_id"`
	Name           string     `bun:"name"`
	Color          string     `bun:"color"`
	Classification string     `bun:"classification"`
	Rollover       string     `bun:"budget_rollover"`
}

// ledger is what a budget reads of the months from start to end: the family's categories, the
// budget lines and the spending per category, in the family's currency.
type ledger struct {
	currency   string
	start, end reports.Month
	cats       map[uuid.UUID]*category
	// order is the top-level categories by name, each followed by its subcategories.
	order    []uuid.UUID
	children map[uuid.UUID][]uuid.UUID
	lines    map[reports.Month]map[uuid.UUID]decimal.Decimal
	spent    map[reports.Month]map[uuid.UUID]decimal.Decimal // uuid.Nil: without a category
	income   map[reports.Month]decimal.Decimal
	// held is the months of lines and spent, oldest first: a carry walks these alone.
	held []reports.Month
	// walked counts the months the carries have walked, so that tests see what a read costs.
	walked int
	// own keeps each category's own carry into a month once walked: a parent's carry adds
	// its subcategories', which their own rows need too.
	own map[carry]decimal.Decimal
	// expected is the end month's expected income; nil when none is set.
	expected    *decimal.Decimal
	unconverted []string
	goals       map[uuid.UUID]*Goal
	// viewer is who reads the budget: the spending is that of the accounts they can see.
	viewer models.Viewer
}

// Month returns the family's budget for month, as of today (the family's date), as v sees
// it: the budget lines are the family's plan, the spending, carries and bills those of the
// accounts v can see.
func (s *Service) Month(ctx context.Context, fam *models.Family, v models.Viewer, month reports.Month, today time.Time) (*Month, error) {
	l, err := s.read(ctx, fam, v, month, month, today)
	if err != nil {
		return nil, err
	}
	return s.figures(ctx, fam, l, today)
}

// read reads the ledger from start to end, and from the first budgeted month when a category
// carries its leftover: the carry is computed from every month since.
func (s *Service) read(ctx context.Context, fam *models.Family, v models.Viewer, start, end reports.Month, today time.Time) (*ledger, error) {
	l := &ledger{currency: fam.Currency, start: start, end: end, viewer: v, cats: map[uuid.UUID]*category{}, children: map[uuid.UUID][]uuid.UUID{}, own: map[carry]decimal.Decimal{},
		lines: map[reports.Month]map[uuid.UUID]decimal.Decimal{}, spent: map[reports.Month]map[uuid.UUID]decimal.Decimal{},
		income: map[reports.Month]decimal.Decimal{}}
	var cats []category
	if err := s.DB.NewRaw(`SELECT id, parent_id, name, color, classification, budget_rollover FROM categories WHERE family_id = ?`,
		fam.ID).Scan(ctx, &cats); err != nil && !errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("categories: %w", err)
	}
	l.order = orderCategories(cats, l.children) // before the map points into cats
	var err error
	if l.goals, err = s.goals(ctx, fam.ID); err != nil {
		return nil, err
	}
	rolls := false
	for i := range cats {
		c := &cats[i]
		l.cats[c.ID] = c
		rolls = rolls || c.Rollover != RolloverOff
	}
	if rolls {
		var first *time.Time
		if err := s.DB.NewRaw(`SELECT min(start_date) FROM budgets WHERE family_id = ? AND start_date <= ?`,
			fam.ID, end.First()).Scan(ctx, &first); err != nil {
			return nil, fmt.Errorf("first budget: %w", err)
		}
		if first != nil && first.Before(l.start.First()) {
			l.start = reports.MonthOf(*first)
		}
	}
	// A category's months come as one row, "month:amount:inflow,…" in ten-thousandths:
	// ten years of 80 categories are 160 rows to scan rather than 20,000.
	var lines, totals []amount
	from, to := l.start.First(), end.First()
	if lines, err = s.amounts(ctx, `
		SELECT bc.category_id, bc.currency, string_agg(
			((extract(year FROM b.start_date) * 12 + extract(month FROM b.start_date) - 1)::int)::text || ':' ||
			((bc.budgeted_spending * 10000)::bigint)::text || ':0', ',') AS months
		FROM budgets b JOIN budget_categories bc ON bc.budget_id = b.id
		WHERE b.family_id = ?0 AND bc.family_id = ?0 AND b.start_date >= ?1 AND b.start_date < ?2
		GROUP BY 1, 2`, fam.ID, from, end.Next().First()); err != nil {
		return nil, fmt.Errorf("budget lines: %w", err)
	}
	// The totals are kept by account: those of the accounts v can see are added up.
	if totals, err = s.amounts(ctx, `
		SELECT category_id, currency, string_agg(
			((extract(year FROM month) * 12 + extract(month FROM month) - 1)::int)::text || ':' ||
			((outflow * 10000)::bigint)::text || ':' || ((inflow * 10000)::bigint)::text, ',') AS months
		FROM (
			SELECT category_id, currency, month, sum(outflow) AS outflow, sum(inflow) AS inflow
			FROM category_month_totals WHERE family_id = ?0 AND month >= ?1 AND month <= ?2 AND ?3
			GROUP BY 1, 2, 3
		) t
		GROUP BY 1, 2`, fam.ID, from, to, v.VisibleQuery("account_id")); err != nil {
		return nil, fmt.Errorf("category totals: %w", err)
	}
	var budget struct {
		Income   *decimal.Decimal `bun:"expected_income"`
		Currency string           `bun:"currency"`
	}
	err = s.DB.NewRaw(`SELECT expected_income, currency FROM budgets WHERE family_id = ? AND start_date = ? ORDER BY end_date LIMIT 1`,
		fam.ID, end.First()).Scan(ctx, &budget)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("budget: %w", err)
	}

	// The currencies other than the family's, and the months whose amounts are in them: the
	// only days whose rates are read.
	var foreign []string
	var months []reports.Month
	inForeign := func(cur string, m reports.Month) {
		if cur == "" || cur == fam.Currency {
			return
		}
		if !slices.Contains(foreign, cur) {
			foreign = append(foreign, cur)
		}
		months = append(months, m)
	}
	for _, a := range slices.Concat(lines, totals) {
		inForeign(a.Currency, a.month())
	}
	inForeign(budget.Currency, end)
	rates, err := reports.NewMonthConverter(ctx, s.DB, fam.ID, foreign, fam.Currency, months, today)
	if err != nil {
		return nil, fmt.Errorf("exchange rates: %w", err)
	}
	add := func(to map[reports.Month]map[uuid.UUID]decimal.Decimal, m reports.Month, id uuid.UUID, v decimal.Decimal) {
		if to[m] == nil {
			to[m] = map[uuid.UUID]decimal.Decimal{}
		}
		to[m][id] = to[m][id].Add(v)
	}
	for _, r := range lines {
		m := r.month()
		if v, ok := l.convert(rates, decimal.New(r.Amount, -4), r.Currency, m); ok {
			add(l.lines, m, r.Category, v)
		}
	}
	for _, r := range totals {
		m := r.month()
		c := l.cats[r.Category]
		// Money in is a refund in an expense category and income anywhere else, as the
		// spending report counts it.
		spent, income := r.Amount, int64(0)
		if c != nil && c.Classification == models.CategoryExpense {
			spent += r.Inflow
		} else {
			income = -r.Inflow
		}
		if v, ok := l.convert(rates, decimal.New(spent, -4), r.Currency, m); ok {
			add(l.spent, m, r.Category, v)
		}
		if v, ok := l.convert(rates, decimal.New(income, -4), r.Currency, m); ok && income != 0 {
			l.income[m] = l.income[m].Add(v)
		}
	}
	if budget.Income != nil {
		if v, ok := l.convert(rates, *budget.Income, budget.Currency, end); ok {
			l.expected = &v
		}
	}
	slices.Sort(l.unconverted)
	l.held = heldMonths(l.lines, l.spent)
	return l, nil
}

// heldMonths are the months that hold an amount in any of lists, oldest first.
func heldMonths(lists ...map[reports.Month]map[uuid.UUID]decimal.Decimal) []reports.Month {
	seen := map[reports.Month]bool{}
	var out []reports.Month
	for _, list := range lists {
		for m := range list {
			if !seen[m] {
				seen[m] = true
				out = append(out, m)
			}
		}
	}
	slices.SortFunc(out, func(a, b reports.Month) int { return a.First().Compare(b.First()) })
	return out
}

// amount is a budget line or a month's total of a category in one currency, in
// ten-thousandths (the columns' scale).
type amount struct {
	Month    int // year * 12 + month - 1
	Category uuid.UUID
	Currency string
	Amount   int64
	Inflow   int64
}

// amounts runs query, whose rows are a category, a currency and its months as
// "month:amount:inflow,…", and returns them one amount a month.
func (s *Service) amounts(ctx context.Context, query string, args ...any) ([]amount, error) {
	var rows []struct {
		Category uuid.UUID `bun:"category_id"`
		Currency string    `bun:"currency"`
		Months   string    `bun:"months"`
	}
	if err := s.DB.NewRaw(query, args...).Scan(ctx, &rows); err != nil && !errors.Is(err, sql.ErrNoRows) {
		return nil, err
	}
	var out []amount
	for _, r := range rows {
		for _, m := range strings.Split(r.Months, ",") {
			parts := strings.Split(m, ":")
			if len(parts) != 3 {
				return nil, fmt.Errorf("month %q of %s", m, r.Category)
			}
			a := amount{Category: r.Category, Currency: r.Currency}
			var err [3]error
			a.Month, err[0] = strconv.Atoi(parts[0])
			a.Amount, err[1] = strconv.ParseInt(parts[1], 10, 64)
			a.Inflow, err[2] = strconv.ParseInt(parts[2], 10, 64)
			if e := errors.Join(err[:]...); e != nil {
				return nil, fmt.Errorf("month %q of %s: %w", m, r.Category, e)
			}
			out = append(out, a)
		}
	}
	return out, nil
}

func (a amount) month() reports.Month {
	return reports.Month{Year: a.Month / 12, Month: time.Month(a.Month%12 + 1)}
}

// orderCategories returns the categories' ids, top-level ones by name each followed by its
// subcategories by name, and fills children.
func orderCategories(cats []category, children map[uuid.UUID][]uuid.UUID) []uuid.UUID {
	slices.SortFunc(cats, func(a, b category) int {
		if c := strings.Compare(strings.ToLower(a.Name), strings.ToLower(b.Name)); c != 0 {
			return c
		}
		return strings.Compare(a.ID.String(), b.ID.String())
	})
	var order []uuid.UUID
	for _, c := range cats {
		if c.ParentID != nil {
			children[*c.ParentID] = append(children[*c.ParentID], c.ID)
		}
	}
	for _, c := range cats {
		if c.ParentID == nil {
			order = append(order, c.ID)
			order = append(order, children[c.ID]...)
		}
	}
	return order
}

// convert converts v in currency cur of month m into the family's currency (see
// reports.MonthConverter); false, with the currency noted, when no rate converts it.
func (l *ledger) convert(rates *reports.MonthConverter, v decimal.Decimal, cur string, m reports.Month) (decimal.Decimal, bool) {
	v, ok := rates.Convert(v, cur, m)
	if !ok && !slices.Contains(l.unconverted, cur) {
		l.unconverted = append(l.unconverted, cur)
	}
	return v, ok
}
