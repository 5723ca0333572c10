// Package imports is Tally's import engine: it turns an uploaded file into rows, maps the names
// in it to the family's records, publishes the rows as accounts, entries and taxonomy in one
// transaction, and reverts exactly what a publish created.
package imports

import (
	"slices"
	"strings"
)

// Type is one of the import types.
type Type string

// The import types. ExternalAppA, B and C are the export layouts of Mint, Actual Budget and
// YNAB.
const (
	TransactionImport  Type = "TransactionImport"
	TradeImport        Type = "TradeImport"
	AccountImport      Type = "AccountImport"
	ExternalAppAImport Type = "ExternalAppAImport"
	ExternalAppBImport Type = "ExternalAppBImport"
	ExternalAppCImport Type = "ExternalAppCImport"
	CategoryImport     Type = "CategoryImport"
	RuleImport         Type = "RuleImport"
	MerchantImport     Type = "MerchantImport"
	PdfImport          Type = "PdfImport"
	QifImport          Type = "QifImport"
	NativeImport       Type = "NativeImport"
	// Bank statement files: OFX/QFX/QBO, ISO 20022 camt.052/053/054, SWIFT MT940/MT942.
	OfxImport   Type = "OfxImport"
	CamtImport  Type = "CamtImport"
	Mt940Import Type = "Mt940Import"
	// A whole budget moving in from another app: Actual Budget's export (a zip) and YNAB's
	// budget (its API's JSON). Both are published as native records.
	ActualImport Type = "ActualImport"
	YnabImport   Type = "YnabImport"
	// AutoType is not a type of its own: it asks Create to detect the type from the content.
	AutoType = "auto"
)

// Types lists every import type, in the order the API documents them.
var Types = []Type{
	TransactionImport, TradeImport, AccountImport, ExternalAppAImport, ExternalAppBImport,
	ExternalAppCImport, CategoryImport, RuleImport, MerchantImport, PdfImport, QifImport, NativeImport,
	OfxImport, CamtImport, Mt940Import, ActualImport, YnabImport,
}

// Native reports whether a type is published by the native pipeline: a NativeImport, or a
// budget moving in from another app, whose records are native ones.
func (t Type) Native() bool { return t == NativeImport || t.MoveIn() }

// MoveIn reports whether a type is a budget moving in from another app.
func (t Type) MoveIn() bool { return t == ActualImport || t == YnabImport }

// TypeNames returns the types as a comma-separated list, for error messages.
func TypeNames(types []Type) string {
	names := make([]string, len(types))
	for i, t := range types {
		names[i] = string(t)
	}
	return strings.Join(names, ", ")
}

// Valid reports whether t is one of the types.
func (t Type) Valid() bool { return slices.Contains(Types, t) }

// Mapping kinds: what a name in the file can stand for.
const (
	MapAccount     = "account"
	MapCategory    = "category"
	MapTag         = "tag"
	MapAccountType = "account_type"
)

// The logical columns of a row, in the order rows store their raw cells.
const (
	ColAccount = iota
	ColDate
	ColQty
	ColTicker
	ColMIC
	ColPrice
	ColAmount
	ColCurrency
	ColName
	ColCategory
	ColTags
	ColEntityType
	ColNotes
	// ColDebit and ColCredit are a file's money out and money in, for files with a column for
	// each direction instead of a signed amount.
	ColDebit
	ColCredit
	// ColFee is a fee charged on top of a row's amount (Revolut's Fee): it is added to the
	// money out, whatever its sign.
	ColFee
	// ColBalance is the account's running balance after the row, as the bank prints it: the
	// file's balances become checkpoints of the account when published (csvBalances).
	ColBalance
	numCols
)

// columnKeys are the logical columns' names: the API's "<key>_col_label" parameters and the
// keys of a row's fields.
var columnKeys = [numCols]string{
	"account", "date", "qty", "ticker", "exchange_operating_mic", "price", "amount", "currency",
	"name", "category", "tags", "entity_type", "notes", "debit", "credit", "fee", "balance",
}

// columnAliases are headers tried after a column's label, in order.
var columnAliases = [numCols][]string{
	ColAccount:    {"account", "account_name"},
	ColDate:       {"date"},
	ColQty:        {"qty", "quantity"},
	ColTicker:     {"ticker"},
	ColMIC:        {"exchange_operating_mic"},
	ColPrice:      {"price"},
	ColAmount:     {"amount", "balance"},
	ColCurrency:   {"currency"},
	ColName:       {"name"},
	ColCategory:   {"category"},
	ColTags:       {"tags"},
	ColEntityType: {"entity_type", "account_type", "type"},
	ColNotes:      {"notes"},
	ColDebit:      {"debit", "debit_amount", "money_out", "paid_out", "withdrawal", "withdrawals"},
	ColCredit:     {"credit", "credit_amount", "money_in", "paid_in", "deposit", "deposits"},
	ColFee:        nil, // never read unless labelled: a "fee" column may already be in the amount
	ColBalance:    nil, // never read unless labelled: a bank's balance is not a row's amount
}

// spec describes what a CSV-path type reads and needs.
type spec struct {
	columns  []int    // logical columns read from the file
	required []int    // columns a row must have
	mappings []string // mapping kinds built for it
}

var specs = map[Type]spec{
	TransactionImport:  {columns: []int{ColAccount, ColDate, ColAmount, ColName, ColCurrency, ColCategory, ColTags, ColNotes, ColEntityType, ColDebit, ColCredit, ColFee, ColBalance}, required: []int{ColDate, ColAmount}, mappings: []string{MapAccount, MapCategory, MapTag}},
	TradeImport:        {columns: []int{ColAccount, ColDate, ColTicker, ColMIC, ColCurrency, ColQty, ColPrice, ColName}, required: []int{ColDate, ColTicker, ColQty, ColPrice}, mappings: []string{MapAccount}},
	AccountImport:      {columns: []int{ColEntityType, ColName, ColAmount, ColCurrency, ColDate}, required: []int{ColName, ColAmount}, mappings: []string{MapAccountType}},
	ExternalAppAImport: {columns: []int{ColAccount, ColDate, ColAmount, ColName, ColCurrency, ColCategory, ColTags, ColNotes, ColEntityType}, required: []int{ColDate, ColAmount}, mappings: []string{MapAccount, MapCategory, MapTag}},
	ExternalAppBImport: {columns: []int{ColAccount, ColDate, ColAmount, ColName, ColCategory, ColNotes}, required: []int{ColDate, ColAmount}, mappings: []string{MapAccount, MapCategory}},
	ExternalAppCImport: {columns: []int{ColAccount, ColDate, ColAmount, ColName, ColCategory, ColNotes}, required: []int{ColDate, ColAmount}, mappings: []string{MapAccount, MapCategory}},
	QifImport:          {columns: []int{ColDate, ColAmount, ColName, ColCategory, ColTags, ColNotes}, required: []int{ColDate, ColAmount}, mappings: []string{MapCategory, MapTag}},
	CategoryImport:     {required: []int{ColName}},
	MerchantImport:     {required: []int{ColName}},
	RuleImport:         {},
	// A statement's rows are read from its lines, not from columns; these are what they hold.
	PdfImport: {columns: []int{ColDate, ColName, ColAmount}},
	// A bank file's rows are its entries; the account column holds the account's identifier.
	OfxImport:   {columns: statementColumns},
	CamtImport:  {columns: statementColumns},
	Mt940Import: {columns: statementColumns},
}

var statementColumns = []int{ColAccount, ColDate, ColTicker, ColQty, ColPrice, ColAmount, ColCurrency, ColName, ColNotes}

// createsEntries reports whether a type's publish writes ledger entries (and so can find
// duplicates and needs an account).
func (t Type) createsEntries() bool {
	switch t {
	case TransactionImport, TradeImport, ExternalAppAImport, ExternalAppBImport, ExternalAppCImport, QifImport, PdfImport,
		OfxImport, CamtImport, Mt940Import:
		return true
	}
	return false
}
