package imports

import (
	"slices"
	"strings"

	"tally/imports/parse"
)

// BankPreset is how one bank's (or app's) CSV export is written, so that its file imports with
// no mapping at all. The facts come from the banks' published column lists; each preset is
// tested against a file written from them (testdata/banks).
type BankPreset struct {
	ID      string // "chase_card", as the API's preset parameter names it
	Name    string // "Chase (credit card)"
	Country string // ISO 3166 code of the bank's market
	// Header is the export's header row as the bank writes it. A file whose header has every
	// column of Header (compared normalized, in any order) is recognised as this export, unless
	// Manual; of several that fit, the one with the longest Header wins.
	Header []string
	// Manual presets are only used when asked for: their header is too common to tell the
	// bank by (American Express's "Date,Description,Amount").
	Manual bool
	// NoHeader exports have no header row: Header names their columns, and recognise tells
	// their first record.
	NoHeader  bool
	recognise func(fields []string) bool

	Labels          map[int]string // logical column → header
	ColSep          string         // "" when the bank writes either (read off the file)
	DateFormat      string
	NumberFormat    parse.NumberFormat // NumberUS when empty
	InflowsNegative bool               // money in is written negative (card statements that list charges as positive)
	// TypeColumn and InflowValue give the amount's direction from a column (ING's "Af Bij":
	// "Bij" is money in), for exports whose amounts carry no sign.
	TypeColumn, InflowValue string
	// Fallbacks are headers read, in order, when a row's labelled cell is blank (Revolut's
	// completion date is blank while a payment is pending; Wise names the merchant, the payee
	// or the payer).
	Fallbacks map[int][]string
	// InflowName is the header of the other party's name on money in, when the bank names
	// payer and payee apart and Labels[ColName] is the payee (DKB).
	InflowName string
	// Skip tells the rows that are no transactions: a balance line, a reverted payment.
	Skip *SkipRule
}

// SkipRule leaves out the rows whose Column holds one of Values (any case) or starts with
// Prefix, and says why in Reason ("a balance line").
type SkipRule struct {
	Column string
	Values []string
	Prefix string
	Reason string
}

// skips reports whether a row whose cell in the rule's column is v is left out.
func (s *SkipRule) skips(v string) bool {
	v = strings.TrimSpace(v)
	if s.Prefix != "" && strings.HasPrefix(strings.ToLower(v), strings.ToLower(s.Prefix)) {
		return true
	}
	return slices.ContainsFunc(s.Values, func(x string) bool { return strings.EqualFold(x, v) })
}

const (
	usDate = "%m/%d/%Y"
	euDate = "%d.%m.%Y"
	ukDate = "%d/%m/%Y"
)

// BankPresets are the bank exports Tally knows, in the order people are offered them.
var BankPresets = []*BankPreset{
	{
		ID: "chase_checking", Name: "Chase (checking)", Country: "US",
		Header:     []string{"Details", "Posting Date", "Description", "Amount", "Type", "Balance", "Check or Slip #"},
		Labels:     map[int]string{ColDate: "Posting Date", ColName: "Description", ColAmount: "Amount"},
		DateFormat: usDate,
	},
	{
		ID: "chase_card", Name: "Chase (credit card)", Country: "US",
		Header:     []string{"Transaction Date", "Post Date", "Description", "Category", "Type", "Amount", "Memo"},
		Labels:     map[int]string{ColDate: "Transaction Date", ColName: "Description", ColAmount: "Amount", ColCategory: "Category", ColNotes: "Memo"},
		DateFormat: usDate,
	},
	{
		// Above the table: a summary of the period (beginning and ending balance, total
		// credits and debits) and a blank line; the table's first row states the beginning
		// balance with no amount.
		ID: "bank_of_america_checking", Name: "Bank of America (checking)", Country: "US",
		Header:     []string{"Date", "Description", "Amount", "Running Bal."},
		Labels:     map[int]string{ColDate: "Date", ColName: "Description", ColAmount: "Amount"},
		DateFormat: usDate,
		Skip:       &SkipRule{Column: "Description", Prefix: "Beginning balance as of", Reason: "the beginning balance line"},
	},
	{
		ID: "bank_of_america_card", Name: "Bank of America (credit card)", Country: "US",
		Header:     []string{"Posted Date", "Reference Number", "Payee", "Address", "Amount"},
		Labels:     map[int]string{ColDate: "Posted Date", ColName: "Payee", ColAmount: "Amount"},
		DateFormat: usDate,
	},
	{
		// Charges are positive and payments negative.
		ID: "amex", Name: "American Express", Country: "US", Manual: true,
		Header:     []string{"Date", "Description", "Amount"},
		Labels:     map[int]string{ColDate: "Date", ColName: "Description", ColAmount: "Amount"},
		DateFormat: usDate, InflowsNegative: true,
	},
	{
		ID: "amex_card_member", Name: "American Express (with card member)", Country: "US",
		Header:     []string{"Date", "Description", "Card Member", "Account #", "Amount"},
		Labels:     map[int]string{ColDate: "Date", ColName: "Description", ColAmount: "Amount"},
		DateFormat: usDate, InflowsNegative: true,
	},
	{
		ID: "amex_extended", Name: "American Express (extended details)", Country: "US",
		Header: []string{"Date", "Description", "Card Member", "Account #", "Amount", "Extended Details",
			"Appears On Your Statement As", "Address", "City/State", "Zip Code", "Country", "Reference", "Category"},
		Labels:     map[int]string{ColDate: "Date", ColName: "Description", ColAmount: "Amount", ColNotes: "Extended Details", ColCategory: "Category"},
		DateFormat: usDate, InflowsNegative: true,
	},
	{
		// A charge is in Debit and a payment in Credit, both positive.
		ID: "capital_one_card", Name: "Capital One (credit card)", Country: "US",
		Header: []string{"Transaction Date", "Posted Date", "Card No.", "Description", "Category", "Debit", "Credit"},
		Labels: map[int]string{ColDate: "Transaction Date", ColName: "Description", ColCategory: "Category",
			ColDebit: "Debit", ColCredit: "Credit"},
		DateFormat: "%Y-%m-%d",
	},
	{
		// Amounts are unsigned; the transaction type says Debit or Credit.
		ID: "capital_one_360", Name: "Capital One 360 (checking and savings)", Country: "US",
		Header: []string{"Account Number", "Transaction Description", "Transaction Date", "Transaction Type",
			"Transaction Amount", "Balance"},
		Labels: map[int]string{ColDate: "Transaction Date", ColName: "Transaction Description",
			ColAmount: "Transaction Amount"},
		DateFormat: "%m/%d/%y", TypeColumn: "Transaction Type", InflowValue: "Credit",
	},
	{
		// No header: date, signed amount, an asterisk, a check number, the description.
		ID: "wells_fargo", Name: "Wells Fargo", Country: "US", NoHeader: true,
		Header:     []string{"Date", "Amount", "*", "Check Number", "Description"},
		Labels:     map[int]string{ColDate: "Date", ColName: "Description", ColAmount: "Amount"},
		DateFormat: usDate,
		recognise: func(f []string) bool {
			if len(f) != 5 || strings.TrimSpace(f[2]) != "*" {
				return false
			}
			_, dateErr := parse.Date(f[0], usDate)
			_, amountErr := parse.Number(f[1], parse.NumberUS)
			return dateErr == nil && amountErr == nil
		},
	},
	{
		// The fee is charged on top of the amount. A payment still pending has no completion
		// date; reverted, declined and failed payments never happened.
		ID: "revolut", Name: "Revolut", Country: "GB",
		Header: []string{"Type", "Product", "Started Date", "Completed Date", "Description", "Amount", "Fee",
			"Currency", "State", "Balance"},
		Labels: map[int]string{ColDate: "Completed Date", ColName: "Description", ColAmount: "Amount",
			ColFee: "Fee", ColCurrency: "Currency"},
		Fallbacks:  map[int][]string{ColDate: {"Started Date"}},
		DateFormat: "%Y-%m-%d %H:%M:%S",
		Skip:       &SkipRule{Column: "State", Values: []string{"REVERTED", "DECLINED", "FAILED"}, Reason: "payments Revolut marks as reverted, declined or failed"},
	},
	{
		ID: "n26", Name: "N26", Country: "DE",
		Header: []string{"Booking Date", "Value Date", "Partner Name", "Partner Iban", "Type", "Payment Reference",
			"Account Name", "Amount (EUR)", "Original Amount", "Original Currency", "Exchange Rate"},
		Labels: map[int]string{ColDate: "Booking Date", ColName: "Partner Name", ColNotes: "Payment Reference",
			ColAmount: "Amount (EUR)"},
		DateFormat: "%Y-%m-%d",
	},
	{
		ID: "n26_classic", Name: "N26 (before 2024)", Country: "DE",
		Header: []string{"Date", "Payee", "Account number", "Transaction type", "Payment reference", "Amount (EUR)",
			"Amount (Foreign Currency)", "Type Foreign Currency", "Exchange Rate"},
		Labels: map[int]string{ColDate: "Date", ColName: "Payee", ColNotes: "Payment reference",
			ColAmount: "Amount (EUR)"},
		DateFormat: "%Y-%m-%d",
	},
	{
		// One file per currency balance. The other party is the merchant (card payments), the
		// payee (money out) or the payer (money in).
		ID: "wise", Name: "Wise", Country: "GB",
		Header: []string{"TransferWise ID", "Date", "Amount", "Currency", "Description", "Payment Reference",
			"Running Balance", "Exchange From", "Exchange To", "Exchange Rate", "Payer Name", "Payee Name",
			"Payee Account Number", "Merchant", "Card Last Four Digits", "Card Holder Full Name", "Attachment",
			"Note", "Total fees"},
		Labels: map[int]string{ColDate: "Date", ColName: "Merchant", ColAmount: "Amount", ColCurrency: "Currency",
			ColNotes: "Payment Reference"},
		Fallbacks:  map[int][]string{ColName: {"Payee Name", "Payer Name", "Description"}, ColNotes: {"Note"}},
		DateFormat: "%d-%m-%Y",
	},
	{
		// Money Out and Money In repeat the amount; Local amount is in the currency spent.
		ID: "monzo", Name: "Monzo", Country: "GB",
		Header: []string{"Transaction ID", "Date", "Time", "Type", "Name", "Emoji", "Category", "Amount", "Currency",
			"Local amount", "Local currency", "Notes and #tags", "Address", "Receipt", "Description",
			"Category split", "Money Out", "Money In"},
		Labels: map[int]string{ColDate: "Date", ColName: "Name", ColAmount: "Amount", ColCurrency: "Currency",
			ColCategory: "Category", ColNotes: "Notes and #tags"},
		Fallbacks:  map[int][]string{ColName: {"Description"}},
		DateFormat: ukDate,
	},
	{
		// Windows-1252, with the account, period and balance above the table. The export with
		// the balance column writes "Währung" twice (the balance's, then the amount's).
		ID: "ing_de", Name: "ING (Germany)", Country: "DE",
		Header: []string{"Buchung", "Valuta", "Auftraggeber/Empfänger", "Buchungstext", "Verwendungszweck",
			"Betrag", "Währung"},
		Labels: map[int]string{ColDate: "Buchung", ColName: "Auftraggeber/Empfänger", ColNotes: "Verwendungszweck",
			ColAmount: "Betrag"},
		ColSep: ";", DateFormat: euDate, NumberFormat: parse.NumberEU,
	},
	{
		// Amounts are unsigned; "Af Bij" says Af (money out) or Bij (money in).
		ID: "ing_nl", Name: "ING (Netherlands)", Country: "NL",
		Header: []string{"Datum", "Naam / Omschrijving", "Rekening", "Tegenrekening", "Code", "Af Bij",
			"Bedrag (EUR)", "Mutatiesoort", "Mededelingen"},
		Labels: map[int]string{ColDate: "Datum", ColName: "Naam / Omschrijving", ColNotes: "Mededelingen",
			ColAmount: "Bedrag (EUR)"},
		DateFormat: "%Y%m%d", NumberFormat: parse.NumberEU, TypeColumn: "Af Bij", InflowValue: "Bij",
	},
	{
		// The "CSV-CAMT V2" export, with two-digit years.
		ID: "sparkasse", Name: "Sparkasse", Country: "DE",
		Header: []string{"Auftragskonto", "Buchungstag", "Valutadatum", "Buchungstext", "Verwendungszweck",
			"Glaeubiger ID", "Mandatsreferenz", "Kundenreferenz (End-to-End)", "Sammlerreferenz",
			"Lastschrift Ursprungsbetrag", "Auslagenersatz Ruecklastschrift", "Beguenstigter/Zahlungspflichtiger",
			"Kontonummer/IBAN", "BIC (SWIFT-Code)", "Betrag", "Waehrung", "Info"},
		Labels: map[int]string{ColDate: "Buchungstag", ColName: "Beguenstigter/Zahlungspflichtiger",
			ColNotes: "Verwendungszweck", ColAmount: "Betrag", ColCurrency: "Waehrung"},
		ColSep: ";", DateFormat: "%d.%m.%y", NumberFormat: parse.NumberEU,
	},
	{
		// The export since 2023: the payer and the payee each have a column, one of them the
		// account holder, so the name is the payee's on money out and the payer's on money in.
		ID: "dkb", Name: "DKB", Country: "DE",
		Header: []string{"Buchungsdatum", "Wertstellung", "Status", "Zahlungspflichtige*r", "Zahlungsempfänger*in",
			"Verwendungszweck", "Umsatztyp", "IBAN", "Betrag (€)", "Gläubiger-ID", "Mandatsreferenz", "Kundenreferenz"},
		Labels: map[int]string{ColDate: "Buchungsdatum", ColName: "Zahlungsempfänger*in", ColNotes: "Verwendungszweck",
			ColAmount: "Betrag (€)"},
		InflowName: "Zahlungspflichtige*r",
		ColSep:     ";", DateFormat: "%d.%m.%y", NumberFormat: parse.NumberEU,
	},
	{
		ID: "dkb_classic", Name: "DKB (before 2023)", Country: "DE",
		Header: []string{"Buchungstag", "Wertstellung", "Buchungstext", "Auftraggeber / Begünstigter", "Verwendungszweck",
			"Kontonummer", "BLZ", "Betrag (EUR)", "Gläubiger-ID", "Mandatsreferenz", "Kundenreferenz"},
		Labels: map[int]string{ColDate: "Buchungstag", ColName: "Auftraggeber / Begünstigter", ColNotes: "Verwendungszweck",
			ColAmount: "Betrag (EUR)"},
		ColSep: ";", DateFormat: euDate, NumberFormat: parse.NumberEU,
	},
	{
		// The booking text holds the other party and the purpose together.
		ID: "commerzbank", Name: "Commerzbank", Country: "DE",
		Header: []string{"Buchungstag", "Wertstellung", "Umsatzart", "Buchungstext", "Betrag", "Währung",
			"Auftraggeberkonto", "Bankleitzahl Auftraggeberkonto", "IBAN Auftraggeberkonto", "Kategorie"},
		Labels: map[int]string{ColDate: "Buchungstag", ColName: "Buchungstext", ColAmount: "Betrag",
			ColCurrency: "Währung", ColCategory: "Kategorie"},
		ColSep: ";", DateFormat: euDate, NumberFormat: parse.NumberEU,
	},
	{
		// The new balance above the table and the old one below it; bookings still pending
		// ("offen", without a date) come first, and are read once they are booked. The
		// booking text holds the other party, the purpose and the reference together.
		ID: "comdirect", Name: "Comdirect", Country: "DE",
		Header: []string{"Buchungstag", "Wertstellung (Valuta)", "Vorgang", "Buchungstext", "Umsatz in EUR"},
		Labels: map[int]string{ColDate: "Buchungstag", ColName: "Buchungstext", ColAmount: "Umsatz in EUR"},
		ColSep: ";", DateFormat: euDate, NumberFormat: parse.NumberEU,
		Skip: &SkipRule{Column: "Buchungstag", Values: []string{"offen", "Alter Kontostand"},
			Reason: "bookings Comdirect still marks as pending, and the old balance below the table"},
	},
	{
		// A line naming the account and its balance comes first.
		ID: "bnp_paribas", Name: "BNP Paribas", Country: "FR",
		Header: []string{"Date operation", "Categorie operation", "Sous Categorie operation", "Libelle operation",
			"Montant operation"},
		Labels: map[int]string{ColDate: "Date operation", ColName: "Libelle operation",
			ColCategory: "Sous Categorie operation", ColAmount: "Montant operation"},
		ColSep: ";", DateFormat: ukDate, NumberFormat: parse.NumberSpace,
	},
	{
		// The memo names the other party; the subcategory is the kind of payment.
		ID: "barclays", Name: "Barclays", Country: "GB",
		Header:     []string{"Number", "Date", "Account", "Amount", "Subcategory", "Memo"},
		Labels:     map[int]string{ColDate: "Date", ColName: "Memo", ColAmount: "Amount", ColNotes: "Subcategory"},
		DateFormat: ukDate,
	},
}

// BankPresetByID is the preset with id, or nil.
func BankPresetByID(id string) *BankPreset {
	for _, p := range BankPresets {
		if p.ID == id {
			return p
		}
	}
	return nil
}

// presetIDs lists the presets' ids, for error messages.
func presetIDs() string {
	ids := make([]string, len(BankPresets))
	for i, p := range BankPresets {
		ids[i] = p.ID
	}
	return strings.Join(ids, ", ")
}

// recognisePreset is the preset whose export a file is: the one whose whole header the file's
// header holds, the longest if several do. For a file with no header row (headers nil),
// first is its first record, checked against the presets without a header.
func recognisePreset(headers, first []string) *BankPreset {
	have := map[string]bool{}
	for _, h := range parse.HeaderKeys(headers) {
		have[h] = true
	}
	var best *BankPreset
	for _, p := range BankPresets {
		switch {
		case p.Manual:
		case p.NoHeader:
			if headers == nil && p.recognise(first) && best == nil {
				best = p
			}
		case headers != nil && (best == nil || len(p.Header) > len(best.Header)):
			if !slices.ContainsFunc(parse.HeaderKeys(p.Header), func(k string) bool { return !have[k] }) {
				best = p
			}
		}
	}
	return best
}

// request is the configuration the preset stands for, as a request would send it.
func (p *BankPreset) request() Request {
	req := Request{Labels: map[string]*string{}}
	for col, h := range p.Labels {
		req.Labels[columnKeys[col]] = strPtr(h)
	}
	if p.ColSep != "" {
		req.ColSep = strPtr(p.ColSep)
	}
	req.DateFormat = strPtr(p.DateFormat)
	nf := p.NumberFormat
	if nf == "" {
		nf = parse.NumberUS
	}
	req.NumberFormat = strPtr(string(nf))
	req.SignageConvention = strPtr(InflowsPositive)
	if p.InflowsNegative {
		req.SignageConvention = strPtr(InflowsNegative)
	}
	req.AmountTypeStrategy = strPtr(SignedAmount)
	if p.TypeColumn != "" {
		req.Labels[columnKeys[ColEntityType]] = strPtr(p.TypeColumn)
		req.AmountTypeStrategy, req.AmountTypeInflowValue = strPtr(CustomColumn), strPtr(p.InflowValue)
	}
	return req
}

// fallbackHeaders are the headers the preset reads for col after its label.
func (p *BankPreset) fallbackHeaders(col int) []string {
	if p == nil {
		return nil
	}
	return p.Fallbacks[col]
}
