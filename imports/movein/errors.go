package movein

import "fmt"

// Error is a reader's refusal of a whole export. Its message names what is at fault, so a
// person can find it; Entity and ID say the same for a program.
type Error struct {
	Entity string // an Entity constant, or "file" or "table" for the export's own parts
	ID     string // the source's id or name of it, "" when none
	Msg    string
}

func (e *Error) Error() string { return e.Msg }

// Errorf returns an Error about the entity id.
func Errorf(entity, id, format string, args ...any) *Error {
	return &Error{Entity: entity, ID: id, Msg: fmt.Sprintf(format, args...)}
}

// Bounds on what one budget may hold, so that what a reader keeps in memory is bounded by
// the bounds and not by the file. A household's decades of budgeting are far inside them.
// Variables, so that tests can lower them.
var (
	MaxAccounts     = 2_000
	MaxPayees       = 200_000
	MaxGroups       = 2_000
	MaxCategories   = 10_000
	MaxTransactions = 1_000_000 // split parts included
	MaxBudgetLines  = 1_000_000 // categories times months
	MaxSchedules    = 10_000
	MaxRules        = 10_000
)

// plurals names the counted entities in a refusal.
var plurals = map[string]string{
	EntityAccount: "accounts", EntityPayee: "payees", EntityGroup: "category groups", EntityCategory: "categories",
	EntityTransaction: "transactions and split parts", EntityMonth: "budget lines (categories times months)",
	EntitySchedule: "schedules", EntityRule: "rules",
}

// Bound returns the bound on an entity's count.
func Bound(entity string) int {
	switch entity {
	case EntityAccount:
		return MaxAccounts
	case EntityPayee:
		return MaxPayees
	case EntityGroup:
		return MaxGroups
	case EntityCategory:
		return MaxCategories
	case EntityTransaction:
		return MaxTransactions
	case EntityMonth:
		return MaxBudgetLines
	case EntitySchedule:
		return MaxSchedules
	case EntityRule:
		return MaxRules
	}
	panic("movein: no bound on " + entity)
}

// Count refuses the n-th entity when n passes its bound. Readers call it as they read, before
// keeping the entity, so a file of a million categories is refused at the first one too many.
func Count(entity string, n int) error {
	if max := Bound(entity); n > max {
		return Errorf(entity, "", "the budget holds more than %d %s; Tally moves in at most %d", max, plurals[entity], max)
	}
	return nil
}
