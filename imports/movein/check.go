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
	for _, t := range b.Transactions {
		errs = append(errs, define(EntityTransaction, t.ID))
		for _, s := range t.Splits {
			errs = append(errs, define(EntityTransaction, s.ID))
		}
	}
	order, _, faults := b.transferFaults()
	for _, id := range order {
		if reason, ok := faults[id]; ok {
			errs = append(errs, fmt.Errorf("transaction %q: %s", id, reason))
		}
	}
	for _, t := range b.Transactions {
		errs = append(errs, ref(EntityTransaction, t.ID, "account", EntityAccount, t.AccountID),
			ref(EntityTransaction, t.ID, "payee", EntityPayee, t.PayeeID),
			ref(EntityTransaction, t.ID, "category", EntityCategory, t.CategoryID))
		if t.AccountID == "" {
			errs = append(errs, fmt.Errorf("transaction %q has no account", t.ID))
		}
		if len(t.Splits) == 0 {
			continue
		}
		sum := decimal.Zero
		for _, s := range t.Splits {
			sum = sum.Add(s.Amount.Decimal())
			errs = append(errs, ref("split part", s.ID, "payee", EntityPayee, s.PayeeID),
				ref("split part", s.ID, "category", EntityCategory, s.CategoryID))
		}
		if !t.Amount.Equal(sum) {
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
