package statement

import (
	"strings"

	"github.com/shopspring/decimal"
)

// money is an amount as a statement prints it, before anyone decides what its sign means.
type money struct {
	abs    decimal.Decimal // the printed figure, without sign
	neg    bool            // printed as negative: "-12.00", "(12.00)" or "12.00-"
	plus   bool            // printed with an explicit "+"
	mark   string          // "CR" or "DR" when the figure carries one
	symbol string          // the currency symbol printed with it, if any
}

// explicit reports whether the printed amount says which way it goes; an unsigned figure in
// a single amount column only says so by convention.
func (m money) explicit() bool { return m.neg || m.plus || m.mark != "" }

// maxMoneyLen bounds the text one amount may take: no real amount is longer, and the bound
// keeps hostile input from building huge decimals.
const maxMoneyLen = 40

// currencySymbols are the symbols an amount may carry, longest first so that "US$" is not
// read as "$". The code is the ISO currency the symbol names unambiguously, or "" when it
// does not ("$" is used by dozens of currencies).
var currencySymbols = []struct{ symbol, code string }{
	{"US$", "USD"}, {"CA$", "CAD"}, {"C$", "CAD"}, {"AU$", "AUD"}, {"A$", "AUD"}, {"NZ$", "NZD"},
	{"$", ""}, {"€", "EUR"}, {"£", "GBP"},
}

// parseMoney reads one printed amount such as "1,234.56", "-$1,234.56", "(1,234.56)",
// "1,234.56-", "1,234.56CR", "1,234.56 CR" or "€1.234,56". Only figures with exactly two
// decimals are amounts: statements always print cents, and the rule keeps reference numbers,
// years and quantities in descriptions from being read as money.
func parseMoney(s string) (money, bool) {
	var m money
	s = strings.TrimSpace(s)
	if s == "" || len(s) > maxMoneyLen {
		return m, false
	}
	if strings.HasPrefix(s, "(") && strings.HasSuffix(s, ")") {
		m.neg = true
		s = strings.TrimSpace(s[1 : len(s)-1])
	}
	if len(s) > 2 {
		switch strings.ToUpper(s[len(s)-2:]) {
		case "CR", "DR":
			m.mark = strings.ToUpper(s[len(s)-2:])
			s = strings.TrimSpace(s[:len(s)-2])
		}
	}
	if rest, ok := strings.CutSuffix(s, "-"); ok {
		m.neg = true
		s = rest
	}
	// A sign may stand before or after the symbol: "-$12.00" and "$-12.00" both occur.
	s = m.takeSign(s)
	s = m.takeSymbol(s)
	s = m.takeSign(s)
	abs, ok := parseFigure(strings.TrimSpace(s))
	if !ok {
		return money{}, false
	}
	m.abs = abs
	return m, true
}

// takeSign removes a leading sign from s and records it.
func (m *money) takeSign(s string) string {
	for _, sign := range []string{"-", "\u2212", "+"} {
		if rest, ok := strings.CutPrefix(s, sign); ok {
			if sign == "+" {
				m.plus = true
			} else {
				m.neg = true
			}
			return rest
		}
	}
	return s
}

// takeSymbol removes a leading currency symbol from s and records it.
func (m *money) takeSymbol(s string) string {
	for _, c := range currencySymbols {
		if rest, ok := strings.CutPrefix(s, c.symbol); ok && m.symbol == "" {
			m.symbol = c.symbol
			return strings.TrimSpace(rest)
		}
	}
	return s
}

// maxFigureDigits bounds the digits before the decimal point: a quadrillion is more than any
// statement shows, and the bound keeps figures printable within maxMoneyLen.
const maxFigureDigits = 15

// parseFigure reads an unsigned figure with two decimals, grouped the US way ("1,234.56",
// "1234.56") or the continental way ("1.234,56", "1234,56"). The two never collide: the
// last separator is followed by exactly two digits, and a group by three.
func parseFigure(s string) (decimal.Decimal, bool) {
	if len(s) < 4 {
		return decimal.Decimal{}, false
	}
	dec := s[len(s)-3]
	if dec != '.' && dec != ',' {
		return decimal.Decimal{}, false
	}
	group := byte(',')
	if dec == ',' {
		group = '.'
	}
	intPart, frac := s[:len(s)-3], s[len(s)-2:]
	if !allDigits(frac) || !validGrouping(intPart, group) {
		return decimal.Decimal{}, false
	}
	digits := strings.ReplaceAll(intPart, string(group), "")
	if len(digits) > maxFigureDigits {
		return decimal.Decimal{}, false
	}
	d, err := decimal.NewFromString(digits + "." + frac)
	if err != nil {
		return decimal.Decimal{}, false
	}
	return d, true
}

// validGrouping reports whether s is digits, optionally grouped by three with sep
// ("1,234,567"), and not empty.
func validGrouping(s string, sep byte) bool {
	if s == "" {
		return false
	}
	groups := strings.Split(s, string(sep))
	for i, g := range groups {
		if !allDigits(g) || g == "" {
			return false
		}
		if len(groups) > 1 && (i > 0 && len(g) != 3 || i == 0 && len(g) > 3) {
			return false
		}
	}
	return true
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// formatMoney writes d the way the statements this package reads do, "-1,234.56", so that
// problem messages quote figures a person can find on the page.
func formatMoney(d decimal.Decimal) string {
	s := d.StringFixed(2)
	if d.Exponent() < -2 {
		s = d.String()
	}
	sign := ""
	if rest, ok := strings.CutPrefix(s, "-"); ok {
		sign, s = "-", rest
	}
	intPart, frac, _ := strings.Cut(s, ".")
	var b strings.Builder
	for i, r := range intPart {
		if i > 0 && (len(intPart)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	if frac != "" {
		b.WriteString("." + frac)
	}
	return sign + b.String()
}
