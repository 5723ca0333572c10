// Package camt reads ISO 20022 bank-to-customer cash management messages into the bankfile
// model: camt.053 statements (end of day), camt.052 reports (intraday, or of past days when
// they state a closing balance) and camt.054 notifications, in any version banks send
// (.001.02 to .001.13), singly or as a ZIP of files.
//
// encoding/xml through bankfile's guarded decoder does the XML. A statement is walked one
// child at a time (account, balance, entry), so no tree larger than one entry is built.
package camt

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strings"

	"tally/imports/bankfile"
)

// The message kinds, by the element under Document.
var messages = map[string]struct {
	statement string // the repeated statement element
	version   string // camt.05x, when the namespace does not say more
	intraday  bool
}{
	"BkToCstmrStmt":         {"Stmt", "camt.053", false},
	"BkToCstmrAcctRpt":      {"Rpt", "camt.052", true},
	"BkToCstmrDbtCdtNtfctn": {"Ntfctn", "camt.054", false},
}

var namespaceRE = regexp.MustCompile(`camt\.05[234]\.001\.\d{2}`)

// Sniff reports whether content looks like a camt.052/053/054 document, or a ZIP holding one.
func Sniff(content []byte) bool {
	if bytes.HasPrefix(content, []byte("PK\x03\x04")) {
		return sniffZip(content)
	}
	head := bytes.TrimLeft(bytes.TrimPrefix(content, []byte("\xef\xbb\xbf")), " \t\r\n")
	if !bytes.HasPrefix(head, []byte("<")) {
		return false
	}
	if len(head) > 4096 {
		head = head[:4096]
	}
	if bytes.Contains(head, []byte("urn:iso:std:iso:20022:tech:xsd:camt.05")) {
		return true
	}
	for m := range messages {
		if bytes.Contains(head, []byte("<"+m)) || bytes.Contains(head, []byte(":"+m)) {
			return true
		}
	}
	return false
}

// Read reads a camt document or a ZIP of them. It fails only for a file it cannot read at all,
// with a *bankfile.Error naming the line and element.
func Read(content []byte) (*bankfile.File, error) { return ReadEach(content, nil) }

// ReadEach is Read handing each entry to each as it is read, rather than keeping it (see
// bankfile.EntryFunc).
func ReadEach(content []byte, each bankfile.EntryFunc) (*bankfile.File, error) {
	if len(content) > bankfile.MaxBytes {
		return nil, bankfile.Errorf(0, "", "the file is larger than %d MB", bankfile.MaxBytes>>20)
	}
	if bytes.HasPrefix(content, []byte("PK\x03\x04")) {
		return readZip(content, each)
	}
	return readDocument(content, each, 0)
}

// readDocument reads one document; its statements come after first others, for the indexes
// each is given.
func readDocument(content []byte, each bankfile.EntryFunc, first int) (*bankfile.File, error) {
	d := decoder{x: bankfile.NewXMLDecoder(content), each: each}
	root, _, line, err := d.next()
	if errors.Is(err, io.EOF) {
		return nil, bankfile.Errorf(line, "", "the file holds no XML element")
	}
	if err != nil {
		return nil, err
	}
	// Past the root, the guarded decoder reports a file that ends early as an *Error, never
	// as io.EOF.
	msg := root
	if root.Name.Local == "Document" {
		if msg, _, line, err = d.next(); err != nil {
			return nil, err
		}
		if msg == nil {
			return nil, bankfile.Errorf(line, "Document", "the document holds no message")
		}
	}
	kind, ok := messages[msg.Name.Local]
	if !ok {
		return nil, bankfile.Errorf(line, msg.Name.Local, "not a camt.052, camt.053 or camt.054 document (root <%s>)", rootName(root, msg))
	}
	version := namespaceRE.FindString(root.Name.Space)
	if version == "" {
		version = namespaceRE.FindString(msg.Name.Space)
	}
	if version == "" {
		version = kind.version
	}
	file := &bankfile.File{Format: bankfile.FormatCAMT, Version: version}
	for {
		start, end, line, err := d.next()
		if err != nil {
			return nil, err
		}
		if start == nil {
			if end == msg.Name.Local {
				break
			}
			continue
		}
		if start.Name.Local != kind.statement {
			if err := d.skip(); err != nil { // GrpHdr and the like
				return nil, err
			}
			continue
		}
		if len(file.Statements) >= bankfile.MaxStatements {
			return nil, bankfile.Errorf(line, kind.statement, "the file has more than %d statements", bankfile.MaxStatements)
		}
		st, err := d.statement(*start, line, kind.intraday, first+len(file.Statements))
		if err != nil {
			return nil, err
		}
		file.Statements = append(file.Statements, *st)
	}
	if len(file.Statements) == 0 {
		return nil, bankfile.Errorf(line, msg.Name.Local, "the message holds no <%s>", kind.statement)
	}
	return file, nil
}

// statementParts are the children of a statement that are read; the others (TxsSummry and
// the like) are skipped without being held.
var statementParts = map[string]bool{"Id": true, "FrToDt": true, "Acct": true, "Bal": true, "Ntry": true}

// statement reads one Stmt, Rpt or Ntfctn, an element at a time; index is the one it will
// have in the file's statements.
func (d decoder) statement(start xml.StartElement, line int, intraday bool, index int) (*bankfile.Statement, error) {
	st := &bankfile.Statement{Line: line}
	elem := start.Name.Local
	skipped, haveAcct, decided := 0, false, false
	entryCurrency, haveEntry := "", false // the first entry's, when the account names none
	for {
		c, end, line, err := d.next()
		if err != nil {
			return nil, err
		}
		if c == nil {
			if end == elem {
				break
			}
			continue
		}
		if !statementParts[c.Name.Local] {
			if err := d.skip(); err != nil {
				return nil, err
			}
			continue
		}
		n, err := d.subtree(*c, line)
		if err != nil {
			return nil, err
		}
		switch n.Name {
		case "Id":
			st.ID = n.Text
		case "FrToDt":
			if st.From, err = optDate(n, "FrDtTm", "FrToDt/FrDtTm"); err != nil {
				return nil, err
			}
			if st.To, err = optDate(n, "ToDtTm", "FrToDt/ToDtTm"); err != nil {
				return nil, err
			}
		case "Acct":
			if st.Account, err = account(n); err != nil {
				return nil, err
			}
			haveAcct = true
		case "Bal":
			b, known, err := balance(n)
			if err != nil {
				return nil, err
			}
			switch code := balanceCode(n); {
			case known:
				st.Balances = append(st.Balances, b)
			case code == "":
				st.Notes = append(st.Notes, "A balance without a type was not used.")
			default:
				st.Notes = append(st.Notes, fmt.Sprintf("A balance of type %s was not used.", code))
			}
		case "Ntry":
			if !decided { // the balances come before the entries
				intraday, decided = intraday && !statesClosing(st), true
			}
			entries, info, err := readEntry(n, intraday)
			if err != nil {
				return nil, err
			}
			if info {
				skipped++
			}
			if len(entries) > 0 && !haveEntry {
				entryCurrency, haveEntry = entries[0].Currency, true
			}
			if d.each == nil {
				st.Entries = append(st.Entries, entries...)
				continue
			}
			for _, e := range entries {
				if err := d.each(index, e); err != nil {
					return nil, err
				}
			}
		}
	}
	if !haveAcct {
		return nil, bankfile.Errorf(st.Line, elem+"/Acct", "the statement does not name its account")
	}
	st.Intraday = intraday && (decided || !statesClosing(st))
	// The account's currency, else the one its balances or entries are in.
	if st.Account.Currency == "" && len(st.Balances) > 0 {
		st.Account.Currency = st.Balances[0].Currency
	}
	if st.Account.Currency == "" && haveEntry {
		st.Account.Currency = entryCurrency
	}
	st.Currency = st.Account.Currency
	switch {
	case skipped == 1:
		st.Notes = append(st.Notes, "1 entry of status INFO was left out: it is information, not a booking.")
	case skipped > 1:
		st.Notes = append(st.Notes, fmt.Sprintf("%d entries of status INFO were left out: they are information, not bookings.", skipped))
	}
	return st, nil
}

// statesClosing reports whether st states a closing booked balance. A camt.052 report that
// does covers whole days, as the reports German banks give for past days do: it is read as a
// statement, whose entries are pending only where they say PDNG, and whose opening and closing
// balances count. Without one it is an intraday report, all of it pending.
func statesClosing(st *bankfile.Statement) bool {
	_, ok := st.Balance(bankfile.BalanceClosing)
	return ok
}

// account reads Acct: its IBAN or other id, currency, name, owner, servicing bank and type.
func account(n *bankfile.Node) (bankfile.Account, error) {
	a := bankfile.Account{
		IBAN:     strings.ToUpper(strings.ReplaceAll(n.Value("Id", "IBAN"), " ", "")),
		Number:   n.Value("Id", "Othr", "Id"),
		Currency: strings.ToUpper(n.Value("Ccy")),
		Name:     n.Value("Nm"),
		Owner:    n.Value("Ownr", "Nm"),
		BankID:   n.Value("Svcr", "FinInstnId", "BICFI"),
		Kind:     bankfile.KindOther,
	}
	if a.BankID == "" {
		a.BankID = n.Value("Svcr", "FinInstnId", "BIC")
	}
	if a.IBAN == "" && a.Number == "" {
		return a, bankfile.Errorf(n.Line, "Acct/Id", "the account has neither an IBAN nor another id")
	}
	switch n.Value("Tp", "Cd") {
	case "CACC", "CURR":
		a.Kind = bankfile.KindChecking
	case "SVGS":
		a.Kind = bankfile.KindSavings
	case "CARD":
		a.Kind = bankfile.KindCreditCard
	case "LOAN":
		a.Kind = bankfile.KindCreditLine
	}
	return a, nil
}

// balanceCode is a balance's type: its ISO code, else the bank's proprietary one.
func balanceCode(n *bankfile.Node) string {
	if c := n.Value("Tp", "CdOrPrtry", "Cd"); c != "" {
		return c
	}
	return n.Value("Tp", "CdOrPrtry", "Prtry")
}

// balance reads Bal; known is false for a type Tally does not use.
func balance(n *bankfile.Node) (b bankfile.Balance, known bool, err error) {
	switch balanceCode(n) {
	case "OPBD", "PRCD":
		b.Kind = bankfile.BalanceOpening
	case "CLBD":
		b.Kind = bankfile.BalanceClosing
	case "ITBD":
		b.Kind = bankfile.BalanceInterim
	case "CLAV", "ITAV":
		b.Kind = bankfile.BalanceAvailable
	case "FWAV":
		b.Kind = bankfile.BalanceForward
	default:
		return b, false, nil
	}
	amt := n.Child("Amt")
	if amt == nil {
		return b, false, bankfile.Errorf(n.Line, "Bal/Amt", "the balance has no amount")
	}
	if b.Amount, err = parseAmount(amt, "Bal/Amt"); err != nil {
		return b, false, err
	}
	if b.Amount, err = signed(n, b.Amount, "Bal/CdtDbtInd"); err != nil {
		return b, false, err
	}
	b.Currency = strings.ToUpper(amt.Attr("Ccy"))
	dt := n.Child("Dt")
	if dt == nil {
		return b, false, bankfile.Errorf(n.Line, "Bal/Dt", "the balance has no date")
	}
	d, err := dateOf(dt, "Bal/Dt")
	if err != nil {
		return b, false, err
	}
	b.Date = d
	return b, true, nil
}

// rootName names the document's root and message: "Document/CstmrCdtTrfInitn".
func rootName(root, msg *xml.StartElement) string {
	if root == msg {
		return root.Name.Local
	}
	return root.Name.Local + "/" + msg.Name.Local
}
