package handlers

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/google/uuid"
	"github.com/labstack/echo/v4"
	"github.com/shopspring/decimal"

	"tally/budgets"
	"tally/internal/apperr"
	"tally/reports"
)

// BudgetJSON is BudgetMonth in the OpenAPI document.
type BudgetJSON struct {
	Month          string   `json:"month"`
	Currency       string   `json:"currency"`
	ExpectedIncome *string  `json:"expected_income"`
	Income         string   `json:"income"`
	Budgeted       string   `json:"budgeted"`
	Carried        string   `json:"carried"`
	LeftToBudget   string   `json:"left_to_budget"`
	Spent          string   `json:"spent"`
	LeftToSpend    string   `json:"left_to_spend"`
	Upcoming       string   `json:"upcoming"`
	IncomeToCome   string   `json:"income_to_come"`
	Unconverted    []string `json:"unconverted_currencies"`
	// SomeAccountsPrivate says the figures leave out accounts kept from the caller.
	SomeAccountsPrivate bool                 `json:"some_accounts_private"`
	Categories          []BudgetCategoryJSON `json:"categories"`
}

// BudgetCategoryJSON is BudgetCategory in the OpenAPI document.
type BudgetCategoryJSON struct {
	CategoryID *string         `json:"category_id"`
	ParentID   *string         `json:"parent_id"`
	Name       string          `json:"name"`
	Budgeted   string          `json:"budgeted"`
	Spent      string          `json:"spent"`
	Carried    string          `json:"carried"`
	Available  string          `json:"available"`
	Rollover   string          `json:"rollover"`
	Upcoming   string          `json:"upcoming"`
	Forecast   string          `json:"forecast"`
	Status     string          `json:"status"`
	Goal       *BudgetGoalJSON `json:"goal"`
	// ChangedBy is who set the category's line last; null without a line.
	ChangedBy *ChangedByJSON `json:"changed_by"`
}

// BudgetGoalJSON is BudgetGoal in the OpenAPI document.
type BudgetGoalJSON struct {
	Kind     string  `json:"kind"`
	Amount   string  `json:"amount"`
	By       *string `json:"by"`
	Progress string  `json:"progress"`
	ToGo     string  `json:"to_go"`
}

// BudgetMoveJSON is BudgetMove in the OpenAPI document.
type BudgetMoveJSON struct {
	ID             string   `json:"id"`
	Month          string   `json:"month"`
	FromCategoryID string   `json:"from_category_id"`
	ToCategoryID   string   `json:"to_category_id"`
	Amount         string   `json:"amount"`
	Currency       string   `json:"currency"`
	Reason         string   `json:"reason"`
	CreatedBy      *string  `json:"created_by"`
	CreatedAt      apiTime  `json:"created_at"`
	UndoneAt       *apiTime `json:"undone_at"`
}

// budgetJSON is the month m as the API shows it, who set each line last from lines, named from
// names (memberNames).
func budgetJSON(m *budgets.Month, lines map[uuid.UUID]budgets.LineChange, names map[uuid.UUID]string) BudgetJSON {
	money := func(d decimal.Decimal) string { return amountString(d, m.Currency) }
	out := BudgetJSON{Month: m.Month.String(), Currency: m.Currency, Income: money(m.Income), Budgeted: money(m.Budgeted),
		Carried: money(m.Carried), LeftToBudget: money(m.LeftToBudget), Spent: money(m.Spent), LeftToSpend: money(m.LeftToSpend),
		Upcoming: money(m.Bills), IncomeToCome: money(m.IncomeToCome), Unconverted: append([]string{}, m.Unconverted...), SomeAccountsPrivate: m.Partial,
		Categories: []BudgetCategoryJSON{}}
	if m.ExpectedIncome != nil {
		s := money(*m.ExpectedIncome)
		out.ExpectedIncome = &s
	}
	for _, c := range m.Categories {
		cat := budgetCategoryJSON(c, m.Currency)
		if c.ID != nil {
			cat.ChangedBy = changedByJSON(lines[*c.ID].Actor, names)
		}
		out.Categories = append(out.Categories, cat)
	}
	return out
}

func budgetCategoryJSON(c budgets.Category, currency string) BudgetCategoryJSON {
	money := func(d decimal.Decimal) string { return amountString(d, currency) }
	out := BudgetCategoryJSON{CategoryID: uuidString(c.ID), ParentID: uuidString(c.ParentID), Name: c.Name,
		Budgeted: money(c.Budgeted), Spent: money(c.Spent), Carried: money(c.Carried), Available: money(c.Available),
		Rollover: c.Rollover, Upcoming: money(c.Upcoming), Forecast: money(c.Forecast), Status: c.Status}
	if g := c.Goal; g != nil {
		have, toGo := c.Progress()
		out.Goal = &BudgetGoalJSON{Kind: g.Kind, Amount: money(g.Amount), Progress: money(have), ToGo: money(toGo)}
		if g.By != nil {
			by := g.By.String()
			out.Goal.By = &by
		}
	}
	return out
}

// goalOf reads the goal field of a budget category's request, recording problems on
// goal.kind, goal.amount and goal.by: set is false when the field was left out, and a nil
// goal (null) removes the category's.
func goalOf(v *apperr.Validation, raw json.RawMessage) (set bool, g *budgets.Goal) {
	if len(raw) == 0 {
		return false, nil
	}
	if string(raw) == "null" {
		return true, nil
	}
	var req struct {
		Kind   string          `json:"kind"`
		Amount json.RawMessage `json:"amount"`
		By     *string         `json:"by"`
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); err != nil {
		v.Add("goal", "goal must be an object with kind, amount and by, or null: "+err.Error())
		return true, nil
	}
	g = &budgets.Goal{Kind: req.Kind, Amount: requiredDecimalOf(v, "goal.amount", req.Amount)}
	if req.By != nil {
		by, err := reports.ParseMonth("goal.by", *req.By)
		if v.Merge(err); err == nil {
			g.By = &by
		}
	}
	return true, g
}

func budgetMoveJSON(m *budgets.Move) BudgetMoveJSON {
	out := BudgetMoveJSON{ID: m.ID.String(), Month: reports.MonthOf(m.Month).String(), FromCategoryID: m.From.String(),
		ToCategoryID: m.To.String(), Amount: amountString(m.Amount, m.Currency), Currency: m.Currency, Reason: m.Reason,
		CreatedBy: uuidString(m.CreatedBy), CreatedAt: apiTime(m.CreatedAt)}
	if m.UndoneAt != nil {
		t := apiTime(*m.UndoneAt)
		out.UndoneAt = &t
	}
	return out
}

// pathMonth reads the :month route parameter (2026-11), a problem on the field month.
func pathMonth(c echo.Context) (reports.Month, error) {
	return reports.ParseMonth("month", c.Param("month"))
}

// pathMonthID reads the :month route parameter and then the id route parameter name.
func pathMonthID(c echo.Context, name string) (reports.Month, uuid.UUID, error) {
	month, err := pathMonth(c)
	if err != nil {
		return month, uuid.Nil, err
	}
	id, err := pathParamID(c, name)
	return month, id, err
}

// decimalOf reads a JSON decimal string (or number) of field, recording a problem on it; nil
// when raw is absent or null.
func decimalOf(v *apperr.Validation, field string, raw json.RawMessage) *decimal.Decimal {
	if absent(raw) {
		return nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		s = string(raw) // a number
	}
	d, err := decimal.NewFromString(s)
	if err != nil {
		v.Add(field, fmt.Sprintf("%s must be a decimal string such as \"120.50\"", field))
		return nil
	}
	return &d
}

// requiredDecimalOf is decimalOf of a field that must be given: zero, with a problem on
// field, when raw is absent, null or not a decimal.
func requiredDecimalOf(v *apperr.Validation, field string, raw json.RawMessage) decimal.Decimal {
	if d := decimalOf(v, field, raw); d != nil {
		return *d
	}
	if absent(raw) {
		v.Add(field, field+" is required")
	}
	return decimal.Zero
}

// addNewProblems adds to v the problems of err (an Invalid error) on the fields v has none on:
// a domain check's findings beside the request's own, every problem at once.
func addNewProblems(v *apperr.Validation, err error) {
	e := apperr.As(err)
	if e == nil {
		return
	}
	for field, msgs := range e.Fields {
		for _, msg := range msgs {
			if !v.Has(field) {
				v.Add(field, msg)
			}
		}
	}
}

// absent reports whether a JSON field was left out or null.
func absent(raw json.RawMessage) bool { return len(raw) == 0 || string(raw) == "null" }

// idOf reads a JSON id of field, recording a problem on it; uuid.Nil when absent.
func idOf(v *apperr.Validation, field string, raw json.RawMessage, required bool) uuid.UUID {
	if absent(raw) {
		if required {
			v.Add(field, field+" is required")
		}
		return uuid.Nil
	}
	var s string
	id, err := uuid.Nil, json.Unmarshal(raw, &s)
	if err == nil {
		id, err = uuid.Parse(s)
	}
	if err != nil {
		v.Add(field, field+" must be an id")
	}
	return id
}

// answerBudget answers the family's budget of month, as it is now.
func (a *app) answerBudget(c echo.Context, month reports.Month) error {
	u := currentUser(c)
	v, err := a.viewer(c)
	if err != nil {
		return err
	}
	m, err := a.Budgets.Month(c.Request().Context(), u.Family, v, month, u.Family.Today())
	if err != nil {
		return err
	}
	lines, err := a.Budgets.LineChanges(c.Request().Context(), u.FamilyID, month)
	if err != nil {
		return err
	}
	names, err := a.memberNames(c)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string]any{"data": budgetJSON(m, lines, names)})
}

// apiBudget is GET /api/v1/budgets/{month}: the month with every category's figures.
func (a *app) apiBudget(c echo.Context) error {
	month, err := pathMonth(c)
	if err != nil {
		return err
	}
	return a.answerBudget(c, month)
}

// apiBudgetPut is PUT /api/v1/budgets/{month}: the month's expected income and every
// category's amount, replacing what it had, all or none.
func (a *app) apiBudgetPut(c echo.Context) error {
	month, err := pathMonth(c)
	if err != nil {
		return err
	}
	var req struct {
		ExpectedIncome json.RawMessage `json:"expected_income"`
		Categories     *[]struct {
			CategoryID json.RawMessage `json:"category_id"`
			Budgeted   json.RawMessage `json:"budgeted"`
		} `json:"categories"`
	}
	if err := decodeStrict(c, &req, "a budget month"); err != nil {
		return err
	}
	var v apperr.Validation
	plan := budgets.Plan{ExpectedIncome: decimalOf(&v, "expected_income", req.ExpectedIncome)}
	if req.Categories == nil {
		v.Add("categories", "categories is required: every category's amount for the month, [] for none")
	} else {
		for i, l := range *req.Categories {
			field := fmt.Sprintf("categories[%d]", i)
			plan.Lines = append(plan.Lines, budgets.Line{CategoryID: idOf(&v, field+".category_id", l.CategoryID, true),
				Budgeted: requiredDecimalOf(&v, field+".budgeted", l.Budgeted)})
		}
	}
	svc := a.Budgets
	if v.Err() != nil {
		// Every problem at once: the ones the database finds too, on the fields that read.
		addNewProblems(&v, svc.Check(c.Request().Context(), currentUser(c).Family, plan))
		return v.Err()
	}
	if err := svc.Put(c.Request().Context(), currentUser(c).Family, month, plan); err != nil {
		return err
	}
	return a.answerBudget(c, month)
}

// apiBudgetCategory is PATCH /api/v1/budgets/{month}/categories/{category_id}: the category's
// amount in the month, its rollover setting, its goal, or any of them.
func (a *app) apiBudgetCategory(c echo.Context) error {
	month, id, err := pathMonthID(c, "category_id")
	if err != nil {
		return err
	}
	var req struct {
		Budgeted json.RawMessage `json:"budgeted"`
		Rollover *string         `json:"rollover"`
		Goal     json.RawMessage `json:"goal"`
	}
	if err := decodeStrict(c, &req, "a budget category"); err != nil {
		return err
	}
	var v apperr.Validation
	ch := budgets.Change{Budgeted: decimalOf(&v, "budgeted", req.Budgeted), Rollover: req.Rollover}
	ch.SetGoal, ch.Goal = goalOf(&v, req.Goal)
	if ch.Budgeted == nil && ch.Rollover == nil && !ch.SetGoal && v.Err() == nil {
		v.Add("budgeted", "Give budgeted, rollover, goal or any of them")
	}
	u := currentUser(c)
	if ch.Goal != nil && v.Err() != nil {
		// Every problem of the goal at once: those of its fields that read, too.
		var more apperr.Validation
		ch.Goal.Check(&more, u.Family.Currency)
		addNewProblems(&v, more.Err())
	}
	if err := v.Err(); err != nil {
		return err
	}
	svc := a.Budgets
	if err := svc.SetCategory(c.Request().Context(), u.Family, month, id, ch); err != nil {
		return err
	}
	viewer, err := a.viewer(c)
	if err != nil {
		return err
	}
	row, m, err := svc.MonthCategory(c.Request().Context(), u.Family, viewer, month, id)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string]any{"data": budgetCategoryJSON(row, m.Currency)})
}

// apiBudgetMove is POST /api/v1/budgets/{month}/moves: money moved from one category's budget
// to another's, recorded with who moved it and why.
func (a *app) apiBudgetMove(c echo.Context) error {
	month, err := pathMonth(c)
	if err != nil {
		return err
	}
	var req struct {
		From   json.RawMessage `json:"from_category_id"`
		To     json.RawMessage `json:"to_category_id"`
		Amount json.RawMessage `json:"amount"`
		Reason string          `json:"reason"`
	}
	if err := decodeStrict(c, &req, "a move"); err != nil {
		return err
	}
	var v apperr.Validation
	in := budgets.MoveInput{From: idOf(&v, "from_category_id", req.From, true), To: idOf(&v, "to_category_id", req.To, true),
		Amount: requiredDecimalOf(&v, "amount", req.Amount), Reason: req.Reason}
	if err := v.Err(); err != nil {
		return err
	}
	u := currentUser(c)
	m, err := a.Budgets.Move(c.Request().Context(), u.Family, u.ID, month, in)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusCreated, map[string]any{"data": budgetMoveJSON(m)})
}

// apiBudgetMoveUndo is POST /api/v1/budgets/{month}/moves/{id}/undo: the money moved back.
func (a *app) apiBudgetMoveUndo(c echo.Context) error {
	month, id, err := pathMonthID(c, "id")
	if err != nil {
		return err
	}
	u := currentUser(c)
	if err := a.Budgets.UndoMove(c.Request().Context(), u.Family, u.ID, month, id); err != nil {
		return err
	}
	return a.answerBudget(c, month)
}

// apiBudgetFill is POST /api/v1/budgets/{month}/fill: the month's amounts, or one
// category's, set by a strategy.
func (a *app) apiBudgetFill(c echo.Context) error {
	month, err := pathMonth(c)
	if err != nil {
		return err
	}
	var req struct {
		Strategy   string          `json:"strategy"`
		CategoryID json.RawMessage `json:"category_id"`
		Target     json.RawMessage `json:"target"`
		By         *string         `json:"by"`
	}
	if err := decodeStrict(c, &req, "a fill"); err != nil {
		return err
	}
	var v apperr.Validation
	f := budgets.Fill{Strategy: req.Strategy, Target: decimalOf(&v, "target", req.Target)}
	if id := idOf(&v, "category_id", req.CategoryID, false); id != uuid.Nil {
		f.CategoryID = &id
	}
	if req.By != nil {
		by, err := reports.ParseMonth("by", *req.By)
		if v.Merge(err); err == nil {
			f.By = &by
		}
	}
	if err := v.Err(); err != nil {
		return err
	}
	u := currentUser(c)
	viewer, err := a.viewer(c)
	if err != nil {
		return err
	}
	if err := a.Budgets.Fill(c.Request().Context(), u.Family, viewer, month, f, u.Family.Today()); err != nil {
		return err
	}
	return a.answerBudget(c, month)
}
