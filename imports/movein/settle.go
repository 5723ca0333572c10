package movein

import (
	"fmt"

	"github.com/shopspring/decimal"
)

// Settle ends every reader's work, once everything is read: it leaves out a second thing
// under an id already used (or one with no id), gives each split whose parts do not add up a
// part for the difference, keeps only the transfers whose sides hold together, and makes the
// category names unique; each with a notice. What is left passes Check.
func (b *Budget) Settle() {
	b.dropDuplicates()
	b.balanceSplits()
	b.PairTransfers()
	b.UniqueNames()
}

// dropDuplicates keeps the first of each id of a kind; transactions and split parts share
// theirs, as transfers name either.
func (b *Budget) dropDuplicates() {
	b.Accounts = unique(b, b.Accounts, EntityAccount, func(a Account) (string, string) { return a.ID, a.Name })
	b.Payees = unique(b, b.Payees, EntityPayee, func(p Payee) (string, string) { return p.ID, p.Name })
	b.Groups = unique(b, b.Groups, EntityGroup, func(g CategoryGroup) (string, string) { return g.ID, g.Name })
	b.Categories = unique(b, b.Categories, EntityCategory, func(c Category) (string, string) { return c.ID, c.Name })
	b.Schedules = unique(b, b.Schedules, EntitySchedule, func(s Schedule) (string, string) { return s.ID, s.Name })
	seen := map[string]bool{}
	kept := b.Transactions[:0]
	for _, t := range b.Transactions {
		if b.fresh(seen, EntityTransaction, t.ID, "") {
			t.Splits = unique(b, t.Splits, EntityTransaction, func(s Split) (string, string) { return s.ID, "" }, seen)
			kept = append(kept, t)
		}
	}
	b.Transactions = kept
}

// unique keeps the first of list's elements of each id, and none without one. seen, when
// given, is shared with other lists of the same ids.
func unique[T any](b *Budget, list []T, entity string, key func(T) (id, name string), seen ...map[string]bool) []T {
	ids := map[string]bool{}
	if len(seen) > 0 {
		ids = seen[0]
	}
	kept := list[:0]
	for _, v := range list {
		if id, name := key(v); b.fresh(ids, entity, id, name) {
			kept = append(kept, v)
		}
	}
	return kept
}

// fresh records id among ids and reports whether it is a new one, noting why not.
func (b *Budget) fresh(ids map[string]bool, entity, id, name string) bool {
	switch {
	case id == "":
		b.Note(NotKept, entity, id, name, "it has no id, so nothing can name it")
	case ids[id]:
		b.Note(NotKept, entity, id, name, "its id is another %s's too: the first one is kept", entity)
	default:
		ids[id] = true
		return true
	}
	return false
}

// balanceSplits gives each split transaction whose parts do not add up to it (Actual shows the
// error and keeps them; a part may be lost) a part without a category for the difference,
// so that the money stays whole and the native import's check of split sums holds.
func (b *Budget) balanceSplits() {
	var ids map[string]bool // every id, gathered when a split first needs a part of its own
	for i := range b.Transactions {
		tx := &b.Transactions[i]
		if len(tx.Splits) == 0 {
			continue
		}
		sum := decimal.Zero
		for _, s := range tx.Splits {
			sum = sum.Add(s.Amount.Decimal())
		}
		diff := tx.Amount.Decimal().Sub(sum)
		if diff.IsZero() {
			continue
		}
		rest, ok := AmountOf(diff)
		if !ok {
			tx.Splits = nil
			b.Note(KeptAs, EntityTransaction, tx.ID, "", "its split parts add up to %s, beyond any amount, of its %s: it is kept without its parts", sum, tx.Amount)
			continue
		}
		if ids == nil {
			ids = b.ids()
		}
		id := tx.ID + "/rest"
		for n := 2; ids[id]; n++ {
			id = fmt.Sprintf("%s/rest%d", tx.ID, n)
		}
		ids[id] = true
		tx.Splits = append(tx.Splits, Split{ID: id, Amount: rest, Notes: "The part of the split left unassigned"})
		b.Note(KeptAs, EntityTransaction, tx.ID, "", "its split parts add up to %s of its %s: the difference is kept as a part without a category", sum, tx.Amount)
	}
}

// ids are the ids of the transactions and split parts.
func (b *Budget) ids() map[string]bool {
	ids := map[string]bool{}
	for _, t := range b.Transactions {
		ids[t.ID] = true
		for _, s := range t.Splits {
			ids[s.ID] = true
		}
	}
	return ids
}
