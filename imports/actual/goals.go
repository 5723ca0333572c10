package actual

import (
	"regexp"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"tally/imports/movein"
)

var (
	// templateLine is a line of a category's note that states a goal: "#template 300",
	// "#template-2 50 by 2027-06", "#goal 1000".
	templateLine = regexp.MustCompile(`^#(template|goal)(?:-\d+)?(?:\s+(.*))?$`)
	// The forms Tally's goals can state: an amount a month, and an amount by a month.
	monthlyAmount = regexp.MustCompile(`^\$?(\d+(?:\.\d+)?)$`)
	amountBy      = regexp.MustCompile(`^\$?(\d+(?:\.\d+)?)\s+by\s+(\d{4}-\d{2})$`)
)

// goals lists a category's goal templates: the lines of its note that start with #template
// or #goal, and the goal definition Actual's newer goal editor stores in goal_def.
func (r *reader) goals(categoryID, note, goalDef string) {
	for _, line := range strings.Split(note, "\n") {
		line = strings.TrimSpace(line)
		m := templateLine.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		r.b.Goals = append(r.b.Goals, goal(categoryID, m[1], strings.TrimSpace(m[2]), line))
	}
	if def := strings.TrimSpace(goalDef); def != "" && def != "null" && def != "[]" {
		r.b.Goals = append(r.b.Goals, movein.Goal{CategoryID: categoryID, Kind: movein.GoalOther, Text: def})
	}
}

// goal reads one template line; what Tally cannot state is kept as GoalOther with its text.
func goal(categoryID, keyword, rest, line string) movein.Goal {
	g := movein.Goal{CategoryID: categoryID, Kind: movein.GoalOther, Text: line}
	if m := monthlyAmount.FindStringSubmatch(rest); m != nil {
		g.Kind, g.Amount = movein.GoalMonthly, decimal.RequireFromString(m[1])
		if keyword == "goal" { // "#goal 1000": have 1000 in the category
			g.Kind = movein.GoalBalance
		}
	} else if m := amountBy.FindStringSubmatch(rest); m != nil && keyword == "template" {
		if by, err := time.Parse("2006-01", m[2]); err == nil {
			g.Kind, g.Amount, g.By = movein.GoalBalance, decimal.RequireFromString(m[1]), by
		}
	}
	return g
}
