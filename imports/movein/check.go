package movein

import (
	"fmt"
	"slices"

	"github.com/shopspring/decimal"
)

// Check reports the first way in which the budget does not hold together: a reference to an
// id it lacks, an id used twice, split parts that do not add up, a transfer whose sides do
// not name each other or do not mirror each other's amount, a rollover that is none of the
// three, months out of order, or two categories or groups of one name. A reader's Budget
// passes it; the import may rely on all of this.
func (b *Budget) Check() error {
	ids := map[string]map[string]bool{}
	define := func(entity, id string) error {
		if id == "" {
			return fmt.Errorf("a %s has no id", entity)
		}
		if ids[entity] == nil {
			ids[entity] = map[string]bool{}
		}
		if ids[entity][id] {
			return fmt.Errorf("%s id %q is used twice", entity, id)
		}
		ids[entity][id] = true
		return nil
	}
	ref := func(from, fromID, field, entity, id string) error {
		if id != "" && !ids[entity][id] {
			return fmt.Errorf("%s %q has %s %q, which is no %s of the budget", from, fromID, field, id, entity)
		}
		return nil
	}
	var errs []error
	for _, a := range b.Accounts {
		errs = append(errs, define(EntityAccount, a.ID))
	}
	for _, g := range b.Groups {
		errs = append(errs, define(EntityGroup, g.ID))
	}
	for _, c := range b.Categories {
		errs = append(errs, define(EntityCategory, c.ID), ref(EntityCategory, c.ID, "group", EntityGroup, c.GroupID))
	}
	for _, p := range b.Payees {
		errs = append(errs, define(EntityPayee, p.ID), ref(EntityPayee, p.ID, "transfer account", EntityAccount, p.TransferAccount))
	}
	// Transfers may name split parts, so every part is defined before any side is checked.
	sides := map[string]side{}
	for _, t := range b.Transactions {
		errs = append(errs, define(EntityTransaction, t.ID))
		sides[t.ID] = side{t.AccountID, t.Amount, t.TransferID}
		for _, s := range t.Splits {
			errs = append(errs, define(EntityTransaction, s.ID))
			sides[s.ID] = side{t.AccountID, s.Amount, s.TransferID}
		}
	}
	for _, t := range b.Transactions {
		errs = append(errs, ref(EntityTransaction, t.ID, "account", EntityAccount, t.AccountID),
			ref(EntityTransaction, t.ID, "payee", EntityPayee, t.PayeeID),
			ref(EntityTransaction, t.ID, "category", EntityCategory, t.CategoryID),
			checkTransfer(sides, t.ID))
		if t.AccountID == "" {
			errs = append(errs, fmt.Errorf("transaction %q has no account", t.ID))
		}
		if len(t.Splits) == 0 {
			continue
		}
		sum := decimal.Zero
		for _, s := range t.Splits {
			sum = sum.Add(s.Amount)
			errs = append(errs, ref("split part", s.ID, "payee", EntityPayee, s.PayeeID),
				ref("split part", s.ID, "category", EntityCategory, s.CategoryID), checkTransfer(sides, s.ID))
		}
		if !sum.Equal(t.Amount) {
			errs = append(errs, fmt.Errorf("transaction %q is %s but its split parts add up to %s", t.ID, t.Amount, sum))
		}
	}
	for i, m := range b.Months {
		if i > 0 && !m.Month.After(b.Months[i-1].Month) {
			errs = append(errs, fmt.Errorf("budget month %s follows %s", m.Month.Format("2006-01"), b.Months[i-1].Month.Format("2006-01")))
		}
		for _, l := range m.Lines {
			errs = append(errs, ref(EntityMonth, m.Month.Format("2006-01"), "category", EntityCategory, l.CategoryID))
			if !slices.Contains([]string{RolloverOff, RolloverSurplus, RolloverBoth}, l.Rollover) {
				errs = append(errs, fmt.Errorf("budget month %s has rollover %q for category %q", m.Month.Format("2006-01"), l.Rollover, l.CategoryID))
			}
		}
	}
	for _, s := range b.Schedules {
		errs = append(errs, define(EntitySchedule, s.ID), ref(EntitySchedule, s.ID, "account", EntityAccount, s.AccountID),
			ref(EntitySchedule, s.ID, "payee", EntityPayee, s.PayeeID), ref(EntitySchedule, s.ID, "category", EntityCategory, s.CategoryID))
	}
	for _, g := range b.Goals {
		errs = append(errs, ref(EntityGoal, g.Kind, "category", EntityCategory, g.CategoryID))
	}
	names := map[string]string{}
	for _, g := range b.Groups {
		names[g.Name] = g.ID
	}
	for _, c := range b.Categories {
		if other, dup := names[c.Name]; dup {
			errs = append(errs, fmt.Errorf("category %q and %q are both called %q", c.ID, other, c.Name))
		}
		names[c.Name] = c.ID
	}
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// side is what a transfer's check needs of one side.
type side struct {
	account  string
	amount   decimal.Decimal
	transfer string
}

// checkTransfer checks that the transfer from id names a side that names id back, in another
// account, with the opposite amount.
func checkTransfer(sides map[string]side, id string) error {
	s := sides[id]
	if s.transfer == "" {
		return nil
	}
	o, ok := sides[s.transfer]
	switch {
	case !ok:
		return fmt.Errorf("transaction %q is a transfer with %q, which is no transaction of the budget", id, s.transfer)
	case o.transfer != id:
		return fmt.Errorf("transaction %q is a transfer with %q, which names %q instead", id, s.transfer, o.transfer)
	case o.account == s.account:
		return fmt.Errorf("transaction %q is a transfer with %q in the same account", id, s.transfer)
	case !o.amount.Neg().Equal(s.amount):
		return fmt.Errorf("transaction %q of %s is a transfer with %q of %s", id, s.amount, s.transfer, o.amount)
	}
	return nil
}
