package actual

import (
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"tally/imports/movein"
)

// txRow is one row of the transactions table that is not deleted.
type txRow struct {
	id, account, category, payee, notes, parent, transfer, schedule string
	importedID, importedPayee                                       string
	amount                                                          int64
	date                                                            time.Time
	isParent, isChild, cleared, reconciled, opening                 bool
}

// transactions reads the transactions that are not deleted, with their split parts and
// transfer counterparts. Like Actual's views, it leaves out rows without a date or an
// account, and parts without a parent. Each transaction is kept as it is read, and only the
// split parts wait for the end, when every parent is known: a budget's rows are not held twice.
func (r *reader) transactions() error {
	children := map[string][]txRow{}
	// parents is where each row that is not a split part went: its index among the
	// transactions when it is a split's parent, -1 otherwise (one of a deleted account too).
	parents := map[string]int{}
	skipped := map[string]int{}
	n := 0
	err := r.db.each("transactions", []string{"id", "isParent", "isChild", "?parent_id", "acct", "category", "amount", "description",
		"notes", "date", "financial_id", "imported_description", "transferred_id", "cleared", "?reconciled", "starting_balance_flag", "?schedule"},
		"WHERE "+alive+" AND date IS NOT NULL AND acct IS NOT NULL ORDER BY date, starting_balance_flag DESC, sort_order DESC, id",
		func(row row) error {
			n++
			if err := movein.Count(movein.EntityTransaction, n); err != nil {
				return err
			}
			t, err := r.txRow(row)
			switch {
			case err != nil:
				return err
			case t.isChild:
				if t.parent != "" {
					children[t.parent] = append(children[t.parent], t)
				}
				return nil
			}
			parents[t.id] = -1
			if r.accountByID[t.account] == nil {
				if r.deletedAccounts[t.account] {
					skipped[t.account]++ // Actual shows no account for these: they went with it
					return nil
				}
				return movein.Errorf(movein.EntityTransaction, t.id, "transaction %q names account %q, which is not in the export", t.id, t.account)
			}
			if t.isParent {
				parents[t.id] = len(r.b.Transactions)
			}
			r.b.Transactions = append(r.b.Transactions, r.transaction(t))
			return nil
		})
	if err != nil {
		return err
	}
	for parent, parts := range children {
		i, ok := parents[parent]
		if !ok {
			continue // an orphan, noted below
		}
		if i >= 0 {
			r.split(&r.b.Transactions[i], parts)
		}
		delete(children, parent)
	}
	for _, account := range slices.Sorted(maps.Keys(skipped)) {
		r.b.Note(movein.NotKept, movein.EntityAccount, account, "", "the account is deleted, and so are its %d transactions", skipped[account])
	}
	return r.orphans(children)
}

// txRow reads a row of the transactions table.
func (r *reader) txRow(row row) (txRow, error) {
	t := txRow{id: row.text("id"), account: row.text("acct"), category: row.text("category"), payee: row.text("description"),
		notes: row.text("notes"), parent: row.text("parent_id"), transfer: row.text("transferred_id"), schedule: row.text("schedule"),
		importedID: row.text("financial_id"), importedPayee: strings.TrimSpace(row.text("imported_description")),
		amount: row.int("amount"), isParent: row.bool("isParent"), isChild: row.bool("isChild"), cleared: row.bool("cleared"),
		reconciled: row.bool("reconciled"), opening: row.bool("starting_balance_flag")}
	if a := r.accountByID[t.account]; a != nil {
		t.account = a.ID // one string for every transaction of the account
	}
	var ok bool
	if t.date, ok = date(row.int("date")); !ok {
		return t, movein.Errorf(movein.EntityTransaction, t.id, "transaction %q has date %s, which is no date", t.id, row.text("date"))
	}
	return t, nil
}

// date reads Actual's YYYYMMDD dates.
func date(n int64) (time.Time, bool) {
	y, m, d := int(n/10000), time.Month(n/100%100), int(n%100)
	t := time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
	return t, y >= 1000 && y <= 9999 && t.Month() == m && t.Day() == d
}

// amount is Actual's integer hundredths in the ledger's sign (Actual's money in is positive).
func amount(cents int64) decimal.Decimal { return decimal.New(cents, -2).Neg() }

func (r *reader) transaction(t txRow) movein.Transaction {
	tx := movein.Transaction{ID: t.id, AccountID: t.account, Date: t.date, Amount: amount(t.amount), PayeeID: r.payee(t.payee),
		Notes: t.notes, ImportedID: t.importedID, ImportedPayee: t.importedPayee, Cleared: t.cleared, Reconciled: t.reconciled,
		Opening: t.opening, TransferID: t.transfer}
	if !t.isParent { // a split's parent has no category of its own: its parts have them
		tx.CategoryID = r.category(t.category)
	}
	if r.schedulesAlive[t.schedule] {
		tx.ScheduleID = t.schedule
	}
	return tx
}

// split attaches a parent's parts; one with no parts left is a plain transaction without a
// category.
func (r *reader) split(tx *movein.Transaction, parts []txRow) {
	for _, p := range parts {
		s := movein.Split{ID: p.id, Amount: amount(p.amount), CategoryID: r.category(p.category), Notes: p.notes, TransferID: p.transfer}
		if payee := r.payee(p.payee); payee != tx.PayeeID {
			s.PayeeID = payee
		}
		tx.Splits = append(tx.Splits, s)
	}
}

// orphans notes the split parts whose parent is not in the export at all; those whose parent
// is deleted went with it, as in Actual.
func (r *reader) orphans(children map[string][]txRow) error {
	if len(children) == 0 {
		return nil
	}
	deleted := map[string]bool{}
	err := r.db.each("transactions", []string{"id"}, "WHERE NOT "+alive+" AND isParent = 1", func(row row) error {
		deleted[row.text("id")] = true
		return nil
	})
	if err != nil {
		return err
	}
	for _, parent := range slices.Sorted(maps.Keys(children)) {
		if deleted[parent] {
			continue
		}
		for _, p := range children[parent] {
			r.b.Note(movein.NotKept, movein.EntityTransaction, p.id, "", "it is a part of split transaction %q, which is not in the export", parent)
		}
	}
	return nil
}
