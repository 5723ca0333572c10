package imports

import (
	"bufio"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"tally/imports/movein"
)

// converted is a budget's conversion, its records written to ndjson.
func converted(t *testing.T, b *movein.Budget) (*moveIn, string) {
	t.Helper()
	var ndjson strings.Builder
	m, err := convertMoveIn(b, func(_ int, piece []byte) error { ndjson.Write(piece); return nil })
	if err != nil {
		t.Fatal(err)
	}
	return m, ndjson.String()
}

// records reads a move-in's NDJSON back as (type, data) pairs.
func records(t *testing.T, ndjson string) []struct {
	Type string
	Data map[string]any
} {
	t.Helper()
	var out []struct {
		Type string
		Data map[string]any
	}
	sc := bufio.NewScanner(strings.NewReader(ndjson))
	for sc.Scan() {
		var r struct {
			Type string
			Data map[string]any
		}
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatal(err)
		}
		out = append(out, r)
	}
	return out
}

// Schedules on Tally's intervals become series; the others are listed, each with why.
func TestMoveInSchedulesOnTallysIntervals(t *testing.T) {
	next := time.Date(2026, 12, 15, 0, 0, 0, 0, time.UTC)
	b := &movein.Budget{Source: movein.SourceActual, Style: movein.Envelope}
	for _, s := range []struct {
		name string
		r    movein.Repeat
	}{
		{"weekly", movein.Repeat{Unit: movein.UnitWeek, Every: 1, Times: 1}},
		{"fortnightly", movein.Repeat{Unit: movein.UnitWeek, Every: 2, Times: 1}},
		{"quarterly", movein.Repeat{Unit: movein.UnitMonth, Every: 3, Times: 1}},
		{"yearly", movein.Repeat{Unit: movein.UnitYear, Every: 1, Times: 1}},
		{"twice a month", movein.Repeat{Unit: movein.UnitMonth, Every: 1, Times: 2}},
		{"every other month", movein.Repeat{Unit: movein.UnitMonth, Every: 2, Times: 1}},
		{"once", movein.Repeat{Unit: movein.UnitOnce}},
	} {
		b.Schedules = append(b.Schedules, movein.Schedule{ID: s.name, Name: s.name, Amount: decimal.NewFromInt(10),
			Min: decimal.NewFromInt(10), Max: decimal.NewFromInt(10), Repeat: s.r, Start: next.AddDate(0, -6, 0), Next: next, Active: true})
	}
	m, ndjson := converted(t, b)
	got := map[string]string{}
	for _, r := range records(t, ndjson) {
		if r.Type == "RecurringTransaction" {
			got[r.Data["name"].(string)] = r.Data["interval"].(string) + " next " + r.Data["next_expected_date"].(string) +
				" on " + fmt.Sprint(r.Data["expected_day_of_month"]) + " " + r.Data["tally_status"].(string)
		}
	}
	want := map[string]string{"weekly": "weekly next 2026-12-15 on 15 confirmed", "fortnightly": "biweekly next 2026-12-15 on 15 confirmed",
		"quarterly": "quarterly next 2026-12-15 on 15 confirmed", "yearly": "yearly next 2026-12-15 on 15 confirmed"}
	if len(got) != len(want) || m.counts["series"] != 4 {
		t.Errorf("series %v (counted %d), want %v", got, m.counts["series"], want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: %q, want %q", k, got[k], v)
		}
	}
	listed := map[string]string{}
	for _, n := range m.notices {
		if n.Entity == movein.EntitySchedule && n.What == movein.NotKept {
			listed[n.Name] = n.Reason
		}
	}
	for name, why := range map[string]string{"twice a month": "comes 2 times each period", "every other month": "every 2 months",
		"once": "single date"} {
		if !strings.Contains(listed[name], why) {
			t.Errorf("%s is listed as %q, want it to say %q", name, listed[name], why)
		}
	}
}

// Rules become Tally's conditions in Tally's words: an amount in the ledger's sign is a size
// with money in or out, several payees are any of them, and "any" of the conditions is an or.
func TestMoveInRulesInTallysWords(t *testing.T) {
	d := decimal.RequireFromString
	b := &movein.Budget{Source: movein.SourceActual, Style: movein.Envelope,
		Accounts:   []movein.Account{{ID: "a", Name: "Checking"}},
		Payees:     []movein.Payee{{ID: "p1", Name: "Shop"}, {ID: "p2", Name: "Market"}, {ID: "pt", Name: "Transfer : Checking", TransferAccount: "a"}},
		Categories: []movein.Category{{ID: "c", Name: "Groceries"}},
		Rules: []movein.Rule{
			{ID: "r1", Match: "any", Expressible: true, Conditions: []movein.Condition{
				{Field: "payee", Op: "oneOf", Value: []string{"p1", "p2"}}, {Field: "amount", Op: "lt", Value: d("-10")}},
				Actions: []movein.Action{{Field: "category", Op: "set", Value: "c"}}},
			{ID: "r2", Match: "all", Expressible: true, Conditions: []movein.Condition{{Field: "amount", Op: "isapprox", Value: d("100")}},
				Actions: []movein.Action{{Field: "payee", Op: "set", Value: "p1"}}},
			{ID: "r3", Match: "all", Expressible: true, Conditions: []movein.Condition{{Field: "payee", Op: "is", Value: "pt"}},
				Actions: []movein.Action{{Field: "category", Op: "set", Value: "c"}}},
		}}
	m, ndjson := converted(t, b)
	var rules []string
	for _, r := range records(t, ndjson) {
		if r.Type == "Rule" {
			j, _ := json.Marshal([]any{r.Data["conditions"], r.Data["actions"]})
			rules = append(rules, string(j))
		}
	}
	want := []string{
		`[[{"condition_type":"compound","operator":"or","sub_conditions":[{"condition_type":"compound","operator":"or","sub_conditions":[` +
			`{"condition_type":"transaction_merchant","operator":"=","value":"p1"},{"condition_type":"transaction_merchant","operator":"=","value":"p2"}]},` +
			`{"condition_type":"compound","operator":"and","sub_conditions":[` +
			`{"condition_type":"transaction_type","operator":"=","value":"inflow"},{"condition_type":"transaction_amount","operator":"\u003e","value":10}]}]}],` +
			`[{"action_type":"set_transaction_category","value":"c"}]]`,
		`[[{"condition_type":"transaction_type","operator":"=","value":"outflow"},{"condition_type":"transaction_amount","operator":"between","value":[92.5,107.5]}],` +
			`[{"action_type":"set_transaction_merchant","value":"p1"}]]`,
	}
	if len(rules) != len(want) || m.counts["rules"] != 2 {
		t.Fatalf("rules %v (counted %d), want %d", rules, m.counts["rules"], len(want))
	}
	for i := range want {
		if rules[i] != want[i] {
			t.Errorf("rule %d:\n%s\nwant\n%s", i+1, rules[i], want[i])
		}
	}
	listed := false
	for _, n := range m.notices {
		listed = listed || (n.Entity == movein.EntityRule && n.ID == "r3" && n.What == movein.NotKept && strings.Contains(n.Reason, "one of your accounts"))
	}
	if !listed {
		t.Errorf("the rule on a transfer's payee is not listed: %v", m.notices)
	}
}

// Goals of an amount each month and of a balance (by a month or not) become Tally's goals,
// one per category; what Tally's goals cannot state is listed with the reason.
func TestMoveInGoalsBecomeTallysGoals(t *testing.T) {
	june := time.Date(2027, 6, 1, 0, 0, 0, 0, time.UTC)
	b := &movein.Budget{Source: movein.SourceActual, Style: movein.Envelope,
		Categories: []movein.Category{{ID: "c", Name: "Holiday"}, {ID: "d", Name: "Dining"}, {ID: "e", Name: "Groceries"},
			{ID: "f", Name: "Car"}, {ID: "g", Name: "Loan"}, {ID: "h", Name: "Gifts", Hidden: true}},
		Goals: []movein.Goal{
			{CategoryID: "c", Kind: movein.GoalBalance, Amount: decimal.NewFromInt(600), By: june, Text: "#template 600 by 2027-06"},
			{CategoryID: "d", Kind: movein.GoalOther, Text: "#template up to 50"},
			{CategoryID: "e", Kind: movein.GoalMonthly, Amount: decimal.NewFromInt(300), Text: "#template 300"},
			{CategoryID: "e", Kind: movein.GoalMonthly, Amount: decimal.NewFromInt(20), Text: "#template-2 20"},
			{CategoryID: "f", Kind: movein.GoalBalance, Amount: decimal.NewFromInt(5000), Text: "#goal 5000"},
			{CategoryID: "g", Kind: movein.GoalDebt, Amount: decimal.NewFromInt(90), Text: "DEBT"},
			{CategoryID: "h", Kind: movein.GoalSpending, Amount: decimal.NewFromInt(40), Text: "NEED"},
		}}
	m, _ := converted(t, b)
	var got []string
	for _, g := range m.goalList {
		got = append(got, fmt.Sprintf("%s %s %s %s", g.Category, g.Kind, g.Amount, g.By))
	}
	want := []string{"Holiday balance 600 2027-06", "Groceries monthly 300 ", "Car balance 5000 ", "Gifts (hidden) monthly 40 "}
	if fmt.Sprint(got) != fmt.Sprint(want) || m.counts["goals"] != 4 {
		t.Errorf("goals %q (counted %d), want %q", got, m.counts["goals"], want)
	}
	notes := map[string]string{}
	for _, n := range m.notices {
		if n.Entity == movein.EntityGoal {
			notes[n.Name] = n.What + ": " + n.Reason
		}
	}
	for name, want := range map[string]string{
		"Dining":    "not_kept: Tally's goals are an amount each month or a balance, by a month or not; it was #template up to 50",
		"Groceries": "not_kept: Tally keeps one goal per category, and kept #template 300; it was #template-2 20",
		"Loan":      "not_kept: Tally's goals are an amount each month or a balance, by a month or not; it was DEBT",
		"Gifts":     "kept_as: Actual has 40 ready to spend each month (NEED): kept as a goal of 40 each month",
	} {
		if notes[name] != want {
			t.Errorf("%s's notice %q, want %q", name, notes[name], want)
		}
	}
	if len(notes) != 4 {
		t.Errorf("goal notices %v", notes)
	}
}
