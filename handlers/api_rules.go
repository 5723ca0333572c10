package handlers

import (
	"bytes"
	"encoding/json"
	"net/http"
	"time"

	"github.com/google/uuid"
	"github.com/labstack/echo/v4"

	"tally/internal/apperr"
	"tally/internal/dates"
	"tally/models"
	"tally/rules"
)

// RuleJSON is Rule in the OpenAPI document.
type RuleJSON struct {
	ID            string            `json:"id"`
	Name          string            `json:"name"`
	Active        bool              `json:"active"`
	Position      int               `json:"position"`
	Match         string            `json:"match"`
	Continue      bool              `json:"continue"`
	EffectiveDate *string           `json:"effective_date"`
	Conditions    []rules.Condition `json:"conditions"`
	Actions       []rules.Action    `json:"actions"`
	CreatedAt     apiTime           `json:"created_at"`
	UpdatedAt     apiTime           `json:"updated_at"`
	ChangedBy     *ChangedByJSON    `json:"changed_by"`
}

// ruleJSON is r as the API shows it, who changed it last named from names (memberNames).
func ruleJSON(r *rules.Stored, names map[uuid.UUID]string) RuleJSON {
	out := RuleJSON{ID: r.ID.String(), Name: r.Name, Active: r.Active, Position: r.Position, Match: r.Match, Continue: r.Continue,
		Conditions: r.Conditions, Actions: r.Actions, CreatedAt: apiTime(r.CreatedAt), UpdatedAt: apiTime(r.UpdatedAt),
		ChangedBy: changedByJSON(r.LastChange, names)}
	if r.EffectiveDate != nil {
		d := r.EffectiveDate.Format("2006-01-02")
		out.EffectiveDate = &d
	}
	return out
}

// ruleAnswer answers status with the rule r.
func (a *app) ruleAnswer(c echo.Context, status int, r *rules.Stored) error {
	names, err := a.memberNames(c)
	if err != nil {
		return err
	}
	return c.JSON(status, map[string]any{"data": ruleJSON(r, names)})
}

// ruleRequest is the body of POST and PATCH /api/v1/rules: every field optional on PATCH.
type ruleRequest struct {
	Name          *string            `json:"name"`
	Active        *bool              `json:"active"`
	Position      *int               `json:"position"`
	Match         *string            `json:"match"`
	Continue      *bool              `json:"continue"`
	EffectiveDate json.RawMessage    `json:"effective_date"`
	Conditions    *[]rules.Condition `json:"conditions"`
	Actions       *[]rules.Action    `json:"actions"`
}

func decodeRule(c echo.Context) (rules.Input, error) {
	var req ruleRequest
	if err := decodeStrict(c, &req, "a rule"); err != nil {
		return rules.Input{}, err
	}
	in := rules.Input{Name: req.Name, Active: req.Active, Position: req.Position, Match: req.Match, Continue: req.Continue,
		Conditions: req.Conditions, Actions: req.Actions}
	var v apperr.Validation
	if req.Position != nil && *req.Position < 1 {
		v.Add("position", "position counts from 1")
	}
	if len(req.EffectiveDate) > 0 {
		var date *time.Time
		if !bytes.Equal(req.EffectiveDate, []byte("null")) {
			var s string
			if err := json.Unmarshal(req.EffectiveDate, &s); err != nil {
				v.Add("effective_date", "effective_date must be a date, YYYY-MM-DD, or null")
			} else {
				d, err := dates.Day("effective_date", s)
				v.Merge(err)
				date = &d
			}
		}
		in.EffectiveDate = &date
	}
	return in, v.Err()
}

// apiRules is GET /api/v1/rules: the family's rules in the order they run.
func (a *app) apiRules(c echo.Context) error {
	v, err := a.viewer(c)
	if err != nil {
		return err
	}
	list, err := rules.List(c.Request().Context(), a.DB, v)
	if err != nil {
		return err
	}
	names, err := a.memberNames(c)
	if err != nil {
		return err
	}
	out := make([]RuleJSON, len(list))
	for i := range list {
		out[i] = ruleJSON(&list[i], names)
	}
	return c.JSON(http.StatusOK, map[string]any{"data": out})
}

// apiRuleShow is GET /api/v1/rules/{id}.
func (a *app) apiRuleShow(c echo.Context) error {
	r, err := a.pathRule(c)
	if err != nil {
		return err
	}
	return a.ruleAnswer(c, http.StatusOK, r)
}

// pathRule is the current family's rule named by the path's id, as the viewer sees it; another
// family's is a 404.
func (a *app) pathRule(c echo.Context) (*rules.Stored, error) {
	id, err := pathID(c)
	if err != nil {
		return nil, err
	}
	v, err := a.viewer(c)
	if err != nil {
		return nil, err
	}
	return rules.Get(c.Request().Context(), a.DB, v, id)
}

// apiRuleCreate is POST /api/v1/rules.
func (a *app) apiRuleCreate(c echo.Context) error {
	in, err := decodeRule(c)
	if err != nil {
		return err
	}
	v, err := a.viewer(c)
	if err != nil {
		return err
	}
	r, err := rules.Create(c.Request().Context(), a.DB, v, in)
	if err != nil {
		return err
	}
	return a.ruleAnswer(c, http.StatusCreated, r)
}

// apiRuleUpdate is PATCH /api/v1/rules/{id}.
func (a *app) apiRuleUpdate(c echo.Context) error {
	id, err := pathID(c)
	if err != nil {
		return err
	}
	in, err := decodeRule(c)
	if err != nil {
		return err
	}
	v, err := a.viewer(c)
	if err != nil {
		return err
	}
	r, err := rules.Update(c.Request().Context(), a.DB, v, id, in)
	if err != nil {
		return err
	}
	return a.ruleAnswer(c, http.StatusOK, r)
}

// apiRuleDelete is DELETE /api/v1/rules/{id}.
func (a *app) apiRuleDelete(c echo.Context) error {
	id, err := pathID(c)
	if err != nil {
		return err
	}
	if err := rules.Delete(c.Request().Context(), a.DB, currentUser(c).FamilyID, id); err != nil {
		return err
	}
	return c.NoContent(http.StatusNoContent)
}

// RuleApplicationJSON is RuleApplication in the OpenAPI document.
type RuleApplicationJSON struct {
	ID        *string  `json:"id"`
	RuleID    string   `json:"rule_id"`
	Changed   int      `json:"changed_count"`
	UndoUntil *apiTime `json:"undo_until"`
}

// apiRuleApply is POST /api/v1/rules/{id}/apply: the rule over the family's history, of the
// accounts the key's user sees.
func (a *app) apiRuleApply(c echo.Context) error {
	id, err := pathID(c)
	if err != nil {
		return err
	}
	v, err := a.viewer(c)
	if err != nil {
		return err
	}
	app, err := rules.ApplyToHistory(c.Request().Context(), a.DB, v, id)
	if err != nil {
		return err
	}
	out := RuleApplicationJSON{RuleID: id.String(), Changed: app.Changed}
	if app.Changed > 0 {
		aid, until := app.ID.String(), apiTime(app.UndoUntil)
		out.ID, out.UndoUntil = &aid, &until
	}
	return c.JSON(http.StatusOK, map[string]any{"data": out})
}

// apiChangeUndo is POST /api/v1/transaction_changes/{id}/undo, and its first name
// /api/v1/rule_applications/{id}/undo: a rule's application or a batch change taken back. One
// that touched an account the key's user may not see is a 404, as another family's.
func (a *app) apiChangeUndo(c echo.Context) error {
	id, err := pathID(c)
	if err != nil {
		return err
	}
	v, err := a.viewer(c)
	if err != nil {
		return err
	}
	if _, err := models.UndoChange(c.Request().Context(), a.DB, v, id); err != nil {
		return err
	}
	return c.NoContent(http.StatusNoContent)
}
