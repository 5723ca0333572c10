// Package mt940 reads SWIFT MT940 (end-of-day) and MT942 (intraday) customer statements into
// the bankfile model, with the variants German and Dutch banks write: structured :86: text
// (?NN subfields with SEPA keywords, or /TAG/ pairs), :61: lines with or without an entry
// date, funds codes, several statements per file and SWIFT envelopes.
//
// There is no well-kept Go library for MT940; the format is line-based and small enough to read
// by hand, field by field.
package mt940

import (
	"bytes"
	"fmt"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"tally/imports/bankfile"
	"tally/imports/parse"
)

// field is one :tag: and its value; lines are the value's physical lines, the first at byte
// at of the text.
type field struct {
	tag   string
	lines []string
	line  int
	at    int
}

// Sniff reports whether content looks like an MT940 or MT942 file: a :20: reference and a :25:
// account near the start, with a balance, statement line or intraday date.
func Sniff(content []byte) bool {
	head := content
	if len(head) > 4096 {
		head = head[:4096]
	}
	head = bytes.TrimLeft(bytes.TrimPrefix(head, []byte("\xef\xbb\xbf")), " \t\r\n")
	if bytes.HasPrefix(head, []byte("<")) || bytes.HasPrefix(bytes.ToUpper(head), []byte("OFXHEADER")) {
		return false
	}
	has := func(tag string) bool {
		return bytes.HasPrefix(head, []byte(tag)) || bytes.Contains(head, []byte("\n"+tag)) ||
			bytes.Contains(head, []byte("\r"+tag)) || bytes.Contains(head, []byte("{4:"+tag))
	}
	if !has(":20:") || !has(":25:") {
		return false
	}
	for _, tag := range []string{":60F:", ":60M:", ":61:", ":13D:", ":28C:", ":13:"} {
		if has(tag) {
			return true
		}
	}
	return false
}

// Read reads an MT940 or MT942 file. It fails only for a file it cannot read at all, with a
// *bankfile.Error naming the line and field.
//
// The text is read a line at a time and each field as it ends, so that what a file costs is
// its entries, never copies of its lines and fields.
func Read(content []byte) (*bankfile.File, error) { return ReadEach(content, nil) }

// ReadEach is Read handing each entry to each as it is read, rather than keeping it (see
// bankfile.EntryFunc).
func ReadEach(content []byte, each bankfile.EntryFunc) (*bankfile.File, error) {
	text, err := bankfile.Text(content)
	if err != nil {
		return nil, err
	}
	file := &bankfile.File{Format: bankfile.FormatMT940, Version: "MT940"}
	start := func(line int) *statementReader {
		return &statementReader{st: &bankfile.Statement{Line: line}, size: len(text), each: each, index: len(file.Statements)}
	}
	err = split(text, start, func(st *bankfile.Statement) error {
		if len(file.Statements) == 0 && st.Intraday {
			file.Version = "MT942"
		}
		if len(file.Statements) >= bankfile.MaxStatements {
			return bankfile.Errorf(st.Line, ":20:", "the file has more than %d statements", bankfile.MaxStatements)
		}
		file.Statements = append(file.Statements, *st)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(file.Statements) == 0 {
		return nil, bankfile.Errorf(0, ":20:", "the file holds no statement (no :20: field)")
	}
	return file, nil
}

// split cuts the text into messages of fields, read by a reader from start, and hands each
// statement to fn as its message ends. A message starts at :20: and ends at a line "-" (with or without the envelope's "}"),
// or at the next :20:. SWIFT envelope blocks around a message are taken off; lines before the
// first field are a bank's own header and skipped. A message set in an MT942 envelope is
// intraday.
func split(text string, start func(line int) *statementReader, fn func(*bankfile.Statement) error) error {
	var cur *statementReader
	var f field // the field being read, its lines until the next field starts
	end := func() error {
		if cur == nil {
			return nil
		}
		r := cur
		cur = nil
		if err := r.field(f); err != nil {
			return err
		}
		st, err := r.finish()
		if err != nil {
			return err
		}
		return fn(st)
	}
	envelope942 := false
	n := 0
	for at, l := range parse.Lines(text) {
		n++
		l = strings.TrimRight(l, " \t")
		if strings.HasPrefix(l, "{") {
			var is942 bool
			l, is942 = stripEnvelope(l)
			envelope942 = envelope942 || is942
		}
		switch {
		case l == "" || l == "$":
			continue
		case l == "-" || strings.HasPrefix(l, "-}"):
			if err := end(); err != nil {
				return err
			}
			envelope942 = false
			continue
		}
		tag, value, ok := fieldStart(l)
		if !ok {
			if cur == nil {
				continue
			}
			if len(f.lines) == maxLines {
				return bankfile.Errorf(f.line, ":"+f.tag+":", "the field runs over more than %d lines", maxLines)
			}
			f.lines = append(f.lines, l)
			continue
		}
		if tag == "20" {
			if err := end(); err != nil {
				return err
			}
		}
		if cur == nil {
			// Some banks begin a message without :20:, which is only the statement's id.
			cur = start(n)
		} else if err := cur.field(f); err != nil {
			return err
		}
		cur.intraday = cur.intraday || envelope942
		if cur.fields++; cur.fields > bankfile.MaxElements {
			return bankfile.Errorf(n, ":"+tag+":", "the file has more than %d fields", bankfile.MaxElements)
		}
		f = field{tag: tag, lines: append(f.lines[:0], value), line: n, at: at}
	}
	return end()
}

// maxLines bounds the lines of one field. SWIFT allows a :86: six; a field of thousands is
// no bank's, and would be held whole until the next field.
const maxLines = 1000

// stripEnvelope takes SWIFT blocks {1:…}{2:…}{3:…} and "{4:" off the start of a line, and
// reports whether block 2 names an MT942.
func stripEnvelope(l string) (rest string, is942 bool) {
	for strings.HasPrefix(l, "{") {
		if strings.HasPrefix(l, "{4:") {
			return l[3:], is942
		}
		depth, i := 0, 0
		for ; i < len(l); i++ {
			if l[i] == '{' {
				depth++
			} else if l[i] == '}' {
				if depth--; depth == 0 {
					break
				}
			}
		}
		if strings.HasPrefix(l, "{2:") && len(l) >= 7 && l[4:7] == "942" {
			is942 = true
		}
		if i >= len(l) {
			return "", is942
		}
		l = l[i+1:]
	}
	return l, is942
}

// fieldStart splits ":61:value" into tag and value.
func fieldStart(l string) (tag, value string, ok bool) {
	if len(l) < 4 || l[0] != ':' {
		return "", "", false
	}
	end := strings.IndexByte(l[1:], ':')
	if end < 2 || end > 3 {
		return "", "", false
	}
	tag = l[1 : end+1]
	if tag[0] < '0' || tag[0] > '9' || tag[1] < '0' || tag[1] > '9' || len(tag) == 3 && (tag[2] < 'A' || tag[2] > 'Z') {
		return "", "", false
	}
	return tag, l[end+2:], true
}

// statementReader reads one message's fields as they end.
type statementReader struct {
	st       *bankfile.Statement
	fields   int
	intraday bool    // set by an MT942 envelope
	counts   []field // :90D: and :90C:, checked against the entries at the end
	stated   string  // the currency an MT942 names outside balances
	account  bool    // :25: was read
	last     string  // the tag of the field before
	size     int     // the text's length
	first    int     // where the first statement line starts
	// each takes the entries, when the caller gives one; index is the statement's.
	each  bankfile.EntryFunc
	index int
	// entry is the last statement line read, held until no :86: can describe it; at is
	// where it starts.
	entry           bankfile.Entry
	held            bool
	at              int
	debits, credits subtotal // the entries by direction, for :90D: and :90C:
}

// subtotal counts entries and adds up their amounts.
type subtotal struct {
	n   int
	sum decimal.Decimal
}

// field reads one field. Its lines are the reader's to reuse once it returns.
func (r *statementReader) field(f field) error {
	st := r.st
	tag := ":" + f.tag + ":"
	value := strings.TrimSpace(f.lines[0])
	switch f.tag {
	case "20":
		st.ID = value
	case "28C", "28":
		if st.ID != "" {
			st.ID += "/"
		}
		st.ID += value
	case "25":
		st.Account = account(strings.TrimSpace(strings.Join(f.lines, "")))
		if st.Account.Number == "" && st.Account.IBAN == "" {
			return bankfile.Errorf(f.line, tag, "the account is empty")
		}
		r.account = true
	case "60F", "60M", "62F", "62M", "64", "65", "60", "62":
		b, err := balance(f, value)
		if err != nil {
			return err
		}
		st.Balances = append(st.Balances, b)
	case "13D", "13":
		d, err := yymmdd(value, f, tag)
		if err != nil {
			return err
		}
		st.Intraday, st.From, st.To = true, &d, &d
	case "34F":
		// An MT942 has no balances: its currency is in the floor limit (EURD0,) and the
		// counts (1EUR22,50).
		st.Intraday = true
		if v := strings.TrimSpace(value); len(v) >= 3 && isUpper(v[:3]) && r.stated == "" {
			r.stated = v[:3]
		}
	case "90D", "90C":
		st.Intraday = true
		r.counts = append(r.counts, field{tag: f.tag, lines: []string{f.lines[0]}, line: f.line})
		v := strings.TrimLeft(strings.TrimSpace(value), "0123456789")
		if len(v) >= 3 && isUpper(v[:3]) && r.stated == "" {
			r.stated = v[:3]
		}
	case "61":
		if !r.account {
			return bankfile.Errorf(f.line, tag, "a statement line comes before the account (:25:)")
		}
		e, err := statementLine(f)
		if err != nil {
			return err
		}
		if err := r.push(); err != nil {
			return err
		}
		r.entry, r.held, r.at = e, true, f.at
	case "86":
		info := strings.Join(f.lines, "")
		if r.last == "61" {
			describe(&r.entry, info)
		} else if s := strings.TrimSpace(info); s != "" {
			st.Notes = append(st.Notes, "Statement information: "+collapse(s))
		}
	}
	r.last = f.tag
	return nil
}

// push hands on the statement line held, now that no :86: can describe it.
func (r *statementReader) push() error {
	if !r.held {
		return nil
	}
	e := r.entry
	r.held = false
	if !e.Amount.IsZero() {
		t := &r.credits
		if e.Amount.IsNegative() {
			t = &r.debits
		}
		t.n, t.sum = t.n+1, t.sum.Add(e.Amount.Abs())
	}
	if r.each != nil {
		return r.each(r.index, e)
	}
	st := r.st
	if len(st.Entries) == 0 {
		r.first = r.at
	}
	st.Entries = append(parse.GrowFor(st.Entries, r.first, r.at, r.size), e)
	return nil
}

// finish ends the message: the statement's currency, pending entries and checked counts.
func (r *statementReader) finish() (*bankfile.Statement, error) {
	if err := r.push(); err != nil {
		return nil, err
	}
	st := r.st
	st.Intraday = st.Intraday || r.intraday
	if !r.account {
		return nil, bankfile.Errorf(st.Line, ":25:", "the statement does not name its account")
	}
	for _, b := range st.Balances {
		if st.Currency == "" || b.Kind == bankfile.BalanceOpening {
			st.Currency = b.Currency
			if b.Kind == bankfile.BalanceOpening {
				break
			}
		}
	}
	if st.Currency == "" {
		st.Currency = r.stated
	}
	if st.Account.Currency == "" {
		st.Account.Currency = st.Currency
	} else if st.Currency == "" {
		st.Currency = st.Account.Currency
	}
	if st.Intraday {
		for i := range st.Entries {
			st.Entries[i].Pending = true
		}
	}
	for _, f := range r.counts {
		t := r.credits
		if f.tag == "90D" {
			t = r.debits
		}
		if note, err := checkCount(f, t); err != nil {
			return nil, err
		} else if note != "" {
			st.Notes = append(st.Notes, note)
		}
	}
	return st, nil
}

// balance reads C|D YYMMDD CCY amount.
func balance(f field, v string) (bankfile.Balance, error) {
	tag := ":" + f.tag + ":"
	if len(v) < 11 || (v[0] != 'C' && v[0] != 'D') {
		return bankfile.Balance{}, bankfile.Errorf(f.line, tag, "%q is not a balance (C or D, YYMMDD, currency, amount)", bankfile.Clip(v))
	}
	d, err := yymmdd(v[1:7], f, tag)
	if err != nil {
		return bankfile.Balance{}, err
	}
	ccy := v[7:10]
	if !isUpper(ccy) {
		return bankfile.Balance{}, bankfile.Errorf(f.line, tag, "%q is not a currency", ccy)
	}
	amt, err := amount(v[10:], f, tag)
	if err != nil {
		return bankfile.Balance{}, err
	}
	if v[0] == 'D' {
		amt = amt.Neg()
	}
	b := bankfile.Balance{Amount: amt, Date: d, Currency: ccy, Intermediate: strings.HasSuffix(f.tag, "M")}
	switch f.tag[:2] {
	case "60":
		b.Kind = bankfile.BalanceOpening
	case "62":
		b.Kind = bankfile.BalanceClosing
	case "64":
		b.Kind = bankfile.BalanceAvailable
	default:
		b.Kind = bankfile.BalanceForward
	}
	return b, nil
}

// yymmdd reads the six-digit date at the start of s.
func yymmdd(s string, f field, tag string) (time.Time, error) {
	if len(s) < 6 || !isDigits(s[:6]) {
		return time.Time{}, bankfile.Errorf(f.line, tag, "%q is not a date (YYMMDD)", bankfile.Clip(s))
	}
	y, m, d := atoi(s[:2]), atoi(s[2:4]), atoi(s[4:6])
	if y < 80 {
		y += 2000
	} else {
		y += 1900
	}
	t := bankfile.Date(y, time.Month(m), d)
	if m < 1 || m > 12 || t.Day() != d {
		return time.Time{}, bankfile.Errorf(f.line, tag, "%q is not a calendar date", s[:6])
	}
	return t, nil
}

// amount reads an MT940 amount: digits and a decimal comma ("40," is 40.00).
func amount(s string, f field, tag string) (decimal.Decimal, error) {
	whole, frac, ok := strings.Cut(s, ",")
	if !ok || whole == "" && frac == "" || whole != "" && !isDigits(whole) || frac != "" && !isDigits(frac) {
		hint := ""
		if strings.Contains(s, ".") {
			hint = " (MT940 amounts use a decimal comma)"
		}
		return decimal.Decimal{}, bankfile.Errorf(f.line, tag, "%q is not an amount%s", bankfile.Clip(s), hint)
	}
	return decimal.RequireFromString("0" + whole + "." + frac + "0"), nil
}

// checkCount compares a :90D:/:90C: (number and sum of debits or credits) with the entries'
// of that direction.
func checkCount(f field, entries subtotal) (string, error) {
	tag := ":" + f.tag + ":"
	v := strings.TrimSpace(f.lines[0])
	i := 0
	for i < len(v) && v[i] >= '0' && v[i] <= '9' {
		i++
	}
	if i == 0 || len(v) < i+4 {
		return "", bankfile.Errorf(f.line, tag, "%q is not a number, currency and sum", bankfile.Clip(v))
	}
	sum, err := amount(v[i+3:], f, tag)
	if err != nil {
		return "", err
	}
	n, got := entries.n, entries.sum
	if n == atoi(v[:i]) && got.Equal(sum) {
		return "", nil
	}
	kind := "credits"
	if f.tag == "90D" {
		kind = "debits"
	}
	return fmt.Sprintf("The bank counts %d %s of %s %s (%s); the file lists %d of %s.", atoi(v[:i]), kind, sum.StringFixed(2), v[i:i+3], tag, n, got.StringFixed(2)), nil
}

func isDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

func isUpper(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 'A' || s[i] > 'Z' {
			return false
		}
	}
	return s != ""
}

func atoi(s string) int {
	n := 0
	for i := 0; i < len(s) && i < 9; i++ {
		n = n*10 + int(s[i]-'0')
	}
	return n
}

// collapse trims s and folds runs of spaces into one.
func collapse(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
