package banksync

import (
	"fmt"
	"slices"
	"time"

	"github.com/shopspring/decimal"

	"tally/models"
)

// maxQuantity bounds a holding's quantity and price: numeric(24,8) holds 16 digits before the
// point.
var maxQuantity = decimal.New(1, 16)

// screenAmounts leaves out of what the provider sent the amounts Tally cannot store (past
// numeric(19,4), such as a bank's -1e30), each with a warning in stats: the transaction or
// holding is skipped and the balance left unread, so that one absurd amount does not fail
// every sync of the connection while the rest syncs.
func screenAmounts(sets []*AccountSet, stats *Stats) {
	for _, set := range sets {
		for i := range set.Accounts {
			a := &set.Accounts[i]
			a.Transactions = slices.DeleteFunc(a.Transactions, func(t Transaction) bool {
				if models.AmountFits(t.Amount) {
					return false
				}
				stats.skip(fmt.Sprintf("A transaction of %s on %s in %s was skipped: its amount is larger than Tally can keep. Check it at your bank.",
					t.Amount, transactionDay(t), a.Name))
				return true
			})
			for _, b := range []**decimal.Decimal{&a.Balance, &a.Available} {
				if *b != nil && !models.AmountFits(**b) {
					stats.skip(fmt.Sprintf("The balance of %s that the bank reported, %s, was left out: it is larger than Tally can keep.", a.Name, **b))
					*b = nil
				}
			}
			a.Holdings = slices.DeleteFunc(a.Holdings, func(h Holding) bool {
				if holdingFits(h) {
					return false
				}
				stats.skip(fmt.Sprintf("The holding %s in %s was skipped: its amounts are larger than Tally can keep.", orDefault(h.Symbol, h.Description), a.Name))
				return true
			})
		}
	}
}

// holdingFits reports whether a holding's value, cost, quantity and price can be stored.
func holdingFits(h Holding) bool {
	if !models.AmountFits(h.MarketValue) || !models.AmountFits(h.CostBasis) || h.Shares.Abs().GreaterThanOrEqual(maxQuantity) {
		return false
	}
	return h.Shares.IsZero() || h.MarketValue.DivRound(h.Shares, 8).Abs().LessThan(maxQuantity)
}

// transactionDay is the day a transaction is booked on, as the warnings name it.
func transactionDay(t Transaction) string {
	day := t.Posted
	if day == nil {
		day = t.TransactedAt
	}
	if day == nil {
		return "an unknown day"
	}
	return day.Format(time.DateOnly)
}
