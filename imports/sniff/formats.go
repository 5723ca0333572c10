package sniff

import (
	"slices"
	"strings"
	"time"
	"unicode"

	"github.com/shopspring/decimal"

	"tally/imports/parse"
)

// datePatterns are the date patterns tried, those people are offered first, in their order,
// then a few more that bank exports use.
var datePatterns = func() []string {
	var out []string
	for _, f := range parse.DateFormats {
		out = append(out, f.Pattern)
	}
	return append(out, "%m/%d/%y", "%d.%m.%y", "%d-%m-%y", "%d %b %y", "%b %d, %Y")
}()

// Guess is a guessed format: the pattern a column fits, and the other patterns it fits too
// that would read some of its values differently. A guess with alternatives is ambiguous: the
// file leaves the choice to a person.
type Guess struct {
	Pattern      string
	Alternatives []string
}

// Ambiguous reports whether the file fits other patterns that read it differently.
func (g Guess) Ambiguous() bool { return len(g.Alternatives) > 0 }

// DateFormat guesses the pattern of a date column from its values: the first of
// datePatterns that reads every value, with the other patterns that read every value too
// but give another date for some (03/04/2026 is March or April). It is false when no
// pattern reads them all. Values without a digit are no date in any pattern, but words a
// bank writes in the column (a pending row's "offen", a balance line's "Alter Kontostand"):
// they are left out of the guess, and their rows out of the import, as any row whose date
// does not read.
func DateFormat(values []string) (Guess, bool) {
	values = slices.DeleteFunc(slices.Clone(values), func(v string) bool { return !strings.ContainsFunc(v, unicode.IsDigit) })
	var fits []string
	var dates [][]time.Time
	for _, p := range datePatterns {
		ds, ok := readAll(values, func(v string) (time.Time, error) { return parse.Date(v, p) })
		if ok {
			fits, dates = append(fits, p), append(dates, ds)
		}
	}
	if len(fits) == 0 {
		return Guess{}, false
	}
	g := Guess{Pattern: fits[0]}
	for i := 1; i < len(fits); i++ {
		if !slices.EqualFunc(dates[0], dates[i], time.Time.Equal) && !slices.Contains(g.Alternatives, fits[i]) {
			g.Alternatives = append(g.Alternatives, fits[i])
		}
	}
	return g, true
}

// NumberFormat guesses how an amount column writes numbers: the first of parse.NumberFormats
// that reads every value, with the others that read every value to another number ("1,234"
// is 1234 or 1.234). It is false when none reads them all.
func NumberFormat(values []string) (Guess, bool) {
	var fits []string
	var nums [][]decimal.Decimal
	for _, f := range parse.NumberFormats {
		ns, ok := readAll(values, func(v string) (decimal.Decimal, error) { return parse.Number(v, f) })
		if ok {
			fits, nums = append(fits, string(f)), append(nums, ns)
		}
	}
	if len(fits) == 0 {
		return Guess{}, false
	}
	g := Guess{Pattern: fits[0]}
	for i := 1; i < len(fits); i++ {
		if !slices.EqualFunc(nums[0], nums[i], decimal.Decimal.Equal) {
			g.Alternatives = append(g.Alternatives, fits[i])
		}
	}
	return g, true
}

// readAll reads every value with read; it is false when there are none or one fails.
func readAll[T any](values []string, read func(string) (T, error)) ([]T, bool) {
	if len(values) == 0 {
		return nil, false
	}
	out := make([]T, 0, len(values))
	for _, v := range values {
		x, err := read(v)
		if err != nil {
			return nil, false
		}
		out = append(out, x)
	}
	return out, true
}
