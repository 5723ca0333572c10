// Package ofx reads OFX files (Open Financial Exchange) and their Quicken (QFX) and QuickBooks
// (QBO) variants into the bankfile model: bank, credit-card and investment statements, several
// to a file.
//
// Both syntaxes are read by one tolerant tokenizer (tree.go): OFX 1.x is SGML whose leaves need
// no closing tag, and OFX 2.x is XML. The tokenizer hands elements over as they open and close,
// and the reader (stream.go) keeps one statement's skeleton and one transaction at a time, so
// that memory does not grow with the number of transactions, nor with a hostile file's tags. No Go OFX library could be used here (the best kept one,
// aclindsa/ofxgo, is not reachable through this project's module proxy), and reading OFX
// needs only this small tokenizer and the mapping below.
package ofx

import (
	"bytes"
	"regexp"
	"strings"
	"time"

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
func Read(content []byte) (*bankfile.File, error) { return ReadEach(content, nil) }

// ReadEach is Read handing each entry to each as it is read, rather than keeping it (see
// bankfile.EntryFunc).
func ReadEach(content []byte, each bankfile.EntryFunc) (*bankfile.File, error) {
	text, err := bankfile.UTF8(content)
	if err != nil {
		return nil, err
	}
	start := bytes.IndexByte(text, '<')
	if start < 0 {
		return nil, bankfile.Errorf(1, "", "the file has no OFX elements")
	}
	version := headerVersion(text[:start])
	if version == "" {
		version = piVersion(text)
	}
	body, line := text[start:], 1+bytes.Count(text[:start], newline)
	s := &scan{securities: map[string]bankfile.Security{}}
	if err := parseBody(body, line, s); err != nil {
		return nil, err
	}
	if s.ofx == nil {
		return nil, bankfile.Errorf(1, "OFX", "the file has no <OFX> element")
	}
	rd := &reading{r: reader{securities: s.securities}, facts: s.facts, each: each, file: &bankfile.File{Format: bankfile.FormatOFX, Version: version}}
	if err := parseBody(body, line, rd); err != nil {
		return nil, err
	}
	file := rd.file
	if len(file.Statements) == 0 {
		if len(rd.refused) > 0 {
			return nil, bankfile.Errorf(0, "STATUS", "the bank sent no statement: %s", strings.Join(rd.refused, "; "))
		}
		if msg := statusProblem(rd.ofx.Path("SIGNONMSGSRSV1", "SONRS")); msg != "" {
			return nil, bankfile.Errorf(0, "SONRS/STATUS", "the bank refused the sign-on: %s", msg)
		}
		return nil, bankfile.Errorf(0, "", "the file holds no bank, credit card or investment statement")
	}
	for _, msg := range rd.refused {
		file.Statements[0].Notes = append(file.Statements[0].Notes, "The bank sent no statement for another request in the file: "+msg+".")
	}
	return file, nil
}

// headerVersion is VERSION of an OFX 1.x header ("102"), "" when there is none.
func headerVersion(header []byte) string {
	for l := range bytes.Lines(header) {
		if k, v, ok := bytes.Cut(bytes.TrimSpace(l), []byte(":")); ok && bytes.EqualFold(k, []byte("VERSION")) {
			return string(bytes.TrimSpace(v))
		}
	}
	return ""
}

var piVersionRE = regexp.MustCompile(`(?i)<\?OFX[^>]*\bVERSION\s*=\s*"([0-9]+)"`)

// piVersion is VERSION of an OFX 2.x processing instruction ("220").
func piVersion(text []byte) string {
	if len(text) > 4096 {
		text = text[:4096]
	}
	if m := piVersionRE.FindSubmatch(text); m != nil {
		return string(m[1])
	}
	return ""
}

// The kinds of statement response an OFX file holds.
const (
	bankStatement = "bank"
	cardStatement = "card"
	invStatement  = "investment"
)

// statusProblem describes the STATUS of an aggregate when it is not success, else "".
func statusProblem(n *bankfile.Node) string {
	st := n.Child("STATUS")
	if st == nil {
		return ""
	}
	code := st.Value("CODE")
	if code == "" || code == "0" {
		return ""
	}
	msg := "code " + code
	if m := st.Value("MESSAGE"); m != "" {
		msg += " (" + m + ")"
	}
	return msg
}

type reader struct {
	securities map[string]bankfile.Security
}

// statement reads a response as it closes, with what its lists gave as they closed.
func (r reader) statement(kind string, rs *bankfile.Node, p *pending) (*bankfile.Statement, error) {
	st := &bankfile.Statement{Currency: strings.ToUpper(rs.Value("CURDEF")), Line: rs.Line}
	var err error
	switch kind {
	case bankStatement:
		from := rs.Child("BANKACCTFROM")
		if from == nil {
			return nil, bankfile.Errorf(rs.Line, "STMTRS/BANKACCTFROM", "the statement does not name its account")
		}
		st.Account = bankfile.Account{Number: from.Value("ACCTID"), BankID: from.Value("BANKID"), BranchID: from.Value("BRANCHID"),
			Kind: accountKind(from.Value("ACCTTYPE"))}
		if st.Account.Number == "" {
			return nil, bankfile.Errorf(from.Line, "BANKACCTFROM/ACCTID", "the account has no number")
		}
	case cardStatement:
		from := rs.Child("CCACCTFROM")
		if from == nil {
			return nil, bankfile.Errorf(rs.Line, "CCSTMTRS/CCACCTFROM", "the statement does not name its card account")
		}
		st.Account = bankfile.Account{Number: from.Value("ACCTID"), Kind: bankfile.KindCreditCard}
		if st.Account.Number == "" {
			return nil, bankfile.Errorf(from.Line, "CCACCTFROM/ACCTID", "the account has no number")
		}
	case invStatement:
		return r.investments(rs, p)
	}
	st.Account.Currency = st.Currency
	if list := rs.Child("BANKTRANLIST"); list != nil {
		if st.From, err = optDate(list, "DTSTART"); err != nil {
			return nil, err
		}
		if st.To, err = optDate(list, "DTEND"); err != nil {
			return nil, err
		}
		if p.listErr != nil {
			return nil, p.listErr
		}
		st.Entries = p.Entries
	}
	for _, b := range []struct{ elem, kind string }{{"LEDGERBAL", bankfile.BalanceClosing}, {"AVAILBAL", bankfile.BalanceAvailable}} {
		if n := rs.Child(b.elem); n != nil {
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

func balance(n *bankfile.Node, kind, currency string) (bankfile.Balance, error) {
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
func (r reader) entry(t *bankfile.Node, currency string) (bankfile.Entry, error) {
	e := bankfile.Entry{Line: t.Line, Code: strings.ToUpper(t.Value("TRNTYPE")), Text: t.Value("MEMO")}
	var err error
	if e.Booked, err = date(t, "DTPOSTED"); err != nil {
		return e, err
	}
	if e.Amount, err = amount(t, "TRNAMT"); err != nil {
		return e, err
	}
	if id := t.Value("FITID"); id != "" {
		e.ID, e.IDSource = id, "FITID"
	}
	if e.Initiated, err = optDate(t, "DTUSER"); err != nil {
		return e, err
	}
	e.Counterparty = t.Value("NAME")
	if e.Counterparty == "" {
		e.Counterparty = t.Value("PAYEE", "NAME")
	}
	e.Reference = t.Value("CHECKNUM")
	if e.Reference != "" {
		e.Details = append(e.Details, bankfile.Detail{Label: "check number", Value: e.Reference})
	} else {
		e.Reference = t.Value("REFNUM")
	}
	if avail, err := optDate(t, "DTAVAIL"); err != nil {
		return e, err
	} else if avail != nil {
		e.Details = append(e.Details, bankfile.Detail{Label: "funds available", Value: avail.Format(time.DateOnly)})
	}
	for _, to := range []string{"BANKACCTTO", "CCACCTTO"} {
		if n := t.Child(to); n != nil {
			e.CounterpartyAccount = n.Value("ACCTID")
		}
	}
	if c := t.Value("CURRENCY", "CURSYM"); c != "" && !strings.EqualFold(c, currency) {
		e.Currency = strings.ToUpper(c)
		e.Details = append(e.Details, bankfile.Detail{Label: "exchange rate", Value: t.Value("CURRENCY", "CURRATE")})
	}
	if c := t.Value("ORIGCURRENCY", "CURSYM"); c != "" {
		e.Details = append(e.Details, bankfile.Detail{Label: "original currency", Value: strings.ToUpper(c) + " at " + t.Value("ORIGCURRENCY", "CURRATE")})
	}
	if sic := t.Value("SIC"); sic != "" {
		e.Details = append(e.Details, bankfile.Detail{Label: "merchant category", Value: sic})
	}
	if act := t.Value("CORRECTACTION"); act != "" {
		e.Details = append(e.Details, bankfile.Detail{Label: "corrects", Value: strings.ToLower(act) + " " + t.Value("CORRECTFITID")})
	}
	return e, nil
}

// date reads a required OFX date: YYYYMMDD[HHMMSS[.XXX]][[offset[:TZ]]]. The day is kept as
// the bank wrote it, whatever the time and offset.
func date(n *bankfile.Node, name string) (time.Time, error) {
	c := n.Child(name)
	if c == nil || c.Text == "" {
		return time.Time{}, bankfile.Errorf(n.Line, n.Name+"/"+name, "missing")
	}
	return parseDate(c, n.Name+"/"+name)
}

// optDate reads an optional date; nil when the element is absent or empty.
func optDate(n *bankfile.Node, name string) (*time.Time, error) {
	c := n.Child(name)
	if c == nil || c.Text == "" {
		return nil, nil
	}
	d, err := parseDate(c, n.Name+"/"+name)
	if err != nil {
		return nil, err
	}
	return &d, nil
}

var dateRE = regexp.MustCompile(`^(\d{4})(\d{2})(\d{2})(?:\d{2}(?:\d{2}(?:\d{2}(?:[.,]\d{1,6})?)?)?)?\s*(?:\[\s*[+-]?\d{1,2}(?:[.:]\d{1,2})?(?::[A-Za-z]{0,8})?\s*\])?$`)

func parseDate(c *bankfile.Node, element string) (time.Time, error) {
	m := dateRE.FindStringSubmatch(c.Text)
	if m == nil {
		return time.Time{}, bankfile.Errorf(c.Line, element, "%q is not an OFX date (YYYYMMDD, optionally with a time and [offset:zone])", bankfile.Clip(c.Text))
	}
	y, mo, d := atoi(m[1]), atoi(m[2]), atoi(m[3])
	t := bankfile.Date(y, time.Month(mo), d)
	if mo < 1 || mo > 12 || t.Day() != d {
		return time.Time{}, bankfile.Errorf(c.Line, element, "%q is not a calendar date", bankfile.Clip(c.Text))
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
func amount(n *bankfile.Node, name string) (decimal.Decimal, error) {
	c := n.Child(name)
	if c == nil || c.Text == "" {
		return decimal.Decimal{}, bankfile.Errorf(n.Line, n.Name+"/"+name, "missing")
	}
	return parseAmount(c, n.Name+"/"+name)
}

func parseAmount(c *bankfile.Node, element string) (decimal.Decimal, error) {
	v := strings.ReplaceAll(c.Text, " ", "")
	if !amountRE.MatchString(v) {
		return decimal.Decimal{}, bankfile.Errorf(c.Line, element, "%q is not an amount", bankfile.Clip(c.Text))
	}
	v = strings.Replace(v, ",", ".", 1)
	if strings.HasPrefix(v, "+") {
		v = v[1:]
	}
	d, err := decimal.NewFromString(v)
	if err != nil {
		return decimal.Decimal{}, bankfile.Errorf(c.Line, element, "%q is not an amount", bankfile.Clip(c.Text))
	}
	return d, nil
}

// optAmount reads an optional amount, zero when absent.
func optAmount(n *bankfile.Node, name string) (decimal.Decimal, error) {
	c := n.Child(name)
	if c == nil || c.Text == "" {
		return decimal.Zero, nil
	}
	return parseAmount(c, n.Name+"/"+name)
}
