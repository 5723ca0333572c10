package parse

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"
)

// DateFormatOption is a date pattern with the label people choose it by.
type DateFormatOption struct{ Label, Pattern string }

// DateFormats lists the patterns offered to people, with their labels, in this order.
var DateFormats = []DateFormatOption{
	{"MM-DD-YYYY", "%m-%d-%Y"},
	{"DD.MM.YYYY", "%d.%m.%Y"},
	{"DD-MM-YYYY", "%d-%m-%Y"},
	{"YYYY-MM-DD", "%Y-%m-%d"},
	{"DD/MM/YYYY", "%d/%m/%Y"},
	{"YYYY/MM/DD", "%Y/%m/%d"},
	{"MM/DD/YYYY", "%m/%d/%Y"},
	{"D/MM/YYYY", "%e/%m/%Y"},
	{"YYYY.MM.DD", "%Y.%m.%d"},
	{"YYYYMMDD", "%Y%m%d"},
	{"DD MMM YYYY", "%d %b %Y"},
	{"DD/MM/YY", "%d/%m/%y"},
	{"YYYY-MM-DD HH:MM:SS", "%Y-%m-%d %H:%M:%S"},
}

// DateError is a value that is not a date in its pattern.
type DateError struct {
	Value   string // the value, trimmed
	Pattern string // the strftime-style pattern it was read with
	// Reason, when set, says why a value that matches the pattern is still no date, such as
	// "February 2023 has 28 days"; when empty the value does not match the pattern.
	Reason string
}

// Error returns the problem with the value, such as
// `"01/13/2024" does not match the date format %d/%m/%Y`.
func (e *DateError) Error() string {
	if e.Reason != "" {
		return fmt.Sprintf("%q is not a date: %s", e.Value, e.Reason)
	}
	return fmt.Sprintf("%q does not match the date format %s", e.Value, e.Pattern)
}

// dateTokenKind tells the parts of a compiled date pattern apart.
type dateTokenKind int

const (
	dateLiteral dateTokenKind = iota // one character that must appear as is
	dateSpace                        // pattern whitespace: one or more spaces in the value
	dateField                        // a directive
)

type dateToken struct {
	kind    dateTokenKind
	literal rune
	// field is the directive's letter, with %B folded into 'b' since both accept either form.
	field byte
	// fixed makes a numeric field take its full width, because a numeric neighbour with no
	// separator in between ("%Y%m%d") leaves no other way to tell where it ends.
	fixed bool
}

func (t dateToken) numeric() bool { return t.kind == dateField && t.field != 'b' }

// ValidateDateFormat reports what is wrong with a strftime-style pattern, or nil.
func ValidateDateFormat(pattern string) error {
	_, err := compileDate(pattern)
	return err
}

// compiled holds compiled patterns: an import parses every row's date with the same one.
var compiled sync.Map // pattern → compiledPattern

type compiledPattern struct {
	tokens []dateToken
	err    error
}

func compiledDate(pattern string) ([]dateToken, error) {
	if c, ok := compiled.Load(pattern); ok {
		cp := c.(compiledPattern)
		return cp.tokens, cp.err
	}
	tokens, err := compileDate(pattern)
	compiled.Store(pattern, compiledPattern{tokens, err})
	return tokens, err
}

func compileDate(pattern string) ([]dateToken, error) {
	p := strings.TrimSpace(pattern)
	if p == "" {
		return nil, errors.New("date format is empty")
	}
	var tokens []dateToken
	var years, months, days int
	for i := 0; i < len(p); {
		r, size := utf8.DecodeRuneInString(p[i:])
		i += size
		switch {
		case unicode.IsSpace(r):
			if tokens[len(tokens)-1].kind != dateSpace { // p is trimmed, so a token precedes
				tokens = append(tokens, dateToken{kind: dateSpace})
			}
		case r != '%':
			tokens = append(tokens, dateToken{kind: dateLiteral, literal: r})
		case i == len(p):
			return nil, fmt.Errorf("date format %q ends with a lone %%", pattern)
		default:
			d, size := utf8.DecodeRuneInString(p[i:])
			i += size
			switch d {
			case '%':
				tokens = append(tokens, dateToken{kind: dateLiteral, literal: '%'})
				continue
			case 'Y', 'y':
				years++
			case 'm', 'b', 'B':
				months++
			case 'd', 'e':
				days++
			case 'H', 'M', 'S':
				// A time of day, as exports that stamp each row write it: read and checked,
				// then left out, since an entry has a date only.
			default:
				return nil, fmt.Errorf("unknown directive %%%c in date format %q: use %%Y, %%y, %%m, %%b, %%B, %%d, %%e, %%H, %%M, %%S or %%%%", d, pattern)
			}
			if d == 'B' {
				d = 'b'
			}
			tokens = append(tokens, dateToken{kind: dateField, field: byte(d)})
		}
	}
	for _, part := range []struct {
		name  string
		count int
	}{{"year", years}, {"month", months}, {"day", days}} {
		switch {
		case part.count == 0:
			return nil, fmt.Errorf("date format %q has no %s", pattern, part.name)
		case part.count > 1:
			return nil, fmt.Errorf("date format %q has more than one %s", pattern, part.name)
		}
	}
	for i := range tokens {
		if !tokens[i].numeric() {
			continue
		}
		tokens[i].fixed = i > 0 && tokens[i-1].numeric() || i+1 < len(tokens) && tokens[i+1].numeric()
	}
	return tokens, nil
}

// Date parses s with pattern (validated first) and returns the date at 00:00 UTC.
//
// Numeric fields take one or two digits (%Y exactly four, %y exactly two) unless they touch
// another numeric field; whitespace in the pattern matches any run of spaces; the value is
// trimmed and must be used up.
func Date(s, pattern string) (time.Time, error) {
	tokens, err := compiledDate(pattern)
	if err != nil {
		return time.Time{}, err
	}
	v := strings.TrimSpace(s)
	fail := &DateError{Value: v, Pattern: pattern}
	var year, month, day int
	clock := false // a time of day out of range
	p := 0
	for _, t := range tokens {
		switch t.kind {
		case dateLiteral:
			r, size := utf8.DecodeRuneInString(v[p:])
			if size == 0 || r != t.literal {
				return time.Time{}, fail
			}
			p += size
		case dateSpace:
			n := len(v[p:]) - len(strings.TrimLeftFunc(v[p:], unicode.IsSpace))
			if n == 0 {
				return time.Time{}, fail
			}
			p += n
		case dateField:
			var n, width int
			switch t.field {
			case 'Y':
				n, width = digitsAt(v, p, 4, 4)
				year = n
			case 'y':
				n, width = digitsAt(v, p, 2, 2)
				year = 2000 + n
				if n >= 69 {
					year = 1900 + n
				}
			case 'b':
				month, width = monthAt(v, p)
			case 'e':
				n, width = dayAt(v, p, t.fixed)
				day = n
			default:
				lo := 1
				if t.fixed {
					lo = 2
				}
				n, width = digitsAt(v, p, lo, 2)
				switch t.field {
				case 'm':
					month = n
				case 'd':
					day = n
				case 'H':
					clock = clock || n > 23
				case 'M':
					clock = clock || n > 59
				case 'S':
					clock = clock || n > 60 // 60 is a leap second
				}
			}
			if width == 0 {
				return time.Time{}, fail
			}
			p += width
		}
	}
	if p != len(v) || month < 1 || month > 12 || day < 1 || day > 31 || clock {
		return time.Time{}, fail
	}
	d := time.Date(year, time.Month(month), day, 0, 0, 0, 0, time.UTC)
	if d.Day() != day {
		last := time.Date(year, time.Month(month)+1, 0, 0, 0, 0, 0, time.UTC).Day()
		fail.Reason = fmt.Sprintf("%s %d has %d days", time.Month(month), year, last)
		return time.Time{}, fail
	}
	return d, nil
}

// digitsAt reads between lo and hi ASCII digits of s at p; width 0 means there were too few.
func digitsAt(s string, p, lo, hi int) (n, width int) {
	for width < hi && p+width < len(s) && '0' <= s[p+width] && s[p+width] <= '9' {
		n = n*10 + int(s[p+width]-'0')
		width++
	}
	if width < lo {
		return 0, 0
	}
	return n, width
}

// dayAt reads %e: a day of one or two digits that may be padded with a space instead of a zero.
func dayAt(s string, p int, fixed bool) (day, width int) {
	pad := 0
	if p < len(s) && s[p] == ' ' {
		pad = 1
	}
	lo, hi := 1, 2
	if fixed {
		lo, hi = 2-pad, 2-pad
	}
	day, width = digitsAt(s, p+pad, lo, hi)
	if width == 0 {
		return 0, 0
	}
	return day, pad + width
}

var monthNames = [...]string{"january", "february", "march", "april", "may", "june", "july",
	"august", "september", "october", "november", "december"}

// monthAt reads an English month name, full or abbreviated to three letters, in any case. Full
// names are tried first so that "March" is not read as "Mar" followed by "ch".
func monthAt(s string, p int) (month, width int) {
	for _, abbreviated := range []bool{false, true} {
		for i, name := range monthNames {
			if abbreviated {
				name = name[:3]
			}
			if len(s)-p >= len(name) && asciiEqualFold(s[p:p+len(name)], name) {
				return i + 1, len(name)
			}
		}
	}
	return 0, 0
}

// asciiEqualFold compares s with lower, an ASCII lower-case word, ignoring ASCII case only, so
// that look-alikes such as the Kelvin sign never pass for a letter of a month.
func asciiEqualFold(s, lower string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != lower[i] {
			return false
		}
	}
	return true
}
