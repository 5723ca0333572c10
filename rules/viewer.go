package rules

import (
	"context"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"tally/models"
)

// A rule names accounts by id: a condition on the account, and the other account of a
// transfer it marks. A reader kept from a private account (models.Viewer) must not learn from
// a rule that it exists: the rule is shown to them with that account as one that no longer
// exists is shown, and a rule they write may not name it, as it may not name another
// family's.

// NamesAccount says whether the value of a condition or action of type typ is an account's id.
func NamesAccount(typ string) bool { return refTables[typ] == "accounts" }

// showTo makes list what v sees of the rules (shownTo), reading which accounts v sees once,
// and only when a rule names one.
func showTo(ctx context.Context, idb bun.IDB, v models.Viewer, list []Stored) error {
	var seen map[uuid.UUID]bool
	for i := range list {
		if !list[i].namesAccounts() {
			continue
		}
		if seen == nil {
			var ids []uuid.UUID
			q := idb.NewSelect().TableExpr("accounts AS a").Column("a.id").Where("a.family_id = ?", v.FamilyID)
			v.VisibleAccounts(q.QueryBuilder(), "a.id")
			if err := q.Scan(ctx, &ids); err != nil {
				return err
			}
			seen = make(map[uuid.UUID]bool, len(ids))
			for _, id := range ids {
				seen[id] = true
			}
		}
		list[i].Rule = list[i].shownTo(seen)
	}
	return nil
}

// namesAccounts says whether a condition or action of r names an account.
func (r Rule) namesAccounts() bool {
	var walk func([]Condition) bool
	walk = func(cs []Condition) bool {
		for _, c := range cs {
			if NamesAccount(c.Type) || walk(c.Sub) {
				return true
			}
		}
		return false
	}
	if walk(r.Conditions) {
		return true
	}
	for _, a := range r.Actions {
		if NamesAccount(a.Type) {
			return true
		}
	}
	return false
}

// shownTo is r as a reader sees it who sees the accounts of seen: a condition or action naming
// any other account, one that no longer exists and one kept from the reader alike, has no
// value (null).
func (r Rule) shownTo(seen map[uuid.UUID]bool) Rule {
	shown := func(typ string, value any) any {
		if !NamesAccount(typ) {
			return value
		}
		s, _ := value.(string)
		if id, err := uuid.Parse(s); err == nil && seen[id] {
			return value
		}
		return nil
	}
	var conditions func([]Condition) []Condition
	conditions = func(cs []Condition) []Condition {
		if cs == nil {
			return nil
		}
		out := make([]Condition, len(cs))
		for i, c := range cs {
			c.Value, c.Sub = shown(c.Type, c.Value), conditions(c.Sub)
			out[i] = c
		}
		return out
	}
	r.Conditions = conditions(r.Conditions)
	actions := make([]Action, len(r.Actions))
	for i, a := range r.Actions {
		a.Value = shown(a.Type, a.Value)
		actions[i] = a
	}
	if r.Actions != nil {
		r.Actions = actions
	}
	return r
}
