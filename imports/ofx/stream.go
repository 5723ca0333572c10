package ofx

import (
	"strings"
	"time"

	"tally/imports/bankfile"
)

// A body is read in two passes over its elements, neither of which keeps the whole tree. The
// first (scan) finds what a transaction needs that may come after it: the securities, whose
// SECLIST follows the statements, and each response's currency and date. The second
// (reading) reads each transaction, position and security as it closes and lets it go, and
// each statement as its response closes; it keeps only a response's own elements and the
// sign-on. A file is read exactly as a tree of it would be, with the memory of one statement's
// skeleton and one transaction.

// The statement responses by the element that holds one, and the response each transaction
// wrapper holds.
var (
	responses = map[string]string{"STMTRS": bankStatement, "CCSTMTRS": cardStatement, "INVSTMTRS": invStatement}
	wrappers  = map[string]string{"STMTTRNRS": "STMTRS", "CCSTMTTRNRS": "CCSTMTRS", "INVSTMTTRNRS": "INVSTMTRS"}
)

// lists are the aggregates whose children come by the thousand: the children are read, if at
// all, as they close, and not kept, but for a transaction list's period (DTSTART, DTEND) and
// what a statement does not read as a transaction.
var lists = toSet("BANKTRANLIST", "INVTRANLIST", "INVPOSLIST", "SECLIST", "BALLIST", "INVOOLIST")

// response is a statement response being read: its transaction wrapper (or the response
// itself when it has none), the response, and the lists of it whose items are read.
type response struct {
	kind  string
	root  *bankfile.Node // the wrapper, or a response without one
	trnrs *bankfile.Node // the wrapper, or the parent of a response without one
	rs    *bankfile.Node // nil until the wrapper's first response opens
	// index is the response's place among the file's responses, the same in both passes.
	index     int
	list      *bankfile.Node // the response's first BANKTRANLIST, or INVTRANLIST
	positions *bankfile.Node // an investment response's first INVPOSLIST
}

// statements finds the statement responses of the file's first <OFX> element as elements
// open: a transaction wrapper (STMTTRNRS, CCSTMTTRNRS, INVSTMTTRNRS) with the first response
// in it, or a response without a wrapper, and never one inside another.
type statements struct {
	ofx       *bankfile.Node
	cur       *response
	responses int
}

func (s *statements) open(n *bankfile.Node, stack []*bankfile.Node) {
	parent := stack[len(stack)-1]
	switch {
	case len(stack) == 1:
		if n.Name == "OFX" && s.ofx == nil {
			s.ofx = n
		}
	case s.cur == nil:
		if stack[1] != s.ofx {
			return
		}
		if rs, ok := wrappers[n.Name]; ok {
			s.cur = &response{kind: responses[rs], root: n, trnrs: n}
		} else if kind, ok := responses[n.Name]; ok {
			s.cur = &response{kind: kind, root: n, trnrs: parent}
			s.setRS(n)
		}
	case s.cur.rs == nil:
		if parent == s.cur.root && n.Name == wrappers[s.cur.root.Name] {
			s.setRS(n)
		}
	case parent == s.cur.rs:
		inv := s.cur.kind == invStatement
		switch {
		case s.cur.list == nil && (n.Name == "BANKTRANLIST" && !inv || n.Name == "INVTRANLIST" && inv):
			s.cur.list = n
		case s.cur.positions == nil && n.Name == "INVPOSLIST" && inv:
			s.cur.positions = n
		}
	}
}

func (s *statements) setRS(n *bankfile.Node) {
	s.cur.rs, s.cur.index = n, s.responses
	s.responses++
}

// closing returns the response n ends, or nil.
func (s *statements) closing(n *bankfile.Node) *response {
	if s.cur == nil || n != s.cur.root {
		return nil
	}
	r := s.cur
	s.cur = nil
	return r
}

// inOFX reports whether an element with these open ancestors is inside the first <OFX>.
func (s *statements) inOFX(stack []*bankfile.Node) bool {
	return len(stack) > 1 && stack[1] == s.ofx
}

// facts are what a response's transactions need of it: its first CURDEF and DTASOF, which a
// sloppy file may write after its lists.
type facts struct {
	currency     string
	haveCurrency bool
	asOf         *bankfile.Node
}

// scan is the first pass: it keeps nothing but the security being read.
type scan struct {
	statements
	securities map[string]bankfile.Security
	facts      []facts // by response index, for as many responses as a file may hold
	secinfo    int     // SECINFO elements open
}

func (s *scan) open(n *bankfile.Node, stack []*bankfile.Node) {
	s.statements.open(n, stack)
	if s.cur != nil && s.cur.rs == n && s.cur.index == len(s.facts) && len(s.facts) <= bankfile.MaxStatements {
		s.facts = append(s.facts, facts{})
	}
	if n.Name == "SECINFO" {
		s.secinfo++
	}
}

func (s *scan) closed(n *bankfile.Node, stack []*bankfile.Node) (bool, error) {
	if n.Name == "SECINFO" {
		// The outermost SECINFO of the first <OFX>, keyed "TYPE:ID"; a later one wins.
		if s.secinfo--; s.secinfo == 0 && s.inOFX(stack) {
			id := secID(n.Child("SECID"))
			id.Ticker = strings.ToUpper(n.Value("TICKER"))
			id.Name = n.Value("SECNAME")
			s.securities[id.IDType+":"+id.ID] = id
		}
	}
	if c := s.cur; c != nil && c.rs != nil && stack[len(stack)-1] == c.rs && c.index < len(s.facts) {
		f := &s.facts[c.index]
		switch {
		case n.Name == "CURDEF" && !f.haveCurrency:
			f.currency, f.haveCurrency = strings.ToUpper(n.Text), true
		case n.Name == "DTASOF" && f.asOf == nil:
			f.asOf = n
		}
	}
	s.closing(n)
	return s.secinfo > 0, nil
}

// pending is what a response's lists gave as their items closed, and the first problem of
// each list, kept to be reported when the statement is read, in the order a statement's
// checks go.
type pending struct {
	bankfile.Statement // Currency is the response's; the entries, trades and holdings so far
	asOf               *time.Time
	skipped            map[string]int // investment transactions not read, by kind
	listErr, posErr    error
}

// reading is the second pass.
type reading struct {
	statements
	r       reader
	facts   []facts
	items   *pending // the current response's
	each    bankfile.EntryFunc
	file    *bankfile.File
	refused []string // the banks' reasons for responses without a statement
}

func (rd *reading) open(n *bankfile.Node, stack []*bankfile.Node) {
	rd.statements.open(n, stack)
	if rd.cur == nil || rd.cur.rs != n {
		return
	}
	var f facts
	if rd.cur.index < len(rd.facts) {
		f = rd.facts[rd.cur.index]
	}
	rd.items = &pending{Statement: bankfile.Statement{Currency: f.currency}, skipped: map[string]int{}}
	if f.asOf != nil && f.asOf.Text != "" {
		// A DTASOF that is not a date fails the statement before any position is read.
		if d, err := parseDate(f.asOf, ""); err == nil {
			rd.items.asOf = &d
		}
	}
}

func (rd *reading) closed(n *bankfile.Node, stack []*bankfile.Node) (bool, error) {
	if r := rd.closing(n); r != nil {
		return false, rd.respond(r)
	}
	parent := stack[len(stack)-1]
	switch c := rd.cur; {
	case c == nil:
		// Outside the statements, only the first <OFX> and its sign-on are read.
		return n == rd.ofx || rd.inOFX(stack) && (len(stack) == 2 && n.Name == "SIGNONMSGSRSV1" || len(stack) > 2 && stack[2].Name == "SIGNONMSGSRSV1"), nil
	case parent == c.list:
		return rd.listItem(c, n)
	case parent == c.positions:
		if p := rd.items; p.posErr == nil {
			if pos := n.Child("INVPOS"); pos != nil {
				h, err := rd.r.holding(pos, p.asOf, p.Currency)
				if err != nil {
					p.posErr = err
				} else {
					p.Holdings = append(p.Holdings, h)
				}
			}
		}
		return false, nil
	case lists[parent.Name]:
		return false, nil
	}
	return true, nil
}

// listItem reads an element of the response's transaction list and reports whether to keep
// it: only the list's period and what a statement does not read as a transaction stay. A
// bank or card entry goes to each as it is read, when there is one.
func (rd *reading) listItem(c *response, n *bankfile.Node) (bool, error) {
	p := rd.items
	if n.Name == "DTSTART" || n.Name == "DTEND" {
		return true, nil
	}
	if c.kind != invStatement {
		if n.Name != "STMTTRN" {
			return true, nil
		}
		if p.listErr == nil {
			e, err := rd.r.entry(n, p.Currency)
			switch {
			case err != nil:
				p.listErr = err
			case rd.each != nil:
				return false, rd.each(len(rd.file.Statements), e)
			default:
				p.Entries = append(p.Entries, e)
			}
		}
		return false, nil
	}
	if p.listErr == nil {
		p.listErr = rd.r.investmentTransaction(&p.Statement, n, p.skipped)
	}
	return false, nil
}

// respond reads a response as it closes: its statement, or the bank's reason for sending none.
func (rd *reading) respond(r *response) error {
	if r.rs == nil {
		if msg := statusProblem(r.trnrs); msg != "" {
			rd.refused = append(rd.refused, msg)
		}
		return nil
	}
	st, err := rd.r.statement(r.kind, r.rs, rd.items)
	rd.items = nil
	if err != nil {
		return err
	}
	if len(rd.file.Statements) >= bankfile.MaxStatements {
		return bankfile.Errorf(r.rs.Line, r.rs.Name, "the file has more than %d statements", bankfile.MaxStatements)
	}
	if rd.each != nil {
		// An investment statement's entries come with its trades, as it closes.
		for _, e := range st.Entries {
			if err := rd.each(len(rd.file.Statements), e); err != nil {
				return err
			}
		}
		st.Entries = nil
	}
	rd.file.Statements = append(rd.file.Statements, *st)
	return nil
}
