package imports

import (
	"strings"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"

	"tally/imports/parse"
	"tally/internal/apperr"
)

// QIF investment actions by what they do to the account's cash.
var (
	qifBuys     = map[string]bool{"buy": true, "reinvdiv": true, "cover": true, "buyx": true}
	qifSells    = map[string]bool{"sell": true, "shtsell": true, "sellx": true}
	qifInflows  = map[string]string{"div": "Dividend", "intinc": "Interest", "xin": "Cash Transfer In", "cglong": "Capital Gain (Long)", "cgshort": "Capital Gain (Short)", "miscinc": "Miscellaneous Income"}
	qifOutflows = map[string]string{"xout": "Cash Transfer Out", "miscexp": "Miscellaneous Expense"}
)

// qifRows reads a Quicken Interchange Format file. QIF writes an outflow as a negative amount,
// whatever the signage setting says. Records that cannot be read become rows with the reason,
// so nothing is left out silently.
//
// The file is read once for what every row needs (the date format its records use, the
// securities and the opening balance, wherever they are in the file), then again as the rows
// are stored: the records, the opening balance, then a third time for the records left out,
// so that a large file's records are never all held.
func qifRows(text string, rc *rowContext, p *prepared) error {
	q, err := parse.ReadQIF(text, nil, nil)
	if err != nil {
		return &apperr.Error{Code: apperr.Invalid, Slug: "invalid_qif", Message: "QIF content could not be parsed",
			Fields: map[string][]string{"content": {err.Error()}}, Err: err}
	}
	cfg := rc.cfg
	if cfg.DateFormat == nil {
		dates := q.Dates
		if q.Opening != nil {
			dates = append(dates, q.Opening.Date)
		}
		cfg.DateFormat = strPtr(parse.QIFDateFormat(dates, DefaultDateFormat))
	}
	cfg.NumberFormat, cfg.SignageConvention = string(parse.NumberUS), InflowsPositive
	p.each = func(yield func(*Row) bool) {
		n, more := 0, true
		next := func(r *Row) bool {
			more = yield(r)
			return more
		}
		// The text was read once already: these reads cannot fail.
		parse.ReadQIF(text, func(rec parse.QIFRecord) bool {
			n++
			return next(qifRow(n, rec, q, rc))
		}, nil)
		if more && q.Opening != nil {
			n++
			next(qifRow(n, *q.Opening, q, rc))
		}
		if more {
			parse.ReadQIF(text, nil, func(d parse.QIFDrop) bool {
				n++
				r := &Row{Number: n, Line: d.Line, RecordID: uuid.Must(uuid.NewV7())}
				r.fail(d.Reason)
				return next(r)
			})
		}
	}
	return nil
}

// qifRow types record rec as row n.
func qifRow(n int, rec parse.QIFRecord, q *parse.QIF, rc *rowContext) *Row {
	r := &Row{Number: n, Line: rec.Line, RecordID: uuid.Must(uuid.NewV7())}
	r.Raw[ColDate], r.Raw[ColAmount], r.Raw[ColName] = rec.Date, rec.Amount, rec.Payee
	r.Raw[ColNotes], r.Raw[ColCategory] = rec.Memo, rec.Category
	r.Raw[ColTags] = strings.Join(rec.Tags, "|")
	rc.typeDate(r)
	amt := rc.number(r, ColAmount, "Amount")
	r.Name = firstNonBlank(rec.Payee, "Imported item")
	r.Notes, r.CategoryKey, r.Tags = rec.Memo, rec.Category, rec.Tags
	switch {
	case q.Opening != nil && rec.Line == q.Opening.Line:
		r.Extra = map[string]any{"opening_balance": true}
		r.Amount = amt
		r.Name = "Opening balance"
	case strings.EqualFold(q.AccountType, "Invst"):
		qifInvestment(r, rec, q, amt, rc)
	case amt != nil:
		neg := amt.Neg()
		r.Amount = &neg
	}
	return r
}

// qifInvestment types a record of an investment account: a trade, or cash moving in or out.
func qifInvestment(r *Row, rec parse.QIFRecord, q *parse.QIF, amt *decimal.Decimal, rc *rowContext) {
	action := strings.ToLower(rec.Action)
	r.Raw[ColEntityType], r.EntityType = rec.Action, rec.Action
	security := rec.Security
	ticker := security
	if t, ok := q.Securities[security]; ok && t != "" {
		ticker = t
	}
	if amt == nil {
		return
	}
	switch {
	case qifBuys[action] || qifSells[action]:
		r.Raw[ColTicker], r.Raw[ColQty], r.Raw[ColPrice] = ticker, rec.Quantity, rec.Price
		r.Ticker = strings.ToUpper(ticker)
		if r.Ticker == "" {
			r.fail("Security is required for a " + rec.Action + " (Y)")
		}
		r.Qty = rc.number(r, ColQty, "Quantity")
		r.Price = rc.number(r, ColPrice, "Price")
		total := amt.Abs()
		if qifSells[action] {
			total = total.Neg()
			if r.Qty != nil {
				q := r.Qty.Abs().Neg()
				r.Qty = &q
			}
		}
		r.Amount = &total
		if r.Qty == nil && r.Price != nil && !r.Price.IsZero() {
			q := total.Abs().Div(*r.Price).Round(8)
			if qifSells[action] {
				q = q.Neg()
			}
			r.Qty = &q
		}
		if r.Qty == nil {
			r.fail("Quantity is required for a " + rec.Action + " (Q)")
		}
		verb := "Buy"
		if qifSells[action] {
			verb = "Sell"
		}
		if rec.Payee == "" && r.Qty != nil {
			r.Name = verb + " " + r.Qty.Abs().String() + " shares of " + r.Ticker
		}
	case qifInflows[action] != "":
		in := amt.Abs().Neg()
		r.Amount = &in
		if rec.Payee == "" {
			r.Name = withSecurity(qifInflows[action], security, action)
		}
	default:
		out := amt.Abs()
		r.Amount = &out
		if rec.Payee == "" {
			name := qifOutflows[action]
			if name == "" {
				name = firstNonBlank(rec.Memo, rec.Action, "Imported item")
			}
			r.Name = name
		}
	}
}

func withSecurity(label, security, action string) string {
	switch action {
	case "div", "intinc", "cglong", "cgshort":
		if security != "" {
			return label + ": " + security
		}
	}
	return label
}
