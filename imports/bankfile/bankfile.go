// Package bankfile is the one model of a bank's statement file that every statement reader
// returns: OFX/QFX/QBO (package ofx), ISO 20022 camt.052/053/054 (package camt) and SWIFT
// MT940/MT942 (package mt940). A file holds one or more statements; each names its account,
// lists the balances the bank reports and the entries it booked (or, in intraday reports, has
// pending).
//
// Readers know nothing of the database and the import engine knows nothing of any format:
// everything the engine needs is here, in one convention, whatever the file printed.
//
//   - Amounts are signed from the account holder's side: money into the account is positive,
//     money out is negative. For a credit card a purchase is negative and a payment positive.
//   - Balances are what the account holds, signed the same way: an overdrawn bank account, or
//     a card balance that is owed, is negative.
//   - Dates are calendar dates at UTC midnight, in the bank's own calendar: an OFX time of
//     23:30 at -05:00 stays on its own day.
//
// Readers fail only for a file they cannot read at all (*Error, naming the line and element).
// What a reader can read but finds doubtful (an entry without an id, an unknown code) goes in
// the statement's or entry's Notes, never silently dropped.
package bankfile

import (
	"bytes"
	"fmt"
	"time"
	"unicode/utf8"

	"github.com/shopspring/decimal"
)

// Format names the kind of file a statement came from.
type Format string

// The formats.
const (
	FormatOFX   Format = "ofx"
	FormatCAMT  Format = "camt"
	FormatMT940 Format = "mt940"
)

// File is everything one file holds.
type File struct {
	Format Format
	// Version is the format's own version: "102", "220" for OFX, "camt.053.001.08", "MT940".
	Version    string
	Statements []Statement
}

// Account kinds: what sort of account a statement is for, as far as the file says.
const (
	KindChecking   = "checking"
	KindSavings    = "savings"
	KindCreditCard = "credit_card"
	KindCreditLine = "credit_line"
	KindInvestment = "investment"
	KindOther      = "other" // a bank account of a kind the file does not say
)

// Account identifies the account a statement is for. At least one of Number and IBAN is set.
type Account struct {
	// IBAN, when the file gives one (camt Id/IBAN, an MT940 :25: that is an IBAN).
	IBAN string
	// Number is the bank's account number, without the bank code (OFX ACCTID, camt Othr/Id,
	// the account part of a German "BLZ/account" :25:).
	Number string
	// BankID is the bank's routing or sort code (OFX BANKID, a German BLZ, a camt BIC).
	BankID   string
	BranchID string
	Kind     string // one of the Kind constants
	Currency string // ISO 4217, upper case, when the file says
	Name     string // a name the file gives the account (camt Acct/Nm), if any
	Owner    string // the holder's name (camt Acct/Ownr/Nm), if any
}

// Key is a stable text naming the account across files of the same bank: the IBAN when there is
// one, else bank id and number. Two statements of one account give the same key.
func (a Account) Key() string {
	switch {
	case a.IBAN != "":
		return "iban:" + a.IBAN
	case a.BankID != "":
		return "acct:" + a.BankID + "/" + a.Number
	default:
		return "acct:" + a.Number
	}
}

// Display is how the account is named to a person: the IBAN, or the number masked to its last
// four characters.
func (a Account) Display() string {
	if a.IBAN != "" {
		return a.IBAN
	}
	n := a.Number
	if len(n) > 4 {
		n = "…" + n[len(n)-4:]
	}
	return n
}

// Balance kinds.
const (
	BalanceOpening   = "opening"   // booked balance at the start (camt OPBD/PRCD, MT940 :60F:/:60M:)
	BalanceClosing   = "closing"   // booked balance at the end (camt CLBD, MT940 :62F:/:62M:, OFX LEDGERBAL)
	BalanceInterim   = "interim"   // booked balance during the day (camt ITBD/ITAV)
	BalanceAvailable = "available" // what can be spent (camt CLAV, MT940 :64:, OFX AVAILBAL)
	BalanceForward   = "forward"   // available at a future date (camt FWAV, MT940 :65:)
)

// Balance is one balance the bank reports.
type Balance struct {
	Kind   string // one of the Balance constants
	Amount decimal.Decimal
	Date   time.Time
	// Intermediate marks an MT940 :60M:/:62M: balance: the statement continues in another
	// message, so it is the balance at a page break, not the day's.
	Intermediate bool
	Currency     string
}

// Entry is one transaction on the statement.
type Entry struct {
	// ID is the bank's own identifier of the transaction (OFX FITID, camt AcctSvcrRef, else
	// NtryRef or TxId, MT940 bank reference), "" when the bank gives none. IDSource names the
	// field it came from, for the rows view ("FITID", "AcctSvcrRef", ...).
	ID       string
	IDSource string
	// Booked is the booking (posting) date: the entry's date. Value is the value date, when
	// the file gives one; Initiated is when the customer acted (OFX DTUSER), if given.
	Booked    time.Time
	Value     *time.Time
	Initiated *time.Time
	Amount    decimal.Decimal // signed: money in positive
	Currency  string          // when it differs from the statement's, or the file repeats it
	// Counterparty is who paid or was paid: OFX NAME/PAYEE, camt Cdtr/Dbtr, MT940 ?32/?33.
	Counterparty string
	// Text is what the transaction says: OFX MEMO, camt Ustrd (joined) or the structured
	// reference, MT940 purpose text.
	Text string
	// Code is the bank's transaction type: OFX TRNTYPE, camt BkTxCd (Domn or Prtry), MT940
	// N-code and GVC.
	Code string
	// Reference is a reference the parties gave (end-to-end id, customer reference, check
	// number), when there is one and it is not the bank's ID.
	Reference string
	// CounterpartyAccount is the other side's IBAN or account number, if given.
	CounterpartyAccount string
	Pending             bool // not booked yet: camt PDNG, camt.052/MT942 entries, OFX none
	Reversal            bool // a reversal (camt RvslInd, MT940 RC/RD); Amount is already signed
	// Details are other facts worth keeping, as label and value (in a stable order): for
	// example "value date", "mandate", "creditor id", "original currency".
	Details []Detail
	// Line is where the entry starts in the file (1-based), for messages.
	Line int
}

// EntryFunc takes a file's entries one at a time as a reader reads them, for a caller that
// would rather not hold them all (the import reads a file twice instead). statement is the
// index the entry's statement will have in File.Statements. Given one, a reader leaves every
// Statement.Entries empty and returns the same File otherwise; the entries come in file order,
// as Read would list them, except that an intraday statement's may leave Pending to
// Statement.Intraday. An error from it ends the read with that error.
type EntryFunc func(statement int, e Entry) error

// Detail is one labelled fact of an entry.
type Detail struct {
	Label, Value string
}

// Trade is a purchase or sale of a security in an investment statement.
type Trade struct {
	ID       string // FITID
	Date     time.Time
	Security Security
	// Quantity is signed: positive bought, negative sold.
	Quantity decimal.Decimal
	Price    decimal.Decimal
	// Amount is the cash effect, signed like Entry.Amount (a purchase is negative).
	Amount   decimal.Decimal
	Fees     decimal.Decimal
	Currency string
	Memo     string
	Line     int
}

// Holding is a position held at a date.
type Holding struct {
	Security Security
	Quantity decimal.Decimal
	Price    decimal.Decimal
	Value    decimal.Decimal
	Date     time.Time
	Currency string
}

// Security names a security: its ticker when the file gives one, and its id (CUSIP or ISIN).
type Security struct {
	ID     string // CUSIP, ISIN or another id
	IDType string // "CUSIP", "ISIN", ...
	Ticker string
	Name   string
}

// Statement is one account's statement, report or notification.
type Statement struct {
	Account Account
	// Currency is the statement's default currency (OFX CURDEF, camt Acct/Ccy, the MT940
	// balances' currency).
	Currency string
	// ID is the statement's own id (camt Stmt/Id, MT940 :20: and :28C:), if any.
	ID string
	// From and To are the period the statement covers, when it says.
	From, To *time.Time
	// Intraday is true for reports of the current day (camt.052, MT942): their entries are
	// pending until an end-of-day statement books them.
	Intraday bool
	Balances []Balance
	Entries  []Entry
	// Trades and Holdings are an investment statement's (OFX INVSTMTRS).
	Trades   []Trade
	Holdings []Holding
	// Notes are things the reader noticed but could not use, in words for a person: "3 entries
	// of type INFO were left out: they are information, not bookings".
	Notes []string
	// Line is where the statement starts in the file.
	Line int
}

// Balance returns the statement's balance of the kind, preferring a final one over an
// intermediate one, and the latest date; ok is false when there is none.
func (s Statement) Balance(kind string) (b Balance, ok bool) {
	for _, c := range s.Balances {
		if c.Kind != kind {
			continue
		}
		if !ok || (b.Intermediate && !c.Intermediate) || (b.Intermediate == c.Intermediate && c.Date.After(b.Date)) {
			b, ok = c, true
		}
	}
	return b, ok
}

// Error is a file a reader cannot read: where it broke and why, in words for the person who
// uploaded it.
type Error struct {
	Line    int    // 1-based line, 0 when unknown
	Element string // the element, tag or field: "STMTTRN/TRNAMT", "Ntry/Amt", ":61:"
	Msg     string
}

func (e *Error) Error() string {
	switch {
	case e.Line > 0 && e.Element != "":
		return fmt.Sprintf("line %d, %s: %s", e.Line, e.Element, e.Msg)
	case e.Line > 0:
		return fmt.Sprintf("line %d: %s", e.Line, e.Msg)
	case e.Element != "":
		return e.Element + ": " + e.Msg
	}
	return e.Msg
}

// Errorf returns an *Error at line and element.
func Errorf(line int, element, format string, args ...any) *Error {
	return &Error{Line: line, Element: element, Msg: fmt.Sprintf(format, args...)}
}

// Limits bound what a reader accepts, so that hostile input stays cheap.
const (
	MaxBytes      = 10 << 20 // the import's content cap
	MaxDepth      = 64       // element nesting
	MaxElements   = 2_000_000
	MaxStatements = 10_000
)

// Text is a text file's content as UTF-8, for the readers of line-based formats (OFX 1.x,
// MT940): without a byte-order mark, and read as windows-1252 (a superset of Latin-1's
// printable characters) when it is not UTF-8, because such files promise a charset in their
// headers, or none, and break the promise often. A file over MaxBytes is an error.
func Text(content []byte) (string, error) {
	b, err := UTF8(content)
	return string(b), err
}

// UTF8 is Text without a copy of content when it is UTF-8 already, for a reader that copies
// out only what it keeps: content itself less its byte-order mark, else its windows-1252
// reading.
func UTF8(content []byte) ([]byte, error) {
	if len(content) > MaxBytes {
		return nil, Errorf(0, "", "the file is larger than %d MB", MaxBytes>>20)
	}
	content = bytes.TrimPrefix(content, []byte("\xef\xbb\xbf"))
	if utf8.Valid(content) {
		return content, nil
	}
	return latin1(content), nil
}

// Clip shortens a piece of a file quoted in a message to 40 characters.
func Clip(s string) string {
	if r := []rune(s); len(r) > 40 {
		return string(r[:40]) + "…"
	}
	return s
}

// Date returns the calendar day y-m-d at UTC midnight, the form every reader gives dates in.
func Date(y int, m time.Month, d int) time.Time { return time.Date(y, m, d, 0, 0, 0, 0, time.UTC) }
