// Package rules runs a family's rules over transactions: on every import publish, bank sync
// and transaction made by hand or through the API, and over history on request.
//
// A rule is stored as Sure writes it (so imported rules run as they did there): conditions
// of {condition_type, operator, value, sub_conditions} and actions of {action_type, value},
// with the names of categories, merchants and tags already turned into this family's ids.
// Tally adds operators and condition types Sure lacks, an all/any match, an order, and
// "continue". Rules are compiled once per run into matchers, and a run reads the
// transactions it covers in one query and writes the changed ones in one statement.
package rules

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"

	"tally/models"
)

// Rule is one of a family's rules as stored.
type Rule struct {
	ID            uuid.UUID
	Name          string
	Active        bool
	EffectiveDate *time.Time // transactions dated before it are left alone
	Match         string     // "all" (the default) or "any" of the conditions
	Continue      bool       // after a match, later rules still run for the fields left unset
	Conditions    []Condition
	Actions       []Action

	parseErr error // what Load found wrong in the stored JSON
}

// Condition is one test of a transaction; compound conditions hold others.
type Condition struct {
	Type     string      `json:"condition_type"`
	Operator string      `json:"operator"`
	Value    any         `json:"value"`
	Sub      []Condition `json:"sub_conditions,omitempty"`
}

// Action is one change a matching rule makes.
type Action struct {
	Type  string `json:"action_type"`
	Value any    `json:"value,omitempty"`
}

// The fields a person or client can set by hand, as entries.locked_fields names them: those
// a rule can set, which it then leaves alone, and the notes, which no rule sets but a bank's
// correction leaves alone once set by hand.
const (
	FieldCategory = "category"
	FieldMerchant = "merchant"
	FieldTags     = "tags"
	FieldName     = "name"
	FieldExcluded = "excluded"
	FieldTransfer = "transfer" // the transaction's kind, as a transfer to or from an account
	FieldNotes    = "notes"
)

// LockableFields are the names entries.locked_fields may hold.
var LockableFields = []string{FieldCategory, FieldMerchant, FieldTags, FieldName, FieldExcluded, FieldTransfer, FieldNotes}

// Condition types and their operators. Sure's types and operators are kept; text operators
// are case-insensitive.
var operators = map[string][]string{
	"transaction_name":     {"like", "starts_with", "=", "matches"},
	"transaction_notes":    {"like", "starts_with", "=", "matches"},
	"transaction_amount":   {"=", ">", ">=", "<", "<=", "between"},
	"transaction_type":     {"="}, // inflow/outflow (Sure's income/expense)
	"transaction_account":  {"="},
	"transaction_date":     {"=", ">=", "<=", "between"},
	"transaction_currency": {"="},
	"transaction_merchant": {"=", "is_null"},
	"transaction_category": {"=", "is_null"},
	"compound":             {"and", "or"},
}

// actionFields says which field each action sets.
var actionFields = map[string]string{
	"set_transaction_category": FieldCategory,
	"set_transaction_merchant": FieldMerchant,
	"set_transaction_tags":     FieldTags,
	"set_transaction_name":     FieldName,
	"exclude_transaction":      FieldExcluded,
	"mark_as_transfer":         FieldTransfer, // Tally's: the value is the other account's id
}

// Error is a rule that cannot run, naming the condition or action at fault.
type Error struct {
	Where string // e.g. "conditions[1].sub_conditions[0]"
	Msg   string
}

func (e *Error) Error() string { return e.Where + ": " + e.Msg }

// ParseConditions reads a stored conditions array.
func ParseConditions(raw []byte) ([]Condition, error) {
	var cs []Condition
	if len(raw) == 0 {
		return nil, nil
	}
	if err := json.Unmarshal(raw, &cs); err != nil {
		return nil, &Error{"conditions", "not an array of conditions: " + err.Error()}
	}
	return cs, nil
}

// ParseActions reads a stored actions array.
func ParseActions(raw []byte) ([]Action, error) {
	var as []Action
	if len(raw) == 0 {
		return nil, nil
	}
	if err := json.Unmarshal(raw, &as); err != nil {
		return nil, &Error{"actions", "not an array of actions: " + err.Error()}
	}
	return as, nil
}

// Validate reports the first thing that keeps r from running.
func Validate(r Rule) error {
	_, err := compileRule(r, &texts{})
	return err
}

// compiled is a rule ready to run.
type compiled struct {
	rule   Rule
	test   func(*Txn) bool
	effect effect
	sets   fieldSet // what its actions set
	// gate is the bit of a text test the rule needs (all of its conditions must hold), which
	// a run checks before the rest; -1 when there is none.
	gate int
}

// effect is what a rule's actions set.
type effect struct {
	category, merchant *uuid.UUID
	tags               []uuid.UUID
	name               *string
	excluded           bool
	transferTo         *uuid.UUID // the other account of a transfer
}

func compileRule(r Rule, tx *texts) (*compiled, error) {
	if r.parseErr != nil {
		return nil, r.parseErr
	}
	if len(r.Actions) == 0 {
		return nil, &Error{"actions", "a rule needs at least one action"}
	}
	match := r.Match
	if match == "" {
		match = "all"
	}
	if match != "all" && match != "any" {
		return nil, &Error{"match", fmt.Sprintf("%q is not all or any", r.Match)}
	}
	var tests []func(*Txn) bool
	gate := -1
	for i, c := range r.Conditions {
		if (c.Type == "transaction_name" || c.Type == "transaction_notes") && match == "all" && gate < 0 {
			gate = len(tx.tests) // the bit this text test is about to get
		}
		t, err := compileCondition(c, fmt.Sprintf("conditions[%d]", i), tx)
		if err != nil {
			return nil, err
		}
		tests = append(tests, t)
	}
	c := &compiled{rule: r, test: combine(tests, match == "any"), gate: gate}
	if r.EffectiveDate != nil {
		from, inner := *r.EffectiveDate, c.test
		c.test = func(t *Txn) bool { return !t.Date.Before(from) && inner(t) }
	}
	for i, a := range r.Actions {
		where := fmt.Sprintf("actions[%d]", i)
		field, ok := actionFields[a.Type]
		if !ok {
			return nil, &Error{where, fmt.Sprintf("%q is not an action Tally runs (%s)", a.Type, strings.Join(sortedKeys(actionFields), ", "))}
		}
		c.sets |= fieldBits[field]
		switch field {
		case FieldCategory, FieldMerchant, FieldTransfer:
			id, err := idValue(a.Value)
			if err != nil {
				return nil, &Error{where, err.Error()}
			}
			switch field {
			case FieldCategory:
				c.effect.category = &id
			case FieldMerchant:
				c.effect.merchant = &id
			case FieldTransfer:
				c.effect.transferTo = &id
			}
		case FieldTags:
			ids, err := idValues(a.Value)
			if err != nil {
				return nil, &Error{where, err.Error()}
			}
			c.effect.tags = append(c.effect.tags, ids...)
		case FieldName:
			s, _ := a.Value.(string)
			if s = strings.TrimSpace(s); s == "" {
				return nil, &Error{where, "the new name is empty"}
			}
			// A rule saved before names were bounded, or imported, never writes a longer one.
			s, _ = models.Clip(s, models.MaxName)
			c.effect.name = &s
		case FieldExcluded:
			c.effect.excluded = true
		}
	}
	return c, nil
}

// combine joins tests: all of them (an empty list matches everything), or any.
func combine(tests []func(*Txn) bool, any bool) func(*Txn) bool {
	if any {
		return func(t *Txn) bool {
			for _, f := range tests {
				if f(t) {
					return true
				}
			}
			return len(tests) == 0
		}
	}
	return func(t *Txn) bool {
		for _, f := range tests {
			if !f(t) {
				return false
			}
		}
		return true
	}
}

func compileCondition(c Condition, where string, tx *texts) (func(*Txn) bool, error) {
	ops, ok := operators[c.Type]
	if !ok {
		return nil, &Error{where, fmt.Sprintf("%q is not a condition Tally knows (%s)", c.Type, strings.Join(sortedKeys(operators), ", "))}
	}
	op := c.Operator
	if op == "" && c.Type == "compound" {
		op = "and"
	}
	if !slices.Contains(ops, op) {
		return nil, &Error{where, fmt.Sprintf("operator %q is not one of %s for %s", c.Operator, strings.Join(ops, ", "), c.Type)}
	}
	switch c.Type {
	case "compound":
		var tests []func(*Txn) bool
		for i, s := range c.Sub {
			t, err := compileCondition(s, fmt.Sprintf("%s.sub_conditions[%d]", where, i), tx)
			if err != nil {
				return nil, err
			}
			tests = append(tests, t)
		}
		return combine(tests, op == "or"), nil
	case "transaction_name", "transaction_notes":
		s, ok := c.Value.(string)
		if !ok || s == "" {
			return nil, &Error{where, "the text to look for is empty"}
		}
		test, err := textTest(op, s)
		if err != nil {
			return nil, &Error{where, err.Error()}
		}
		// Text tests run once per distinct name (or notes) of a run: see texts.
		bit := tx.add(c.Type == "transaction_notes", test)
		word, mask := bit/64, uint64(1)<<(bit%64)
		return func(t *Txn) bool { return t.textBits[word]&mask != 0 }, nil
	case "transaction_amount":
		lo, hi, err := amountRange(op, c.Value)
		if err != nil {
			return nil, &Error{where, err.Error()}
		}
		return func(t *Txn) bool { return t.abs >= lo && t.abs <= hi }, nil
	case "transaction_type":
		s, _ := c.Value.(string)
		switch strings.ToLower(s) {
		case "inflow", "income":
			return func(t *Txn) bool { return t.units < 0 }, nil
		case "outflow", "expense":
			return func(t *Txn) bool { return t.units > 0 }, nil
		}
		return nil, &Error{where, fmt.Sprintf("%q is not inflow or outflow", s)}
	case "transaction_account":
		id, err := idValue(c.Value)
		if err != nil {
			return nil, &Error{where, err.Error()}
		}
		return func(t *Txn) bool { return t.AccountID == id }, nil
	case "transaction_date":
		from, to, err := dateRange(op, c.Value)
		if err != nil {
			return nil, &Error{where, err.Error()}
		}
		return func(t *Txn) bool { return !t.Date.Before(from) && !t.Date.After(to) }, nil
	case "transaction_currency":
		s, _ := c.Value.(string)
		if len(s) != 3 {
			return nil, &Error{where, fmt.Sprintf("%q is not a currency code", s)}
		}
		code := strings.ToUpper(s)
		return func(t *Txn) bool { return t.Currency == code }, nil
	case "transaction_merchant", "transaction_category":
		get := func(t *Txn) *uuid.UUID { return t.MerchantID }
		if c.Type == "transaction_category" {
			get = func(t *Txn) *uuid.UUID { return t.CategoryID }
		}
		if op == "is_null" {
			return func(t *Txn) bool { return get(t) == nil }, nil
		}
		id, err := idValue(c.Value)
		if err != nil {
			return nil, &Error{where, err.Error()}
		}
		return func(t *Txn) bool { v := get(t); return v != nil && *v == id }, nil
	}
	return nil, &Error{where, "unsupported condition " + c.Type}
}

// textTest matches lower-cased text.
func textTest(op, s string) (func(string) bool, error) {
	needle := strings.ToLower(s)
	switch op {
	case "like":
		// Sure's "like" is a contains; its % wildcards are taken as any text.
		parts := strings.FieldsFunc(needle, func(r rune) bool { return r == '%' })
		return func(v string) bool {
			for _, p := range parts {
				i := strings.Index(v, p)
				if i < 0 {
					return false
				}
				v = v[i+len(p):]
			}
			return true
		}, nil
	case "starts_with":
		return func(v string) bool { return strings.HasPrefix(v, needle) }, nil
	case "=":
		return func(v string) bool { return v == needle }, nil
	case "matches":
		re, err := regexp.Compile("(?i)" + s)
		if err != nil {
			return nil, fmt.Errorf("not a regular expression: %v", err)
		}
		return re.MatchString, nil
	}
	return nil, fmt.Errorf("unsupported operator %s", op)
}

// units are ten-thousandths, as entries.amount is stored.
type units = int64

const maxUnits = units(1<<63 - 1)

func amountRange(op string, v any) (lo, hi units, err error) {
	if op == "between" {
		pair, ok := v.([]any)
		if !ok || len(pair) != 2 {
			return 0, 0, fmt.Errorf("between needs two amounts, [low, high]")
		}
		if lo, err = amountValue(pair[0]); err == nil {
			hi, err = amountValue(pair[1])
		}
		if err == nil && lo > hi {
			err = fmt.Errorf("the low amount is above the high one")
		}
		return lo, hi, err
	}
	a, err := amountValue(v)
	if err != nil {
		return 0, 0, err
	}
	switch op {
	case "=":
		return a, a, nil
	case ">":
		return a + 1, maxUnits, nil
	case ">=":
		return a, maxUnits, nil
	case "<":
		return 0, a - 1, nil
	case "<=":
		return 0, a, nil
	}
	return 0, 0, fmt.Errorf("unsupported operator %s", op)
}

// amountValue reads an amount (a number or a string such as "12.50"), compared without its
// sign: direction is transaction_type's.
func amountValue(v any) (units, error) {
	var d decimal.Decimal
	var err error
	switch x := v.(type) {
	case float64:
		d = decimal.NewFromFloat(x)
	case int:
		d = decimal.NewFromInt(int64(x))
	case string:
		d, err = decimal.NewFromString(strings.TrimSpace(x))
	case json.Number:
		d, err = decimal.NewFromString(x.String())
	default:
		err = fmt.Errorf("%v", v)
	}
	if err != nil {
		return 0, fmt.Errorf("%v is not an amount", v)
	}
	if d.Exponent() < -4 && !d.Equal(d.Round(4)) {
		return 0, fmt.Errorf("%s has more than four decimals", d)
	}
	return d.Abs().Shift(4).IntPart(), nil
}

func dateRange(op string, v any) (from, to time.Time, err error) {
	far := time.Date(9999, 12, 31, 0, 0, 0, 0, time.UTC)
	parse := func(x any) (time.Time, error) {
		s, _ := x.(string)
		d, err := time.Parse("2006-01-02", s)
		if err != nil {
			return time.Time{}, fmt.Errorf("%v is not a date (YYYY-MM-DD)", x)
		}
		return d, nil
	}
	if op == "between" {
		pair, ok := v.([]any)
		if !ok || len(pair) != 2 {
			return from, to, fmt.Errorf("between needs two dates, [from, to]")
		}
		if from, err = parse(pair[0]); err == nil {
			to, err = parse(pair[1])
		}
		if err == nil && from.After(to) {
			err = fmt.Errorf("the first date is after the second")
		}
		return from, to, err
	}
	d, err := parse(v)
	switch op {
	case "=":
		return d, d, err
	case ">=":
		return d, far, err
	default: // "<="
		return time.Time{}, d, err
	}
}

func idValue(v any) (uuid.UUID, error) {
	s, _ := v.(string)
	id, err := uuid.Parse(s)
	if err != nil {
		return uuid.Nil, fmt.Errorf("%v is not an id", v)
	}
	return id, nil
}

func idValues(v any) ([]uuid.UUID, error) {
	if list, ok := v.([]any); ok {
		ids := make([]uuid.UUID, 0, len(list))
		for _, x := range list {
			id, err := idValue(x)
			if err != nil {
				return nil, err
			}
			ids = append(ids, id)
		}
		return ids, nil
	}
	id, err := idValue(v)
	return []uuid.UUID{id}, err
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
