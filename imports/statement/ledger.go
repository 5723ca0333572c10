package statement

import (
	"fmt"

	"github.com/shopspring/decimal"
)

// ledger walks a statement's transactions and balance lines in order, giving each amount its
// direction and checking every balance the statement prints against the amounts before it.
//
// Balances are kept as the statement prints them. For a bank account, money in raises the
// balance: balance = previous + amount. A credit card's balance is what is owed, which money
// in (a payment) lowers: balance = previous − amount. Amounts always use the money-in-positive
// convention, so a card purchase is negative and raises what is owed.
type ledger struct {
	st     *Statement
	card   bool
	prev   *decimal.Decimal // the running balance after the last event, when known
	breaks int              // balances that do not follow from the amounts
	// lineBreaks counts the breaks on transaction lines, which are reported on the lines.
	lineBreaks int
	// flippable marks the lines whose direction only comes from the card convention that an
	// unsigned amount is a purchase; see flipCardSigns.
	flippable []bool
	printed   bool // whether any line printed a running balance
}

func newLedger(st *Statement) *ledger {
	return &ledger{st: st, card: st.Kind == KindCreditCard}
}

// run fills the statement's lines, opening and closing balances, problems and Reconciled.
// Each event's transaction is let go once its line is made, so that a long statement's
// transactions and lines are not all held at once.
func (g *ledger) run(events []event) {
	openingAt, txns := g.findBalances(events)
	g.prev = g.st.Opening
	g.st.Lines, g.flippable = make([]Line, 0, txns), make([]bool, 0, txns)
	for i, e := range events {
		switch {
		case e.txn != nil:
			g.transaction(e.txn)
			events[i].txn = nil
		case i == openingAt || !e.marker.found:
			// The opening balance starts the chain rather than continuing it; a label
			// without an amount says nothing to check.
		case e.marker.kind == markBroughtForward:
			g.carry(e, "brought forward", "carried from the page before")
		case e.marker.kind == markCarriedForward:
			g.carry(e, "carried forward", "computed from the lines above it")
		}
	}
	g.flipCardSigns()
	if g.lineBreaks > 0 {
		g.st.Problems = append(g.st.Problems, fmt.Sprintf("%d running balance(s) printed on transaction lines "+
			"do not follow from the amounts; see those lines' problems.", g.lineBreaks))
	}
	reconcile(g.st, g.breaks)
}

// findBalances sets the opening and closing balances: the first "opening"-type and
// "closing"-type balance lines, or failing an opening one, a "brought forward" balance printed
// before any transaction. It returns the index of the event used as the opening (or -1) and
// how many transactions there are, and reports balance lines that contradict the ones used.
func (g *ledger) findBalances(events []event) (openingAt, txns int) {
	openingAt, firstTxn := -1, len(events)
	for i, e := range events {
		if e.txn != nil {
			txns++
		}
		if e.txn != nil && firstTxn == len(events) {
			firstTxn = i
		}
		if e.txn != nil || !e.marker.found {
			continue
		}
		v := g.balanceValue(e.marker.amount)
		switch e.marker.kind {
		case markOpening:
			g.setOnce(&g.st.Opening, v, "opening")
			if openingAt < 0 || events[openingAt].marker.kind != markOpening {
				openingAt = i
			}
		case markClosing:
			g.setOnce(&g.st.Closing, v, "closing")
		case markBroughtForward:
			if openingAt < 0 && i < firstTxn {
				openingAt = i
			}
		}
	}
	if g.st.Opening == nil && openingAt >= 0 {
		v := g.balanceValue(events[openingAt].marker.amount)
		g.st.Opening = &v
	}
	return openingAt, txns
}

// setOnce sets *dst to v unless it is set already, and reports a second, different value.
func (g *ledger) setOnce(dst **decimal.Decimal, v decimal.Decimal, what string) {
	if *dst == nil {
		*dst = &v
		return
	}
	if !(*dst).Equal(v) {
		g.st.Problems = append(g.st.Problems, fmt.Sprintf("The statement prints two different %s balances, "+
			"%s and %s; the first one is used.", what, formatMoney(**dst), formatMoney(v)))
	}
}

// balanceValue reads a printed balance. A "DR" bank balance is overdrawn (negative); a "CR"
// card balance is one the card owes you (negative owed).
func (g *ledger) balanceValue(m money) decimal.Decimal {
	neg := m.neg
	switch m.mark {
	case "CR":
		neg = g.card
	case "DR":
		neg = !g.card
	}
	if neg {
		return m.abs.Neg()
	}
	return m.abs
}

// carry checks a "brought/carried forward" balance against the running balance, and goes on
// from the printed one.
func (g *ledger) carry(e event, what, source string) {
	v := g.balanceValue(e.marker.amount)
	if g.prev != nil && !g.prev.Equal(v) {
		g.breaks++
		g.st.Problems = append(g.st.Problems, fmt.Sprintf("Page %d: the balance %s, %s, is not the running "+
			"balance %s %s.", e.page, what, formatMoney(v), formatMoney(*g.prev), source))
	}
	g.prev = &v
}

// transaction gives t's amount its direction, checks its running balance and adds it to the
// statement's lines.
func (g *ledger) transaction(t *txn) {
	line := t.line
	amt, decided, flippable, bal := g.read(t)
	if bal != nil {
		g.printed = true
		line.Balance = bal
		if g.prev != nil {
			change := bal.Sub(*g.prev)
			if g.card {
				change = change.Neg()
			}
			// An unsigned amount takes its direction from the running balance beside it.
			if !decided && change.Abs().Equal(amt.Abs()) {
				amt, flippable = change, false
			}
			if !change.Equal(amt) {
				g.breaks++
				g.lineBreaks++
				line.Problems = append(line.Problems, fmt.Sprintf("running balance %s does not follow from the "+
					"previous balance %s and this amount %s (expected %s)", formatMoney(*bal), formatMoney(*g.prev),
					formatMoney(amt), formatMoney(g.after(*g.prev, amt))))
			}
		}
		g.prev = bal
	} else if g.prev != nil {
		next := g.after(*g.prev, amt)
		g.prev = &next
	}
	line.Amount = amt
	g.st.Lines = append(g.st.Lines, line)
	g.flippable = append(g.flippable, flippable)
}

// after is the balance after amount.
func (g *ledger) after(balance, amount decimal.Decimal) decimal.Decimal {
	if g.card {
		return balance.Sub(amount)
	}
	return balance.Add(amount)
}

// read turns t's amounts into a signed amount and the running balance, if printed. decided
// reports whether the direction is certain (a sign, a mark or a debit/credit column).
func (g *ledger) read(t *txn) (amt decimal.Decimal, decided, flippable bool, bal *decimal.Decimal) {
	for i, a := range t.amounts {
		switch t.roles[i] {
		case roleDebit:
			amt, decided = amt.Sub(a.abs), true
		case roleCredit:
			amt, decided = amt.Add(a.abs), true
		case roleAmount:
			amt = amt.Add(g.signed(a.money))
			decided = decided || a.explicit()
			flippable = g.card && a.mark == ""
		case roleBalance:
			v := g.balanceValue(a.money)
			bal = &v
		}
	}
	return amt, decided, flippable, bal
}

// signed reads an amount of a single amount column. "CR" is money in and "DR" money out on
// any statement. Otherwise a bank statement prints money out as negative; a card statement
// prints purchases unsigned and payments negative, so its signs are the other way round.
func (g *ledger) signed(m money) decimal.Decimal {
	switch m.mark {
	case "CR":
		return m.abs
	case "DR":
		return m.abs.Neg()
	}
	v := m.abs
	if m.neg {
		v = v.Neg()
	}
	if g.card {
		v = v.Neg()
	}
	return v
}

// flipCardSigns handles card statements that print purchases as negative: when no running
// balance was printed to decide, the lines do not reconcile under the usual card convention
// and do with every convention-signed amount turned round, they are turned round.
func (g *ledger) flipCardSigns() {
	st := g.st
	if !g.card || g.printed || st.Opening == nil || st.Closing == nil {
		return
	}
	sum, flipped := decimal.Zero, decimal.Zero
	for i, l := range st.Lines {
		sum = sum.Add(l.Amount)
		if g.flippable[i] {
			flipped = flipped.Sub(l.Amount)
		} else {
			flipped = flipped.Add(l.Amount)
		}
	}
	if st.Opening.Sub(sum).Equal(*st.Closing) || !st.Opening.Sub(flipped).Equal(*st.Closing) {
		return
	}
	for i := range st.Lines {
		if g.flippable[i] {
			st.Lines[i].Amount = st.Lines[i].Amount.Neg()
		}
	}
}

// reconcile sets Reconciled and explains why not: the lines must account for the whole
// difference between the opening and closing balances (bank: closing = opening + sum; credit
// card, whose balances are owed: closing = opening − sum), and none of the balances printed
// along the way may have failed to follow (breaks counts those that did).
func reconcile(st *Statement, breaks int) {
	card := st.Kind == KindCreditCard
	openName, closeName := "opening", "closing"
	if card {
		openName, closeName = "previous", "new"
	}
	if len(st.Lines) == 0 {
		st.Problems = append(st.Problems, "No transaction lines were found.")
	}
	if st.Opening == nil {
		st.Problems = append(st.Problems, fmt.Sprintf("No %s balance was found, so the lines cannot be "+
			"checked against the statement's balances.", openName))
	}
	if st.Closing == nil {
		st.Problems = append(st.Problems, fmt.Sprintf("No %s balance was found, so the lines cannot be "+
			"checked against the statement's balances.", closeName))
	}
	if st.Opening == nil || st.Closing == nil {
		return
	}
	sum := decimal.Zero
	for _, l := range st.Lines {
		sum = sum.Add(l.Amount)
	}
	computed := st.Opening.Add(sum)
	verb := "plus"
	if card {
		computed, verb = st.Opening.Sub(sum), "less"
	}
	if computed.Equal(*st.Closing) {
		st.Reconciled = breaks == 0
		return
	}
	st.Problems = append(st.Problems, fmt.Sprintf("%s balance %s %s the %s (%s) is %s, but the statement's "+
		"%s balance is %s: %s is unaccounted for.", capitalize(openName), formatMoney(*st.Opening), verb,
		countLines(len(st.Lines)), formatMoney(sum), formatMoney(computed), closeName, formatMoney(*st.Closing),
		formatMoney(st.Closing.Sub(computed).Abs())))
}

func countLines(n int) string {
	if n == 1 {
		return "1 transaction"
	}
	return fmt.Sprintf("%d transactions", n)
}

func capitalize(s string) string {
	if s == "" {
		return s
	}
	return string(s[0]-'a'+'A') + s[1:]
}
