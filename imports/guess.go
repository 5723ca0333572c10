package imports

import (
	"slices"
	"strings"

	"tally/imports/parse"
	"tally/imports/sniff"
	"tally/models"
)

// The configuration fields a guess can fill, as the API names them in configuration.guessed.
const (
	guessedColSep       = "col_sep"
	guessedRowsToSkip   = "rows_to_skip"
	guessedDateFormat   = "date_format"
	guessedNumberFormat = "number_format"
	guessedSignage      = "signage_convention"
	guessedQuote        = "quote_char"
)

// guessedRoles are the logical columns a transaction file's columns are guessed for, and the
// role each stands for. The account is not guessed: a column naming the account would create
// an account per value, which only the person importing can ask for.
var guessedRoles = []struct {
	col  int
	role sniff.Role
}{
	{ColDate, sniff.RoleDate}, {ColAmount, sniff.RoleAmount}, {ColName, sniff.RoleName}, {ColNotes, sniff.RoleNotes},
	{ColCategory, sniff.RoleCategory}, {ColTags, sniff.RoleTags}, {ColCurrency, sniff.RoleCurrency},
	{ColDebit, sniff.RoleDebit}, {ColCredit, sniff.RoleCredit},
}

// guessLayout fills the quote character, the separator and the preamble to skip from the
// file when the request named none of them, so that a semicolon or tab file, or one with a bank's lines above its header,
// reads without being described first.
func guessLayout(text string, cfg *Config, req Request) {
	if req.QuoteChar == nil && sniff.Quote(text) == '\'' {
		cfg.QuoteChar = "'"
		cfg.Guessed = append(cfg.Guessed, guessedQuote)
	}
	if req.ColSep != nil && req.RowsToSkip != nil {
		return
	}
	if cfg.QuoteChar == "'" {
		text = parse.SwapQuotes(text)
	}
	l, ok := sniff.Table(text)
	if !ok {
		return
	}
	if req.ColSep == nil && string(l.Separator) != cfg.ColSep {
		cfg.ColSep = string(l.Separator)
		cfg.Guessed = append(cfg.Guessed, guessedColSep)
	}
	if req.RowsToSkip == nil && l.Skip > 0 && (req.ColSep == nil || string(l.Separator) == cfg.ColSep) {
		cfg.RowsToSkip = l.Skip
		cfg.Guessed = append(cfg.Guessed, guessedRowsToSkip)
	}
}

// guessColumns labels the logical columns a transaction file has under another name (a
// "Description" for the name, a "Buchungstag" for the date), and reads the date and number
// formats off the values when the request did not name them and the defaults do not fit. A
// column that the request labels, or whose header is the column's own name, is left as it
// is; each guessed label is recorded in cfg.Guessed.
func guessColumns(t *parse.CSVTable, cfg *Config, req Request, acct *models.Account) {
	samples := make([][]string, 0, 200)
	for _, r := range t.Records[:min(len(t.Records), 200)] {
		samples = append(samples, r.Fields)
	}
	cr := newColumnReader(t, cfg, specs[TransactionImport].columns)
	read := map[int]bool{}
	for _, is := range cr.cols {
		for _, i := range is {
			read[i] = true
		}
	}
	for _, c := range sniff.Columns(t.Headers, samples) {
		if c.Role == sniff.RoleIgnore || read[c.Index] {
			continue
		}
		for _, g := range guessedRoles {
			if g.role != c.Role || cr.has(g.col) {
				continue
			}
			h := c.Header
			cfg.setLabel(g.col, &h)
			cfg.Guessed = append(cfg.Guessed, columnKeys[g.col]+"_col_label")
			read[c.Index] = true
		}
	}
	cr = newColumnReader(t, cfg, specs[TransactionImport].columns)
	if req.DateFormat == nil && cr.has(ColDate) {
		values := columnValues(cr, t, ColDate, samples)
		g, ok := sniff.DateFormat(values)
		switch {
		case ok && g.Ambiguous():
			// Whether or not the default reads them, these dates are a question.
			cfg.DateChoices = append([]string{g.Pattern}, g.Alternatives...)
		case ok && !fits(values, func(v string) error { _, err := parse.Date(v, cfg.dateFormat()); return err }):
			cfg.DateFormat = &g.Pattern
			cfg.Guessed = append(cfg.Guessed, guessedDateFormat)
		}
	}
	if req.NumberFormat == nil && (cr.has(ColAmount) || cr.has(ColDebit) || cr.has(ColCredit)) {
		var values []string
		for _, col := range []int{ColAmount, ColDebit, ColCredit} {
			values = append(values, columnValues(cr, t, col, samples)...)
		}
		if !fits(values, func(v string) error { _, err := parse.Number(v, parse.NumberFormat(cfg.NumberFormat)); return err }) {
			if g, ok := sniff.NumberFormat(values); ok && !g.Ambiguous() {
				cfg.NumberFormat = g.Pattern
				cfg.Guessed = append(cfg.Guessed, guessedNumberFormat)
			}
		}
	}
	if req.SignageConvention == nil && cfg.AmountTypeStrategy == SignedAmount && acct != nil && acct.Classification() == "liability" &&
		cr.has(ColAmount) && !cr.has(ColDebit) && !cr.has(ColCredit) && chargesPositive(columnValues(cr, t, ColAmount, samples), cfg.NumberFormat) {
		cfg.SignageConvention = InflowsNegative
		cfg.Guessed = append(cfg.Guessed, guessedSignage)
	}
}

// chargesPositive reports whether a card or loan statement's amounts write what was spent as
// positive (American Express, Citi, Discover): at least three of them, and three in four
// positive, where a statement that writes money out negative has mostly negative amounts.
func chargesPositive(values []string, format string) bool {
	pos, neg := 0, 0
	for _, v := range values {
		n, err := parse.Number(v, parse.NumberFormat(format))
		switch {
		case err != nil:
			return false
		case n.IsPositive():
			pos++
		case n.IsNegative():
			neg++
		}
	}
	return pos+neg >= 3 && pos*4 >= (pos+neg)*3
}

// columnValues are the non-blank values of logical column col in the sampled records.
func columnValues(cr *columnReader, t *parse.CSVTable, col int, samples [][]string) []string {
	var out []string
	for i := range samples {
		if v := cr.value(t.Records[i], col); v != "" {
			out = append(out, v)
		}
	}
	return out
}

// fits reports whether read takes every value (and there is one).
func fits(values []string, read func(string) error) bool {
	for _, v := range values {
		if read(v) != nil {
			return false
		}
	}
	return len(values) > 0
}

// unmappedColumns lists the headers of t that the import reads for no column, in file order.
func unmappedColumns(t *parse.CSVTable, cfg *Config, typ Type) []string {
	cr := newColumnReader(t, cfg, specs[typ].columns)
	read := map[int]bool{}
	for _, is := range cr.cols {
		for _, i := range is {
			read[i] = true
		}
	}
	out := []string{}
	for i, h := range t.Headers {
		if !read[i] && strings.TrimSpace(h) != "" && !slices.Contains(out, h) {
			out = append(out, h)
		}
	}
	return out
}

// ColumnHeader is the header of the file that logical column key ("name", "date", ...) is read
// from: its label, else the first header that is one of the column's usual names; "" when the
// file has none.
func (im *Import) ColumnHeader(key string) string {
	col := columnIndex(key)
	if col < 0 {
		return ""
	}
	if l := im.Config.label(col); l != nil && strings.TrimSpace(*l) != "" {
		for _, h := range im.Headers {
			if parse.NormalizeHeader(h) == parse.NormalizeHeader(*l) {
				return h
			}
		}
		return ""
	}
	for _, alias := range columnAliases[col] {
		for _, h := range im.Headers {
			if parse.NormalizeHeader(h) == alias {
				return h
			}
		}
	}
	return ""
}
