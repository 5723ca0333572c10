package handlers

import (
	"context"
	"maps"
	"net/http"
	"slices"
	"strings"

	"github.com/google/uuid"
	"github.com/labstack/echo/v4"
	"github.com/shopspring/decimal"

	"tally/budgets"
	"tally/fx"
	"tally/internal/apperr"
	"tally/internal/i18n"
	"tally/models"
	"tally/reports"
	"tally/views"
)

// budgetRoutes registers the budget pages: a month's page and the forms that change it. Each
// form answers an htmx request with the page's section, changed in place, and a plain one
// with a redirect to the page.
func (a *app) budgetRoutes(g *echo.Group) {
	g.GET("/budgets", a.budgetsIndex)
	g.GET("/budgets/:month", a.budgetShow)
	g.POST("/budgets/:month/income", a.budgetIncome)
	g.POST("/budgets/:month/categories/:category_id", a.budgetCategoryUpdate)
	g.POST("/budgets/:month/fill", a.budgetFill)
	g.POST("/budgets/:month/copy", a.budgetCopy)
	g.POST("/budgets/:month/moves", a.budgetMoveCreate)
	g.POST("/budgets/:month/moves/:id/undo", a.budgetMoveUndo)
}

// budgetsIndex is GET /budgets: this month's budget, in the family's time zone.
func (a *app) budgetsIndex(c echo.Context) error {
	return c.Redirect(http.StatusFound, views.BudgetURL(reports.MonthOf(currentUser(c).Family.Today())))
}

// budgetShow is GET /budgets/{month}.
func (a *app) budgetShow(c echo.Context) error {
	month, err := pathMonth(c)
	if err != nil {
		return err
	}
	b, err := a.budgetView(c, month)
	if err != nil {
		return err
	}
	return a.render(c, http.StatusOK, views.BudgetPage(b))
}

// budgetView reads what the budget page shows of month.
func (a *app) budgetView(c echo.Context, month reports.Month) (views.Budget, error) {
	u := currentUser(c)
	svc := a.Budgets
	v, err := a.viewer(c)
	if err != nil {
		return views.Budget{}, err
	}
	m, err := svc.Month(c.Request().Context(), u.Family, v, month, u.Family.Today())
	if err != nil {
		return views.Budget{}, err
	}
	moves, err := svc.Moves(c.Request().Context(), u.FamilyID, month)
	if err != nil {
		return views.Budget{}, err
	}
	b := views.Budget{Month: m, Moves: moves, Changes: map[uuid.UUID]views.LineChange{}}
	lines, err := svc.LineChanges(c.Request().Context(), u.FamilyID, month)
	if err != nil {
		return views.Budget{}, err
	}
	names, err := a.memberNames(c)
	if err != nil {
		return views.Budget{}, err
	}
	for id, l := range lines {
		b.Changes[id] = views.LineChange{ChangedBy: l.Named(names), At: l.At}
	}
	if len(m.Unconverted) > 0 {
		b.Feed, err = fx.FeedStatus(c.Request().Context(), a.DB)
	}
	return b, err
}

// budgetChanged answers a budget form: the section again for htmx, with the change's problem
// when it was refused; otherwise a redirect to the month, with the problem as a flash. What
// is not found (another family's category or move) is a 404, not a problem on the page.
func (a *app) budgetChanged(c echo.Context, month reports.Month, changeErr error) error {
	e := apperr.As(changeErr)
	if changeErr != nil && (e == nil || e.Code == apperr.Internal || e.Code == apperr.NotFound) {
		return changeErr
	}
	problem := ""
	if e != nil {
		problem = budgetProblem(inLanguage(c), e, month)
	}
	if !isHTMX(c) {
		if problem != "" {
			a.Sessions.Put(c.Request().Context(), sessFlashError, problem)
		}
		return c.Redirect(http.StatusSeeOther, views.BudgetURL(month))
	}
	b, err := a.budgetView(c, month)
	if err != nil {
		return err
	}
	b.Error = problem
	return a.render(c, http.StatusOK, views.BudgetSection(b))
}

// budgetProblems are the message ids of what the budget page says of a problem with each
// field of a change it refused (the API's field names, and the page's own for the amounts it
// reads). Their English repeats the budget's own words, the API's too ({{.Problem}}); another
// language says what to do in its own.
var budgetProblems = map[string]string{
	"expected_income": "budget_problem.expected_income", "budgeted": "budget_problem.budgeted",
	"goal.amount": "budget_problem.goal_amount", "goal_amount": "budget_problem.goal_amount",
	"goal.by": "budget_problem.goal_by", "goal.kind": "budget_problem.goal_kind", "rollover": "budget_problem.rollover",
	"strategy": "budget_problem.strategy", "category_id": "budget_problem.category_id", "target": "budget_problem.target",
	"by": "budget_problem.by", "from_category_id": "budget_problem.categories", "to_category_id": "budget_problem.categories",
	"amount": "budget_problem.amount", "reason": "budget_problem.reason",
}

// budgetProblem is what the budget page says of e, a change of month it refused, in the
// language of ctx: one sentence a field, in the order of e's message; the budget's own words
// for a problem with a field it does not know.
func budgetProblem(ctx context.Context, e *apperr.Error, month reports.Month) string {
	if len(e.Fields) == 0 {
		if e.Code == apperr.Conflict { // only an undo of a move is refused for the state it finds
			return i18n.T(ctx, "budget_problem.undo", "Problem", e.Message)
		}
		return e.Message
	}
	fields := slices.Collect(maps.Keys(e.Fields))
	for _, f := range fields {
		if budgetProblems[f] == "" {
			return e.Message
		}
	}
	slices.SortFunc(fields, func(a, b string) int {
		return strings.Index(e.Message, e.Fields[a][0]) - strings.Index(e.Message, e.Fields[b][0])
	})
	var said []string
	for _, f := range fields {
		s := i18n.T(ctx, budgetProblems[f], "Problem", strings.Join(e.Fields[f], "; "), "Month", views.MonthName(ctx, month))
		if !slices.Contains(said, s) { // from and to say the same
			said = append(said, s)
		}
	}
	return strings.Join(said, i18n.T(ctx, "budget_problem.separator"))
}

// formAmount reads an amount a person typed into field, in the family's currency: nil when
// left blank.
func formAmount(c echo.Context, field, currency string) (*decimal.Decimal, error) {
	s := strings.TrimSpace(c.FormValue(field))
	if s == "" {
		return nil, nil
	}
	d, err := models.ParseAmount(s, currency)
	if e := apperr.As(err); e != nil && len(e.Fields) == 0 {
		return nil, e.WithFields(map[string][]string{field: {e.Message}}) // the page says which field
	}
	if err != nil {
		return nil, err
	}
	return &d, nil
}

// budgetIncome is POST /budgets/{month}/income: the expected income, blank for none.
func (a *app) budgetIncome(c echo.Context) error {
	month, err := pathMonth(c)
	if err != nil {
		return err
	}
	u := currentUser(c)
	income, err := formAmount(c, "expected_income", u.Family.Currency)
	if err == nil {
		err = a.Budgets.SetIncome(c.Request().Context(), u.Family, month, income)
	}
	return a.budgetChanged(c, month, err)
}

// budgetCategoryUpdate is POST /budgets/{month}/categories/{category_id}: the category's
// amount (blank is zero), its rollover or its goal, whichever the form sends.
func (a *app) budgetCategoryUpdate(c echo.Context) error {
	month, id, err := pathMonthID(c, "category_id")
	if err != nil {
		return err
	}
	u := currentUser(c)
	var ch budgets.Change
	if form, _ := c.FormParams(); form.Has("budgeted") {
		if ch.Budgeted, err = formAmount(c, "budgeted", u.Family.Currency); err == nil && ch.Budgeted == nil {
			ch.Budgeted = new(decimal.Decimal)
		}
	}
	if r := c.FormValue("rollover"); r != "" {
		ch.Rollover = &r
	}
	if err == nil {
		ch.SetGoal, ch.Goal, err = formGoal(c, u.Family.Currency)
	}
	if err == nil {
		err = a.Budgets.SetCategory(c.Request().Context(), u.Family, month, id, ch)
	}
	return a.budgetChanged(c, month, err)
}

// formGoal reads the goal a budget page's form sends: set is false when it sends none, and
// goal_kind "none" removes the category's. goal_by is a month (2027-06), blank for none.
func formGoal(c echo.Context, currency string) (set bool, g *budgets.Goal, err error) {
	kind := c.FormValue("goal_kind")
	if kind == "" {
		return false, nil, nil
	}
	if kind == "none" {
		return true, nil, nil
	}
	g = &budgets.Goal{Kind: kind}
	amount, err := formAmount(c, "goal_amount", currency)
	if err != nil {
		return true, nil, err
	}
	if amount != nil {
		g.Amount = *amount
	}
	if s := strings.TrimSpace(c.FormValue("goal_by")); s != "" && kind == budgets.GoalBalance {
		by, err := reports.ParseMonth("goal.by", s)
		if err != nil {
			return true, nil, err
		}
		g.By = &by
	}
	return true, g, nil
}

// budgetFill is POST /budgets/{month}/fill: a quick fill of the month, or a goal.
func (a *app) budgetFill(c echo.Context) error {
	month, err := pathMonth(c)
	if err != nil {
		return err
	}
	u := currentUser(c)
	f := budgets.Fill{Strategy: c.FormValue("strategy")}
	if id, perr := uuid.Parse(c.FormValue("category_id")); perr == nil {
		f.CategoryID = &id
	}
	if f.Strategy == budgets.FillGoal {
		f.Target, err = formAmount(c, "target", u.Family.Currency)
		if by, perr := reports.ParseMonth("by", c.FormValue("by")); perr == nil {
			f.By = &by
		} else if err == nil && c.FormValue("by") != "" {
			err = perr // what is wrong with it, rather than Fill's "by must be a month"
		}
	}
	if err == nil {
		var v models.Viewer
		if v, err = a.viewer(c); err != nil {
			return err
		}
		err = a.Budgets.Fill(c.Request().Context(), u.Family, v, month, f, u.Family.Today())
	}
	return a.budgetChanged(c, month, err)
}

// budgetCopy is POST /budgets/{month}/copy: the month's amounts and expected income copied to
// the next month, whose page it goes to.
func (a *app) budgetCopy(c echo.Context) error {
	month, err := pathMonth(c)
	if err != nil {
		return err
	}
	u := currentUser(c)
	next := month.Next()
	if _, err := reports.ParseMonth("month", next.String()); err != nil {
		return err // 2100-12 has no month after it that Tally takes
	}
	v, err := a.viewer(c)
	if err != nil {
		return err
	}
	if err := a.Budgets.Fill(c.Request().Context(), u.Family, v, next, budgets.Fill{Strategy: budgets.FillLastBudget}, u.Family.Today()); err != nil {
		return err
	}
	in := inLanguage(c)
	a.Sessions.Put(c.Request().Context(), sessFlashSuccess, i18n.T(in, "budget_page.copied", "From", views.MonthName(in, month), "To", views.MonthName(in, next)))
	return c.Redirect(http.StatusSeeOther, views.BudgetURL(next))
}

// budgetMoveCreate is POST /budgets/{month}/moves.
func (a *app) budgetMoveCreate(c echo.Context) error {
	month, err := pathMonth(c)
	if err != nil {
		return err
	}
	u := currentUser(c)
	in := budgets.MoveInput{Reason: c.FormValue("reason")}
	in.From, _ = uuid.Parse(c.FormValue("from_category_id"))
	in.To, _ = uuid.Parse(c.FormValue("to_category_id"))
	amount, err := formAmount(c, "amount", u.Family.Currency)
	if amount != nil {
		in.Amount = *amount
	}
	if err == nil {
		_, err = a.Budgets.Move(c.Request().Context(), u.Family, u.ID, month, in)
	}
	return a.budgetChanged(c, month, err)
}

// budgetMoveUndo is POST /budgets/{month}/moves/{id}/undo.
func (a *app) budgetMoveUndo(c echo.Context) error {
	month, id, err := pathMonthID(c, "id")
	if err != nil {
		return err
	}
	u := currentUser(c)
	err = a.Budgets.UndoMove(c.Request().Context(), u.Family, u.ID, month, id)
	return a.budgetChanged(c, month, err)
}
