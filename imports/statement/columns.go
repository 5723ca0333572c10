package statement

import "strings"

// role is what an amount on a transaction line stands for.
type role int

const (
	roleNone    role = iota
	roleAmount       // one signed amount column
	roleDebit        // money out
	roleCredit       // money in
	roleBalance      // the running balance
)

// column is a money column of a table header, by the columns its label spans.
type column struct {
	role      role
	col, end2 int
}

// header is the money columns of a transaction table, left to right.
type header struct{ cols []column }

// Header labels, matched as whole words in one header cell. A cell naming both a debit and a
// credit word ("Debit/Credit") is a single signed amount column.
var (
	debitLabels  = []string{"debit", "debits", "withdrawal", "withdrawals", "money out", "paid out", "out", "charges", "payments out"}
	creditLabels = []string{"credit", "credits", "deposit", "deposits", "money in", "paid in", "in", "payments in"}
	otherLabels  = []string{"date", "description", "details", "transaction", "transactions", "particulars", "narrative", "payee", "merchant"}
)

// maxHeaderCells is the most columns a transaction table header has, with room to spare.
const maxHeaderCells = 12

// parseHeader reads l as a transaction table header: a line with no amounts, naming a date or
// description column, and money columns that say how to read amounts (debit and credit, or an
// amount or debit/credit with a balance, or an amount alone).
func parseHeader(l textLine) (header, bool) {
	if len(l.words) == 0 || len(trailingAmounts(l, 0)) > 0 || skipDates(l, 0) > 0 {
		return header{}, false // a transaction line, however its description reads
	}
	cs := cells(l)
	if len(cs) > maxHeaderCells {
		return header{}, false
	}
	var h header
	named := false
	for _, c := range cs {
		label := lowerWords(c.text)
		r := labelRole(label)
		if r != roleNone {
			h.cols = append(h.cols, column{r, c.col, c.end2})
		}
		if containsAny(label, otherLabels) {
			named = true
		}
	}
	if !named || len(h.cols) == 0 {
		return header{}, false
	}
	has := map[role]bool{}
	for _, c := range h.cols {
		has[c.role] = true
	}
	ok := has[roleDebit] && has[roleCredit] || has[roleAmount] ||
		(has[roleDebit] || has[roleCredit]) && has[roleBalance]
	return h, ok
}

// notColumnLabels mark summary-box labels that name money but not a transaction column:
// "Credit limit", "Available credit", "New balance", "Minimum payment due".
var notColumnLabels = []string{"limit", "available", "minimum", "due", "previous", "new", "total", "opening", "closing"}

// labelRole says which money column a header cell names, if any.
func labelRole(label string) role {
	if containsAny(label, notColumnLabels) {
		return roleNone
	}
	debit, credit := containsAny(label, debitLabels), containsAny(label, creditLabels)
	switch {
	case debit && credit, strings.Contains(label, " amount "):
		return roleAmount
	case debit:
		return roleDebit
	case credit:
		return roleCredit
	case strings.Contains(label, " balance "):
		return roleBalance
	}
	return roleNone
}

// containsAny reports whether the padded lower-case text holds one of the words or phrases.
func containsAny(padded string, phrases []string) bool {
	for _, p := range phrases {
		if strings.Contains(padded, " "+p+" ") || strings.Contains(padded, " "+p+"/") ||
			strings.Contains(padded, "/"+p+" ") || strings.Contains(padded, " "+p+"(") ||
			strings.Contains(padded, "("+p+")") {
			return true
		}
	}
	return false
}

// maxColumnDistance is how far, in characters, an amount may sit from the label of the column
// it belongs to: amounts are often right-aligned under a shorter, left-aligned label.
const maxColumnDistance = 12

// place assigns each amount to the header column it sits under: the column whose label its
// characters overlap, or else the nearest one. It fails when an amount is far from every
// column or two amounts claim one column, and the caller falls back to reading by position.
func (h header) place(amts []amountToken) ([]role, bool) {
	roles := make([]role, len(amts))
	taken := map[int]bool{}
	for i, a := range amts {
		best, bestDist, bestEdge := -1, 0, 0
		for j, c := range h.cols {
			dist := spanDistance(a.col, a.end2, c.col, c.end2)
			edge := abs(a.end2 - c.end2)
			if best < 0 || dist < bestDist || dist == bestDist && edge < bestEdge {
				best, bestDist, bestEdge = j, dist, edge
			}
		}
		if best < 0 || bestDist > maxColumnDistance || taken[best] {
			return nil, false
		}
		taken[best] = true
		roles[i] = h.cols[best].role
	}
	return roles, true
}

// alignsWith reports whether an amount ends under one of the header's money columns, for
// amounts on lines that carry no date of their own.
func (h header) alignsWith(a amountToken) bool {
	for _, c := range h.cols {
		if spanDistance(a.col, a.end2, c.col, c.end2) == 0 || abs(a.end2-c.end2) <= 1 {
			return true
		}
	}
	return false
}

// spanDistance is the gap between two column spans, 0 when they overlap.
func spanDistance(aStart, aEnd, bStart, bEnd int) int {
	switch {
	case aEnd <= bStart:
		return bStart - aEnd + 1
	case bEnd <= aStart:
		return aStart - bEnd + 1
	}
	return 0
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// rolesByPosition reads amounts without a header: one is a signed amount, two are an amount
// and the running balance after it, three are debit, credit and balance.
func rolesByPosition(n int) []role {
	switch n {
	case 1:
		return []role{roleAmount}
	case 2:
		return []role{roleAmount, roleBalance}
	case 3:
		return []role{roleDebit, roleCredit, roleBalance}
	}
	return nil
}
