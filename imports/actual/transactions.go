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
// transfer counterparts.
func (r *reader) transactions() error {
	rows, children, err := r.readTransactions()
	if err != nil {
		return err
	}
	skipped := map[string]int{}
	for _, t := range rows {
		parts := children[t.id]
		delete(children, t.id)
		if r.accountByID[t.account] == nil {
			if r.deletedAccounts[t.account] {
				skipped[t.account]++ // Actual shows no account for these: they went with it
				continue
			}
			return movein.Errorf(movein.EntityTransaction, t.id, "transaction %q names account %q, which is not in the export", t.id, t.account)
		}
		tx := r.transaction(t)
		if t.isParent {
			r.split(&tx, parts)
		}
		r.b.Transactions = append(r.b.Transactions, tx)
	}
	for _, account := range slices.Sorted(maps.Keys(skipped)) {
		r.b.Note(movein.NotKept, movein.EntityAccount, account, "", "the account is deleted, and so are its %d transactions", skipped[account])
	}
	return r.orphans(children)
}

// readTransactions reads the rows that are not deleted: the transactions and split parents in
// order, and the split parts by parent. Like Actual's views, it leaves out rows without a
// date or an account, and parts without a parent.
func (r *reader) readTransactions() (rows []txRow, children map[string][]txRow, err error) {
	children = map[string][]txRow{}
	n := 0
	err = r.db.each("transactions", []string{"id", "isParent", "isChild", "?parent_id", "acct", "category", "amount", "description",
		"notes", "date", "financial_id", "imported_description", "transferred_id", "cleared", "?reconciled", "starting_balance_flag", "?schedule"},
		"WHERE "+alive+" AND date IS NOT NULL AND acct IS NOT NULL ORDER BY date, starting_balance_flag DESC, sort_order DESC, id",
		func(row row) error {
			n++
			if err := movein.Count(movein.EntityTransaction, n); err != nil {
				return err
			}
			t := txRow{id: row.text("id"), account: row.text("acct"), category: row.text("category"), payee: row.text("description"),
				notes: row.text("notes"), parent: row.text("parent_id"), transfer: row.text("transferred_id"), schedule: row.text("schedule"),
				importedID: row.text("financial_id"), importedPayee: strings.TrimSpace(row.text("imported_description")),
				amount: row.int("amount"), isParent: row.bool("isParent"), isChild: row.bool("isChild"), cleared: row.bool("cleared"),
				reconciled: row.bool("reconciled"), opening: row.bool("starting_balance_flag")}
			var ok bool
			if t.date, ok = date(row.int("date")); !ok {
				return movein.Errorf(movein.EntityTransaction, t.id, "transaction %q has date %s, which is no date", t.id, row.text("date"))
			}
			switch {
			case !t.isChild:
				rows = append(rows, t)
			case t.parent != "":
				children[t.parent] = append(children[t.parent], t)
			}
			return nil
		})
	return rows, children, err
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
