package handlers

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/labstack/echo/v4"

	"tally/internal/apperr"
	"tally/internal/dates"
	"tally/internal/i18n"
	"tally/ledger"
	"tally/models"
	"tally/rules"
	"tally/views"
)

// rulesRoutes are Settings › Rules: the family's rules, their form with a live preview, and
// applying one to existing transactions with its undo.
func (a *app) rulesRoutes(g *echo.Group) {
	g.GET("/settings/rules", a.rulesPage)
	g.GET("/settings/rules/new", a.ruleNew)
	g.POST("/settings/rules", a.ruleCreate)
	g.POST("/settings/rules/preview", a.rulePreview)
	g.GET("/settings/rules/:id/edit", a.ruleEdit)
	g.POST("/settings/rules/:id", a.ruleUpdate)
	g.POST("/settings/rules/:id/move", a.ruleMove)
	g.POST("/settings/rules/:id/toggle", a.ruleToggle)
	g.POST("/settings/rules/:id/delete", a.ruleDeletePage)
	g.POST("/settings/rules/:id/apply", a.ruleApplyPage)
	g.POST("/settings/rule_applications/:id/undo", a.ruleUndoPage)
}

// Condition fields and tests as the form names them, in the order it lists them.
var (
	// Their labels are message ids; ruleFieldNames are the fields' names inside a sentence.
	ruleFields = []views.SelectOption{{Value: "", Label: "—"},
		{Value: "transaction_name", Label: "rule_words.field_name"},
		{Value: "transaction_notes", Label: "rule_words.field_notes"},
		{Value: "transaction_amount", Label: "rule_words.field_amount"},
		{Value: "transaction_type", Label: "rule_words.field_type"},
		{Value: "transaction_account", Label: "rule_words.field_account"},
		{Value: "transaction_date", Label: "rule_words.field_date"},
		{Value: "transaction_currency", Label: "rule_words.field_currency"},
		{Value: "transaction_merchant", Label: "rule_words.field_merchant"},
		{Value: "transaction_category", Label: "rule_words.field_category"},
	}
	ruleFieldNames = map[string]string{
		"transaction_name":     "rule_words.of_name",
		"transaction_notes":    "rule_words.of_notes",
		"transaction_amount":   "rule_words.of_amount",
		"transaction_type":     "rule_words.of_type",
		"transaction_account":  "rule_words.of_account",
		"transaction_date":     "rule_words.of_date",
		"transaction_currency": "rule_words.of_currency",
		"transaction_merchant": "rule_words.of_merchant",
		"transaction_category": "rule_words.of_category",
	}
	ruleOperators = []views.SelectOption{
		{Value: "like", Label: "rule_words.op_contains"},
		{Value: "starts_with", Label: "rule_words.op_starts_with"},
		{Value: "=", Label: "rule_words.op_is"},
		{Value: "matches", Label: "rule_words.op_matches"},
		{Value: ">", Label: "rule_words.op_more"},
		{Value: ">=", Label: "rule_words.op_at_least"},
		{Value: "<", Label: "rule_words.op_less"},
		{Value: "<=", Label: "rule_words.op_at_most"},
		{Value: "between", Label: "rule_words.op_between"},
		{Value: "is_null", Label: "rule_words.op_empty"},
	}
)

// optionLabel is the label of value among opts in the language of ctx, the value itself when
// none has it.
func optionLabel(ctx context.Context, opts []views.SelectOption, value string) string {
	for _, o := range opts {
		if o.Value == value {
			return i18n.T(ctx, o.Label)
		}
	}
	return value
}

// familyNames are a family's categories, merchants, tags and accounts by id and by name.
type familyNames struct {
	byID   map[string]map[string]string // table → id → name
	byName map[string]map[string]string // table → lower-case name → id
	lists  map[string][]views.SelectOption
}

func (a *app) familyNames(c echo.Context) (*familyNames, error) {
	ctx := c.Request().Context()
	v, err := a.viewer(c)
	if err != nil {
		return nil, err
	}
	n := &familyNames{byID: map[string]map[string]string{}, byName: map[string]map[string]string{}, lists: map[string][]views.SelectOption{}}
	for _, table := range []string{"categories", "merchants", "tags", "accounts"} {
		var rows []struct {
			ID   string `bun:"id"`
			Name string `bun:"name"`
		}
		// Of the accounts, only those the viewer may see: a rule's condition on another is
		// shown as removed, never by its name. Nor is a merchant or tag listed that only
		// the accounts kept from the viewer use.
		visible, args := v.VisibleNamedSQL(table, table+".id")
		if table == "accounts" {
			visible, args = v.VisibleSQL("id")
		}
		if err := a.DB.NewRaw("SELECT id::text, name FROM "+table+" WHERE family_id = ? AND "+visible+" ORDER BY lower(name)",
			append([]any{v.FamilyID}, args...)...).Scan(ctx, &rows); err != nil {
			return nil, err
		}
		n.byID[table], n.byName[table] = map[string]string{}, map[string]string{}
		for _, r := range rows {
			n.byID[table][r.ID], n.byName[table][strings.ToLower(r.Name)] = r.Name, r.ID
			n.lists[table] = append(n.lists[table], views.SelectOption{Value: r.ID, Label: r.Name})
		}
	}
	return n, nil
}

// refTables are the condition types whose value names a record; the form takes its name.
var (
	refTables = map[string]string{"transaction_account": "accounts", "transaction_category": "categories", "transaction_merchant": "merchants"}
	// recordNoun names a record of a table in a sentence, by message id.
	recordNoun = map[string]string{"accounts": "rule_words.kind_accounts", "categories": "rule_words.kind_categories", "merchants": "rule_words.kind_merchants"}
)

// appliedShown is how many of the rules applied to the history, the latest, the rules page
// offers to undo.
const appliedShown = 10

func (a *app) rulesPage(c echo.Context) error {
	ctx := c.Request().Context()
	v, err := a.viewer(c)
	if err != nil {
		return err
	}
	list, err := rules.List(ctx, a.DB, v)
	if err != nil {
		return err
	}
	names, err := a.familyNames(c)
	if err != nil {
		return err
	}
	page, lang := views.RulesPage{}, inLanguage(c)
	for _, r := range list {
		page.Rules = append(page.Rules, views.RuleItem{Rule: r, Conditions: conditionsText(lang, r.Rule, names), Actions: actionsText(lang, r.Actions, names)})
	}
	if page.Applied, err = rules.OpenApplications(ctx, a.DB, v, appliedShown); err != nil {
		return err
	}
	return a.render(c, http.StatusOK, views.SettingsRulesPage(page))
}

// conditionsText says a rule's conditions in words.
func conditionsText(ctx context.Context, r rules.Rule, names *familyNames) string {
	if len(r.Conditions) == 0 {
		return i18n.T(ctx, "rule_words.every")
	}
	var parts []string
	for _, cd := range r.Conditions {
		parts = append(parts, conditionText(ctx, cd, names))
	}
	join := i18n.T(ctx, "rule_words.and")
	if r.Match == "any" {
		join = i18n.T(ctx, "rule_words.or")
	}
	return i18n.T(ctx, "rule_words.when", "Conditions", strings.Join(parts, join))
}

func conditionText(ctx context.Context, cd rules.Condition, names *familyNames) string {
	if cd.Type == "compound" {
		var subs []string
		for _, s := range cd.Sub {
			subs = append(subs, conditionText(ctx, s, names))
		}
		return "(" + strings.Join(subs, " "+cd.Operator+" ") + ")"
	}
	field := cd.Type
	if id, ok := ruleFieldNames[cd.Type]; ok {
		field = i18n.T(ctx, id)
	}
	if cd.Operator == "is_null" {
		return i18n.T(ctx, "rule_words.is_empty", "Field", field)
	}
	return field + " " + optionLabel(ctx, ruleOperators, cd.Operator) + " " + valueText(ctx, cd, names)
}

func valueText(ctx context.Context, cd rules.Condition, names *familyNames) string {
	if table, ok := refTables[cd.Type]; ok {
		s, _ := cd.Value.(string)
		if n, ok := names.byID[table][s]; ok {
			return "“" + n + "”"
		}
		// Gone, or an account kept from the reader: the two alike, never by its id.
		return nameOr(ctx, nil, s)
	}
	switch v := cd.Value.(type) {
	case []any:
		if len(v) == 2 {
			return i18n.T(ctx, "rule_words.between_values", "From", fmt.Sprint(v[0]), "To", fmt.Sprint(v[1]))
		}
	case string:
		return "“" + v + "”"
	}
	return fmt.Sprint(cd.Value)
}

// actionsText says a rule's actions in words.
func actionsText(ctx context.Context, actions []rules.Action, names *familyNames) string {
	var parts []string
	for _, ac := range actions {
		s, _ := ac.Value.(string)
		switch ac.Type {
		case "set_transaction_category":
			parts = append(parts, i18n.T(ctx, "rule_words.a_category", "Name", nameOr(ctx, names.byID["categories"], s)))
		case "set_transaction_merchant":
			parts = append(parts, i18n.T(ctx, "rule_words.a_merchant", "Name", nameOr(ctx, names.byID["merchants"], s)))
		case "set_transaction_tags":
			var tags []string
			switch v := ac.Value.(type) {
			case string:
				tags = append(tags, nameOr(ctx, names.byID["tags"], v))
			case []any:
				for _, x := range v {
					id, _ := x.(string)
					tags = append(tags, nameOr(ctx, names.byID["tags"], id))
				}
			}
			parts = append(parts, i18n.T(ctx, "rule_words.a_tags", "Tags", strings.Join(tags, ", ")))
		case "set_transaction_name":
			parts = append(parts, i18n.T(ctx, "rule_words.a_rename", "Name", s))
		case "exclude_transaction":
			parts = append(parts, i18n.T(ctx, "rule_words.a_exclude"))
		case "mark_as_transfer":
			parts = append(parts, i18n.T(ctx, "rule_words.a_transfer", "Account", nameOr(ctx, names.byID["accounts"], s)))
		default:
			parts = append(parts, i18n.T(ctx, "rule_words.a_unknown", "Type", ac.Type))
		}
	}
	return i18n.T(ctx, "rule_words.then", "Actions", strings.Join(parts, ", "))
}

// nameOr is the name in m of the record id, or says that it is removed: a record gone, or an
// account kept from the reader, alike.
func nameOr(ctx context.Context, m map[string]string, id string) string {
	if n, ok := m[id]; ok {
		return n
	}
	return i18n.T(ctx, "rule_words.removed")
}

func (a *app) ruleFormPage(c echo.Context, id string, form *views.Form) (views.RuleFormPage, error) {
	ctx := inLanguage(c)
	names, err := a.familyNames(c)
	if err != nil {
		return views.RuleFormPage{}, err
	}
	rows := 2
	for k := range form.Values {
		var i int
		if _, err := fmt.Sscanf(k, "cond_%d_field", &i); err == nil && form.Values[k] != "" && i+2 > rows {
			rows = i + 2
		}
	}
	none := []views.SelectOption{{Value: "", Label: i18n.T(ctx, "rule_words.leave")}}
	p := views.RuleFormPage{ID: id, Form: form, Rows: rows, Fields: views.TranslatedOptions(ctx, ruleFields), Operators: views.TranslatedOptions(ctx, ruleOperators),
		Categories: append(none, names.lists["categories"]...), Merchants: append(none, names.lists["merchants"]...),
		Accounts: append([]views.SelectOption{{Value: "", Label: i18n.T(ctx, "rule_words.not_transfer")}}, names.lists["accounts"]...),
		Tags:     names.lists["tags"], TagsChosen: map[string]bool{}}
	for _, t := range strings.Split(form.Values["action_tags"], ",") {
		p.TagsChosen[t] = true
	}
	if g := form.Values["grouped"]; g != "" {
		var cs []rules.Condition
		_ = json.Unmarshal([]byte(g), &cs)
		var parts []string
		for _, cd := range cs {
			parts = append(parts, conditionText(ctx, cd, names))
		}
		p.Grouped = strings.Join(parts, "; ")
	}
	return p, nil
}

// ruleNew is the form for a new rule; with ?from=<transaction id> ("Create a rule from this
// transaction") it starts from that transaction: its name as the condition, and its
// category, merchant and transfer as the actions.
func (a *app) ruleNew(c echo.Context) error {
	viewer, err := a.viewer(c)
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	form := &views.Form{Values: map[string]string{"active": "1", "_submitted": "1", "match": "all", "cond_0_op": "like", "cond_0_field": "transaction_name"}}
	if s := c.QueryParam("from"); s != "" {
		id, err := uuid.Parse(s)
		if err != nil {
			return apperr.New(apperr.NotFound, "Transaction not found")
		}
		t, err := ledger.Get(ctx, a.DB, viewer, id)
		if err != nil {
			return err
		}
		name := t.Name
		if t.OriginalName != nil {
			name = *t.OriginalName
		}
		form.Values["name"], form.Values["cond_0_value"] = name, name
		if t.CategoryID != nil {
			form.Values["action_category"] = t.CategoryID.String()
		}
		if t.MerchantID != nil {
			form.Values["action_merchant"] = t.MerchantID.String()
		}
		if t.Transfer != nil && !t.Transfer.OtherPrivate {
			form.Values["action_transfer"] = t.Transfer.OtherAccount.String()
		}
	}
	p, err := a.ruleFormPage(c, "", form)
	if err != nil {
		return err
	}
	return a.render(c, http.StatusOK, views.SettingsRuleFormPage(p))
}

func (a *app) ruleEdit(c echo.Context) error {
	r, err := a.pathRule(c)
	if err != nil {
		return err
	}
	names, err := a.familyNames(c)
	if err != nil {
		return err
	}
	form := &views.Form{Values: map[string]string{"_submitted": "1", "name": r.Name, "match": r.Match}}
	if r.Active {
		form.Values["active"] = "1"
	}
	if r.Continue {
		form.Values["continue"] = "1"
	}
	if r.EffectiveDate != nil {
		form.Values["effective_date"] = r.EffectiveDate.Format("2006-01-02")
	}
	var grouped []rules.Condition
	row := 0
	for _, cd := range r.Conditions {
		if cd.Type == "compound" {
			grouped = append(grouped, cd)
			continue
		}
		prefix := fmt.Sprintf("cond_%d_", row)
		form.Values[prefix+"field"], form.Values[prefix+"op"] = cd.Type, cd.Operator
		table, isRef := refTables[cd.Type]
		switch v := cd.Value.(type) {
		case []any:
			if len(v) == 2 {
				form.Values[prefix+"value"], form.Values[prefix+"value2"] = fmt.Sprint(v[0]), fmt.Sprint(v[1])
			}
		case nil:
			if isRef && cd.Operator != "is_null" {
				// An account gone or kept from the reader (rules.Get leaves it no value).
				form.Values[prefix+"value"] = nameOr(inLanguage(c), nil, "")
			}
		default:
			s := fmt.Sprint(v)
			if isRef {
				s = nameOr(inLanguage(c), names.byID[table], s)
			}
			form.Values[prefix+"value"] = s
		}
		row++
	}
	if len(grouped) > 0 {
		b, _ := json.Marshal(grouped)
		form.Values["grouped"] = string(b)
	}
	var tags []string
	for _, ac := range r.Actions {
		s, _ := ac.Value.(string)
		switch ac.Type {
		case "set_transaction_category":
			form.Values["action_category"] = s
		case "set_transaction_merchant":
			form.Values["action_merchant"] = s
		case "set_transaction_tags":
			if list, ok := ac.Value.([]any); ok {
				for _, x := range list {
					tags = append(tags, fmt.Sprint(x))
				}
			} else {
				tags = append(tags, s)
			}
		case "set_transaction_name":
			form.Values["action_name"] = s
		case "exclude_transaction":
			form.Values["action_exclude"] = "1"
		case "mark_as_transfer":
			form.Values["action_transfer"] = s
		}
	}
	form.Values["action_tags"] = strings.Join(tags, ",")
	p, err := a.ruleFormPage(c, r.ID.String(), form)
	if err != nil {
		return err
	}
	return a.render(c, http.StatusOK, views.SettingsRuleFormPage(p))
}

// ruleFromForm reads the rule form. rowOf maps a condition's index to its form row; problems
// with values the page resolves (names, direction) come back as field errors.
func ruleFromForm(c echo.Context, names *familyNames) (*views.Form, rules.Input, []int, error) {
	form := formOf(c, "name", "match", "continue", "active", "effective_date", "action_category", "action_merchant", "action_name", "action_exclude", "action_transfer", "grouped", "apply")
	form.Values["_submitted"] = "1"
	lang := inLanguage(c)
	params, _ := c.FormParams()
	form.Values["action_tags"] = strings.Join(params["action_tags"], ",")
	var v apperr.Validation
	var conditions []rules.Condition
	var rowOf []int
	for i := 0; ; i++ {
		prefix := fmt.Sprintf("cond_%d_", i)
		if _, ok := params[prefix+"field"]; !ok {
			break
		}
		for _, k := range []string{"field", "op", "value", "value2"} {
			form.Values[prefix+k] = strings.TrimSpace(c.FormValue(prefix + k))
		}
		field, op, value := form.Values[prefix+"field"], form.Values[prefix+"op"], form.Values[prefix+"value"]
		if field == "" {
			continue
		}
		cd := rules.Condition{Type: field, Operator: op}
		switch {
		case op == "is_null":
		case (field == "transaction_name" || field == "transaction_notes") && value == "":
			// Said on the row, in the person's language (the engine's words are the API's).
			v.Add(fmt.Sprintf("cond_%d", i), i18n.T(lang, "rule_words.text_empty"))
		case op == "between":
			cd.Value = []any{value, form.Values[prefix+"value2"]}
		case refTables[field] != "":
			id, ok := names.byName[refTables[field]][strings.ToLower(value)]
			if !ok {
				v.Add(fmt.Sprintf("cond_%d", i), i18n.T(lang, "rule_words.no_such", "Kind", i18n.T(lang, recordNoun[refTables[field]]), "Name", value))
			}
			cd.Value = id
		case field == "transaction_type":
			switch strings.ToLower(value) {
			case "in", "money in", "inflow", "income":
				cd.Value = "inflow"
			case "out", "money out", "outflow", "expense":
				cd.Value = "outflow"
			default:
				v.Add(fmt.Sprintf("cond_%d", i), i18n.T(lang, "rule_words.in_or_out"))
			}
		default:
			cd.Value = value
		}
		conditions = append(conditions, cd)
		rowOf = append(rowOf, i)
	}
	if g := form.Values["grouped"]; g != "" {
		var kept []rules.Condition
		if err := json.Unmarshal([]byte(g), &kept); err == nil {
			conditions = append(conditions, kept...)
		}
	}
	var actions []rules.Action
	if s := form.Values["action_category"]; s != "" {
		actions = append(actions, rules.Action{Type: "set_transaction_category", Value: s})
	}
	if s := form.Values["action_merchant"]; s != "" {
		actions = append(actions, rules.Action{Type: "set_transaction_merchant", Value: s})
	}
	if tags := params["action_tags"]; len(tags) > 0 {
		list := make([]any, len(tags))
		for i, t := range tags {
			list[i] = t
		}
		actions = append(actions, rules.Action{Type: "set_transaction_tags", Value: list})
	}
	if s := strings.TrimSpace(form.Values["action_name"]); s != "" {
		actions = append(actions, rules.Action{Type: "set_transaction_name", Value: s})
	}
	if form.Values["action_exclude"] != "" {
		actions = append(actions, rules.Action{Type: "exclude_transaction"})
	}
	if s := form.Values["action_transfer"]; s != "" {
		actions = append(actions, rules.Action{Type: "mark_as_transfer", Value: s})
	}
	name, match := strings.TrimSpace(form.Values["name"]), form.Values["match"]
	active, cont := form.Values["active"] != "", form.Values["continue"] != ""
	in := rules.Input{Name: &name, Match: &match, Active: &active, Continue: &cont, Conditions: &conditions, Actions: &actions}
	var date *time.Time
	if s := form.Values["effective_date"]; s != "" {
		d, err := dates.Day("effective_date", s)
		v.Merge(err)
		date = &d
	}
	in.EffectiveDate = &date
	return form, in, rowOf, v.Err()
}

var conditionField = regexp.MustCompile(`^conditions\[(\d+)\]`)

// ruleProblems puts a rule's problems on the form's fields: conditions on their rows,
// actions together, in the language of ctx.
func ruleProblems(ctx context.Context, form *views.Form, err error, rowOf []int) (int, bool) {
	status, ok := withError(ctx, form, err)
	if !ok {
		return 0, false
	}
	fields := map[string][]string{}
	for k, msgs := range form.Errors {
		switch {
		case conditionField.MatchString(k):
			i, _ := strconv.Atoi(conditionField.FindStringSubmatch(k)[1])
			if i < len(rowOf) {
				k = fmt.Sprintf("cond_%d", rowOf[i])
			} else {
				k = "grouped"
				form.Message = i18n.T(ctx, "rule_problem.grouped", "Problem", strings.Join(msgs, "; "))
			}
		case strings.HasPrefix(k, "actions"):
			k = "actions"
		}
		fields[k] = append(fields[k], msgs...)
	}
	form.Errors = fields
	return status, true
}

func (a *app) ruleSave(c echo.Context, id *uuid.UUID) error {
	ctx := c.Request().Context()
	v, err := a.viewer(c)
	if err != nil {
		return err
	}
	names, err := a.familyNames(c)
	if err != nil {
		return err
	}
	form, in, rowOf, err := ruleFromForm(c, names)
	var saved *rules.Stored
	if err == nil {
		if id == nil {
			saved, err = rules.Create(ctx, a.DB, v, in)
		} else {
			saved, err = rules.Update(ctx, a.DB, v, *id, in)
		}
	}
	if err != nil {
		status, ok := ruleProblems(inLanguage(c), form, err, rowOf)
		if !ok {
			return err
		}
		idText := ""
		if id != nil {
			idText = id.String()
		}
		p, perr := a.ruleFormPage(c, idText, form)
		if perr != nil {
			return perr
		}
		return a.render(c, status, views.SettingsRuleFormPage(p))
	}
	msg := i18n.T(inLanguage(c), "rule_words.saved")
	if !*in.Active {
		msg = i18n.T(inLanguage(c), "rule_words.saved_off")
	}
	if form.Value("apply") != "" {
		return a.applyRule(c, saved.ID, msg+" ")
	}
	a.flash(c, "success", msg)
	return redirect(c, "/settings/rules")
}

// applyRule runs the family's rule id over the existing transactions the person sees and
// says what it changed, after said, on the rules page, which offers the undo.
func (a *app) applyRule(c echo.Context, id uuid.UUID, said string) error {
	v, err := a.viewer(c)
	if err != nil {
		return err
	}
	app, err := rules.ApplyToHistory(c.Request().Context(), a.DB, v, id)
	if e := apperr.As(err); e != nil && e.Code == apperr.Invalid {
		a.flash(c, "error", said+i18n.T(inLanguage(c), "rule_words.cannot_run", "Problem", e.Message))
		return redirect(c, "/settings/rules/"+id.String()+"/edit")
	} else if err != nil {
		return err
	}
	if app.Changed == 0 {
		a.flash(c, "success", said+i18n.T(inLanguage(c), "rule_words.nothing_needed"))
	} else {
		a.flash(c, "success", said+i18n.N(inLanguage(c), "rule_words.applied", app.Changed,
			"Name", app.RuleName, "Days", int(models.UndoWindow.Hours()/24)))
	}
	return redirect(c, "/settings/rules")
}

func (a *app) ruleCreate(c echo.Context) error { return a.ruleSave(c, nil) }

func (a *app) ruleUpdate(c echo.Context) error {
	id, err := pathID(c)
	if err != nil {
		return err
	}
	return a.ruleSave(c, &id)
}

// rulePreview answers the form's live preview: how many of the existing transactions the
// person sees the rule as typed matches, and the first 20.
func (a *app) rulePreview(c echo.Context) error {
	ctx := c.Request().Context()
	v, err := a.viewer(c)
	if err != nil {
		return err
	}
	names, err := a.familyNames(c)
	if err != nil {
		return err
	}
	_, in, _, err := ruleFromForm(c, names)
	var p views.RulePreview
	if err != nil {
		p.Error = apperr.As(err).Message
	} else {
		r := rules.Rule{Match: *in.Match, Conditions: *in.Conditions, Actions: *in.Actions, EffectiveDate: *in.EffectiveDate}
		if len(r.Actions) == 0 {
			// The preview is of what matches: any action will do until one is chosen.
			r.Actions = []rules.Action{{Type: "exclude_transaction"}}
		}
		if len(r.Conditions) == 0 {
			p.Error = i18n.T(inLanguage(c), "rule_words.add_condition")
		} else if p.Count, p.Rows, err = rules.Preview(ctx, a.DB, v, r, 20); err != nil {
			if e, ok := err.(*rules.Error); ok {
				p.Error = e.Msg
			} else {
				return err
			}
		}
	}
	return a.render(c, http.StatusOK, views.RulePreviewPanel(p))
}

func (a *app) ruleMove(c echo.Context) error {
	id, err := pathID(c)
	if err != nil {
		return err
	}
	to, err := strconv.Atoi(c.FormValue("to"))
	if err != nil || to < 1 {
		return apperr.New(apperr.BadRequest, "The new place is not a number.")
	}
	v, err := a.viewer(c)
	if err != nil {
		return err
	}
	if _, err := rules.Update(c.Request().Context(), a.DB, v, id, rules.Input{Position: &to}); err != nil {
		return err
	}
	return redirect(c, "/settings/rules")
}

func (a *app) ruleToggle(c echo.Context) error {
	ctx := c.Request().Context()
	r, err := a.pathRule(c)
	if err != nil {
		return err
	}
	v, err := a.viewer(c)
	if err != nil {
		return err
	}
	active := !r.Active
	if _, err := rules.Update(ctx, a.DB, v, r.ID, rules.Input{Active: &active}); err != nil {
		if _, ok := withError(inLanguage(c), &views.Form{}, err); ok {
			a.flash(c, "error", i18n.T(inLanguage(c), "rule_words.edit_first", "Problem", apperr.As(err).Message))
			return redirect(c, "/settings/rules")
		}
		return err
	}
	return redirect(c, "/settings/rules")
}

func (a *app) ruleDeletePage(c echo.Context) error {
	id, err := pathID(c)
	if err != nil {
		return err
	}
	if err := rules.Delete(c.Request().Context(), a.DB, currentUser(c).FamilyID, id); err != nil {
		return err
	}
	a.flash(c, "success", i18n.T(inLanguage(c), "rule_words.deleted"))
	return redirect(c, "/settings/rules")
}

// ruleApplyPage is POST /settings/rules/:id/apply: the rule run over the existing transactions.
func (a *app) ruleApplyPage(c echo.Context) error {
	id, err := pathID(c)
	if err != nil {
		return err
	}
	return a.applyRule(c, id, "")
}

// ruleUndoPage is POST /settings/rule_applications/:id/undo: a rule's application taken back.
func (a *app) ruleUndoPage(c echo.Context) error { return a.undoChange(c, "/settings/rules") }
