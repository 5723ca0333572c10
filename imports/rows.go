package imports

import (
	"iter"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"
	"golang.org/x/text/currency"

	"tally/imports/parse"
	"tally/models"
)

// Row is one data row of a file: its raw cells, its problems, and the typed values publish
// writes.
type Row struct {
	Number   int
	Line     int
	Raw      [numCols]string
	Errors   []string
	RecordID uuid.UUID

	Date        *time.Time
	Amount      *decimal.Decimal // signed by the ledger rule: positive is an outflow
	Currency    string           // "" means the account's currency
	Name        string
	Notes       string
	AccountKey  string
	CategoryKey string
	Tags        []string
	EntityType  string
	Ticker      string
	MIC         string
	Qty         *decimal.Decimal
	Price       *decimal.Decimal
	Extra       map[string]any

	// fileAmount is an amount the reader already computed (YNAB's inflow minus outflow); it
	// takes the place of parsing the amount cell.
	fileAmount *decimal.Decimal
	// inflowName is the other party's name for money in, from a bank that names payer and
	// payee in columns of their own (DKB): the name column names the payee.
	inflowName string
}

func (r *Row) fail(msg string) { r.Errors = append(r.Errors, msg) }

// rowContext is what typing a row needs besides the row.
type rowContext struct {
	cfg          *Config
	typ          Type
	fixedAccount bool
	now          time.Time
	// req is the request, to tell what it set from what Tally may guess.
	req Request
}

// earliestDate and the latest accepted date bound what a row's date may be: anything outside
// is almost surely a wrong date format.
var earliestDate = time.Date(1900, 1, 1, 0, 0, 0, 0, time.UTC)

func (rc *rowContext) latestDate() time.Time {
	y, m, d := rc.now.AddDate(1, 0, 0).Date()
	return time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
}

// columnReader finds each logical column's cells in a CSV table: its label first, then the
// column's aliases, taking the first non-blank cell.
type columnReader struct {
	table *parse.CSVTable
	cols  [numCols][]int
}

func newColumnReader(t *parse.CSVTable, cfg *Config, columns []int) *columnReader {
	idx := t.Index()
	cr := &columnReader{table: t}
	preset := BankPresetByID(cfg.Preset)
	for _, col := range columns {
		var keys []string
		if l := cfg.label(col); l != nil && strings.TrimSpace(*l) != "" {
			keys = append(keys, parse.NormalizeHeader(*l))
		}
		for _, h := range preset.fallbackHeaders(col) {
			keys = append(keys, parse.NormalizeHeader(h))
		}
		aliases := columnAliases[col]
		if col == ColAmount && slices.Contains(columns, ColDebit) {
			// In a file of transactions a balance column is the running balance, never a
			// row's amount (Sure reads it when the amount cell is blank).
			aliases = []string{"amount"}
		}
		keys = append(keys, aliases...)
		seen := map[int]bool{}
		for _, k := range keys {
			if i, ok := idx[k]; ok && !seen[i] {
				cr.cols[col] = append(cr.cols[col], i)
				seen[i] = true
			}
		}
	}
	return cr
}

func (cr *columnReader) value(rec parse.CSVRecord, col int) string {
	for _, i := range cr.cols[col] {
		if i < len(rec.Fields) {
			if v := strings.TrimSpace(rec.Fields[i]); v != "" {
				return v
			}
		}
	}
	return ""
}

// skipRows drops the records of t that rule says are no transactions, and counts them.
func skipRows(t *parse.CSVTable, rule *SkipRule) int {
	i, ok := t.Index()[parse.NormalizeHeader(rule.Column)]
	if !ok {
		return 0
	}
	before := len(t.Records)
	t.Records = slices.DeleteFunc(t.Records, func(rec parse.CSVRecord) bool {
		return i < len(rec.Fields) && rule.skips(rec.Fields[i])
	})
	return before - len(t.Records)
}

// has reports whether the file has a column for col at all.
func (cr *columnReader) has(col int) bool { return len(cr.cols[col]) > 0 }

// requiredHeaders lists, per required column, the header the import looks for.
func requiredHeaders(cfg *Config, typ Type) []string {
	var out []string
	for _, col := range specs[typ].required {
		if l := cfg.label(col); l != nil && strings.TrimSpace(*l) != "" {
			out = append(out, *l)
		} else {
			out = append(out, columnKeys[col])
		}
	}
	return out
}

// missingHeaders lists the required columns the file has no header for.
func missingHeaders(cr *columnReader, cfg *Config, typ Type) []string {
	req := requiredHeaders(cfg, typ)
	var out []string
	for i, col := range specs[typ].required {
		if !cr.has(col) && !(col == ColAmount && (cr.has(ColDebit) || cr.has(ColCredit))) {
			out = append(out, req[i])
		}
	}
	return out
}

// csvRows types the records of a CSV-path file into rows of type typ, one at a time: the row
// yielded is reused for the next record, so a consumer must copy what it keeps.
func csvRows(t *parse.CSVTable, rc *rowContext) iter.Seq[*Row] {
	sp := specs[rc.typ]
	cr := newColumnReader(t, rc.cfg, sp.columns)
	inflowName := -1
	if p := BankPresetByID(rc.cfg.Preset); p != nil && p.InflowName != "" {
		if i, ok := t.Index()[parse.NormalizeHeader(p.InflowName)]; ok {
			inflowName = i
		}
	}
	return func(yield func(*Row) bool) {
		var r Row
		for i, rec := range t.Records {
			r = Row{Number: i + 1, Line: rec.Line, RecordID: uuid.Must(uuid.NewV7())}
			for _, col := range sp.columns {
				r.Raw[col] = cr.value(rec, col)
			}
			if inflowName >= 0 && inflowName < len(rec.Fields) {
				r.inflowName = rec.Fields[inflowName]
			}
			rc.typeRow(&r)
			if !yield(&r) {
				return
			}
		}
	}
}

// typeRow checks a row's raw cells and fills its typed values, recording every problem.
func (rc *rowContext) typeRow(r *Row) {
	for _, col := range specs[rc.typ].required {
		if r.Raw[col] == "" && (col != ColAmount || r.fileAmount == nil && r.Raw[ColDebit] == "" && r.Raw[ColCredit] == "") {
			r.fail(requiredMessage(col))
		}
	}
	switch rc.typ {
	case TradeImport:
		rc.typeTrade(r)
	case AccountImport:
		rc.typeAccount(r)
	default:
		rc.typeTransaction(r)
	}
}

func requiredMessage(col int) string {
	switch col {
	case ColQty:
		return "Qty is required"
	case ColEntityType:
		return "Account type is required"
	}
	k := columnKeys[col]
	return strings.ToUpper(k[:1]) + k[1:] + " is required"
}

func (rc *rowContext) typeDate(r *Row) {
	raw := r.Raw[ColDate]
	if raw == "" {
		return
	}
	d, err := parse.Date(raw, rc.cfg.dateFormat())
	if err != nil {
		r.fail("Date " + err.Error())
		return
	}
	if d.Before(earliestDate) || d.After(rc.latestDate()) {
		r.fail("Date " + d.Format("2006-01-02") + " is not between " + earliestDate.Format("2006-01-02") +
			" and " + rc.latestDate().Format("2006-01-02") + ": check the date format")
		return
	}
	r.Date = &d
}

func (rc *rowContext) number(r *Row, col int, label string) *decimal.Decimal {
	raw := r.Raw[col]
	if raw == "" {
		return nil
	}
	n, err := parse.Number(raw, parse.NumberFormat(rc.cfg.NumberFormat))
	if err != nil {
		r.fail(label + " " + err.Error())
		return nil
	}
	return &n
}

func (rc *rowContext) typeCurrency(r *Row) {
	raw := strings.ToUpper(r.Raw[ColCurrency])
	if raw == "" {
		return
	}
	if _, err := currency.ParseISO(raw); err != nil || len(raw) != 3 {
		r.fail(`Currency "` + r.Raw[ColCurrency] + `" is not a valid currency code`)
		return
	}
	r.Currency = raw
}

func (rc *rowContext) typeAccountKey(r *Row) {
	if rc.fixedAccount {
		return
	}
	r.AccountKey = r.Raw[ColAccount]
	if r.AccountKey == "" {
		r.fail("Account is required: send account_id, or name the account in an account column")
	}
}

func (rc *rowContext) typeTransaction(r *Row) {
	rc.typeDate(r)
	rc.typeCurrency(r)
	rc.typeAccountKey(r)
	r.Name = r.Raw[ColName]
	if r.Name == "" {
		r.Name = "Imported item"
	}
	r.Notes = r.Raw[ColNotes]
	r.CategoryKey = r.Raw[ColCategory]
	r.Tags = parse.Tags(r.Raw[ColTags])
	r.EntityType = r.Raw[ColEntityType]
	if r.fileAmount == nil && r.Raw[ColAmount] == "" && (r.Raw[ColDebit] != "" || r.Raw[ColCredit] != "") {
		rc.debitCredit(r)
	} else {
		amt := r.fileAmount
		if amt == nil {
			amt = rc.number(r, ColAmount, "Amount")
		}
		if amt != nil {
			signed := rc.sign(*amt, r.EntityType)
			r.Amount = &signed
		}
	}
	if fee := rc.number(r, ColFee, "Fee"); fee != nil && r.Amount != nil {
		withFee := r.Amount.Add(fee.Abs())
		r.Amount = &withFee
	}
	if r.inflowName != "" && r.Amount != nil && r.Amount.IsNegative() {
		r.Name = r.inflowName
	}
	// The running balance is kept as the file prints it; publish turns it into the account's
	// terms. A blank cell is no balance: some banks print it on a day's last line only.
	if b := rc.number(r, ColBalance, "Balance"); b != nil {
		if r.Extra == nil {
			r.Extra = map[string]any{}
		}
		r.Extra["balance"] = b.String()
	}
}

// debitCredit reads the amount of a row whose file has a column for each direction: money
// out from the debit, money in from the credit, whatever their signs (banks write debits
// either way), so the signage convention does not apply.
func (rc *rowContext) debitCredit(r *Row) {
	debit, credit := rc.number(r, ColDebit, "Debit"), rc.number(r, ColCredit, "Credit")
	if len(r.Errors) > 0 {
		return
	}
	ledger := decimal.Zero
	if debit != nil {
		ledger = ledger.Add(debit.Abs())
	}
	if credit != nil {
		ledger = ledger.Sub(credit.Abs())
	}
	r.Amount = &ledger
}

// sign turns a file amount into a ledger amount (positive = outflow), by the signage
// convention or, with a custom type column, by whether the row's type marks an inflow.
func (rc *rowContext) sign(amt decimal.Decimal, entityType string) decimal.Decimal {
	inflowsPositive := rc.cfg.SignageConvention != InflowsNegative
	if rc.cfg.AmountTypeStrategy == CustomColumn {
		// The type column says the direction, so the file's sign is not trusted: a debit is an
		// outflow whether it is written 100 or -100.
		inflow := rc.cfg.AmountTypeInflowValue != nil &&
			strings.EqualFold(strings.TrimSpace(entityType), strings.TrimSpace(*rc.cfg.AmountTypeInflowValue))
		if inflow == inflowsPositive {
			return amt.Abs().Neg()
		}
		return amt.Abs()
	}
	if inflowsPositive {
		return amt.Neg()
	}
	return amt
}

func (rc *rowContext) typeTrade(r *Row) {
	rc.typeDate(r)
	rc.typeCurrency(r)
	rc.typeAccountKey(r)
	r.Ticker = strings.ToUpper(r.Raw[ColTicker])
	r.MIC = strings.ToUpper(r.Raw[ColMIC])
	r.Qty = rc.number(r, ColQty, "Qty")
	r.Price = rc.number(r, ColPrice, "Price")
	if r.Price != nil && r.Price.IsNegative() {
		r.fail("Price must not be negative")
	}
	r.Name = r.Raw[ColName]
	if r.Qty != nil && r.Price != nil {
		amt := r.Qty.Mul(*r.Price).Round(4)
		if amt.Abs().GreaterThanOrEqual(models.MaxAmount) {
			r.fail("Qty times price is too large for an amount: " + amt.String())
			return
		}
		if rc.cfg.SignageConvention == InflowsNegative {
			amt = amt.Neg()
		}
		r.Amount = &amt
		if r.Name == "" {
			verb := "Buy"
			if r.Qty.IsNegative() {
				verb = "Sell"
			}
			r.Name = verb + " " + r.Qty.Abs().String() + " " + r.Ticker
		}
	}
}

func (rc *rowContext) typeAccount(r *Row) {
	r.Name = r.Raw[ColName]
	rc.typeCurrency(r)
	rc.typeDate(r)
	r.Amount = rc.number(r, ColAmount, "Balance")
	r.EntityType = r.Raw[ColEntityType]
	if r.EntityType == "" {
		r.fail("Account type is required (for example checking, savings, credit card, loan)")
	} else if t, ok := GuessAccountType(r.EntityType); ok {
		r.EntityType = t
	} else {
		r.fail(`Account type "` + r.Raw[ColEntityType] + `" is not one Tally knows: use Depository, CreditCard, Investment, Crypto, Property, Vehicle, Loan, OtherAsset or OtherLiability, or a word such as checking or mortgage`)
	}
}

// accountTypeWords maps what files call an account to Tally's account types.
var accountTypeWords = map[string]string{
	"depository": "Depository", "checking": "Depository", "savings": "Depository", "cash": "Depository",
	"bank": "Depository", "current": "Depository", "hsa": "Depository", "cd": "Depository", "money_market": "Depository",
	"creditcard": "CreditCard", "credit_card": "CreditCard", "credit": "CreditCard", "card": "CreditCard", "ccard": "CreditCard",
	"investment": "Investment", "brokerage": "Investment", "retirement": "Investment", "401k": "Investment",
	"ira": "Investment", "roth_ira": "Investment", "pension": "Investment", "invst": "Investment",
	"crypto": "Crypto", "cryptocurrency": "Crypto", "wallet": "Crypto",
	"property": "Property", "real_estate": "Property", "house": "Property", "home": "Property",
	"vehicle": "Vehicle", "car": "Vehicle", "auto": "Vehicle",
	"loan": "Loan", "mortgage": "Loan", "student_loan": "Loan", "auto_loan": "Loan",
	"otherasset": "OtherAsset", "other_asset": "OtherAsset", "asset": "OtherAsset", "oth_a": "OtherAsset",
	"otherliability": "OtherLiability", "other_liability": "OtherLiability", "liability": "OtherLiability", "oth_l": "OtherLiability",
}

// GuessAccountType maps a file's account-type word to one of Tally's account types.
func GuessAccountType(word string) (string, bool) {
	t, ok := accountTypeWords[parse.NormalizeHeader(word)]
	return t, ok
}
