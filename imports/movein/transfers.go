package movein

import "fmt"

// PairTransfers keeps each transfer's link where both sides are in the budget and name each
// other with mirrored amounts in two accounts; it unlinks the others, with a notice, so that
// each side stays a transaction of its own. Readers call it once they have read every side.
func (b *Budget) PairTransfers() {
	order, links, faults := b.transferFaults()
	for _, id := range order { // decided on the links as read, then applied
		if reason, ok := faults[id]; ok {
			*links[id] = ""
			b.Note(KeptAs, EntityTransaction, id, "", "%s: it is kept as a transaction of its own", reason)
		}
	}
}

// transferFaults finds the transaction and split part ids (in order) whose transfer link is
// not sound, with why, and each linked id's link. It keeps the sides of transfers and the ids
// they name, not every transaction: a large budget's transfers are a tenth of it, and maps of
// all of its transactions were most of what reading it took beyond the budget itself.
func (b *Budget) transferFaults() (order []string, links map[string]*string, faults map[string]string) {
	named := map[string]bool{}
	b.eachSide(func(_, _ string, _ Amount, link *string) {
		if *link != "" {
			named[*link] = true
		}
	})
	type side struct {
		account string
		amount  Amount
		link    *string
	}
	sides := map[string]side{}
	links, faults = map[string]*string{}, map[string]string{}
	b.eachSide(func(id, account string, amount Amount, link *string) {
		if *link != "" || named[id] {
			sides[id] = side{account, amount, link}
		}
		if *link != "" {
			links[id], order = link, append(order, id)
		}
	})
	for _, id := range order {
		other := *links[id]
		here, there := sides[id], sides[other]
		switch {
		case there.link == nil:
			faults[id] = fmt.Sprintf("the other side of its transfer, %q, is not in the export", other)
		case *there.link != id:
			faults[id] = fmt.Sprintf("the other side of its transfer, %q, does not name it back", other)
		case there.account == here.account:
			faults[id] = fmt.Sprintf("its transfer is with %q in the same account", other)
		case !there.amount.Equal(here.amount.Decimal().Neg()):
			faults[id] = fmt.Sprintf("the other side of its transfer, %q, is of %s, not %s", other, there.amount, here.amount.Decimal().Neg())
		}
	}
	return order, links, faults
}

// eachSide calls fn on each transaction and split part, in order, with its account, amount
// and transfer link.
func (b *Budget) eachSide(fn func(id, account string, amount Amount, link *string)) {
	for i := range b.Transactions {
		t := &b.Transactions[i]
		fn(t.ID, t.AccountID, t.Amount, &t.TransferID)
		for k := range t.Splits {
			s := &t.Splits[k]
			fn(s.ID, t.AccountID, s.Amount, &s.TransferID)
		}
	}
}
