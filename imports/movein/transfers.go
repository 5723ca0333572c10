package movein

import (
	"fmt"

	"github.com/shopspring/decimal"
)

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
// not sound, with why, and each id's link.
func (b *Budget) transferFaults() (order []string, links map[string]*string, faults map[string]string) {
	type side struct {
		account string
		amount  decimal.Decimal
	}
	links, faults = map[string]*string{}, map[string]string{}
	sides := map[string]side{}
	for i := range b.Transactions {
		t := &b.Transactions[i]
		links[t.ID], sides[t.ID], order = &t.TransferID, side{t.AccountID, t.Amount}, append(order, t.ID)
		for k := range t.Splits {
			s := &t.Splits[k]
			links[s.ID], sides[s.ID], order = &s.TransferID, side{t.AccountID, s.Amount}, append(order, s.ID)
		}
	}
	for _, id := range order {
		other := *links[id]
		if other == "" {
			continue
		}
		here, there := sides[id], sides[other]
		switch {
		case links[other] == nil:
			faults[id] = fmt.Sprintf("the other side of its transfer, %q, is not in the export", other)
		case *links[other] != id:
			faults[id] = fmt.Sprintf("the other side of its transfer, %q, does not name it back", other)
		case there.account == here.account:
			faults[id] = fmt.Sprintf("its transfer is with %q in the same account", other)
		case !there.amount.Equal(here.amount.Neg()):
			faults[id] = fmt.Sprintf("the other side of its transfer, %q, is of %s, not %s", other, there.amount, here.amount.Neg())
		}
	}
	return order, links, faults
}
