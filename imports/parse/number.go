package parse

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/shopspring/decimal"
)

// NumberFormat is how a file writes numbers: one of the formats below.
type NumberFormat string

// The number formats, each named by how it writes one thousand two hundred and thirty-four
// (and fifty-six hundredths).
const (
	NumberUS         NumberFormat = "1,234.56" // decimal point, comma thousands (default)
	NumberEU         NumberFormat = "1.234,56" // decimal comma, dot thousands
	NumberSpace      NumberFormat = "1 234,56" // decimal comma, space thousands (any Unicode space)
	NumberNoDecimals NumberFormat = "1,234"    // no decimals, comma thousands (JPY)
	NumberSwiss      NumberFormat = "1'234.56" // decimal point, apostrophe thousands (Switzerland)
)

// NumberFormats lists the number formats offered to people, the default first.
var NumberFormats = []NumberFormat{NumberUS, NumberEU, NumberSpace, NumberNoDecimals, NumberSwiss}

// Valid reports whether f is one of NumberFormats.
func (f NumberFormat) Valid() bool { return slices.Contains(NumberFormats, f) }

// ErrBlank is Number's error for a blank cell, which callers usually treat as "no value"
// rather than as a mistake.
var ErrBlank = errors.New("blank")

// maxIntegerDigits bounds the integer part: amounts are stored as numeric(19,4), and 15 digits
// leave room for sums of many amounts.
const maxIntegerDigits = 15

// NumberError is a cell that is not a number in its file's format, or is too large to store.
type NumberError struct {
	Value    string       // the cell, trimmed
	Format   NumberFormat // the format it was read in
	TooLarge bool         // the cell is a number, but with more than 15 digits before the decimals
}

// Error returns the problem with the value, such as
// `"12,34.5" is not a number in format 1,234.56`.
func (e *NumberError) Error() string {
	if e.TooLarge {
		return fmt.Sprintf("%q is too large: at most %d digits before the decimal separator", e.Value, maxIntegerDigits)
	}
	return fmt.Sprintf("%q is not a number in format %s", e.Value, e.Format)
}

// Number parses s, a number written in format f, as a file cell. Blank (after trimming) →
// ErrBlank. An empty format means NumberUS.
//
// Currency symbols, ISO codes and the spaces next to them are ignored at either edge. A
// leading '-' or '+', a trailing '-' or accounting parentheses give the sign, at most one of
// them. Thousands separators must group digits by three.
func Number(s string, f NumberFormat) (decimal.Decimal, error) {
	if f == "" {
		f = NumberUS
	}
	if !f.Valid() {
		return decimal.Decimal{}, fmt.Errorf("number format %q is not one of %s", f, formatList())
	}
	s = strings.TrimSpace(s)
	if s == "" {
		return decimal.Decimal{}, ErrBlank
	}
	bad := &NumberError{Value: s, Format: f}

	// The edges, everything before the first and after the last digit or separator, may hold
	// only signs and currency; the body between them is checked against the format.
	start, end := 0, len(s)
	signs, negative, open, closed := 0, false, false, false
	for start < end {
		r, size := utf8.DecodeRuneInString(s[start:end])
		if isNumberBody(r) {
			break
		}
		switch {
		case r == '-':
			signs, negative = signs+1, true
		case r == '+':
			signs++
		case r == '(' && !open:
			open = true
		case !isNumberEdge(r):
			return decimal.Decimal{}, bad
		}
		start += size
	}
	for end > start {
		r, size := utf8.DecodeLastRuneInString(s[start:end])
		if isNumberBody(r) {
			break
		}
		switch {
		case r == '-':
			signs, negative = signs+1, true
		case r == ')' && !closed:
			closed = true
		case !isNumberEdge(r):
			return decimal.Decimal{}, bad
		}
		end -= size
	}
	if open != closed {
		return decimal.Decimal{}, bad
	}
	if open {
		signs, negative = signs+1, true
	}
	if signs > 1 {
		return decimal.Decimal{}, bad
	}

	integer, fraction, ok := splitNumber(s[start:end], f)
	if !ok {
		return decimal.Decimal{}, bad
	}
	if len(strings.TrimLeft(integer, "0")) > maxIntegerDigits {
		return decimal.Decimal{}, &NumberError{Value: s, Format: f, TooLarge: true}
	}
	digits := integer
	if digits == "" {
		digits = "0"
	}
	if fraction != "" {
		digits += "." + fraction
	}
	if negative {
		digits = "-" + digits
	}
	d, err := decimal.NewFromString(digits)
	if err != nil {
		return decimal.Decimal{}, bad
	}
	return d, nil
}

// splitNumber checks body, the digits and separators of a number, against format f and returns
// its integer digits without thousands separators and its decimal digits.
func splitNumber(body string, f NumberFormat) (integer, fraction string, ok bool) {
	var decimalSep byte
	isThousands := func(r rune) bool { return r == ',' }
	switch f {
	case NumberUS:
		decimalSep = '.'
	case NumberEU:
		decimalSep = ','
		isThousands = func(r rune) bool { return r == '.' }
	case NumberSpace:
		decimalSep = ','
		isThousands = unicode.IsSpace
	case NumberSwiss:
		decimalSep = '.'
		isThousands = func(r rune) bool { return r == '\'' || r == '’' }
	}
	integer = body
	if decimalSep != 0 {
		if i := strings.IndexByte(body, decimalSep); i >= 0 {
			integer, fraction = body[:i], body[i+1:]
			if !allDigits(fraction) {
				return "", "", false
			}
		}
	}
	integer, ok = ungroup(integer, isThousands)
	if !ok || integer == "" && fraction == "" {
		return "", "", false
	}
	return integer, fraction, true
}

// ungroup returns the digits of s, an integer part whose thousands separators, if any, must
// separate groups of three digits after a first group of one to three.
func ungroup(s string, isThousands func(rune) bool) (string, bool) {
	if allDigits(s) {
		return s, true
	}
	digits := make([]byte, 0, len(s))
	group, groups := 0, 0
	for _, r := range s {
		switch {
		case '0' <= r && r <= '9':
			digits = append(digits, byte(r))
			group++
		case isThousands(r):
			if group == 0 || group > 3 || groups > 0 && group != 3 {
				return "", false
			}
			group, groups = 0, groups+1
		default:
			return "", false
		}
	}
	// s is not all digits, so it had a separator (or failed above): the last group needs three.
	return string(digits), group == 3
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// isNumberBody reports whether r can start or end the digits of a number in some format; the
// format decides later which separators it accepts.
func isNumberBody(r rune) bool { return '0' <= r && r <= '9' || r == '.' || r == ',' }

// isNumberEdge reports whether r may surround a number: currency symbols and codes ("$", "kr",
// "USD") and the spaces between them and the digits.
func isNumberEdge(r rune) bool {
	return unicode.IsLetter(r) || unicode.Is(unicode.Sc, r) || unicode.IsSpace(r)
}

func formatList() string { return NumberFormatNames(", ") }

// NumberFormatNames lists the number formats, joined by sep.
func NumberFormatNames(sep string) string {
	names := make([]string, len(NumberFormats))
	for i, f := range NumberFormats {
		names[i] = string(f)
	}
	return strings.Join(names, sep)
}
