package imports

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"

	"tally/imports/bankfile"
	"tally/imports/camt"
	"tally/imports/mt940"
	"tally/imports/ofx"
	"tally/imports/sniff"
	"tally/internal/apperr"
	"tally/internal/db"
	"tally/models"
)

// StatementFile is what a bank statement file (OfxImport, CamtImport, Mt940Import) says about
// itself: one summary per statement, and after publish how its entries met the family's.
type StatementFile struct {
	Format     string             `json:"format"`
	Version    string             `json:"version"`
	Statements []StatementSummary `json:"statements"`
	// Matches is set by publish: how each row was matched against the family's entries.
	Matches *MatchCounts `json:"matches,omitempty"`
}

// StatementSummary is one statement of a file: its account, balances and reconciliation.
type StatementSummary struct {
	Index    int              `json:"index"`
	Account  StatementAccount `json:"account"`
	ID       string           `json:"id,omitempty"`
	Currency string           `json:"currency"`
	From     *string          `json:"from,omitempty"`
	To       *string          `json:"to,omitempty"`
	// Intraday statements (camt.052, MT942) hold pending entries and interim balances.
	Intraday     bool            `json:"intraday"`
	Opening      *BalanceAt      `json:"opening_balance,omitempty"`
	Closing      *BalanceAt      `json:"closing_balance,omitempty"`
	Available    *BalanceAt      `json:"available_balance,omitempty"`
	EntriesCount int             `json:"entries_count"`
	PendingCount int             `json:"pending_count"`
	EntriesSum   decimal.Decimal `json:"entries_sum"`
	TradesCount  int             `json:"trades_count,omitempty"`
	Holdings     int             `json:"holdings_count,omitempty"`
	// Reconciliation is "reconciled" (opening + entries = closing), "difference" (they do not
	// add up: Difference is closing − (opening + entries)), "no_opening_balance" (OFX files
	// carry none: the closing balance is checked against the ledger at publish instead),
	// "no_closing_balance", or "intraday" (an intraday report has no closing balance to meet).
	Reconciliation string           `json:"reconciliation"`
	Difference     *decimal.Decimal `json:"difference,omitempty"`
	Notes          []string         `json:"notes,omitempty"`
	// LedgerCheck is set by publish for a statement with a closing balance: what the family's
	// ledger says the balance was on that day, walked from the account's anchor once the
	// statement's entries are in (models.ReconcileAccounts).
	LedgerCheck *LedgerCheck `json:"ledger_check,omitempty"`
	// OpeningCheck is the same for its opening balance, at the end of the day before the
	// statement begins.
	OpeningCheck *LedgerCheck `json:"opening_check,omitempty"`
}

// StatementAccount is the account a statement names, and what a new account for it would be.
type StatementAccount struct {
	Key      string `json:"key"`
	Display  string `json:"display"`
	IBAN     string `json:"iban,omitempty"`
	Number   string `json:"number,omitempty"`
	BankID   string `json:"bank_id,omitempty"`
	Kind     string `json:"kind"`
	Currency string `json:"currency"`
	// Name and Type are what publish gives an account it creates for the statement.
	Name string `json:"name"`
	Type string `json:"account_type"`
	// Candidates are the family's accounts the statement's entries could go into, best first
	// (rankAccounts), SuggestedAccountID the one its mapping started with, nil for a new
	// account, and SuggestionReason what spoke for it. They are left out when the upload named
	// the account.
	Candidates         []AccountCandidate `json:"candidates,omitempty"`
	SuggestedAccountID *uuid.UUID         `json:"suggested_account_id,omitempty"`
	SuggestionReason   string             `json:"suggestion_reason,omitempty"`
}

// BalanceAt is a balance on a day.
type BalanceAt struct {
	Amount decimal.Decimal `json:"amount"`
	Date   string          `json:"date"`
}

// LedgerCheck compares the bank's closing balance with the family's ledger.
type LedgerCheck struct {
	// Status is "matched", "difference", or "unknown" when the account's balance is not
	// known (no anchor to walk from).
	Status     string           `json:"status"`
	Ledger     *decimal.Decimal `json:"ledger_balance,omitempty"`
	Bank       decimal.Decimal  `json:"bank_balance"`
	Difference *decimal.Decimal `json:"difference,omitempty"`
}

// MatchCounts says how a publish met the family's entries, row by row.
type MatchCounts struct {
	New int `json:"new"`
	// ByBankID are rows whose bank id the account already had, unchanged.
	ByBankID int `json:"duplicates_by_bank_id"`
	// ByContent are rows without a usable bank id that matched an entry on account, date,
	// amount and name.
	ByContent int `json:"duplicates_by_content"`
	// Likely are rows without a usable bank id that matched an entry on account, date and
	// amount under another name, skipped as likely duplicates (those a person kept are New).
	Likely int `json:"likely_duplicates"`
	// Corrected are rows whose bank id the account had with other values: the entry was
	// updated in place.
	Corrected int `json:"corrected"`
	// PendingBooked are booked rows that replaced a pending entry (by bank id, or by amount
	// within pendingMatchDays).
	PendingBooked int `json:"pending_booked"`
	// InFile are rows repeated within the file itself (the same bank id twice).
	InFile int `json:"duplicates_in_file"`
	// Balances is how many closing balances were recorded (or corrected) as valuations; one
	// the account already had is not counted.
	Balances int `json:"balances_recorded"`
	// Holdings is how many positions of investment statements were recorded.
	Holdings int `json:"holdings_recorded"`
}

// How a row was matched, kept in its extra as "matched_by" and shown in the rows view.
const (
	MatchBankID        = "bank_id"
	MatchContent       = "content"
	MatchCorrected     = "bank_id_corrected"
	MatchPendingBooked = "pending_booked"
	MatchInFile        = "bank_id_in_file"
	// MatchLikely is a likely duplicate (the same date and amount, another name), skipped;
	// MatchLikelyKept one a person keeps.
	MatchLikely     = "likely"
	MatchLikelyKept = "likely_kept"
)

// statementReaders are the readers of each statement file type.
var statementReaders = map[Type]struct {
	format bankfile.Format
	read   func([]byte, bankfile.EntryFunc) (*bankfile.File, error)
	sniff  func([]byte) bool
	what   string
}{
	OfxImport:   {bankfile.FormatOFX, ofx.ReadEach, ofx.Sniff, "an OFX, QFX or QBO file"},
	CamtImport:  {bankfile.FormatCAMT, camt.ReadEach, camt.Sniff, "an ISO 20022 camt.052, camt.053 or camt.054 file (or a ZIP of them)"},
	Mt940Import: {bankfile.FormatMT940, mt940.ReadEach, mt940.Sniff, "an MT940 or MT942 file"},
}

// IsStatementFile reports whether t is a bank statement file type (OFX, camt, MT940).
func (t Type) IsStatementFile() bool {
	_, ok := statementReaders[t]
	return ok
}

// statementRows reads a bank statement file into rows, built as they are stored: one per
// entry, in the ledger's sign, with the bank's id, and one account mapping per account the
// file names.
func (s *Service) statementRows(ctx context.Context, up Upload, im *Import, acct *models.Account, p *prepared) error {
	rd := statementReaders[im.Type]
	if !rd.sniff(up.Content) {
		e := apperr.Errorf(apperr.Invalid, "The file is not %s.", rd.what).WithSlug("invalid_file_type")
		if t, ok := DetectType(up.Content); ok && t != im.Type {
			e.Message += fmt.Sprintf(" It looks like a %s: send type=%s, or type=auto.", t, t)
			e.Details = map[string]any{"detected_type": t}
		}
		return e
	}
	b := &rowBuilder{rc: &rowContext{now: s.now()}, flip: im.Config.SignageConvention == InflowsNegative,
		read: func(each bankfile.EntryFunc) (*bankfile.File, error) { return rd.read(up.Content, each) }}
	file, sums, err := b.plan()
	if err != nil {
		var be *bankfile.Error
		if !errors.As(err, &be) {
			return apperr.Wrap(apperr.Internal, err, "read statement file")
		}
		return &apperr.Error{Code: apperr.Invalid, Slug: "invalid_statement", Message: "The statement file could not be read: " + be.Error(),
			Fields: map[string][]string{"content": {be.Error()}}, Err: err}
	}
	keys := map[string]bool{}
	for _, st := range file.Statements {
		keys[st.Account.Key()] = true
	}
	if acct != nil && len(keys) > 1 {
		return apperr.Errorf(apperr.Invalid, "The file holds statements of %d accounts, so account_id cannot name one account for all of them: leave it out and map each account.", len(keys)).
			WithSlug("validation_failed").WithFields(map[string][]string{"account_id": {fmt.Sprintf("the file holds %d accounts", len(keys))}})
	}
	sf := &StatementFile{Format: string(file.Format), Version: file.Version, Statements: sums}
	if acct == nil {
		if err := rankAccounts(ctx, s.DB, im.FamilyID, file, b.totals, sf); err != nil {
			return err
		}
	}
	im.Statements = sf
	im.Config.DateFormat = strPtr("%Y-%m-%d")
	p.each = b.rows
	return nil
}

// rowBuilder turns a statement file into rows without holding its entries. A first read
// (plan) sums each statement and decides what the bank ids the file repeats do to their rows;
// a second (rows) builds each row as the import stores it. Both read the same bytes with the
// same reader, so they meet the same entries in the same order, and the second cannot fail
// where the first did not.
type rowBuilder struct {
	rc   *rowContext
	read func(bankfile.EntryFunc) (*bankfile.File, error)
	// flip turns every entry round: a few issuers sign amounts the wrong way, and the person
	// says so, as for a CSV (balances are left as the bank gives them).
	flip   bool
	format string
	// file is the statements without their entries; for each, counts is how many entries it
	// has and starts its first row, and keys and currencies are what its rows say.
	file             *bankfile.File
	counts, starts   []int
	keys, currencies []string
	// marks are what the first read decided for the rows whose bank id the file repeats.
	marks map[int]rowMark
	// totals are each statement's entries added up by the first read.
	totals []entryTotals
}

// rowMark is what a row's bank id repeated in the file does to it.
type rowMark struct {
	id     string // the bank id the row is stored under, when another transaction took its own
	inFile bool   // the row repeats another of the file, which is kept instead
}

// entryTotals are what the first read adds up of a statement's entries.
type entryTotals struct {
	count, pending int             // pending: by the entries' own word, before the statement's
	sum, booked    decimal.Decimal // booked: of those not pending by their own word
	first          time.Time       // the earliest day of those, zero when there are none
}

// idEntry is an entry with a bank id, with what deciding its repeats needs.
type idEntry struct {
	stmt, pos int // its statement, and its place among that statement's entries
	id        string
	amount    decimal.Decimal
	booked    time.Time
	pending   bool
}

// turn applies flip.
func (b *rowBuilder) turn(e *bankfile.Entry) {
	if b.flip {
		e.Amount = e.Amount.Neg()
	}
}

// plan reads the file a first time, for its statements, their summaries and the marks.
func (b *rowBuilder) plan() (*bankfile.File, []StatementSummary, error) {
	var totals []entryTotals
	var ided []idEntry
	file, err := b.read(func(i int, e bankfile.Entry) error {
		b.turn(&e)
		for len(totals) <= i {
			totals = append(totals, entryTotals{})
		}
		t := &totals[i]
		if e.ID != "" {
			ided = append(ided, idEntry{stmt: i, pos: t.count, id: e.ID, amount: e.Amount, booked: e.Booked, pending: e.Pending})
		}
		t.count++
		t.sum = t.sum.Add(e.Amount)
		if e.Pending {
			t.pending++
		} else {
			t.booked = t.booked.Add(e.Amount)
			if t.first.IsZero() || e.Booked.Before(t.first) {
				t.first = e.Booked
			}
		}
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	b.file, b.format = file, string(file.Format)
	sums := make([]StatementSummary, len(file.Statements))
	row := 0
	for i, st := range file.Statements {
		var t entryTotals
		if i < len(totals) {
			t = totals[i]
		}
		b.counts, b.starts = append(b.counts, t.count), append(b.starts, row)
		b.keys, b.currencies = append(b.keys, st.Account.Key()), append(b.currencies, firstNonBlank(st.Currency, st.Account.Currency))
		row += t.count + len(st.Trades) + len(st.Holdings)
		sums[i] = summary(i, st, t)
	}
	for len(totals) < len(file.Statements) {
		totals = append(totals, entryTotals{})
	}
	b.totals = totals
	b.marks = map[int]rowMark{}
	b.dedupInFile(ided)
	return file, sums, nil
}

// summary is statement st's summary, its entries added up in t.
func summary(index int, st bankfile.Statement, t entryTotals) StatementSummary {
	acct := st.Account
	cur := firstNonBlank(st.Currency, acct.Currency)
	sum := StatementSummary{Index: index + 1, ID: st.ID, Currency: cur, Intraday: st.Intraday, Notes: st.Notes,
		TradesCount: len(st.Trades), Holdings: len(st.Holdings),
		Account: StatementAccount{Key: acct.Key(), Display: acct.Display(), IBAN: acct.IBAN, Number: acct.Number, BankID: acct.BankID,
			Kind: acct.Kind, Currency: cur, Type: accountTypeFor(acct.Kind), Name: accountNameFor(acct)}}
	if st.From != nil {
		sum.From = strPtr(st.From.Format(time.DateOnly))
	}
	if st.To != nil {
		sum.To = strPtr(st.To.Format(time.DateOnly))
	}
	sum.Opening = firstBalance(st, bankfile.BalanceOpening)
	sum.Closing = lastBalance(st, bankfile.BalanceClosing)
	sum.Available = lastBalance(st, bankfile.BalanceAvailable)
	sum.EntriesCount, sum.EntriesSum, sum.PendingCount = t.count, t.sum, t.pending
	booked := t.booked
	if st.Intraday {
		// An intraday statement's entries are all pending.
		sum.PendingCount, booked = t.count, decimal.Zero
	}
	switch {
	case st.Intraday:
		sum.Reconciliation = "intraday"
	case sum.Closing == nil:
		sum.Reconciliation = "no_closing_balance"
	case sum.Opening == nil:
		sum.Reconciliation = "no_opening_balance"
	default:
		diff := sum.Closing.Amount.Sub(sum.Opening.Amount.Add(booked))
		if diff.IsZero() {
			sum.Reconciliation = "reconciled"
		} else {
			sum.Reconciliation = "difference"
			sum.Difference = &diff
		}
	}
	return sum
}

// rows yields the file's rows, reading it a second time: each statement's entries, then its
// trades and holdings.
func (b *rowBuilder) rows(yield func(*Row) bool) {
	next := 0 // the first statement whose trades and holdings are not out yet
	rest := func(upto int) bool {
		for ; next < upto; next++ {
			st, i := &b.file.Statements[next], next
			n := b.starts[i] + b.counts[i]
			for _, tr := range st.Trades {
				if !yield(b.trade(n, i, b.keys[i], b.currencies[i], tr)) {
					return false
				}
				n++
			}
			for _, h := range st.Holdings {
				if !yield(b.holding(n, i, b.keys[i], b.currencies[i], h)) {
					return false
				}
				n++
			}
		}
		return true
	}
	stopped := errors.New("stopped")
	cur, pos := -1, 0 // the statement being read, and its entry's place in it
	_, err := b.read(func(i int, e bankfile.Entry) error {
		if !rest(i) {
			return stopped
		}
		if i != cur {
			cur, pos = i, 0
		}
		b.turn(&e)
		e.Pending = e.Pending || b.file.Statements[i].Intraday
		n := b.starts[i] + pos
		pos++
		if !yield(b.entry(n, i, b.keys[i], b.currencies[i], e)) {
			return stopped
		}
		return nil
	})
	if err == nil {
		rest(len(b.file.Statements))
	}
}

// entry is the row of an entry, row n of the file's. Its cells show the account as a person
// is shown it, a card's number masked.
func (b *rowBuilder) entry(n, stmt int, accountKey, currency string, e bankfile.Entry) *Row {
	acct := b.file.Statements[stmt].Account
	r := &Row{Number: n + 1, Line: e.Line, RecordID: uuid.Must(uuid.NewV7()), AccountKey: accountKey}
	date := e.Booked
	amount := e.Amount.Neg() // the ledger's sign: money out is positive
	r.Date, r.Amount = &date, &amount
	r.Currency = strings.ToUpper(firstNonBlank(e.Currency, currency))
	r.Name = entryName(e)
	r.Notes = entryNotes(e, r.Name, acct.Number)
	r.Extra = map[string]any{"source": b.format, "statement": stmt + 1, "pending": e.Pending}
	if e.ID != "" {
		r.Extra["external_id"], r.Extra["id_source"] = e.ID, e.IDSource
	}
	if e.Value != nil {
		r.Extra["value_date"] = e.Value.Format(time.DateOnly)
	}
	if e.Code != "" {
		r.Extra["code"] = e.Code
	}
	if d := entryDetails(e, r.Name, acct.Number); len(d) > 0 {
		r.Extra["details"] = d
	}
	if e.Reversal {
		r.Extra["reversal"] = true
	}
	if m, ok := b.marks[n]; ok {
		if m.id != "" {
			r.Extra["external_id"] = m.id
		}
		if m.inFile {
			r.Extra["matched_by"] = MatchInFile
			r.Extra["in_file_duplicate"] = true
		}
	}
	r.Raw[ColAccount], r.Raw[ColDate], r.Raw[ColName] = acct.Display(), date.Format(time.DateOnly), r.Name
	r.Raw[ColAmount], r.Raw[ColCurrency], r.Raw[ColNotes] = e.Amount.String(), r.Currency, r.Notes
	switch {
	case date.Before(earliestDate) || date.After(b.rc.latestDate()):
		r.fail(fmt.Sprintf("Line %d: the booking date %s is outside the dates Tally accepts (1900 to a year from now)", e.Line, date.Format(time.DateOnly)))
	case amount.Abs().Cmp(models.MaxAmount) >= 0:
		r.fail(fmt.Sprintf("Line %d: the amount %s is too large", e.Line, e.Amount))
	case len(r.Currency) != 3:
		r.fail(fmt.Sprintf("Line %d: the statement names no currency for this entry", e.Line))
	}
	return r
}

// trade is the row of a purchase or sale of a security: publish writes it as a trade of the
// account, which must be an investment account.
func (b *rowBuilder) trade(n, stmt int, accountKey, currency string, tr bankfile.Trade) *Row {
	r := b.securityRow(n, stmt, accountKey, currency, tr.Line, tr.Security, tr.Date, tr.Quantity, tr.Price)
	amount := tr.Amount.Neg() // the ledger's sign: a purchase is money out
	if amount.IsZero() {
		amount = tr.Quantity.Mul(tr.Price).Round(4)
	}
	r.Amount = &amount
	verb := "Buy"
	if tr.Quantity.IsNegative() {
		verb = "Sell"
	}
	r.Name = fmt.Sprintf("%s %s %s", verb, tr.Quantity.Abs(), firstNonBlank(tr.Security.Name, r.Ticker))
	r.Notes = cleanText(tr.Memo)
	if !tr.Fees.IsZero() {
		r.Notes = strings.TrimSpace(r.Notes + "\nFees: " + tr.Fees.String())
	}
	if tr.ID != "" {
		r.Extra["external_id"], r.Extra["id_source"] = tr.ID, "FITID"
	}
	r.Raw[ColName], r.Raw[ColAmount], r.Raw[ColNotes] = r.Name, tr.Amount.String(), r.Notes
	return r
}

// holding is the row of a position the statement reports: publish writes it as the account's
// holding of the day.
func (b *rowBuilder) holding(n, stmt int, accountKey, currency string, h bankfile.Holding) *Row {
	r := b.securityRow(n, stmt, accountKey, currency, 0, h.Security, h.Date, h.Quantity, h.Price)
	value := h.Value
	if value.IsZero() {
		value = h.Quantity.Mul(h.Price).Round(4)
	}
	r.Amount = &value
	r.Name = fmt.Sprintf("Holding of %s %s", h.Quantity, firstNonBlank(h.Security.Name, r.Ticker))
	r.Extra["holding"] = true
	r.Raw[ColName], r.Raw[ColAmount] = r.Name, value.String()
	return r
}

// securityRow is the common part of a trade's or a holding's row.
func (b *rowBuilder) securityRow(n, stmt int, accountKey, currency string, line int, sec bankfile.Security, date time.Time, qty, price decimal.Decimal) *Row {
	acct := b.file.Statements[stmt].Account
	r := &Row{Number: n + 1, Line: line, RecordID: uuid.Must(uuid.NewV7()), AccountKey: accountKey}
	r.Date = &date
	r.Currency = strings.ToUpper(currency)
	r.Ticker = strings.ToUpper(strings.TrimSpace(firstNonBlank(sec.Ticker, sec.ID)))
	r.Qty, r.Price = &qty, &price
	r.Extra = map[string]any{"source": b.format, "statement": stmt + 1, "pending": false}
	if sec.ID != "" {
		r.Extra["security_id"] = sec.IDType + " " + sec.ID
	}
	r.Raw[ColAccount], r.Raw[ColDate], r.Raw[ColTicker] = acct.Display(), date.Format(time.DateOnly), r.Ticker
	r.Raw[ColQty], r.Raw[ColPrice], r.Raw[ColCurrency] = qty.String(), price.String(), r.Currency
	switch {
	case r.Ticker == "":
		r.fail(fmt.Sprintf("Line %d: the statement names no ticker or id for this security", line))
	case date.Before(earliestDate) || date.After(b.rc.latestDate()):
		r.fail(fmt.Sprintf("Line %d: the date %s is outside the dates Tally accepts (1900 to a year from now)", line, date.Format(time.DateOnly)))
	case qty.Mul(price).Abs().Cmp(models.MaxAmount) >= 0:
		r.fail(fmt.Sprintf("Line %d: quantity times price is too large", line))
	case len(r.Currency) != 3:
		r.fail(fmt.Sprintf("Line %d: the statement names no currency", line))
	}
	return r
}

// dedupInFile decides what the bank ids the file repeats for one account do to their rows,
// the entries with one (ided) in file order. The same transaction twice (overlapping
// statements in one file, a pending report and the statement that books it) keeps one row:
// the booked one, else the later one. Two different transactions under one id (a bank
// reusing ids) are both kept, the later one with a suffix.
func (b *rowBuilder) dedupInFile(ided []idEntry) {
	seen := map[string]int{} // account key and bank id to the entry in ided that holds it
	mark := func(n int, f func(*rowMark)) {
		m := b.marks[n]
		f(&m)
		b.marks[n] = m
	}
	for k := range ided {
		e := &ided[k]
		e.pending = e.pending || b.file.Statements[e.stmt].Intraday
		n := b.starts[e.stmt] + e.pos
		key := b.keys[e.stmt] + "\x00" + e.id
		i, ok := seen[key]
		if !ok {
			seen[key] = k
			continue
		}
		prev := &ided[i]
		if !prev.amount.Equal(e.amount) || !prev.booked.Equal(e.booked) && prev.pending == e.pending {
			for c := 2; ; c++ {
				if _, taken := seen[key+"#"+strconv.Itoa(c)]; !taken {
					seen[key+"#"+strconv.Itoa(c)] = k
					mark(n, func(m *rowMark) { m.id = fmt.Sprintf("%s#%d", e.id, c) })
					break
				}
			}
			continue
		}
		// Keep the booked one; between equals, the later.
		loser := b.starts[prev.stmt] + prev.pos
		if e.pending && !prev.pending {
			loser = n
		} else {
			seen[key] = k
		}
		mark(loser, func(m *rowMark) { m.inFile = true })
	}
}

// entryName is what the entry is called: who was paid or paid, else what it says, else what
// kind of transaction it is.
func entryName(e bankfile.Entry) string {
	if n := cleanText(e.Counterparty); n != "" {
		return n
	}
	if t := cleanText(e.Text); t != "" {
		if len([]rune(t)) > 80 {
			t = string([]rune(t)[:80])
		}
		return t
	}
	if e.Reference != "" && strings.HasPrefix(e.Reference, "Check ") {
		return e.Reference
	}
	if w := codeWords[strings.ToUpper(e.Code)]; w != "" {
		return w
	}
	if e.Amount.IsNegative() {
		return "Bank debit"
	}
	return "Bank credit"
}

// codeWords name OFX transaction types, for entries with no other text.
var codeWords = map[string]string{
	"INT": "Interest", "DIV": "Dividend", "FEE": "Fee", "SRVCHG": "Service charge", "DEP": "Deposit",
	"ATM": "ATM withdrawal", "POS": "Card payment", "XFER": "Transfer", "CHECK": "Check", "PAYMENT": "Payment",
	"CASH": "Cash withdrawal", "DIRECTDEP": "Direct deposit", "DIRECTDEBIT": "Direct debit", "REPEATPMT": "Standing order",
}

// entryNotes is what the bank said about the entry in words, for a person to read: its text,
// when that is not its name, and whether it reverses an earlier booking. The references and
// codes go in its details (entryDetails).
func entryNotes(e bankfile.Entry, name, card string) string {
	var lines []string
	if t := cleanText(e.Text); t != "" && t != name {
		lines = append(lines, maskCardNumbers(t, card))
	}
	if e.Reversal {
		lines = append(lines, "Reversal of an earlier booking")
	}
	return strings.Join(lines, "\n")
}

// RowDetail is a labelled fact of a statement's entry that a person rarely needs: a
// reference, the value date, the other party's account, the bank's code for the kind of
// transaction.
type RowDetail struct {
	Label string `json:"label"`
	Value string `json:"value"`
}

// entryDetails are the entry's references and codes, kept beside its notes. A card number
// among them is masked.
func entryDetails(e bankfile.Entry, name, card string) []RowDetail {
	var out []RowDetail
	add := func(label, value string) {
		v := maskCardNumbers(cleanText(value), card)
		if v != "" && !slices.ContainsFunc(out, func(d RowDetail) bool { return d.Value == v }) {
			out = append(out, RowDetail{Label: label, Value: v})
		}
	}
	for _, d := range e.Details {
		add(capitalizeFirst(d.Label), d.Value)
	}
	if e.Reference != name {
		add("Reference", e.Reference)
	}
	if e.Value != nil && !e.Value.Equal(e.Booked) {
		add("Value date", e.Value.Format(time.DateOnly))
	}
	add("Counterparty account", e.CounterpartyAccount)
	add("Bank code", e.Code)
	return out
}

// cardNumber is as many digits as a card number has, in one run or in groups of four.
var cardNumber = regexp.MustCompile(`\b(?:[0-9]{13,19}|[0-9]{4}(?:[ -][0-9]{4}){2}[ -][0-9]{1,7})\b`)

// ibanStart is the country and check digits an IBAN written in groups starts with.
var ibanStart = regexp.MustCompile(`[A-Z]{2}[0-9]{2} $`)

// maskCardNumbers writes each card number in s as its last four digits, as statements'
// headers name cards ("…4821"): the statement's own account number (card), and any other run
// of 13 to 19 digits that passes the Luhn check all card numbers carry. The digits of an IBAN
// written in groups are no card's.
func maskCardNumbers(s, card string) string {
	var b strings.Builder
	last := 0
	for _, m := range cardNumber.FindAllStringIndex(s, -1) {
		digits := strings.NewReplacer(" ", "", "-", "").Replace(s[m[0]:m[1]])
		if (digits != card && !luhn(digits)) || ibanStart.MatchString(s[:m[0]]) {
			continue
		}
		b.WriteString(s[last:m[0]])
		b.WriteString("…" + digits[len(digits)-4:])
		last = m[1]
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

// luhn reports whether digits pass the Luhn check that card numbers carry.
func luhn(digits string) bool {
	sum := 0
	for i := range len(digits) {
		d := int(digits[len(digits)-1-i] - '0')
		if i%2 == 1 {
			if d *= 2; d > 9 {
				d -= 9
			}
		}
		sum += d
	}
	return sum%10 == 0
}

func cleanText(s string) string { return strings.Join(strings.Fields(s), " ") }

func capitalizeFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// unpublished is the file's description without what a publish found.
func (f *StatementFile) unpublished() *StatementFile {
	out := *f
	out.Matches = nil
	out.Statements = make([]StatementSummary, len(f.Statements))
	for i, st := range f.Statements {
		st.LedgerCheck = nil
		out.Statements[i] = st
	}
	return &out
}

// account returns the account of the file with key; ok is false for another import type.
func (f *StatementFile) account(key string) (StatementAccount, bool) {
	if f == nil {
		return StatementAccount{}, false
	}
	for _, st := range f.Statements {
		if st.Account.Key == key {
			return st.Account, true
		}
	}
	return StatementAccount{}, false
}

// accountSubtype is the subtype of a new account of type typ for a statement account kind.
func accountSubtype(typ, kind string) string {
	switch {
	case typ == "Depository" && (kind == bankfile.KindChecking || kind == bankfile.KindSavings):
		return kind
	case typ == "CreditCard":
		return "credit_card"
	}
	return ""
}

// accountTypeFor is the Tally account type for a statement's account kind.
func accountTypeFor(kind string) string {
	switch kind {
	case bankfile.KindCreditCard:
		return "CreditCard"
	case bankfile.KindCreditLine:
		return "Loan"
	case bankfile.KindInvestment:
		return "Investment"
	}
	return "Depository"
}

// accountNameFor is the name of an account created for a statement's account.
func accountNameFor(a bankfile.Account) string {
	if n := cleanText(a.Name); n != "" {
		return n
	}
	word := map[string]string{bankfile.KindChecking: "Checking", bankfile.KindSavings: "Savings", bankfile.KindCreditCard: "Credit card",
		bankfile.KindCreditLine: "Credit line", bankfile.KindInvestment: "Investments"}[a.Kind]
	if word == "" {
		word = "Bank account"
	}
	n := a.IBAN
	if n == "" {
		n = a.Number
	}
	if len(n) > 4 {
		n = "…" + n[len(n)-4:]
	}
	return word + " " + n
}

func firstBalance(st bankfile.Statement, kind string) *BalanceAt {
	for _, b := range st.Balances {
		if b.Kind == kind {
			return &BalanceAt{Amount: b.Amount, Date: b.Date.Format(time.DateOnly)}
		}
	}
	return nil
}

func lastBalance(st bankfile.Statement, kind string) *BalanceAt {
	var out *BalanceAt
	for _, b := range st.Balances {
		if b.Kind == kind {
			out = &BalanceAt{Amount: b.Amount, Date: b.Date.Format(time.DateOnly)}
		}
	}
	return out
}

// DetectType names the import type a file's content is, for type=auto: a bank statement
// format, a PDF, QIF, Sure's NDJSON or, for other text, a CSV of transactions. ok is false for
// content that is none of them.
func DetectType(content []byte) (t Type, ok bool) {
	head := bytes.TrimLeft(bytes.TrimPrefix(content, []byte("\xef\xbb\xbf")), " \t\r\n")
	switch {
	case bytes.HasPrefix(head, []byte("%PDF-")):
		return PdfImport, true
	case sniffActual(content):
		return ActualImport, true
	case sniffYNAB(content):
		return YnabImport, true
	case ofx.Sniff(content):
		return OfxImport, true
	case camt.Sniff(content):
		return CamtImport, true
	case mt940.Sniff(content):
		return Mt940Import, true
	case bytes.HasPrefix(head, []byte("!Type:")) || bytes.HasPrefix(head, []byte("!Account")) || bytes.HasPrefix(head, []byte("!Option")):
		return QifImport, true
	case bytes.HasPrefix(head, []byte(`{"type":`)) || bytes.HasPrefix(head, []byte(`{ "type":`)):
		return NativeImport, true
	}
	if looksLikeText(Upload{Content: content}) && (bytes.ContainsAny(firstLine(head), ",;\t") || hasTable(content)) {
		return TransactionImport, true
	}
	return "", false
}

func firstLine(b []byte) []byte {
	if i := bytes.IndexByte(b, '\n'); i >= 0 {
		return b[:i]
	}
	return b
}

// hasTable reports whether a text whose first line is no record (a bank's preamble: "Chase
// Sapphire Preferred (...4821) activity from ...") has a table under it, found as reading the
// file finds it: a bank export's header, or a header the layout guess finds.
func hasTable(content []byte) bool {
	text := headText(content)
	if p, _ := recognise(fileHead(text)); p != nil {
		return true
	}
	_, ok := sniff.Table(text)
	return ok
}

// syncStatementMappings adds an account mapping per account the file names: the account
// given by account_id, else the account rankAccounts suggested, else a new account of the
// suggested type, which the user may change before publishing.
func syncStatementMappings(ctx context.Context, tx db.Tx, im *Import) error {
	if im.Statements == nil {
		return nil
	}
	done := map[string]bool{}
	for _, st := range im.Statements.Statements {
		a := st.Account
		if done[a.Key] {
			continue
		}
		done[a.Key] = true
		m := mapping{ID: uuid.Must(uuid.NewV7()), ImportID: im.ID, Kind: MapAccount, Key: a.Key, Value: strPtr(a.Type)}
		switch {
		case im.AccountID != nil:
			m.TargetID = im.AccountID
		case a.SuggestedAccountID != nil:
			m.TargetID = a.SuggestedAccountID
		default:
			m.CreateWhenEmpty = true
		}
		if _, err := tx.NewInsert().Model(&m).Exec(ctx); err != nil {
			return fmt.Errorf("insert account mapping: %w", err)
		}
	}
	return nil
}
