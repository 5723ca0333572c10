package statement

import (
	"iter"
	"strings"
	"time"
)

// Date orders for all-numeric dates such as 03/04/2024.
const (
	OrderMDY = "MDY"
	OrderDMY = "DMY"
)

// rawDate is a date as printed, before the date order and the year are known. Dates with a
// month name or in ISO form know their month and day; all-numeric ones only know their two
// numbers, a and b, until the date order says which is the month.
type rawDate struct {
	numeric bool
	a, b    int // numeric: the first and second numbers as printed
	month   int // named or ISO: 1–12
	day     int
	year    int // 0 when the date has no year
}

// monthDay returns the date's month and day under order, and whether they form a possible
// date (February 29 is allowed until the year is known).
func (r rawDate) monthDay(order string) (month, day int, ok bool) {
	month, day = r.month, r.day
	if r.numeric {
		month, day = r.a, r.b
		if order == OrderDMY {
			month, day = r.b, r.a
		}
	}
	if month < 1 || month > 12 || day < 1 || day > daysIn(month, r.year) {
		return 0, 0, false
	}
	return month, day, true
}

// daysIn returns the days of month in year; year 0 (unknown) allows February 29.
func daysIn(month, year int) int {
	if year == 0 {
		year = 2000
	}
	return time.Date(year, time.Month(month)+1, 0, 0, 0, 0, 0, time.UTC).Day()
}

// at returns the date under order in year (the date's own year when it has one).
func (r rawDate) at(order string, year int) (time.Time, bool) {
	if r.year != 0 {
		year = r.year
	}
	month, day, ok := r.monthDay(order)
	if !ok || year < 1 || year > 9999 || day > daysIn(month, year) {
		return time.Time{}, false
	}
	return time.Date(year, time.Month(month), day, 0, 0, 0, 0, time.UTC), true
}

var monthNames = map[string]int{
	"jan": 1, "january": 1, "feb": 2, "february": 2, "mar": 3, "march": 3, "apr": 4, "april": 4,
	"may": 5, "jun": 6, "june": 6, "jul": 7, "july": 7, "aug": 8, "august": 8, "sep": 9, "sept": 9,
	"september": 9, "oct": 10, "october": 10, "nov": 11, "november": 11, "dec": 12, "december": 12,
}

// scanDate reads a date at the start of s and returns it with the bytes it took. The date
// must end where a word ends, so "01/15/2024x" and "12.50" are not dates. Forms read:
// 2024-01-15, 01/15/2024, 01/15/24, 01/15, 15.01.2024, 01-15-2024, 15 Jan 2024, 15-Jan-24,
// 15 Jan, Jan 15, 2024, Jan 15 2024 and Jan 15.
func scanDate(s string) (rawDate, int, bool) {
	for _, scan := range []func(string) (rawDate, int, bool){scanISO, scanNumeric, scanDayMonth, scanMonthDay} {
		if d, n, ok := scan(s); ok && atWordEnd(s, n) {
			return d, n, true
		}
	}
	return rawDate{}, 0, false
}

// atWordEnd reports whether position n of s ends a word.
func atWordEnd(s string, n int) bool {
	return n == len(s) || isSpaceByte(s[n]) || s[n] == ','
}

func isSpaceByte(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' }

// digits reads between lo and hi digits at s[i:] and returns their value and the index after
// them. More digits than hi is no match: "123/01/2024" is not a date.
func digits(s string, i, lo, hi int) (int, int, bool) {
	v, j := 0, i
	for j < len(s) && j-i < hi && s[j] >= '0' && s[j] <= '9' {
		v = v*10 + int(s[j]-'0')
		j++
	}
	if j-i < lo || j < len(s) && s[j] >= '0' && s[j] <= '9' {
		return 0, i, false
	}
	return v, j, true
}

func scanISO(s string) (rawDate, int, bool) {
	y, i, ok := digits(s, 0, 4, 4)
	if !ok || i >= len(s) || s[i] != '-' && s[i] != '/' {
		return rawDate{}, 0, false
	}
	sep := s[i]
	m, i, ok := digits(s, i+1, 1, 2)
	if !ok || i >= len(s) || s[i] != sep {
		return rawDate{}, 0, false
	}
	d, i, ok := digits(s, i+1, 1, 2)
	if !ok {
		return rawDate{}, 0, false
	}
	r := rawDate{month: m, day: d, year: y}
	_, _, valid := r.monthDay(OrderMDY)
	return r, i, valid
}

// scanNumeric reads a/b/y, a-b-y, a.b.y and a/b. Year-less dates need the slash: "12.50"
// is an amount and "15-01" may be a reference, but "01/15" is a date on every statement
// that prints one.
func scanNumeric(s string) (rawDate, int, bool) {
	a, i, ok := digits(s, 0, 1, 2)
	if !ok || i >= len(s) || !strings.ContainsRune("/-.", rune(s[i])) {
		return rawDate{}, 0, false
	}
	sep := s[i]
	b, i, ok := digits(s, i+1, 1, 2)
	if !ok {
		return rawDate{}, 0, false
	}
	r := rawDate{numeric: true, a: a, b: b}
	if i < len(s) && s[i] == sep {
		if y, j, ok := digits(s, i+1, 2, 4); ok && j-i-1 != 3 {
			r.year = fullYear(y, j-i-1)
			i = j
		} else {
			return rawDate{}, 0, false
		}
	} else if sep != '/' {
		return rawDate{}, 0, false
	}
	_, _, okMDY := r.monthDay(OrderMDY)
	_, _, okDMY := r.monthDay(OrderDMY)
	return r, i, okMDY || okDMY
}

// fullYear turns a two-digit year into 20yy: statements are recent, and a pivot would only
// misread them later.
func fullYear(y, ndigits int) int {
	if ndigits == 2 {
		return 2000 + y
	}
	return y
}

// monthName reads a month name or abbreviation at s[i:], with an optional trailing dot.
func monthName(s string, i int) (int, int, bool) {
	j := i
	for j < len(s) && j-i < 10 && (s[j]|0x20) >= 'a' && (s[j]|0x20) <= 'z' {
		j++
	}
	m, ok := monthNames[strings.ToLower(s[i:j])]
	if !ok || j < len(s) && (s[j]|0x20) >= 'a' && (s[j]|0x20) <= 'z' {
		return 0, i, false
	}
	if j < len(s) && s[j] == '.' {
		j++
	}
	return m, j, true
}

// scanDayMonth reads "15 Jan 2024", "15 Jan", "15-Jan-2024" and "15-Jan-24". A two-digit
// year needs the dashes: "15 Jan 24 Hour Fitness" is a year-less date.
func scanDayMonth(s string) (rawDate, int, bool) {
	d, i, ok := digits(s, 0, 1, 2)
	if !ok || i >= len(s) || s[i] != ' ' && s[i] != '-' {
		return rawDate{}, 0, false
	}
	sep := s[i]
	m, i, ok := monthName(s, i+1)
	if !ok {
		return rawDate{}, 0, false
	}
	r := rawDate{month: m, day: d}
	if i+1 < len(s) && s[i] == sep {
		if y, j, ok := digits(s, i+1, 4, 4); ok {
			r.year, i = y, j
		} else if y, j, ok := digits(s, i+1, 2, 2); ok && sep == '-' {
			r.year, i = fullYear(y, 2), j
		}
	}
	_, _, valid := r.monthDay(OrderMDY)
	return r, i, valid
}

// scanMonthDay reads "Jan 15, 2024", "Jan 15 2024", "January 15" and "Jan 15".
func scanMonthDay(s string) (rawDate, int, bool) {
	m, i, ok := monthName(s, 0)
	if !ok || i >= len(s) || s[i] != ' ' {
		return rawDate{}, 0, false
	}
	d, i, ok := digits(s, i+1, 1, 2)
	if !ok {
		return rawDate{}, 0, false
	}
	r := rawDate{month: m, day: d}
	j := i
	if j < len(s) && s[j] == ',' {
		j++
	}
	if j < len(s) && s[j] == ' ' {
		if y, k, ok := digits(s, j+1, 4, 4); ok && atWordEnd(s, k) {
			r.year, i = y, k
		}
	}
	_, _, valid := r.monthDay(OrderMDY)
	return r, i, valid
}

// datesIn finds the dates in a line that start a word, or follow a "(" or ":" that does
// ("(01/15/2024)", "Period:01/01/2024").
func datesIn(raw string, words []word) []foundDate {
	var out []foundDate
	next := 0 // dates do not overlap
	for _, w := range words {
		if w.start < next {
			continue
		}
		starts := [2]int{w.start, -1}
		if i := strings.IndexAny(w.text, "(:"); i >= 0 && i+1 < len(w.text) {
			starts[1] = w.start + i + 1
		}
		for _, at := range starts {
			if at < 0 {
				continue
			}
			if d, n, ok := scanDate(raw[at:]); ok {
				out = append(out, foundDate{d, at, at + n})
				next = at + n
				break
			}
		}
		if len(out) >= maxDatesPerLine {
			break
		}
	}
	return out
}

// maxDatesPerLine bounds the dates looked for in one line.
const maxDatesPerLine = 16

type foundDate struct {
	date       rawDate
	start, end int
}

// yearPicker gives year-less dates a year.
type yearPicker struct {
	fixed      int        // Options.Year
	start, end *time.Time // the statement period
	fallback   int        // the latest year printed anywhere, when there is no period
	assumed    int        // the current year: the last resort, which Parse reports
}

// date resolves r under order. Without a fixed year, a year-less date takes the year that puts
// it inside the statement period, or nearest to it: in a period from December 15, 2023 to
// January 14, 2024, "Dec 20" is 2023 and "Jan 3" is 2024. assumed reports that nothing in the
// statement gave the year.
func (y yearPicker) date(r rawDate, order string) (t time.Time, assumed, ok bool) {
	switch {
	case r.year != 0:
		t, ok = r.at(order, 0)
	case y.fixed != 0:
		t, ok = r.at(order, y.fixed)
	case y.start != nil && y.end != nil:
		t, ok = y.nearPeriod(r, order)
	case y.end != nil:
		t, ok = r.at(order, y.end.Year())
	case y.fallback != 0:
		t, ok = r.at(order, y.fallback)
	default:
		t, ok = r.at(order, y.assumed)
		assumed = ok
	}
	return t, assumed, ok
}

func (y yearPicker) nearPeriod(r rawDate, order string) (time.Time, bool) {
	var best time.Time
	var bestDist time.Duration = -1
	for year := y.start.Year() - 1; year <= y.end.Year()+1; year++ {
		t, ok := r.at(order, year)
		if !ok {
			continue
		}
		var dist time.Duration
		if t.Before(*y.start) {
			dist = y.start.Sub(t)
		} else if t.After(*y.end) {
			dist = t.Sub(*y.end)
		}
		if bestDist < 0 || dist < bestDist {
			best, bestDist = t, dist
		}
	}
	return best, bestDist >= 0
}

// rangeWords separate the two dates of a period: "01/01/2024 - 01/31/2024", "January 1 to
// January 31, 2024", "Dec 15, 2023 through Jan 14, 2024".
var rangeWords = map[string]bool{"-": true, "\u2013": true, "\u2014": true, "to": true, "through": true,
	"thru": true, "until": true, "till": true, "and": true}

func periodDates(first, second rawDate, order string) (time.Time, time.Time, bool) {
	e, ok := second.at(order, 0)
	if !ok {
		return time.Time{}, time.Time{}, false
	}
	s, ok := first.at(order, e.Year())
	if ok && first.year == 0 && s.After(e) {
		s, ok = first.at(order, e.Year()-1)
	}
	if !ok || s.After(e) {
		return time.Time{}, time.Time{}, false
	}
	return s, e, true
}

// statementDates is what the dates printed anywhere on a statement say about all of them,
// gathered in one reading of its lines.
type statementDates struct {
	mdy, dmy int // all-numeric dates that only month-first, or only day-first, can read
	// periods are the statement period as each order reads it.
	periods map[string][2]time.Time
	latest  int // the latest year printed, 0 when none is
}

// scanDates reads the dates of the lines.
func scanDates(lines iter.Seq[textLine]) *statementDates {
	d := &statementDates{periods: map[string][2]time.Time{}}
	for l := range lines {
		for i, f := range l.dates {
			if f.date.numeric && f.date.a > 12 && f.date.b <= 12 {
				d.dmy++
			}
			if f.date.numeric && f.date.b > 12 && f.date.a <= 12 {
				d.mdy++
			}
			if f.date.year > d.latest && f.date.year <= 9999 {
				d.latest = f.date.year
			}
			if i+1 < len(l.dates) {
				d.notePeriod(l, f, l.dates[i+1])
			}
		}
	}
	return d
}

// notePeriod reads two dates of a line as the statement period, under each order that has
// none yet, when a range word is all that is between them and the second has a year. The first
// may borrow its year from the second ("January 1 to January 31, 2024"), going a year back when
// its month comes later ("December 15 to January 14, 2024").
func (d *statementDates) notePeriod(l textLine, first, second foundDate) {
	between := strings.ToLower(strings.TrimSpace(l.raw[first.end:second.start]))
	if !rangeWords[between] || second.date.year == 0 {
		return
	}
	for _, order := range []string{OrderMDY, OrderDMY} {
		if _, found := d.periods[order]; found {
			continue
		}
		if s, e, ok := periodDates(first.date, second.date, order); ok {
			d.periods[order] = [2]time.Time{s, e}
		}
	}
}

// order decides whether all-numeric dates are month-first or day-first: a first number above
// 12 can only be a day, and so can a second one. The majority wins; with no evidence,
// month-first.
func (d *statementDates) order() string {
	if d.dmy > d.mdy {
		return OrderDMY
	}
	return OrderMDY
}

// period is the first date range printed on a line as order reads it, nil when there is none.
func (d *statementDates) period(order string) (start, end *time.Time) {
	p, ok := d.periods[order]
	if !ok {
		return nil, nil
	}
	return &p[0], &p[1]
}
