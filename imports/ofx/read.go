// Package ofx reads OFX files (Open Financial Exchange) and their Quicken (QFX) and QuickBooks
// (QBO) variants into the bankfile model: bank, credit-card and investment statements, several
// to a file.
//
// Both syntaxes are read by one tolerant tokenizer (tree.go): OFX 1.x is SGML whose leaves need
// no closing tag, and OFX 2.x is XML. No Go OFX library could be used here (the best kept one,
// aclindsa/ofxgo, is not reachable through this project's module proxy), and reading OFX
// needs only this small tokenizer and the mapping below.
package ofx

import (
	"bytes"
	"regexp"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/shopspring/decimal"

	"tally/imports/bankfile"
)

// Sniff reports whether content looks like an OFX, QFX or QBO file: an OFX 1.x header, or an
// <OFX> root near the start.
func Sniff(content []byte) bool {
	head := bytes.TrimLeft(bytes.TrimPrefix(content, []byte("\xef\xbb\xbf")), " \t\r\n")
	if len(head) > 4096 {
		head = head[:4096]
	}
	if len(head) >= 10 && bytes.EqualFold(head[:10], []byte("OFXHEADER:")) {
		return true
	}
	up := bytes.ToUpper(head)
	return bytes.HasPrefix(head, []byte("<")) && (bytes.Contains(up, []byte("<?OFX ")) || bytes.Contains(up, []byte("<OFX>")))
}

// Read reads an OFX file. It fails only for a file it cannot read at all, with a
// *bankfile.Error naming the line and element.
func Read(content []byte) (*bankfile.File, error) {
	if len(content) > bankfile.MaxBytes {
		return nil, bankfile.Errorf(0, "", "the file is larger than %d MB", bankfile.MaxBytes>>20)
	}
	content = bytes.TrimPrefix(content, []byte("\xef\xbb\xbf"))
	// Headers promise USASCII, 1252, 8859-1 or NONE and files break each promise; bytes that are
	// not UTF-8 are read as windows-1252, a superset of Latin-1's printable characters.
	text := string(content)
	if !utf8.ValidString(text) {
		text = bankfile.DecodeLatin1(content)
	}
	start := strings.IndexByte(text, '<')
	if start < 0 {
		return nil, bankfile.Errorf(1, "", "the file has no OFX elements")
	}
	version := headerVersion(text[:start])
	if version == "" {
		version = piVersion(text)
	}
	root, err := parseBody(text[start:], 1+strings.Count(text[:start], "\n"))
	if err != nil {
		return nil, err
	}
	ofx := root.child("OFX")
	if ofx == nil {
		return nil, bankfile.Errorf(1, "OFX", "the file has no <OFX> element")
	}
	r := reader{securities: securities(ofx)}
	file := &bankfile.File{Format: bankfile.FormatOFX, Version: version}
	var refused []string
	walkStatements(ofx, func(kind string, trnrs, rs *node) {
		if rs == nil {
			if msg := statusProblem(trnrs); msg != "" {
				refused = append(refused, msg)
			}
			return
		}
		if err != nil {
			return
		}
		var st *bankfile.Statement
		if st, err = r.statement(kind, rs); err == nil {
			if len(file.Statements) >= bankfile.MaxStatements {
				err = bankfile.Errorf(rs.line, rs.name, "the file has more than %d statements", bankfile.MaxStatements)
				return
			}
			file.Statements = append(file.Statements, *st)
		}
	})
	if err != nil {
		return nil, err
	}
	if len(file.Statements) == 0 {
		if len(refused) > 0 {
			return nil, bankfile.Errorf(0, "STATUS", "the bank sent no statement: %s", strings.Join(refused, "; "))
		}
		if msg := statusProblem(ofx.path("SIGNONMSGSRSV1", "SONRS")); msg != "" {
			return nil, bankfile.Errorf(0, "SONRS/STATUS", "the bank refused the sign-on: %s", msg)
		}
		return nil, bankfile.Errorf(0, "", "the file holds no bank, credit card or investment statement")
	}
	for _, msg := range refused {
		file.Statements[0].Notes = append(file.Statements[0].Notes, "The bank sent no statement for another request in the file: "+msg+".")
	}
	return file, nil
}

// headerVersion is VERSION of an OFX 1.x header ("102"), "" when there is none.
func headerVersion(header string) string {
	for _, l := range strings.Split(header, "\n") {
		if k, v, ok := strings.Cut(strings.TrimSpace(l), ":"); ok && strings.EqualFold(k, "VERSION") {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

var piVersionRE = regexp.MustCompile(`(?i)<\?OFX[^>]*\bVERSION\s*=\s*"([0-9]+)"`)

// piVersion is VERSION of an OFX 2.x processing instruction ("220").
func piVersion(text string) string {
	if len(text) > 4096 {
		text = text[:4096]
	}
	if m := piVersionRE.FindStringSubmatch(text); m != nil {
		return m[1]
	}
	return ""
}

// The kinds of statement response an OFX file holds.
const (
	bankStatement = "bank"
	cardStatement = "card"
	invStatement  = "investment"
)

// walkStatements calls fn for each statement transaction response in document order, with its
// statement (nil when the bank answered with an error and no statement).
func walkStatements(n *node, fn func(kind string, trnrs, rs *node)) {
	for _, c := range n.children {
		switch c.name {
		case "STMTTRNRS":
			fn(bankStatement, c, c.child("STMTRS"))
		case "CCSTMTTRNRS":
			fn(cardStatement, c, c.child("CCSTMTRS"))
		case "INVSTMTTRNRS":
			fn(invStatement, c, c.child("INVSTMTRS"))
		case "STMTRS": // a response without its transaction wrapper
			fn(bankStatement, n, c)
		case "CCSTMTRS":
			fn(cardStatement, n, c)
		case "INVSTMTRS":
			fn(invStatement, n, c)
		default:
			walkStatements(c, fn)
		}
	}
}

// statusProblem describes the STATUS of an aggregate when it is not success, else "".
func statusProblem(n *node) string {
	st := n.child("STATUS")
	if st == nil {
		return ""
	}
	code := st.text("CODE")
	if code == "" || code == "0" {
		return ""
	}
	msg := "code " + code
	if m := st.text("MESSAGE"); m != "" {
		msg += " (" + m + ")"
	}
	return msg
}

type reader struct {
	securities map[string]bankfile.Security
}

func (r reader) statement(kind string, rs *node) (*bankfile.Statement, error) {
	st := &bankfile.Statement{Currency: strings.ToUpper(rs.text("CURDEF")), Line: rs.line}
	var err error
	switch kind {
	case bankStatement:
		from := rs.child("BANKACCTFROM")
		if from == nil {
			return nil, bankfile.Errorf(rs.line, "STMTRS/BANKACCTFROM", "the statement does not name its account")
		}
		st.Account = bankfile.Account{Number: from.text("ACCTID"), BankID: from.text("BANKID"), BranchID: from.text("BRANCHID"),
			Kind: accountKind(from.text("ACCTTYPE"))}
		if st.Account.Number == "" {
			return nil, bankfile.Errorf(from.line, "BANKACCTFROM/ACCTID", "the account has no number")
		}
	case cardStatement:
		from := rs.child("CCACCTFROM")
		if from == nil {
			return nil, bankfile.Errorf(rs.line, "CCSTMTRS/CCACCTFROM", "the statement does not name its card account")
		}
		st.Account = bankfile.Account{Number: from.text("ACCTID"), Kind: bankfile.KindCreditCard}
		if st.Account.Number == "" {
			return nil, bankfile.Errorf(from.line, "CCACCTFROM/ACCTID", "the account has no number")
		}
	case invStatement:
		return r.investments(rs)
	}
	st.Account.Currency = st.Currency
	if list := rs.child("BANKTRANLIST"); list != nil {
		if st.From, err = optDate(list, "DTSTART"); err != nil {
			return nil, err
		}
		if st.To, err = optDate(list, "DTEND"); err != nil {
			return nil, err
		}
		for _, t := range list.children {
			if t.name != "STMTTRN" {
				continue
			}
			e, err := r.entry(t, st.Currency)
			if err != nil {
				return nil, err
			}
			st.Entries = append(st.Entries, e)
		}
	}
	for _, b := range []struct{ elem, kind string }{{"LEDGERBAL", bankfile.BalanceClosing}, {"AVAILBAL", bankfile.BalanceAvailable}} {
		if n := rs.child(b.elem); n != nil {
			bal, err := balance(n, b.kind, st.Currency)
			if err != nil {
				return nil, err
			}
			st.Balances = append(st.Balances, bal)
		}
	}
	return st, nil
}

// accountKind maps ACCTTYPE to a bankfile kind.
func accountKind(t string) string {
	switch strings.ToUpper(t) {
	case "CHECKING":
		return bankfile.KindChecking
	case "SAVINGS", "MONEYMRKT", "CD":
		return bankfile.KindSavings
	case "CREDITLINE":
		return bankfile.KindCreditLine
	}
	return bankfile.KindOther
}

func balance(n *node, kind, currency string) (bankfile.Balance, error) {
	amt, err := amount(n, "BALAMT")
	if err != nil {
		return bankfile.Balance{}, err
	}
	d, err := date(n, "DTASOF")
	if err != nil {
		return bankfile.Balance{}, err
	}
	return bankfile.Balance{Kind: kind, Amount: amt, Date: d, Currency: currency}, nil
}

// entry reads a STMTTRN.
func (r reader) entry(t *node, currency string) (bankfile.Entry, error) {
	e := bankfile.Entry{Line: t.line, Code: strings.ToUpper(t.text("TRNTYPE")), Text: t.text("MEMO")}
	var err error
	if e.Booked, err = date(t, "DTPOSTED"); err != nil {
		return e, err
	}
	if e.Amount, err = amount(t, "TRNAMT"); err != nil {
		return e, err
	}
	if id := t.text("FITID"); id != "" {
		e.ID, e.IDSource = id, "FITID"
	}
	if e.Initiated, err = optDate(t, "DTUSER"); err != nil {
		return e, err
	}
	e.Counterparty = t.text("NAME")
	if e.Counterparty == "" {
		e.Counterparty = t.text("PAYEE", "NAME")
	}
	e.Reference = t.text("CHECKNUM")
	if e.Reference != "" {
		e.Details = append(e.Details, bankfile.Detail{Label: "check number", Value: e.Reference})
	} else {
		e.Reference = t.text("REFNUM")
	}
	if avail, err := optDate(t, "DTAVAIL"); err != nil {
		return e, err
	} else if avail != nil {
		e.Details = append(e.Details, bankfile.Detail{Label: "funds available", Value: avail.Format(time.DateOnly)})
	}
	for _, to := range []string{"BANKACCTTO", "CCACCTTO"} {
		if n := t.child(to); n != nil {
			e.CounterpartyAccount = n.text("ACCTID")
		}
	}
	if c := t.text("CURRENCY", "CURSYM"); c != "" && !strings.EqualFold(c, currency) {
		e.Currency = strings.ToUpper(c)
		e.Details = append(e.Details, bankfile.Detail{Label: "exchange rate", Value: t.text("CURRENCY", "CURRATE")})
	}
	if c := t.text("ORIGCURRENCY", "CURSYM"); c != "" {
		e.Details = append(e.Details, bankfile.Detail{Label: "original currency", Value: strings.ToUpper(c) + " at " + t.text("ORIGCURRENCY", "CURRATE")})
	}
	if sic := t.text("SIC"); sic != "" {
		e.Details = append(e.Details, bankfile.Detail{Label: "merchant category", Value: sic})
	}
	if act := t.text("CORRECTACTION"); act != "" {
		e.Details = append(e.Details, bankfile.Detail{Label: "corrects", Value: strings.ToLower(act) + " " + t.text("CORRECTFITID")})
	}
	return e, nil
}

// date reads a required OFX date: YYYYMMDD[HHMMSS[.XXX]][[offset[:TZ]]]. The day is kept as
// the bank wrote it, whatever the time and offset.
func date(n *node, name string) (time.Time, error) {
	c := n.child(name)
	if c == nil || c.value == "" {
		return time.Time{}, bankfile.Errorf(n.line, n.name+"/"+name, "missing")
	}
	return parseDate(c, n.name+"/"+name)
}

// optDate reads an optional date; nil when the element is absent or empty.
func optDate(n *node, name string) (*time.Time, error) {
	c := n.child(name)
	if c == nil || c.value == "" {
		return nil, nil
	}
	d, err := parseDate(c, n.name+"/"+name)
	if err != nil {
		return nil, err
	}
	return &d, nil
}

var dateRE = regexp.MustCompile(`^(\d{4})(\d{2})(\d{2})(?:\d{2}(?:\d{2}(?:\d{2}(?:[.,]\d{1,6})?)?)?)?\s*(?:\[\s*[+-]?\d{1,2}(?:[.:]\d{1,2})?(?::[A-Za-z]{0,8})?\s*\])?$`)

func parseDate(c *node, element string) (time.Time, error) {
	m := dateRE.FindStringSubmatch(c.value)
	if m == nil {
		return time.Time{}, bankfile.Errorf(c.line, element, "%q is not an OFX date (YYYYMMDD, optionally with a time and [offset:zone])", clip(c.value))
	}
	y, mo, d := atoi(m[1]), atoi(m[2]), atoi(m[3])
	t := bankfile.Date(y, time.Month(mo), d)
	if mo < 1 || mo > 12 || t.Day() != d {
		return time.Time{}, bankfile.Errorf(c.line, element, "%q is not a calendar date", clip(c.value))
	}
	return t, nil
}

func atoi(s string) int {
	n := 0
	for _, r := range s {
		n = n*10 + int(r-'0')
	}
	return n
}

var amountRE = regexp.MustCompile(`^[+-]?(\d+([.,]\d*)?|[.,]\d+)$`)

// amount reads a required signed amount. OFX amounts have no thousands separators; a comma is
// a decimal separator, as some European banks write it.
func amount(n *node, name string) (decimal.Decimal, error) {
	c := n.child(name)
	if c == nil || c.value == "" {
		return decimal.Decimal{}, bankfile.Errorf(n.line, n.name+"/"+name, "missing")
	}
	return parseAmount(c, n.name+"/"+name)
}

func parseAmount(c *node, element string) (decimal.Decimal, error) {
	v := strings.ReplaceAll(c.value, " ", "")
	if !amountRE.MatchString(v) {
		return decimal.Decimal{}, bankfile.Errorf(c.line, element, "%q is not an amount", clip(c.value))
	}
	v = strings.Replace(v, ",", ".", 1)
	if strings.HasPrefix(v, "+") {
		v = v[1:]
	}
	d, err := decimal.NewFromString(v)
	if err != nil {
		return decimal.Decimal{}, bankfile.Errorf(c.line, element, "%q is not an amount", clip(c.value))
	}
	return d, nil
}

// optAmount reads an optional amount, zero when absent.
func optAmount(n *node, name string) (decimal.Decimal, error) {
	c := n.child(name)
	if c == nil || c.value == "" {
		return decimal.Zero, nil
	}
	return parseAmount(c, n.name+"/"+name)
}
