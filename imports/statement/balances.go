package statement

import (
	"slices"
	"strings"
)

// markerKind is what a balance line states.
type markerKind int

const (
	markOpening        markerKind = iota + 1 // "Opening balance", "Previous balance"…
	markClosing                              // "Closing balance", "New balance"…
	markBroughtForward                       // "Balance brought forward": a page's opening
	markCarriedForward                       // "Balance carried forward": a page's closing
)

// balancePhrases start the label of a balance line. Longer phrases come first so that
// "balance brought forward" is not read as "brought forward" with a stray word before it.
var balancePhrases = []struct {
	words []string
	kind  markerKind
}{
	{strings.Fields("balance brought forward"), markBroughtForward},
	{strings.Fields("balance carried forward"), markCarriedForward},
	{strings.Fields("balance b/f"), markBroughtForward},
	{strings.Fields("balance c/f"), markCarriedForward},
	{strings.Fields("brought forward"), markBroughtForward},
	{strings.Fields("carried forward"), markCarriedForward},
	{strings.Fields("balance forward"), markBroughtForward},
	{strings.Fields("opening balance"), markOpening},
	{strings.Fields("beginning balance"), markOpening},
	{strings.Fields("starting balance"), markOpening},
	{strings.Fields("previous balance"), markOpening},
	{strings.Fields("previous statement balance"), markOpening},
	{strings.Fields("closing balance"), markClosing},
	{strings.Fields("ending balance"), markClosing},
	{strings.Fields("new balance"), markClosing},
	{strings.Fields("statement balance"), markClosing},
}

// labelLeads are words that may stand before a balance phrase in a label: "Your new balance",
// "Total new balance".
var labelLeads = []string{"your", "the", "total"}

// marker is a balance a line states, with the amount printed after its label (if any).
type marker struct {
	kind   markerKind
	amount money
	found  bool // whether an amount follows the label
}

// markersIn finds the balance labels that start a cell of l (or follow the date that starts
// it), each with the first amount after it and before the next label. Requiring the label to
// start a cell keeps a description such as "Interest on previous balance" a transaction,
// while a summary box that prints "Previous balance 1,000.00   New balance 845.67" on one line
// yields both.
func markersIn(l textLine) []marker {
	type at struct {
		kind        markerKind
		first, next int // word indexes: the label's first word and the word after it
	}
	var labels []at
	for _, c := range cells(l) {
		i := skipDates(l, c.first)
		for i < len(l.words) && slices.Contains(labelLeads, normWord(l.words[i].text)) {
			i++
		}
		if kind, n := balancePhraseAt(l.words, i); kind != 0 {
			labels = append(labels, at{kind, i, i + n})
		}
	}
	var out []marker
	for k, lab := range labels {
		stop := len(l.words)
		if k+1 < len(labels) {
			stop = labels[k+1].first
		}
		m := marker{kind: lab.kind}
		if tok, ok := firstAmount(l, lab.next, stop); ok {
			m.amount, m.found = tok.money, true
		}
		out = append(out, m)
	}
	return out
}

// skipDates returns the index of the first word at or after i that is not part of a date.
func skipDates(l textLine, i int) int {
	for n := 0; n < 2 && i < len(l.words); n++ {
		_, size, ok := scanDate(l.raw[l.words[i].start:])
		if !ok {
			break
		}
		end := l.words[i].start + size
		for i < len(l.words) && l.words[i].start < end {
			i++
		}
	}
	return i
}

// balancePhraseAt returns the balance phrase starting at words[i] and its length in words.
func balancePhraseAt(words []word, i int) (markerKind, int) {
	if i >= len(words) {
		return 0, 0
	}
	first := normWord(words[i].text)
	for _, p := range balancePhrases {
		if p.words[0] != first || i+len(p.words) > len(words) {
			continue
		}
		match := true
		for k := 1; k < len(p.words); k++ {
			if normWord(words[i+k].text) != p.words[k] {
				match = false
				break
			}
		}
		if match {
			return p.kind, len(p.words)
		}
	}
	return 0, 0
}

// normWord lower-cases a word and drops the punctuation labels end with ("Balance:").
func normWord(s string) string {
	return strings.ToLower(strings.TrimRight(s, ":.,;*"))
}

// firstAmount returns the first amount among words[from:stop].
func firstAmount(l textLine, from, stop int) (amountToken, bool) {
	for i := from; i < stop && i < len(l.words); i++ {
		// Try the longest reading first, so "1,234.56 CR" keeps its mark.
		if i+1 < stop && isMark(l.words[i+1].text) {
			if tok, ok := tokenOf(l, i, i+1); ok {
				return tok, true
			}
		}
		if isSymbol(l.words[i].text) && i+1 < stop {
			if tok, ok := tokenOf(l, i, i+1); ok {
				return tok, true
			}
		}
		if tok, ok := tokenOf(l, i, i); ok {
			return tok, true
		}
	}
	return amountToken{}, false
}

// amountToken is an amount printed on a line, with where it sits.
type amountToken struct {
	money
	first, last int // word indexes
	col, end2   int // columns
}

// tokenOf reads words[first..last] as one amount.
func tokenOf(l textLine, first, last int) (amountToken, bool) {
	m, ok := parseMoney(l.raw[l.words[first].start:l.words[last].end])
	if !ok {
		return amountToken{}, false
	}
	return amountToken{m, first, last, l.words[first].col, l.words[last].end2}, true
}

func isMark(s string) bool { return strings.EqualFold(s, "CR") || strings.EqualFold(s, "DR") }

func isSymbol(s string) bool {
	for _, c := range currencySymbols {
		if s == c.symbol {
			return true
		}
	}
	return false
}

// maxAmountsPerLine is the most amounts a transaction line carries: debit, credit, balance.
const maxAmountsPerLine = 3

// trailingAmounts returns the amounts that end the line after word from, left to right, at
// most maxAmountsPerLine of them. Amounts inside a description ("FX 12.00 USD at 1.10") are
// not trailing and stay part of it.
func trailingAmounts(l textLine, from int) []amountToken {
	var out []amountToken
	i := len(l.words) - 1
	for i >= from && len(out) < maxAmountsPerLine {
		tok, ok := amountEndingAt(l, i, from)
		if !ok {
			break
		}
		out = append(out, tok)
		i = tok.first - 1
	}
	slices.Reverse(out)
	return out
}

// amountEndingAt reads the amount whose last word is words[i], taking in a "CR"/"DR" word
// after the figure and a bare currency symbol before it.
func amountEndingAt(l textLine, i, from int) (amountToken, bool) {
	first := i
	if isMark(l.words[i].text) {
		if i-1 < from {
			return amountToken{}, false
		}
		first = i - 1
	}
	tok, ok := tokenOf(l, first, i)
	if !ok {
		return amountToken{}, false
	}
	if first-1 >= from && isSymbol(l.words[first-1].text) && tok.symbol == "" {
		if withSymbol, ok := tokenOf(l, first-1, i); ok {
			return withSymbol, true
		}
	}
	return tok, true
}

// Words that give a statement away as a credit card's. They are looked for outside
// transaction lines, since a bank statement may well list a "CREDIT CARD PAYMENT".
var creditCardPhrases = []string{"credit card", "card account", "minimum payment", "new balance",
	"credit limit", "available credit", "payment due date", "cardmember", "card member", "card number ending"}

// detectKind says whether the statement is a credit card's.
func detectKind(other []string) string {
	text := lowerWords(strings.Join(other, " \n "))
	for _, p := range creditCardPhrases {
		if strings.Contains(text, " "+p+" ") || strings.Contains(text, " "+p+":") {
			return KindCreditCard
		}
	}
	return KindBank
}

// isoCurrencies are the codes detectCurrency recognises when a statement names its currency.
var isoCurrencies = []string{"USD", "EUR", "GBP", "CAD", "AUD", "NZD", "CHF", "JPY", "SEK", "NOK", "DKK",
	"PLN", "CZK", "HUF", "INR", "SGD", "HKD", "ZAR", "MXN", "BRL", "CNY", "ILS", "AED"}

// detectCurrency returns the ISO code the statement names outside its transaction lines
// (where a foreign purchase may name another), or else the one its symbols imply when every
// symbol used agrees: those printed with amounts, and "€" or "£" printed elsewhere, as in a
// "Balance (£)" column label.
func detectCurrency(other []string, symbols []string) string {
	for _, line := range other {
		for _, f := range strings.FieldsFunc(line, func(r rune) bool { return !('A' <= r && r <= 'Z') }) {
			if slices.Contains(isoCurrencies, f) {
				return f
			}
		}
	}
	used := map[string]bool{}
	for _, s := range symbols {
		used[s] = true
	}
	for _, line := range other {
		for _, s := range []string{"€", "£"} {
			if strings.Contains(line, s) {
				used[s] = true
			}
		}
	}
	code := ""
	for s := range used {
		c := symbolCode(s)
		if c == "" || code != "" && c != code {
			return ""
		}
		code = c
	}
	return code
}

func symbolCode(symbol string) string {
	for _, c := range currencySymbols {
		if c.symbol == symbol {
			return c.code
		}
	}
	return ""
}
