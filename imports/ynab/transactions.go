package ynab

import (
	"maps"
	"slices"

	"tally/imports/movein"
)

// transactions reads the transactions that are not deleted, with their sub-transactions as
// split parts, and pairs the transfers.
func (a *assembler) transactions() error {
	subs := map[string][]subtransaction{}
	for _, s := range a.raw.subtransactions {
		subs[s.TransactionID] = append(subs[s.TransactionID], s)
	}
	var pending []splitTransfer
	skipped := map[string]int{}
	for _, r := range a.raw.transactions {
		if r.Deleted {
			continue
		}
		if a.accountByID[r.AccountID] == nil {
			if a.deletedAccounts[r.AccountID] {
				skipped[r.AccountID]++
				continue
			}
			return movein.Errorf(movein.EntityTransaction, r.ID, "transaction %q names account %q, which is not in the file", r.ID, r.AccountID)
		}
		d, ok := date(r.Date)
		if !ok {
			return movein.Errorf(movein.EntityTransaction, r.ID, "transaction %q has date %q, which is no date", r.ID, r.Date)
		}
		amt, ok := entry(r.Amount)
		if !ok {
			return movein.Errorf(movein.EntityTransaction, r.ID, "transaction %q has amount %d, which is no amount of money", r.ID, r.Amount)
		}
		tx := movein.Transaction{ID: r.ID, AccountID: r.AccountID, Date: d, Amount: amt, PayeeID: a.payee(r.PayeeID),
			CategoryID: a.category(r.CategoryID), Notes: r.Memo, ImportedID: r.ImportID, ImportedPayee: r.ImportPayeeName,
			Cleared: r.Cleared == "cleared" || r.Cleared == "reconciled", Reconciled: r.Cleared == "reconciled",
			Opening: a.startingPayees[r.PayeeID], TransferID: r.TransferTransaction}
		for _, s := range append(r.Subtransactions, subs[r.ID]...) {
			if s.Deleted {
				continue
			}
			amt, ok := entry(s.Amount)
			if !ok {
				return movein.Errorf(movein.EntityTransaction, s.ID, "split part %q has amount %d, which is no amount of money", s.ID, s.Amount)
			}
			part := movein.Split{ID: s.ID, Amount: amt, CategoryID: a.category(s.CategoryID), Notes: s.Memo,
				TransferID: s.TransferTransaction}
			if p := a.payee(s.PayeeID); p != tx.PayeeID {
				part.PayeeID = p
			}
			if s.TransferAccount != "" && s.TransferTransaction == "" {
				pending = append(pending, splitTransfer{tx: len(a.b.Transactions), part: len(tx.Splits), account: s.TransferAccount})
			}
			tx.Splits = append(tx.Splits, part)
		}
		if len(tx.Splits) > 0 {
			tx.CategoryID = "" // YNAB's "Split" category, or none: the parts have them
		}
		a.b.Transactions = append(a.b.Transactions, tx)
	}
	for _, account := range slices.Sorted(maps.Keys(skipped)) {
		a.b.Note(movein.NotKept, movein.EntityAccount, account, "", "the account is deleted, and so are its %d transactions", skipped[account])
	}
	a.pairSplitTransfers(pending)
	return nil
}

// splitTransfer is a split part that moves money to another account and, as YNAB writes
// them, names no transaction there.
type splitTransfer struct {
	tx, part int // indexes into the budget's transactions and that one's splits
	account  string
}

// pairSplitTransfers finds the other side of each split transfer: a transaction of the other
// account on the same date with the opposite amount, not paired already, whose own link is
// empty or names the split; the one with the part's memo when there are several.
func (a *assembler) pairSplitTransfers(pending []splitTransfer) {
	type key struct{ account, date, amount string }
	candidates := map[key][]int{}
	for i, t := range a.b.Transactions {
		k := key{t.AccountID, t.Date.Format("2006-01-02"), t.Amount.String()}
		candidates[k] = append(candidates[k], i)
	}
	taken := map[int]bool{}
	for _, p := range pending {
		tx := &a.b.Transactions[p.tx]
		part := &tx.Splits[p.part]
		found := -1
		for _, i := range candidates[key{p.account, tx.Date.Format("2006-01-02"), part.Amount.Decimal().Neg().String()}] {
			other := &a.b.Transactions[i]
			if taken[i] || (other.TransferID != "" && other.TransferID != tx.ID && other.TransferID != part.ID) {
				continue
			}
			if found < 0 || (other.Notes == part.Notes && a.b.Transactions[found].Notes != part.Notes) {
				found = i
			}
		}
		if found < 0 {
			a.b.Note(movein.KeptAs, movein.EntityTransaction, part.ID, "",
				"it is a transfer to account %q, which has no transaction of its date and amount: it is kept as a part of its own", p.account)
			continue
		}
		taken[found] = true
		part.TransferID, a.b.Transactions[found].TransferID = a.b.Transactions[found].ID, part.ID
	}
}
