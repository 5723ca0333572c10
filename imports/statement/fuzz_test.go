package statement

import (
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

var fuzzSeeds = []string{
	"Opening balance 1,000.00\n01/02/2024  PAYROLL   2,500.00   3,500.00\nClosing balance 3,500.00",
	"Date  Description  Money out  Money in  Balance\n04/03/2024  TESCO  45.60    1,454.40\n    TFL  23.10   1,431.30",
	"Statement for December 15, 2023 to January 14, 2024\n15 Dec  GROCERY  82.40  4,917.60\f" +
		"   Balance brought forward   4,917.60\n02 Jan  PAYROLL  1,800.00  6,717.60",
	"Credit card\nPrevious balance $1,000.00   New balance $845.67\n01/16 01/17 PAYMENT -500.00\n01/18 SHOP 20.00 CR",
	"15.01.2024  MIETE  -€1.234,56\n2024-01-15 X (1.00)\nJan 15, 2024 Y 1.00-\n15-Jan-24 Z 1.00 DR",
	"01/01/2024 - 01/31/2024\n\n\n            continued\nPage 1 of 2",
	"\xff\xfe01/02/2024 \xc3 1.00\r\n\t02/30/2024 x 1.00",
	"",
}

// FuzzParse checks that Parse never panics and that what it returns holds together, whatever
// the text: every line points at a real line of the input, dates are valid UTC midnights, and
// Reconciled is only ever true when the balances add up.
func FuzzParse(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s, byte(0), uint16(0))
		f.Add(s, byte(2), uint16(2024))
	}
	f.Fuzz(func(t *testing.T, text string, order byte, year uint16) {
		opt := Options{DateOrder: []string{"", OrderMDY, OrderDMY, "bogus"}[order%4], Year: int(year % 10000)}
		pages := strings.Split(text, "\f")
		st := parseAt(pages, opt, 2024)
		checkInvariants(t, pages, st)
	})
}

func checkInvariants(t *testing.T, pages []string, st *Statement) {
	t.Helper()
	if st.Kind != KindBank && st.Kind != KindCreditCard {
		t.Fatalf("Kind = %q", st.Kind)
	}
	if st.Currency != "" && (len(st.Currency) != 3 || strings.ToUpper(st.Currency) != st.Currency) {
		t.Fatalf("Currency = %q", st.Currency)
	}
	if (st.PeriodStart == nil) != (st.PeriodEnd == nil) || st.PeriodStart != nil && st.PeriodStart.After(*st.PeriodEnd) {
		t.Fatalf("period %v – %v", st.PeriodStart, st.PeriodEnd)
	}
	for i, l := range st.Lines {
		if l.Page < 1 || l.Page > len(pages) {
			t.Fatalf("line %d: page %d of %d", i, l.Page, len(pages))
		}
		rows := strings.Split(pages[l.Page-1], "\n")
		if l.LineNo < 1 || l.LineNo > len(rows) || !strings.HasPrefix(rows[l.LineNo-1], l.Raw) || l.Raw == "" {
			t.Fatalf("line %d: Raw %q is not the start of line %d of page %d", i, l.Raw, l.LineNo, l.Page)
		}
		if !strings.Contains(pages[l.Page-1], l.Raw) {
			t.Fatalf("line %d: Raw %q is not in the input", i, l.Raw)
		}
		if l.Date.Location() != time.UTC || !l.Date.Equal(l.Date.Truncate(24*time.Hour)) || l.Date.Year() < 1 {
			t.Fatalf("line %d: date %v is not a UTC midnight", i, l.Date)
		}
		if !utf8.ValidString(l.Description) || !hasLetter(l.Description) {
			t.Fatalf("line %d: description %q", i, l.Description)
		}
	}
	if st.Reconciled {
		if st.Opening == nil || st.Closing == nil {
			t.Fatalf("reconciled without both balances")
		}
		sum := st.Opening.Sub(*st.Opening)
		for _, l := range st.Lines {
			sum = sum.Add(l.Amount)
		}
		want := st.Opening.Add(sum)
		if st.Kind == KindCreditCard {
			want = st.Opening.Sub(sum)
		}
		if !want.Equal(*st.Closing) {
			t.Fatalf("reconciled, but %s and the lines give %s, not %s", st.Opening, want, st.Closing)
		}
		for i, l := range st.Lines {
			if len(l.Problems) > 0 {
				t.Fatalf("reconciled with problems on line %d: %q", i, l.Problems)
			}
		}
	}
}

// FuzzParseMoney checks that any figure parseMoney accepts is written back by formatMoney in
// a form that reads as the same figure.
func FuzzParseMoney(f *testing.F) {
	for _, s := range []string{"1,234.56", "(1.00)", "1.00-", "12.00 CR", "-$5.00", "€1.234,56", "US$3.10", "1,23.45", "."} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		m, ok := parseMoney(s)
		if !ok {
			return
		}
		if m.abs.IsNegative() {
			t.Fatalf("parseMoney(%q) gave a negative figure %s", s, m.abs)
		}
		back, ok := parseMoney(formatMoney(m.abs))
		if !ok || !back.abs.Equal(m.abs) {
			t.Fatalf("parseMoney(%q) = %s, written as %q, which reads back as %s (%v)", s, m.abs, formatMoney(m.abs), back.abs, ok)
		}
	})
}

// FuzzScanDate checks that scanDate only takes whole words and only returns real dates.
func FuzzScanDate(f *testing.F) {
	for _, s := range []string{"01/15/2024 x", "15 Jan 2024", "Jan 15, 2024", "2024-02-30", "15-Jan-24", "1/2", "Sept. 3"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, n, ok := scanDate(s)
		if !ok {
			return
		}
		if n <= 0 || n > len(s) || !atWordEnd(s, n) {
			t.Fatalf("scanDate(%q) took %d bytes", s, n)
		}
		for _, order := range []string{OrderMDY, OrderDMY} {
			if tm, ok := d.at(order, 2024); ok && (tm.Year() < 1 || tm.Year() > 9999) {
				t.Fatalf("scanDate(%q) under %s gave %v", s, order, tm)
			}
		}
	})
}
