package imports

import (
	"strings"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"

	"tally/imports/parse"
)

// preset is the fixed export layout of a budgeting app.
type preset struct {
	labels     map[int]string
	dateFormat string
}

// presetsByType are the layouts of Mint (A), Actual Budget (B) and YNAB (C).
var presetsByType = map[Type]preset{
	ExternalAppAImport: {dateFormat: "%m/%d/%Y", labels: map[int]string{
		ColDate: "Date", ColName: "Description", ColAmount: "Amount", ColCurrency: "Currency", ColAccount: "Account Name",
		ColCategory: "Category", ColTags: "Labels", ColNotes: "Notes", ColEntityType: "Transaction Type"}},
	ExternalAppBImport: {dateFormat: "%Y-%m-%d", labels: map[int]string{
		ColDate: "Date", ColName: "Payee", ColAmount: "Amount", ColAccount: "Account", ColCategory: "Category", ColNotes: "Notes"}},
	ExternalAppCImport: {dateFormat: "%m/%d/%Y", labels: map[int]string{
		ColDate: "Date", ColName: "Payee", ColAccount: "Account", ColCategory: "Category", ColNotes: "Memo"}},
}

// appDefaults fills the blank configuration of a budgeting app's import with its layout. What the
// caller sent wins (DECISIONS 4).
func appDefaults(t Type, cfg *Config) {
	p, ok := presetsByType[t]
	if !ok {
		return
	}
	for col, label := range p.labels {
		if l := cfg.label(col); l == nil || *l == "" {
			cfg.setLabel(col, strPtr(label))
		}
	}
	if cfg.DateFormat == nil {
		cfg.DateFormat = strPtr(p.dateFormat)
	}
}

// externalRows reads a budgeting app's export. Names, notes, categories and the amount follow
// each app's conventions; the rest is typed like a TransactionImport. As for a CSV, each row is
// typed from its record as it is stored, and the row yielded is reused for the next.
func externalRows(t *parse.CSVTable, rc *rowContext, p *prepared) error {
	cr := newColumnReader(t, rc.cfg, specs[rc.typ].columns)
	idx := t.Index()
	cell := func(rec parse.CSVRecord, header string) string {
		if i, ok := idx[parse.NormalizeHeader(header)]; ok && i < len(rec.Fields) {
			return strings.TrimSpace(rec.Fields[i])
		}
		return ""
	}
	has := func(header string) bool { _, ok := idx[parse.NormalizeHeader(header)]; return ok }
	p.required = []string{*rc.cfg.label(ColDate)}
	if !cr.has(ColDate) {
		return missingHeadersError(p.required, t.Headers)
	}
	p.each = func(yield func(*Row) bool) {
		var r Row
		for i, rec := range t.Records {
			r = Row{Number: i + 1, Line: rec.Line, RecordID: uuid.Must(uuid.NewV7())}
			for _, col := range specs[rc.typ].columns {
				r.Raw[col] = cr.value(rec, col)
			}
			switch rc.typ {
			case ExternalAppAImport:
				r.Raw[ColEntityType] = cr.value(rec, ColEntityType)
			case ExternalAppBImport:
				r.Raw[ColCategory] = joinCategory(cell(rec, "Category_Group"), cell(rec, "Category"))
				r.Raw[ColName] = firstNonBlank(cell(rec, "Payee"), r.Raw[ColNotes])
			case ExternalAppCImport:
				r.Raw[ColCategory] = ynabCategory(rec, cell)
				r.Raw[ColName] = firstNonBlank(cell(rec, "Payee"), r.Raw[ColNotes])
				if r.Raw[ColAmount] == "" && (has("Outflow") || has("Inflow")) {
					r.fileAmount = ynabAmount(&r, rc, cell(rec, "Inflow"), cell(rec, "Outflow"))
				}
			}
			rc.typeRow(&r)
			if rc.typ == ExternalAppAImport && r.Amount != nil {
				// Mint writes amounts unsigned and says the direction in Transaction Type.
				amt := r.Amount.Abs()
				if strings.EqualFold(r.Raw[ColEntityType], "credit") {
					amt = amt.Neg()
				}
				if rc.cfg.SignageConvention == InflowsNegative {
					amt = amt.Neg()
				}
				r.Amount = &amt
			}
			if !yield(&r) {
				return
			}
		}
	}
	return nil
}

// ynabAmount is a YNAB row's signed file amount, inflow minus outflow; nil when both cells are
// blank (the row then has no amount).
func ynabAmount(r *Row, rc *rowContext, inflow, outflow string) *decimal.Decimal {
	f := parse.NumberFormat(rc.cfg.NumberFormat)
	in, err1 := parse.Number(inflow, f)
	out, err2 := parse.Number(outflow, f)
	bad := false
	for _, e := range []struct {
		err  error
		name string
	}{{err1, "Inflow"}, {err2, "Outflow"}} {
		if e.err != nil && e.err != parse.ErrBlank {
			r.fail(e.name + " " + e.err.Error())
			bad = true
		}
	}
	if bad || (err1 == parse.ErrBlank && err2 == parse.ErrBlank) {
		return nil
	}
	amt := in.Sub(out.Abs())
	r.Raw[ColAmount] = amt.String() // shown in the row's diagnostics
	return &amt
}

func ynabCategory(rec parse.CSVRecord, cell func(parse.CSVRecord, string) string) string {
	if c := cell(rec, "Category Group/Category"); c != "" {
		group, name, ok := strings.Cut(c, "/")
		if ok {
			return joinCategory(group, name)
		}
		return c
	}
	if c := joinCategory(cell(rec, "Category Group"), cell(rec, "Category")); c != "" {
		return c
	}
	return joinCategory(cell(rec, "Master Category"), cell(rec, "Sub Category"))
}

// joinCategory names a category "Group: Category", or whichever of the two is present.
func joinCategory(group, name string) string {
	group, name = strings.TrimSpace(group), strings.TrimSpace(name)
	switch {
	case group != "" && name != "":
		return group + ": " + name
	case group != "":
		return group
	}
	return name
}

func firstNonBlank(vals ...string) string {
	for _, v := range vals {
		if strings.TrimSpace(v) != "" {
			return strings.TrimSpace(v)
		}
	}
	return ""
}
