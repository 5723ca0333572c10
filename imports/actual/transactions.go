package actual

import (
	"maps"
	"math"
	"slices"
	"strings"
	"time"

	"tally/imports/movein"
)

// txRow is one row of the transactions table that is not deleted. Its payee, category and
// schedule are resolved as it is read (payee and category through their mappings, "" for
// none), so that the ids a row only names are looked up, not copied: a large budget's rows
// would otherwise leave three copies of ids behind for each one they keep.
type txRow struct {
	id, account, category, payee, notes, parent, transfer, schedule string
	importedID, importedPayee                                       string
	amount                                                          int64
	date                                                            time.Time
	isParent, isChild, cleared, reconciled, opening                 bool
}

// txColumns are the columns of the transactions table that the reader reads.
var txColumns = []string{"id", "isParent", "isChild", "?parent_id", "acct", "category", "amount", "description",
	"notes", "date", "financial_id", "imported_description", "transferred_id", "cleared", "?reconciled", "starting_balance_flag", "?schedule"}

// txOrder is the order Actual lists an account's transactions in, read the other way up.
const txOrder = " ORDER BY date, starting_balance_flag DESC, sort_order DESC, id"

// shown is the condition of a row that Actual's views show: not deleted, with a date and an
// account.
const shown = alive + " AND date IS NOT NULL AND acct IS NOT NULL"

// transactions reads the transactions that are not deleted, with their split parts and
// transfer counterparts. Like Actual's views, it leaves out rows without a date or an
// account, and parts without a parent. The parts are read first, a tenth of the rows, so
// that each transaction takes its own as it is read and nothing else waits for the end; the
// list of transactions is made at its full size at once, since growing it would hold it
// twice over for a moment (a large budget's is tens of MB).
func (r *reader) transactions() error {
	children, n, err := r.splitParts()
	if err != nil {
		return err
	}
	rows, err := r.db.count("transactions", shown+" AND NOT "+flag("isChild"))
	if err != nil {
		return err
	}
	if err := movein.Count(movein.EntityTransaction, n+rows); err != nil {
		return err
	}
	r.b.Transactions = make([]movein.Transaction, 0, rows)
	skipped := map[string]int{}
	err = r.db.each("transactions", txColumns, "WHERE "+shown+" AND NOT "+flag("isChild")+txOrder, func(row row) error {
		n++
		if err := movein.Count(movein.EntityTransaction, n); err != nil {
			return err
		}
		t, err := r.txRow(row)
		if err != nil {
			return err
		}
		// The parts of a row that is no split, or is in a deleted account, go with it.
		parts := children[t.id]
		delete(children, t.id)
		if r.accountByID[t.account] == nil {
			if r.deletedAccounts[t.account] {
				skipped[t.account]++ // Actual shows no account for these: they went with it
				return nil
			}
			return movein.Errorf(movein.EntityTransaction, t.id, "transaction %q names account %q, which is not in the export", t.id, t.account)
		}
		tx := r.transaction(t)
		if t.isParent {
			r.split(&tx, parts)
		}
		r.b.Transactions = append(r.b.Transactions, tx)
		return nil
	})
	if err != nil {
		return err
	}
	for _, account := range slices.Sorted(maps.Keys(skipped)) {
		r.b.Note(movein.NotKept, movein.EntityAccount, account, "", "the account is deleted, and so are its %d transactions", skipped[account])
	}
	return r.orphans(children)
}

// splitParts reads the split parts that are not deleted, by their parent's id, and counts them.
func (r *reader) splitParts() (map[string][]txRow, int, error) {
	children := map[string][]txRow{}
	n := 0
	err := r.db.each("transactions", txColumns, "WHERE "+shown+" AND "+flag("isChild")+txOrder, func(row row) error {
		n++
		if err := movein.Count(movein.EntityTransaction, n); err != nil {
			return err
		}
		t, err := r.txRow(row)
		if err == nil && t.parent != "" {
			children[t.parent] = append(children[t.parent], t)
		}
		return err
	})
	return children, n, err
}

// txRow reads a row of the transactions table.
func (r *reader) txRow(row row) (txRow, error) {
	t := txRow{id: row.text("id"), category: r.categoryOf(row.key("category")), payee: r.payeeOf(row.key("description")),
		notes: row.text("notes"), parent: row.text("parent_id"), transfer: row.text("transferred_id"),
		importedID: row.text("financial_id"), importedPayee: strings.TrimSpace(row.text("imported_description")),
		amount: row.int("amount"), isParent: row.bool("isParent"), isChild: row.bool("isChild"), cleared: row.bool("cleared"),
		reconciled: row.bool("reconciled"), opening: row.bool("starting_balance_flag")}
	if a := r.accountByID[string(row.key("acct"))]; a != nil {
		t.account = a.ID // one string for every transaction of the account
	} else {
		t.account = row.text("acct")
	}
	if id := row.key("schedule"); r.schedulesAlive[string(id)] {
		t.schedule = string(id)
	}
	var ok bool
	if t.date, ok = date(row.int("date")); !ok {
		return t, movein.Errorf(movein.EntityTransaction, t.id, "transaction %q has date %s, which is no date", t.id, row.text("date"))
	}
	if t.amount == math.MinInt64 {
		return t, movein.Errorf(movein.EntityTransaction, t.id, "transaction %q has amount %d, which is no amount of money", t.id, t.amount)
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
// txRow refuses the one amount whose negation is no int64.
func amount(cents int64) movein.Amount { return movein.Amount{Units: -cents, Exp: -2} }

func (r *reader) transaction(t txRow) movein.Transaction {
	tx := movein.Transaction{ID: t.id, AccountID: t.account, Date: t.date, Amount: amount(t.amount), PayeeID: t.payee,
		Notes: t.notes, ImportedID: t.importedID, ImportedPayee: t.importedPayee, Cleared: t.cleared, Reconciled: t.reconciled,
		Opening: t.opening, TransferID: t.transfer, ScheduleID: t.schedule}
	if !t.isParent { // a split's parent has no category of its own: its parts have them
		tx.CategoryID = t.category
	}
	return tx
}

// split attaches a parent's parts; one with no parts left is a plain transaction without a
// category.
func (r *reader) split(tx *movein.Transaction, parts []txRow) {
	if len(parts) > 0 {
		tx.Splits = make([]movein.Split, 0, len(parts))
	}
	for _, p := range parts {
		s := movein.Split{ID: p.id, Amount: amount(p.amount), CategoryID: p.category, Notes: p.notes, TransferID: p.transfer}
		if p.payee != tx.PayeeID {
			s.PayeeID = p.payee
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
