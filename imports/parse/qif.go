package parse

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// QIF is what a Quicken Interchange Format file says besides the records of its first account
// section, which ReadQIF hands over one at a time: the section's type, its opening balance, the
// lists (categories, tags, securities) that came with it, and the dates its records use.
type QIF struct {
	AccountType string            // the first account section's type: "Bank", "CCard", "Cash", "Oth L", "Oth A" or "Invst" ("" when none)
	Opening     *QIFRecord        // the "Opening Balance" record (payee "Opening Balance" in any case), if any
	Categories  []QIFCategory     // from !Type:Cat
	Tags        []string          // from !Type:Tag
	Securities  map[string]string // security name → ticker, from !Type:Security
	// Dates are the first distinct dates of the records, in file order, as many as
	// QIFDateFormat samples.
	Dates []string
}

// QIFRecord is one record of an account section, its values as in the file except where noted.
type QIFRecord struct {
	Line     int      // line of the record's first field
	Date     string   // D, normalized (see ReadQIF), not yet parsed
	Amount   string   // T, else U, commas removed (e.g. "-99.00")
	Payee    string   // P
	Memo     string   // M
	Category string   // from L, without tags; "" for a transfer or a split
	Tags     []string // from L after '/', split on ':'
	Transfer string   // from L "[Account Name]": the account's name
	Number   string   // N in non-investment sections: the check number
	Cleared  string   // C
	Split    bool     // the record has split lines (S, E, $)

	// Investment fields, in Invst sections.
	Action   string // N: Buy, Sell, Div, ...
	Security string // Y: the security's name
	Price    string // I
	Quantity string // Q
}

// QIFCategory is a category from a !Type:Cat section.
type QIFCategory struct {
	Name        string // N, with any "Parent:Child" path as in the file
	Description string // D
	Income      bool   // flagged I (income) and not E (expense)
}

// QIFDrop is a record of the account section that ReadQIF left out, and why.
type QIFDrop struct {
	Line   int
	Reason string // e.g. "no date (D)"
}

// String returns the drop as people read it, for example "line 12: no date (D)".
func (d QIFDrop) String() string { return fmt.Sprintf("line %d: %s", d.Line, d.Reason) }

// qifAccountTypes maps the account section types, lower-cased with single spaces, to the form
// Quicken writes.
var qifAccountTypes = map[string]string{
	"bank": "Bank", "ccard": "CCard", "cash": "Cash", "oth l": "Oth L", "oth a": "Oth A", "invst": "Invst",
}

type qifSection int

const (
	qifNone       qifSection = iota // before the first header
	qifAccount                      // the first account section: the one that is read
	qifCategories                   // !Type:Cat
	qifTags                         // !Type:Tag
	qifSecurities                   // !Type:Security
	qifIgnored                      // later account sections, !Account lists, prices and the rest
)

type qifField struct {
	code  rune
	value string
	line  int
	at    int // the byte of the text it starts at
}

type qifParser struct {
	q        *QIF
	section  qifSection
	fields   []qifField // the record being read
	thisYear int
	// size is the text's length; the lists grow by it and by where the first item of each
	// started (-1 before it: categories, tags).
	size               int
	firstCat, firstTag int
	overlong           bool            // the record being read has more than maxQIFFields lines
	dates              map[string]bool // the dates sampled
	// onRecord and onDrop are given each record kept and left out; stopped is set once one
	// of them returns false.
	onRecord func(QIFRecord) bool
	onDrop   func(QIFDrop) bool
	stopped  bool
}

// maxQIFFields bounds the lines of one record, and maxQIFTags the tags of one L field. A
// transaction with a few hundred split lines is already rare; a record past these is no
// program's export, and its lines would be held until it ends.
const (
	maxQIFFields = 10_000
	maxQIFTags   = 100
)

// ReadQIF reads a QIF file. It calls record with each record of the first account section
// that is kept and drop with each that is left out, in file order, and returns the rest of
// what the file says; so a large file's records are never held. Either may be nil, and the
// reading ends early once one returns false. It fails only when the text has no !Type: header
// at all.
//
// Headers are matched in any case; !Option and !Clear lines are skipped, and so is everything
// from an !Account line to the next !Type header (the account list). Only the first account
// section is read; a record that is not ended by '^' ends at the next header or at the end of
// the text.
//
// Dates are normalized but not parsed, since the date format is chosen afterwards (see
// QIFDateFormat): the Quicken apostrophe before the year becomes the date's separator
// ("6/ 4'20" → "6/4/20"), whitespace is removed from numeric dates and collapsed in dates with
// month names, and a final two-digit year becomes 20yy, or 19yy when 20yy is after this year.
func ReadQIF(text string, record func(QIFRecord) bool, drop func(QIFDrop) bool) (*QIF, error) {
	text = strings.TrimPrefix(text, "\ufeff")
	p := &qifParser{q: &QIF{}, thisYear: time.Now().Year(), size: len(text), firstCat: -1, firstTag: -1,
		dates: map[string]bool{}, onRecord: record, onDrop: drop}
	sawType := false
	n := 0
	for at, raw := range Lines(text) {
		if p.stopped {
			return p.q, nil
		}
		n++
		line := strings.TrimSpace(raw)
		switch {
		case line == "":
		case line[0] == '!':
			p.flush()
			sawType = p.header(line) || sawType
		case line == "^":
			p.flush()
		default:
			code, size := utf8.DecodeRuneInString(line)
			if len(p.fields) == maxQIFFields {
				p.overlong = true
				continue
			}
			p.fields = append(p.fields, qifField{code: code, value: strings.TrimSpace(line[size:]), line: n, at: at})
		}
	}
	p.flush()
	if !sawType {
		return nil, errors.New("not a QIF file: no !Type: header")
	}
	return p.q, nil
}

// header switches section on a header line and reports whether it was a !Type header.
func (p *qifParser) header(line string) bool {
	const typePrefix = "!type:"
	switch {
	case len(line) >= len(typePrefix) && strings.EqualFold(line[:len(typePrefix)], typePrefix):
		typ := strings.ToLower(strings.Join(strings.Fields(line[len(typePrefix):]), " "))
		switch typ {
		case "cat":
			p.section = qifCategories
		case "tag":
			p.section = qifTags
		case "security":
			p.section = qifSecurities
		default:
			p.section = qifIgnored
			if name, ok := qifAccountTypes[typ]; ok && p.q.AccountType == "" {
				p.q.AccountType, p.section = name, qifAccount
			}
		}
		return true
	case len(line) >= len("!account") && strings.EqualFold(line[:len("!account")], "!account"):
		p.section = qifIgnored
	}
	return false
}

// flush ends the record being read.
func (p *qifParser) flush() {
	if len(p.fields) == 0 {
		return
	}
	if p.overlong {
		if p.section == qifAccount {
			p.leaveOut(p.fields[0].line, fmt.Sprintf("the record runs over more than %d lines", maxQIFFields))
		}
		p.fields, p.overlong = p.fields[:0], false
		return
	}
	switch p.section {
	case qifAccount:
		p.record()
	case qifCategories:
		var c QIFCategory
		income, expense := false, false
		for _, f := range p.fields {
			switch f.code {
			case 'N':
				c.Name = first(c.Name, f.value)
			case 'D':
				c.Description = first(c.Description, f.value)
			case 'I':
				income = true
			case 'E':
				expense = true
			}
		}
		c.Income = income && !expense
		if c.Name != "" {
			p.q.Categories = append(grow(p, p.q.Categories, &p.firstCat), c)
		}
	case qifTags:
		if name := p.value('N'); name != "" {
			p.q.Tags = append(grow(p, p.q.Tags, &p.firstTag), name)
		}
	case qifSecurities:
		name, ticker := p.value('N'), p.value('S')
		if name != "" && ticker != "" {
			if p.q.Securities == nil {
				p.q.Securities = map[string]string{}
			}
			p.q.Securities[name] = ticker
		}
	}
	p.fields = p.fields[:0]
}

// value returns the first field with code in the record being read, or "".
func (p *qifParser) value(code rune) string {
	for _, f := range p.fields {
		if f.code == code && f.value != "" {
			return f.value
		}
	}
	return ""
}

// record ends a record of the account section: it is kept, kept as the opening balance, or
// dropped with its reason.
func (p *qifParser) record() {
	invst := p.q.AccountType == "Invst"
	r := QIFRecord{Line: p.fields[0].line}
	var date, total, unit, category string
	for _, f := range p.fields {
		switch f.code {
		case 'D':
			date = first(date, f.value)
		case 'T':
			total = first(total, f.value)
		case 'U':
			unit = first(unit, f.value)
		case 'P':
			r.Payee = first(r.Payee, f.value)
		case 'M':
			r.Memo = first(r.Memo, f.value)
		case 'L':
			category = first(category, f.value)
		case 'C':
			r.Cleared = first(r.Cleared, f.value)
		case 'N':
			if invst {
				r.Action = first(r.Action, f.value)
			} else {
				r.Number = first(r.Number, f.value)
			}
		case 'Y':
			r.Security = first(r.Security, f.value)
		case 'I':
			r.Price = first(r.Price, f.value)
		case 'Q':
			r.Quantity = first(r.Quantity, f.value)
		case 'S', 'E', '$':
			// In investment records '$' is the amount transferred, not a split line.
			r.Split = r.Split || !invst
		}
	}
	r.Category, r.Transfer, r.Tags = splitQIFCategory(category)
	if len(r.Tags) > maxQIFTags {
		p.leaveOut(r.Line, fmt.Sprintf("more than %d tags (L)", maxQIFTags))
		return
	}
	amount := first(total, unit)
	r.Amount = strings.ReplaceAll(amount, ",", "")
	switch {
	case date == "":
		p.leaveOut(r.Line, "no date (D)")
		return
	case amount == "":
		p.leaveOut(r.Line, "no amount (T or U)")
		return
	case !isQIFAmount(r.Amount):
		p.leaveOut(r.Line, fmt.Sprintf("amount %q is not a number", amount))
		return
	}
	r.Date = normalizeQIFDate(date, p.thisYear)
	if !strings.EqualFold(r.Payee, "Opening Balance") {
		p.keep(r)
		return
	}
	if p.q.Opening != nil {
		p.leaveOut(r.Line, fmt.Sprintf("a second opening balance (the first is on line %d)", p.q.Opening.Line))
		return
	}
	p.q.Opening = &r
}

// keep passes a record on, noting its date among the samples.
func (p *qifParser) keep(r QIFRecord) {
	if len(p.q.Dates) < qifDateSamples && !p.dates[r.Date] {
		p.dates[r.Date] = true
		p.q.Dates = append(p.q.Dates, r.Date)
	}
	if p.onRecord != nil && !p.onRecord(r) {
		p.stopped = true
	}
}

// leaveOut passes on a record left out, and why.
func (p *qifParser) leaveOut(line int, reason string) {
	if p.onDrop != nil && !p.onDrop(QIFDrop{Line: line, Reason: reason}) {
		p.stopped = true
	}
}

// grow makes room in a list of the parser for the item the record being read gives, by
// GrowFor; *first is where the list's first item started.
func grow[T any](p *qifParser, list []T, first *int) []T {
	at := p.fields[0].at
	if *first < 0 {
		*first = at
	}
	return GrowFor(list, *first, at, p.size)
}

// first returns have, or v when nothing was kept yet: a field's first occurrence wins.
func first(have, v string) string {
	if have != "" {
		return have
	}
	return v
}

// splitQIFCategory reads an L field: "[Account]" is a transfer, "--Split--" stands for the
// split lines, and what follows a '/' is a ':'-separated list of tags (Quicken's classes).
func splitQIFCategory(l string) (category, transfer string, tags []string) {
	rest := l
	if strings.HasPrefix(l, "[") {
		// The brackets go first: an account's name may hold a '/'.
		if end := strings.IndexByte(l, ']'); end > 0 {
			transfer, rest = strings.TrimSpace(l[1:end]), l[end+1:]
		}
	}
	head, tagList, _ := strings.Cut(rest, "/")
	for t := range strings.SplitSeq(tagList, ":") {
		if t = strings.TrimSpace(t); t != "" {
			// One past the bound tells the caller; the rest would only be held.
			if tags = append(tags, t); len(tags) > maxQIFTags {
				break
			}
		}
	}
	if head = strings.TrimSpace(head); transfer == "" && !strings.EqualFold(head, "--Split--") {
		category = head
	}
	return category, transfer, tags
}

// isQIFAmount reports whether s is an amount as Quicken writes it: an optional minus, digits,
// and an optional decimal point followed by digits.
func isQIFAmount(s string) bool {
	s = strings.TrimPrefix(s, "-")
	integer, fraction, _ := strings.Cut(s, ".")
	return integer != "" && allDigits(integer) && allDigits(fraction)
}

// normalizeQIFDate prepares a D field for Date; see ReadQIF.
func normalizeQIFDate(d string, thisYear int) string {
	d = strings.TrimSpace(d)
	hasLetters := strings.IndexFunc(d, unicode.IsLetter) >= 0
	if strings.Contains(d, "'") {
		sep := "/"
		if hasLetters {
			sep = " "
		}
		if i := strings.IndexFunc(d, isDateSeparator); i >= 0 {
			_, size := utf8.DecodeRuneInString(d[i:])
			sep = d[i : i+size]
		}
		d = strings.ReplaceAll(d, "'", sep)
	}
	if hasLetters {
		d = strings.Join(strings.Fields(d), " ")
	} else {
		d = strings.Join(strings.Fields(d), "")
	}
	end := len(d)
	start := end
	for start > 0 && '0' <= d[start-1] && d[start-1] <= '9' {
		start--
	}
	if end-start != 2 || start == 0 || hasDigitRun(d, 4) {
		return d
	}
	year := 2000 + int(d[start]-'0')*10 + int(d[start+1]-'0')
	if year > thisYear {
		year -= 100
	}
	return d[:start] + strconv.Itoa(year)
}

// isDateSeparator reports whether r separates the parts of a date, as '/', '.' and '-' do.
func isDateSeparator(r rune) bool {
	return r != '\'' && !unicode.IsLetter(r) && !unicode.IsDigit(r) && !unicode.IsSpace(r)
}

// hasDigitRun reports whether s holds n or more ASCII digits in a row.
func hasDigitRun(s string, n int) bool {
	run := 0
	for i := 0; i < len(s); i++ {
		if '0' <= s[i] && s[i] <= '9' {
			if run++; run >= n {
				return true
			}
		} else {
			run = 0
		}
	}
	return false
}

// qifDateSamples is how many distinct dates QIFDateFormat reads.
const qifDateSamples = 50

// QIFDateFormat picks the date pattern that parses the most of dates (up to qifDateSamples
// distinct samples) among DateFormats patterns, preferring on ties the one whose dates fall most often
// in 1970-01-01..today+5y; fallback when none parses.
//
// Remaining ties go to fallback when it is among the best, since it is the format the person
// or the account already uses; otherwise to the pattern listed first in DateFormats.
func QIFDateFormat(dates []string, fallback string) string {
	var samples []string
	seen := map[string]bool{}
	for _, d := range dates {
		if len(samples) == qifDateSamples {
			break
		}
		if d = strings.TrimSpace(d); d != "" && !seen[d] {
			seen[d] = true
			samples = append(samples, d)
		}
	}
	earliest := time.Date(1970, 1, 1, 0, 0, 0, 0, time.UTC)
	latest := time.Now().UTC().AddDate(5, 0, 0)
	best, bestParsed, bestPlausible := fallback, 0, 0
	for _, f := range DateFormats {
		parsed, plausible := 0, 0
		for _, s := range samples {
			if t, err := Date(s, f.Pattern); err == nil {
				parsed++
				if !t.Before(earliest) && !t.After(latest) {
					plausible++
				}
			}
		}
		if parsed == 0 {
			continue
		}
		better := parsed > bestParsed || parsed == bestParsed && plausible > bestPlausible
		tied := parsed == bestParsed && plausible == bestPlausible
		if better || tied && f.Pattern == fallback {
			best, bestParsed, bestPlausible = f.Pattern, parsed, plausible
		}
	}
	return best
}
