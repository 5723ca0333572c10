package statement

import (
	"fmt"
	"strings"
	"time"

	"github.com/shopspring/decimal"
)

// Statement kinds.
const (
	KindBank       = "bank"
	KindCreditCard = "credit_card"
)

// Line is one transaction read from a statement.
type Line struct {
	Page, LineNo int       // 1-based page and line within the page's text
	Date         time.Time // UTC midnight
	Description  string
	// Amount is money in (a deposit, a card payment or refund) positive and money out (a
	// withdrawal, a card purchase) negative, whatever the statement prints.
	Amount decimal.Decimal
	// Balance is the running balance printed on the line, if any, as printed: what the
	// account holds, or for a credit card what is owed.
	Balance *decimal.Decimal
	Raw     string // the source text line
	// Problems say why this line is suspect, e.g. "running balance 1,200.00 does not follow
	// from the previous balance 1,000.00 and this amount -150.00 (expected 850.00)".
	Problems []string
}

// Statement is what Parse (or LLM.Extract) read from a statement.
type Statement struct {
	Kind string // KindBank or KindCreditCard
	// Opening and Closing are the balances the statement starts and ends with, if found. For a
	// credit card they are amounts owed ("Previous balance", "New balance").
	Opening, Closing       *decimal.Decimal
	PeriodStart, PeriodEnd *time.Time // the statement period, if printed
	Currency               string     // ISO code, if the statement names one or uses an unambiguous symbol
	Lines                  []Line
	Problems               []string // statement-level problems
	// Reconciled is true only when the opening and closing balances were both found, the
	// lines account for the whole difference between them, and every running balance
	// printed follows from the amounts. For a bank account that is
	// opening + sum(amounts) == closing; for a credit card, whose balances are owed and go
	// up with purchases (negative amounts), opening − sum(amounts) == closing.
	Reconciled bool
}

// Options tune Parse.
type Options struct {
	// DateOrder is how all-numeric dates are read: "MDY", "DMY", or "" to decide from the data
	// (a first number above 12 means day-first; month-first otherwise).
	DateOrder string
	// Year is given to dates printed without one; 0 takes it from the statement period.
	Year int
}

// Parse reads the pages' text, as ExtractText returns it, into a statement. It never fails:
// what cannot be read is left out, and what looks wrong is reported in Problems.
func Parse(pages []string, opt Options) *Statement {
	return parseAt(pages, opt, time.Now().UTC().Year())
}

// parseAt is Parse with the current year given, which is used only when dates have no year and
// nothing else in the statement says which year it is.
func parseAt(pages []string, opt Options, thisYear int) *Statement {
	// The text is read twice, a line at a time: for what its dates say, then for its lines.
	text := newPageText(pages)
	dates := scanDates(text.lines())
	order := strings.ToUpper(opt.DateOrder)
	if order != OrderMDY && order != OrderDMY {
		order = dates.order()
	}
	st := &Statement{}
	st.PeriodStart, st.PeriodEnd = dates.period(order)
	r := &reader{order: order, years: yearPicker{fixed: opt.Year, start: st.PeriodStart, end: st.PeriodEnd,
		fallback: dates.latest, assumed: thisYear}}
	for l := range text.lines() {
		r.feed(l)
	}
	st.Kind = detectKind(r.other)
	st.Currency = detectCurrency(r.other, r.symbols)
	newLedger(st).run(r.events)
	if text.truncated {
		st.Problems = append(st.Problems, fmt.Sprintf("The statement is longer than this reader goes "+
			"(%d pages of %d lines of %d characters); the rest was not read.", maxPages, maxLinesPerPage, maxLineBytes))
	}
	if r.overflow {
		st.Problems = append(st.Problems, fmt.Sprintf("The statement has more transactions than this reader goes "+
			"(%d); those after them were not read.", maxTransactions))
	}
	if r.assumedYear {
		st.Problems = append(st.Problems, fmt.Sprintf("Some dates have no year and the statement does not say "+
			"which year it covers; %d was assumed.", thisYear))
	}
	return st
}

// event is a transaction or a balance line, in the order the statement prints them.
type event struct {
	txn    *txn
	marker marker
	page   int
}

// txn is a transaction line as read, before its amounts are given a direction.
type txn struct {
	line    Line
	amounts []amountToken
	roles   []role
	descCol int
	conts   int // continuation lines appended to the description
}

// reader reads lines one by one, keeping what the lines before said: the table header in
// force, and the transaction a continuation line would belong to.
type reader struct {
	order       string
	years       yearPicker
	header      *header
	last        *txn // the transaction a following line may continue
	blanks      int  // blank lines since the last line with text
	page        int
	events      []event
	txns        int      // transactions among the events
	overflow    bool     // a transaction past maxTransactions was left out
	other       []string // lines that are neither transactions nor continuations
	symbols     []string // currency symbols printed with amounts
	assumedYear bool
}

// feed reads the next line of the statement.
func (r *reader) feed(l textLine) {
	if l.page != r.page {
		r.page, r.last = l.page, nil // descriptions do not continue across pages
	}
	if len(l.words) == 0 {
		r.blanks++
		return
	}
	r.read(l)
	r.blanks = 0
}

// read classifies a line with text. The order matters: a header or a balance line may start
// with a date and end with an amount, and must not be taken for a transaction.
func (r *reader) read(l textLine) {
	if h, ok := parseHeader(l); ok {
		r.header, r.last = &h, nil
		r.noteOther(l)
		return
	}
	if ms := markersIn(l); len(ms) > 0 {
		for _, m := range ms {
			r.events = append(r.events, event{marker: m, page: l.page})
			r.noteSymbol(m.amount.symbol)
		}
		r.last = nil
		r.noteOther(l)
		return
	}
	if t, ok := r.dated(l); ok {
		r.add(t)
		return
	}
	if r.continues(l) {
		r.last.line.Description += " " + cleanText(l.raw)
		r.last.conts++
		return
	}
	if t, ok := r.sameDay(l); ok {
		r.add(t)
		return
	}
	r.noteOther(l)
	r.last = nil
}

// maxOtherLines bounds the lines kept for telling the kind and currency: those are printed in
// a statement's first lines, and the bound keeps a hostile input from growing the list.
const maxOtherLines = 10_000

func (r *reader) noteOther(l textLine) {
	if len(r.other) < maxOtherLines {
		r.other = append(r.other, l.raw)
	}
}

// maxTransactions bounds the transactions a statement may have, each held until the ledger
// has run: no statement of maxPages comes near it, and the bound keeps the transactions of a
// hostile text of short lines to tens of megabytes.
const maxTransactions = 100_000

func (r *reader) add(t *txn) {
	if r.txns == maxTransactions {
		r.overflow, r.last = true, nil
		return
	}
	r.txns++
	r.events = append(r.events, event{txn: t, page: t.line.Page})
	r.last = t
	for _, a := range t.amounts {
		r.noteSymbol(a.symbol)
	}
}

func (r *reader) noteSymbol(s string) {
	if s != "" && len(r.symbols) < 100 {
		r.symbols = append(r.symbols, s)
	}
}

// dated reads a line that starts with a date (or two: a transaction and a posting date) and
// ends with amounts, with some text between them.
func (r *reader) dated(l textLine) (*txn, bool) {
	rd, _, ok := scanDate(l.raw[l.words[0].start:])
	if !ok {
		return nil, false
	}
	from := skipDates(l, 0)
	if isRange(l, from) {
		return nil, false // "01/01/2024 - 01/31/2024": a period, not a transaction
	}
	date, assumed, ok := r.years.date(rd, r.order)
	if !ok {
		return nil, false
	}
	t, ok := r.transaction(l, from, date)
	r.assumedYear = r.assumedYear || ok && assumed
	return t, ok
}

// isRange reports whether words[i:] start with a range word and a date.
func isRange(l textLine, i int) bool {
	if i+1 >= len(l.words) || !rangeWords[strings.ToLower(l.words[i].text)] {
		return false
	}
	_, _, ok := scanDate(l.raw[l.words[i+1].start:])
	return ok
}

// transaction reads the description and amounts of l from word from on.
func (r *reader) transaction(l textLine, from int, date time.Time) (*txn, bool) {
	amts := trailingAmounts(l, from)
	if len(amts) == 0 || amts[0].first <= from {
		return nil, false
	}
	desc := cleanText(l.raw[l.words[from].start:l.words[amts[0].first-1].end])
	if !hasLetter(desc) {
		return nil, false
	}
	roles := r.roles(amts)
	if roles == nil {
		return nil, false
	}
	t := &txn{
		line:    Line{Page: l.page, LineNo: l.no, Date: date, Description: desc, Raw: l.raw},
		amounts: amts, roles: roles, descCol: l.words[from].col,
	}
	return t, true
}

// roles decides what each amount of a line stands for: from the header columns when there is
// a header they fit, else by position. A line whose only amount is a balance is not a
// transaction.
func (r *reader) roles(amts []amountToken) []role {
	var roles []role
	if r.header != nil {
		roles, _ = r.header.place(amts)
	}
	if roles == nil {
		roles = rolesByPosition(len(amts))
	}
	for _, ro := range roles {
		if ro != roleBalance {
			return roles
		}
	}
	return nil
}

// maxContinuations bounds the lines one description may gather.
const maxContinuations = 3

// continues reports whether l continues the description of the transaction just before it:
// a line with text but no date and no amount, starting in the description's column, with at
// most one blank line between. A page footer never does.
func (r *reader) continues(l textLine) bool {
	if r.last == nil || r.blanks > 1 || r.last.conts >= maxContinuations {
		return false
	}
	if _, _, ok := scanDate(l.raw[l.words[0].start:]); ok {
		return false
	}
	if len(trailingAmounts(l, 0)) > 0 || !hasLetter(l.raw) || isFooter(l) {
		return false
	}
	return abs(l.words[0].col-r.last.descCol) <= 2
}

// summaryWords mark totals and summaries, which are never transactions.
var summaryWords = []string{"total", "totals", "subtotal", "balance", "summary", "sum"}

// sameDay reads a line without a date that lists another transaction of the same day, as
// statements that print each date once do. To keep totals and notes out, its description
// must start in the previous transaction's description column, its amounts must end under a
// money column, and it must not look like a total.
func (r *reader) sameDay(l textLine) (*txn, bool) {
	if r.last == nil || r.blanks > 1 {
		return nil, false
	}
	if _, _, ok := scanDate(l.raw[l.words[0].start:]); ok {
		return nil, false
	}
	if abs(l.words[0].col-r.last.descCol) > 2 || containsAny(lowerWords(l.raw), summaryWords) {
		return nil, false
	}
	t, ok := r.transaction(l, 0, r.last.line.Date)
	if !ok {
		return nil, false
	}
	for _, a := range t.amounts {
		if !r.underMoneyColumn(a) {
			return nil, false
		}
	}
	return t, true
}

// underMoneyColumn reports whether a ends where the header's money columns or the previous
// transaction's amounts end.
func (r *reader) underMoneyColumn(a amountToken) bool {
	if r.header != nil && r.header.alignsWith(a) {
		return true
	}
	for _, b := range r.last.amounts {
		if abs(a.end2-b.end2) <= 1 {
			return true
		}
	}
	return false
}

// isFooter reports whether l looks like a page footer or a "continued" note.
func isFooter(l textLine) bool {
	text := lowerWords(l.raw)
	if strings.Contains(text, "continued") {
		return true
	}
	fields := strings.Fields(text)
	for i := 0; i+1 < len(fields); i++ {
		if fields[i] == "page" && fields[i+1] != "" && fields[i+1][0] >= '0' && fields[i+1][0] <= '9' {
			return true
		}
	}
	return false
}

// cleanText collapses the blanks of a piece of layout text (column gaps included) to single
// spaces and makes it valid UTF-8.
func cleanText(s string) string {
	return strings.ToValidUTF8(strings.Join(strings.Fields(s), " "), "\uFFFD")
}
