package actual

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"tally/imports/movein"
)

// item is one condition or action of an Actual rule, as its JSON stores it.
type item struct {
	Field   string          `json:"field"`
	Op      string          `json:"op"`
	Value   json.RawMessage `json:"value"`
	Options *struct {
		Inflow   bool   `json:"inflow"`
		Outflow  bool   `json:"outflow"`
		Template string `json:"template"`
		Formula  string `json:"formula"`
	} `json:"options"`
}

// fieldNames are the names Actual's database gives fields that its API calls otherwise.
var fieldNames = map[string]string{"description": "payee", "acct": "account", "imported_description": "imported_payee"}

func (it item) field() string {
	if f, ok := fieldNames[it.Field]; ok {
		return f
	}
	return it.Field
}

// parseItems reads a rule's conditions or actions.
func parseItems(s string) ([]item, error) {
	var items []item
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	err := json.Unmarshal([]byte(s), &items)
	return items, err
}

// rules reads the rules that are not schedules' own (those are the schedules).
func (r *reader) rules() error {
	if !r.db.has("rules") {
		return nil
	}
	return r.db.each("rules", []string{"id", "?stage", "conditions", "actions", "?conditions_op"}, "WHERE "+alive+" ORDER BY id", func(row row) error {
		id := row.text("id")
		if r.scheduleRules[id] {
			return nil
		}
		if err := movein.Count(movein.EntityRule, len(r.b.Rules)+1); err != nil {
			return err
		}
		rule := r.rule(id, row.text("stage"), row.text("conditions_op"), row.text("conditions"), row.text("actions"))
		if rule == nil {
			return nil
		}
		if !rule.Expressible {
			r.b.Note(movein.NotKept, movein.EntityRule, id, "", "%s; it is listed with its text, for you to make again by hand", rule.Why)
		}
		r.b.Rules = append(r.b.Rules, *rule)
		return nil
	})
}

// rule reads one rule, or nil for one that links a schedule (a schedule's rule whose schedule
// is deleted: it went with it).
func (r *reader) rule(id, stage, op, conditions, actions string) *movein.Rule {
	source, _ := json.Marshal(map[string]any{"stage": stage, "conditionsOp": op,
		"conditions": json.RawMessage(orEmpty(conditions)), "actions": json.RawMessage(orEmpty(actions))})
	rule := &movein.Rule{ID: id, Stage: stage, Match: "all", Source: string(source), Expressible: true}
	if !json.Valid(source) { // a rule whose JSON is broken: keep its text as it is
		rule.Source = conditions + "\n" + actions
	}
	if op == "or" {
		rule.Match = "any"
	}
	why := func(format string, args ...any) {
		if rule.Expressible {
			rule.Expressible, rule.Why = false, fmt.Sprintf(format, args...)
		}
	}
	cs, err1 := parseItems(conditions)
	as, err2 := parseItems(actions)
	if err1 != nil || err2 != nil {
		why("its conditions or actions are not the JSON Actual writes")
		return rule
	}
	for _, it := range as {
		if it.Op == "link-schedule" {
			return nil
		}
	}
	for _, it := range cs {
		c, unresolved := r.condition(it)
		rule.Conditions = append(rule.Conditions, c)
		if unresolved != "" {
			why("its condition on %s names %s, which is not in the export", c.Field, unresolved)
		} else if w := testable(c); w != "" {
			why("%s", w)
		}
	}
	for _, it := range as {
		a, w := r.action(it)
		rule.Actions = append(rule.Actions, a)
		if w != "" {
			why("%s", w)
		}
	}
	if len(rule.Actions) == 0 {
		why("it does nothing")
	}
	return rule
}

func orEmpty(s string) string {
	if !json.Valid([]byte(s)) {
		return "null"
	}
	return s
}

// opposite turns a comparison round, for a value whose sign is turned.
var opposite = map[string]string{"gt": "lt", "gte": "lte", "lt": "gt", "lte": "gte"}

// condition reads one condition with its ids resolved and its amounts in the ledger's sign;
// unresolved names the id it could not resolve.
func (r *reader) condition(it item) (c movein.Condition, unresolved string) {
	c = movein.Condition{Field: it.field(), Op: it.Op}
	var v any
	_ = json.Unmarshal(it.Value, &v)
	c.Value = v
	switch c.Field {
	case "payee", "category", "account":
		c.Value, unresolved = r.resolve(c.Field, v)
	case "amount":
		switch {
		case it.Options != nil && it.Options.Inflow:
			c.Field, c.Value = "amount_inflow", units(v, false)
		case it.Options != nil && it.Options.Outflow:
			c.Field, c.Value = "amount_outflow", units(v, false)
		default: // Actual's money in is positive: the ledger's comparison is the other way round
			c.Value = units(v, true)
			if op, ok := opposite[c.Op]; ok {
				c.Op = op
			}
		}
	case "date":
		if s, ok := v.(string); ok {
			if d, err := time.Parse(time.DateOnly, s); err == nil {
				c.Value = d
			}
		} else if v != nil {
			c.Value = string(it.Value) // a recurrence, as Actual states it
		}
	}
	return c, unresolved
}

// resolve resolves a payee's, category's or account's id, or a list of them.
func (r *reader) resolve(field string, v any) (any, string) {
	one := func(id string) (string, bool) {
		switch field {
		case "payee":
			p := r.payee(id)
			return p, p != ""
		case "category":
			c := r.category(id)
			return c, c != ""
		}
		return id, r.accountByID[id] != nil
	}
	switch x := v.(type) {
	case string:
		if id, ok := one(x); ok {
			return id, ""
		}
		return x, fmt.Sprintf("%s %q", field, x)
	case []any:
		ids := make([]string, 0, len(x))
		for _, e := range x {
			s, _ := e.(string)
			id, ok := one(s)
			if !ok {
				return v, fmt.Sprintf("%s %q", field, s)
			}
			ids = append(ids, id)
		}
		return ids, ""
	}
	return v, ""
}

// units reads an amount condition's value (hundredths, or {num1, num2} for isbetween) as a
// decimal, or a range of two, in units; neg turns Actual's sign into the ledger's.
func units(v any, neg bool) any {
	one := func(x any) (decimal.Decimal, bool) {
		f, ok := x.(float64)
		if !ok {
			return decimal.Decimal{}, false
		}
		d := decimal.NewFromFloat(f).Shift(-2)
		if neg {
			d = d.Neg()
		}
		return d, true
	}
	if d, ok := one(v); ok {
		return d
	}
	if m, ok := v.(map[string]any); ok {
		lo, ok1 := one(m["num1"])
		hi, ok2 := one(m["num2"])
		if ok1 && ok2 {
			if hi.LessThan(lo) {
				lo, hi = hi, lo
			}
			return [2]decimal.Decimal{lo, hi}
		}
	}
	return v
}

// testable says why Tally's rules cannot state a condition, or "" when they can: they test
// the name and notes (is, contains, matches), the merchant, category and account (is, or one
// of several), the amount as a size with money in or out, and the date (on, from, until).
// They have no negation.
func testable(c movein.Condition) string {
	no := fmt.Sprintf("Tally's rules cannot test %s %s", c.Field, c.Op)
	switch c.Field {
	case "payee", "category", "account":
		if c.Op == "is" || c.Op == "oneOf" {
			return ""
		}
	case "imported_payee", "notes":
		if c.Op == "is" || c.Op == "contains" || c.Op == "matches" || (c.Op == "oneOf" && c.Field == "imported_payee") {
			return ""
		}
	case "amount_inflow", "amount_outflow":
		if _, ok := c.Value.(decimal.Decimal); ok {
			return ""
		}
		if _, ok := c.Value.([2]decimal.Decimal); ok {
			return ""
		}
	case "amount":
		return amountTestable(c, no)
	case "date":
		if _, ok := c.Value.(time.Time); ok {
			return ""
		}
		if _, ok := c.Value.(string); ok {
			return "Tally's rules cannot test a recurring date"
		}
	}
	return no
}

// amountTestable: Tally tests an amount's size and whether money came in or went out, so a
// test must not take in both.
func amountTestable(c movein.Condition, no string) string {
	both := "Tally's rules cannot test an amount that takes in both money in and money out"
	switch v := c.Value.(type) {
	case decimal.Decimal:
		switch c.Op {
		case "is", "isapprox":
			return ""
		case "gt", "gte":
			if !v.IsNegative() {
				return ""
			}
			return both
		case "lt", "lte":
			if !v.IsPositive() {
				return ""
			}
			return both
		}
	case [2]decimal.Decimal:
		if !v[0].IsNegative() || !v[1].IsPositive() {
			return ""
		}
		return both
	}
	return no
}

// action reads one action, and says why Tally's rules cannot do it, or "": they set a
// category or a merchant.
func (r *reader) action(it item) (movein.Action, string) {
	a := movein.Action{Field: it.field(), Op: it.Op}
	var v any
	_ = json.Unmarshal(it.Value, &v)
	a.Value = v
	if it.Op != "set" {
		return a, fmt.Sprintf("Tally's rules cannot %s", strings.ReplaceAll(it.Op, "-", " "))
	}
	if it.Options != nil && (it.Options.Template != "" || it.Options.Formula != "") {
		return a, fmt.Sprintf("Tally's rules cannot set %s from a template or a formula", a.Field)
	}
	switch a.Field {
	case "payee", "category":
		var unresolved string
		if a.Value, unresolved = r.resolve(a.Field, v); unresolved != "" {
			return a, fmt.Sprintf("its action sets %s, which is not in the export", unresolved)
		}
		return a, ""
	}
	return a, fmt.Sprintf("Tally's rules cannot set %s", a.Field)
}
