package models

import (
	"fmt"
	"strings"

	"github.com/shopspring/decimal"
	"golang.org/x/text/currency"

	"tally/internal/apperr"
)

// MaxAmount bounds an amount: numeric(19,4) holds 15 digits before the point.
var MaxAmount = decimal.New(1, 15)

// AmountFits reports whether d can be stored as an amount, once rounded to its 4 decimals.
func AmountFits(d decimal.Decimal) bool { return d.Round(4).Abs().LessThan(MaxAmount) }

// CurrencyDecimals is how many decimals amounts in an ISO 4217 currency have: 2 for EUR and
// USD, 0 for JPY, 3 for BHD. An unknown code has 2.
func CurrencyDecimals(code string) int {
	u, err := currency.ParseISO(code)
	if err != nil {
		return 2
	}
	scale, _ := currency.Standard.Rounding(u)
	return scale
}

// ParseAmount reads an amount a person typed for currency code, in whichever way they write
// numbers: "1250", "1,250.00", "1.250,00", "1 250,50", "1'250.50", "-12.5". With both a comma
// and a point, the last is the decimal mark. With one of them once, it is the decimal mark
// unless what follows could not be the currency's decimals: "2.345" in EUR is 2345, while in
// BHD (3 decimals) it could be either and is refused. An amount with more decimals than its
// currency has ("15000.50" yen) is refused, never rounded.
func ParseAmount(s, code string) (decimal.Decimal, error) {
	v := strings.TrimSpace(s)
	fail := func(format string, args ...any) (decimal.Decimal, error) {
		return decimal.Zero, apperr.Errorf(apperr.Invalid, format, args...)
	}
	neg := strings.HasPrefix(v, "-")
	v = strings.TrimLeft(v, "+-")
	var digits strings.Builder
	var marks []int // positions in the digits of each separator, and which it was
	var kinds []rune
	for _, r := range v {
		switch {
		case r >= '0' && r <= '9':
			digits.WriteRune(r)
		case r == '.' || r == ',' || r == '\'' || r == ' ' || r == '\u00a0' || r == '\u202f':
			marks, kinds = append(marks, digits.Len()), append(kinds, r)
		default:
			return fail("%q is not a number: write it like 1250.00", s)
		}
	}
	d := digits.String()
	if d == "" {
		return fail("%q is not a number: write it like 1250.00", s)
	}
	decimals := CurrencyDecimals(code)
	point := -1 // index into marks of the decimal mark, if any
	if n := len(kinds); n > 0 {
		last := kinds[n-1]
		switch {
		case last != '.' && last != ',':
			// Spaces and apostrophes only group thousands.
		case strings.ContainsRune(string(kinds[:n-1]), last):
			// The same mark twice groups thousands: "1.234.567".
		case n > 1:
			point = n - 1 // "1.234,56": the last mark is the decimal one
		default:
			after := len(d) - marks[n-1]
			switch {
			case after != 3 || marks[0] == 0 || d[0] == '0':
				// Not three digits after it, or nothing (or a zero) before: "12,5", ",125", "0.125".
				point = n - 1
			case decimals == 3:
				return fail("%q could be %s or %s: write it without a thousands separator", s, d, d[:marks[0]]+"."+d[marks[0]:])
			}
		}
	}
	whole, frac := d, ""
	if point >= 0 {
		whole, frac = d[:marks[point]], d[marks[point]:]
	}
	// Thousands groups must be groups of three.
	for i, m := range marks {
		if i == point {
			continue
		}
		end := len(whole)
		if i+1 < len(marks) && i+1 != point {
			end = marks[i+1]
		}
		if m == 0 || end-m != 3 {
			return fail("%q is not a number: its digits are grouped oddly", s)
		}
	}
	if len(frac) > decimals {
		if decimals == 0 {
			return fail("%s amounts have no decimals: %q has %d", code, s, len(frac))
		}
		return fail("%s amounts have at most %d decimals: %q has %d", code, decimals, s, len(frac))
	}
	n, err := decimal.NewFromString(whole + "." + frac + "0")
	if err != nil {
		return fail("%q is not a number: write it like 1250.00", s)
	}
	if neg {
		n = n.Neg()
	}
	return n, nil
}

// CheckDecimals refuses an amount with more decimals than its currency has (trailing zeros
// aside): it would be rounded when stored or shown.
func CheckDecimals(amount decimal.Decimal, code string) error {
	places := int32(CurrencyDecimals(code))
	if amount.Equal(amount.Round(places)) {
		return nil
	}
	if places == 0 {
		return fmt.Errorf("%s amounts have no decimals", code)
	}
	return fmt.Errorf("%s amounts have at most %d decimals", code, places)
}
