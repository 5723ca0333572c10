package imports

import (
	"fmt"
	"time"

	"github.com/shopspring/decimal"

	"tally/imports/movein"
)

// rules writes each rule Tally's rules can state (the reader has listed the others), its
// conditions and actions in Tally's words; a rule Tally's words fall short of after all is
// listed too.
func (m *moveIn) rules() {
	for i, r := range m.b.Rules {
		if !r.Expressible {
			continue // the reader listed it, with why
		}
		var conditions, actions []any
		why := ""
		for _, c := range r.Conditions {
			cs, w := m.condition(c)
			if w != "" && why == "" {
				why = w
			}
			if r.Match == "any" && len(cs) > 1 { // one source condition stated in several: all of them
				cs = []any{map[string]any{"condition_type": "compound", "operator": "and", "sub_conditions": cs}}
			}
			conditions = append(conditions, cs...)
		}
		for _, a := range r.Actions {
			act, w := m.action(a)
			if w != "" && why == "" {
				why = w
			}
			actions = append(actions, act)
		}
		if why != "" {
			m.note(movein.NotKept, movein.EntityRule, r.ID, "", "%s; it is listed with its text, for you to make again by hand: %s", why, r.Source)
			continue
		}
		if r.Match == "any" && len(conditions) > 1 {
			conditions = []any{map[string]any{"condition_type": "compound", "operator": "or", "sub_conditions": conditions}}
		}
		m.add("Rule", map[string]any{"id": r.ID, "name": fmt.Sprintf("%s rule %d", sourceName(m.b.Source), i+1), "active": true,
			"conditions": conditions, "actions": actions})
		m.counts["rules"]++
	}
}

func sourceName(source string) string {
	if source == movein.SourceYNAB {
		return "YNAB"
	}
	return "Actual"
}

func cond(typ, op string, v any) map[string]any {
	return map[string]any{"condition_type": typ, "operator": op, "value": v}
}

// condition is a source's condition as Tally's, or why it cannot be one.
func (m *moveIn) condition(c movein.Condition) ([]any, string) {
	no := fmt.Sprintf("Tally's rules cannot test %s %s", c.Field, c.Op)
	switch c.Field {
	case "payee", "category":
		typ := map[string]string{"payee": "transaction_merchant", "category": "transaction_category"}[c.Field]
		ids := oneOf(c.Value)
		if c.Field == "payee" {
			for _, id := range ids {
				if m.merchant(id) == "" {
					return nil, "its condition names a payee that is one of your accounts, which Tally's rules cannot test"
				}
			}
		}
		return anyOf(typ, "=", ids), ""
	case "imported_payee", "notes":
		typ := map[string]string{"imported_payee": "transaction_name", "notes": "transaction_notes"}[c.Field]
		op := map[string]string{"is": "=", "contains": "like", "matches": "matches", "oneOf": "="}[c.Op]
		return anyOf(typ, op, oneOf(c.Value)), ""
	case "account":
		return nil, "its condition on the account is not moved in (Tally's rules can test it: make it again by hand)"
	case "amount", "amount_inflow", "amount_outflow":
		return amountCondition(c)
	case "date":
		d, ok := c.Value.(time.Time)
		op := map[string]string{"is": "=", "gte": ">=", "lte": "<=", "gt": ">=", "lt": "<="}[c.Op]
		if !ok || op == "" {
			return nil, no
		}
		switch c.Op { // Tally's date tests include the day
		case "gt":
			d = d.AddDate(0, 0, 1)
		case "lt":
			d = d.AddDate(0, 0, -1)
		}
		return []any{cond("transaction_date", op, isoDate(d))}, ""
	}
	return nil, no
}

// oneOf is a condition's value as a list of texts.
func oneOf(v any) []string {
	switch x := v.(type) {
	case string:
		return []string{x}
	case []string:
		return x
	case []any:
		var out []string
		for _, e := range x {
			if s, ok := e.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}

// anyOf tests typ against one value, or any of several.
func anyOf(typ, op string, values []string) []any {
	if len(values) == 1 {
		return []any{cond(typ, op, values[0])}
	}
	subs := make([]any, len(values))
	for i, v := range values {
		subs[i] = cond(typ, op, v)
	}
	return []any{map[string]any{"condition_type": "compound", "operator": "or", "sub_conditions": subs}}
}

// amountCondition states an amount test as Tally's: a size, with money in or out. The
// reader let through only the tests that take in one direction.
func amountCondition(c movein.Condition) ([]any, string) {
	ops := map[string]string{"is": "=", "gt": ">", "gte": ">=", "lt": "<", "lte": "<="}
	direction := func(out bool) any {
		if out {
			return cond("transaction_type", "=", "outflow")
		}
		return cond("transaction_type", "=", "inflow")
	}
	switch v := c.Value.(type) {
	case decimal.Decimal:
		out, op := c.Field == "amount_outflow", ops[c.Op]
		if c.Field == "amount" { // the ledger's sign: money out is positive
			out = v.IsPositive() || (v.IsZero() && (c.Op == "gt" || c.Op == "gte"))
			if !out { // money in: a ledger amount below -10 is money in above 10
				op = map[string]string{"is": "=", "lt": ">", "lte": ">="}[c.Op]
			}
		}
		size := v.Abs()
		if c.Op == "isapprox" { // Actual's approximately: within 7.5%
			spread := size.Mul(decimal.RequireFromString("0.075"))
			return []any{direction(out), cond("transaction_amount", "between", []any{number(size.Sub(spread).Round(2)), number(size.Add(spread).Round(2))})}, ""
		}
		if op == "" {
			return nil, fmt.Sprintf("Tally's rules cannot test %s %s", c.Field, c.Op)
		}
		return []any{direction(out), cond("transaction_amount", op, number(size))}, ""
	case [2]decimal.Decimal:
		lo, hi := v[0].Abs(), v[1].Abs()
		out := c.Field == "amount_outflow" || (c.Field == "amount" && !v[0].IsNegative())
		return []any{direction(out), cond("transaction_amount", "between", []any{number(decimal.Min(lo, hi)), number(decimal.Max(lo, hi))})}, ""
	}
	return nil, fmt.Sprintf("Tally's rules cannot test %s %s", c.Field, c.Op)
}

// action is a source's action as Tally's, or why it cannot be one.
func (m *moveIn) action(a movein.Action) (any, string) {
	id, _ := a.Value.(string)
	switch {
	case a.Op == "set" && a.Field == "category" && id != "":
		return map[string]any{"action_type": "set_transaction_category", "value": id}, ""
	case a.Op == "set" && a.Field == "payee" && m.merchant(id) != "":
		return map[string]any{"action_type": "set_transaction_merchant", "value": id}, ""
	}
	return nil, fmt.Sprintf("Tally's rules cannot %s %s", a.Op, a.Field)
}
