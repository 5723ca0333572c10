package actual

import (
	"encoding/json"
	"time"

	"github.com/shopspring/decimal"

	"tally/imports/movein"
)

// recurrence is Actual's statement of how often a schedule comes round: the value of its
// rule's date condition when it repeats.
type recurrence struct {
	Frequency      string            `json:"frequency"` // daily, weekly, monthly or yearly
	Interval       int               `json:"interval"`
	Patterns       []json.RawMessage `json:"patterns"` // days of the period it falls on, when several
	Start          string            `json:"start"`
	EndMode        string            `json:"endMode"` // never, after_n_occurrences or on_date
	EndOccurrences int               `json:"endOccurrences"`
	EndDate        string            `json:"endDate"`
}

var frequencies = map[string]string{"daily": movein.UnitDay, "weekly": movein.UnitWeek, "monthly": movein.UnitMonth, "yearly": movein.UnitYear}

// schedules reads the schedules that are not deleted. A schedule is a rule of its own: the
// rule's conditions say its payee, account, amount and dates, and its actions link the
// schedule (and may set a category).
func (r *reader) schedules() error {
	r.schedulesAlive, r.scheduleRules = map[string]bool{}, map[string]bool{}
	if !r.db.has("schedules") || !r.db.has("rules") {
		return nil
	}
	next := map[string]time.Time{}
	if r.db.has("schedules_next_date") {
		err := r.db.each("schedules_next_date", []string{"schedule_id", "local_next_date"}, "WHERE "+alive, func(row row) error {
			if d, ok := date(row.int("local_next_date")); ok {
				next[row.text("schedule_id")] = d
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	type ruleText struct{ conditions, actions string }
	rules := map[string]ruleText{}
	err := r.db.each("rules", []string{"id", "conditions", "actions"}, "WHERE id IN (SELECT rule FROM schedules WHERE "+alive+")", func(row row) error {
		rules[row.text("id")] = ruleText{row.text("conditions"), row.text("actions")}
		return nil
	})
	if err != nil {
		return err
	}
	return r.db.each("schedules", []string{"id", "?name", "rule", "completed"}, "WHERE "+alive+" ORDER BY id", func(row row) error {
		if err := movein.Count(movein.EntitySchedule, len(r.b.Schedules)+1); err != nil {
			return err
		}
		id, rule := row.text("id"), row.text("rule")
		r.schedulesAlive[id], r.scheduleRules[rule] = true, true
		s := movein.Schedule{ID: id, Name: row.text("name"), Active: !row.bool("completed")}
		if s.Active {
			s.Next = next[id]
		}
		text, ok := rules[rule]
		if !ok || !r.schedule(&s, text.conditions, text.actions) {
			r.b.Note(movein.NotKept, movein.EntitySchedule, id, s.Name, "its rule, which says when it comes and how much it is, cannot be read")
			return nil
		}
		r.b.Schedules = append(r.b.Schedules, s)
		return nil
	})
}

// schedule fills s from its rule, and reports whether the rule says when it comes.
func (r *reader) schedule(s *movein.Schedule, conditions, actions string) bool {
	cs, err1 := parseItems(conditions)
	as, err2 := parseItems(actions)
	if err1 != nil || err2 != nil {
		return false
	}
	dated := false
	for _, it := range cs {
		var v any
		_ = json.Unmarshal(it.Value, &v)
		switch it.field() {
		case "payee":
			id, _ := v.(string)
			s.PayeeID = r.payee(id)
		case "account":
			if id, _ := v.(string); r.accountByID[id] != nil {
				s.AccountID = id
			}
		case "amount":
			s.Amount, s.Min, s.Max = scheduleAmount(it.Op, units(v, true))
		case "date":
			dated = r.when(s, it.Value)
		}
	}
	for _, it := range as {
		switch {
		case it.Op == "link-schedule":
		case it.Op == "set" && it.field() == "category":
			var id string
			_ = json.Unmarshal(it.Value, &id)
			s.CategoryID = r.category(id)
		default:
			r.b.Note(movein.NotKept, movein.EntitySchedule, s.ID, s.Name, "its rule also does %s %s, which Tally's recurring series do not", it.Op, it.field())
		}
	}
	if s.Name == "" {
		if p := r.payeeByID[s.PayeeID]; p != nil {
			s.Name = p.Name
		}
	}
	return dated
}

// scheduleAmount is a schedule's amount and its bounds: Actual's "is approximately" is within
// 7.5 % of it, and "is between" a range, whose middle is the expected amount.
func scheduleAmount(op string, v any) (amount, lo, hi decimal.Decimal) {
	switch x := v.(type) {
	case decimal.Decimal:
		if op == "isapprox" {
			margin := x.Abs().Mul(decimal.RequireFromString("0.075")).Round(2)
			return x, x.Sub(margin), x.Add(margin)
		}
		return x, x, x
	case [2]decimal.Decimal:
		return x[0].Add(x[1]).Div(decimal.NewFromInt(2)).Round(2), x[0], x[1]
	}
	return decimal.Zero, decimal.Zero, decimal.Zero
}

// when reads a schedule's date condition: one date, or a recurrence.
func (r *reader) when(s *movein.Schedule, raw json.RawMessage) bool {
	var one string
	if json.Unmarshal(raw, &one) == nil {
		d, err := time.Parse(time.DateOnly, one)
		s.Start, s.Repeat = d, movein.Repeat{Unit: movein.UnitOnce, Every: 1, Times: 1, Source: one}
		return err == nil
	}
	var rc recurrence
	if json.Unmarshal(raw, &rc) != nil || frequencies[rc.Frequency] == "" {
		return false
	}
	start, err := time.Parse(time.DateOnly, rc.Start)
	if err != nil {
		return false
	}
	s.Start = start
	s.Repeat = movein.Repeat{Unit: frequencies[rc.Frequency], Every: max(rc.Interval, 1), Times: max(len(rc.Patterns), 1), Source: string(raw)}
	switch rc.EndMode {
	case "after_n_occurrences":
		s.Repeat.Count = max(rc.EndOccurrences, 1)
	case "on_date":
		s.Repeat.Until, _ = time.Parse(time.DateOnly, rc.EndDate)
	}
	return true
}
