package parse

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode"
)

func FuzzNumber(f *testing.F) {
	for _, s := range []string{
		"1,234.56", "1,234,567.89", "12,34.5", ".5", "5.", "(12.34)", "12.34-", "($12.34)", "-$12.34",
		"$-12.34", "-(5)", "--5", "$1,500.00", "USD 12.50", "12.50 USD", "1e5", "0x1F", "NaN", "abc",
		"1.234,5", "1.5", "1 234,56", "1\u00a0234,56", "1\u202f234,56", "€1 234,56", "1 234,56 kr",
		"1,234", "1234567890123456", "", "  ",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, format := range NumberFormats {
			d, err := Number(s, format)
			var ne *NumberError
			if err != nil && !errors.Is(err, ErrBlank) && !errors.As(err, &ne) {
				t.Fatalf("Number(%q, %q): error %v is neither ErrBlank nor a *NumberError", s, format, err)
			}
			if err != nil || format != NumberUS {
				continue
			}
			again, err := Number(d.String(), NumberUS)
			if err != nil {
				t.Fatalf("Number(%q) = %s, which does not parse again: %v", s, d, err)
			}
			if !again.Equal(d) {
				t.Fatalf("Number(%q) = %s, which parses again as %s", s, d, again)
			}
		}
	})
}

func FuzzDate(f *testing.F) {
	for _, s := range []string{
		"2024-01-05", "01/05/2024", "5/1/2024", "05.01.2024", "20240105", "05 Jan 2024",
		"5 september 2024", "05/01/24", "2024-02-30", "01/13/2024", "2024-01-05x", " 5/01/2024",
	} {
		for _, p := range DateFormats {
			f.Add(s, p.Pattern)
		}
	}
	f.Add("2024%01", "%Y%%%m%d")
	f.Add("x", "%Q")
	f.Fuzz(func(t *testing.T, s, pattern string) {
		d, err := Date(s, pattern)
		if err != nil {
			if ValidateDateFormat(pattern) == nil {
				var de *DateError
				if !errors.As(err, &de) {
					t.Fatalf("Date(%q, %q): error %v for a valid pattern is not a *DateError", s, pattern, err)
				}
			}
			return
		}
		if d.Location() != time.UTC || d.Hour() != 0 || d.Minute() != 0 || d.Second() != 0 || d.Nanosecond() != 0 {
			t.Fatalf("Date(%q, %q) = %v, not at 00:00 UTC", s, pattern, d)
		}
		if pattern != "%Y-%m-%d" {
			return
		}
		again, err := Date(d.Format(time.DateOnly), pattern)
		if err != nil || !again.Equal(d) {
			t.Fatalf("Date(%q) = %v, which reads back as %v, %v", s, d, again, err)
		}
	})
}

func FuzzCSV(f *testing.F) {
	for _, s := range []string{
		"date,amount\n2024-01-05,1.00\n",
		"Datum;Betrag\n05.01.2024;12,50\n",
		"Bank\nAccount\ndate,amount\n2024-01-05,1.00\n\n2024-01-06,2.00\n",
		"a,b\n\"x,y\",\"line\nbreak\"\n",
		"a,b\n1,\"open\n2,3\n",
		"a\r\n1\r\n\r\n2\r\n",
		"a\r1\r2",
		"date,date*\n",
		"Joe's 12\" pizza,1\n",
		"\ufeffa, \"b, c\"\n1,2",
		"",
		",,\n , ,\n",
		"date,amount\n,,\n\n \"\" ,\n",
	} {
		f.Add(s, false, uint8(0))
		f.Add(s, true, uint8(2))
	}
	f.Fuzz(func(t *testing.T, text string, semicolon bool, skip uint8) {
		opts := CSVOptions{Separator: ',', RowsToSkip: int(skip % 8)}
		if semicolon {
			opts.Separator = ';'
		}
		table, err := CSV(text, opts)
		if errors.Is(err, ErrEmpty) {
			// Empty means no character but separators, quotes and spaces after the skipped lines.
			body := strings.TrimPrefix(text, "\ufeff")
			if !strings.Contains(body, "\n") {
				body = strings.ReplaceAll(body, "\r", "\n")
			}
			rest, _ := skipLines(body, opts.RowsToSkip)
			if i := strings.IndexFunc(rest, func(r rune) bool { return !unicode.IsSpace(r) && r != opts.Separator && r != '"' }); i >= 0 {
				t.Fatalf("%q is empty, but holds %q", text, rest[i:])
			}
		}
		if err != nil {
			return
		}
		last := opts.RowsToSkip
		for _, r := range table.Records {
			if r.Line <= last {
				t.Fatalf("record on line %d after line %d (rows to skip %d): %q", r.Line, last, opts.RowsToSkip, text)
			}
			last = r.Line
			for _, field := range r.Fields {
				if field != strings.TrimSpace(field) {
					t.Fatalf("field %q is not trimmed", field)
				}
			}
		}
		if lines := strings.Count(text, "\n") + strings.Count(text, "\r") + 1; last > lines {
			t.Fatalf("record on line %d of a text of at most %d lines", last, lines)
		}
		// The file with ' and " exchanged, read with ' as the quote, has the same fields with
		// ' and " exchanged.
		opts.Quote = '\''
		swapped, err := CSV(SwapQuotes(text), opts)
		if err != nil {
			t.Fatalf("%q reads with \", but its swap does not with ': %v", text, err)
		}
		swapAll := func(fields []string) []string {
			out := make([]string, len(fields))
			for i, f := range fields {
				out[i] = SwapQuotes(f)
			}
			return out
		}
		if !slices.Equal(swapped.Headers, swapAll(table.Headers)) || len(swapped.Records) != len(table.Records) {
			t.Fatalf("quoted with ': headers %q and %d records, want %q and %d", swapped.Headers, len(swapped.Records), table.Headers, len(table.Records))
		}
		for i := range table.Records {
			if want := swapAll(table.Records[i].Fields); !slices.Equal(swapped.Records[i].Fields, want) {
				t.Fatalf("record %d quoted with ': %q, want %q", i, swapped.Records[i].Fields, want)
			}
		}
	})
}

func FuzzQIF(f *testing.F) {
	f.Add(sureCCard)
	f.Add("!Type:Invst\nD1/15'24\nNBuy\nYACME\nI66.10\nQ2.0\nT132.20\n^\nD2/1'24\nNDiv\nT190.75\n^\n")
	f.Add("!Type:Cat\nNFood\nE\n^\n!Type:Tag\nNTrip\n^\n!Type:Security\nNACME\nSACME\n^\n")
	f.Add("!Option:AutoSwitch\n!Account\nNChecking\nTBank\n^\n!Clear:AutoSwitch\n!Type:Bank\r\nD04.06.2020\r\nT-1,000.00\r\nL[Savings]/Trip:Home\r\n^")
	f.Add("!Type:Bank\nT5\n^\nD1/1/20\nTabc\n^\nD26 Jan 20\nU1\nPOpening Balance\n^\n")
	f.Add("not qif")
	// Left out for holding too much: a record of too many lines, a field of too many tags.
	f.Add("!Type:Bank\nD1/1/20\n" + strings.Repeat("Mx\n", maxQIFFields+1) + "^\nD1/2/20\nT1\n^\n")
	f.Add("!Type:Bank\nD1/1/20\nT1\nLc/" + strings.Repeat("a:", maxQIFTags+1) + "\n^\n")
	f.Fuzz(func(t *testing.T, text string) {
		q, err := parseQIF(text)
		if err != nil {
			return
		}
		lines := strings.Count(strings.ReplaceAll(strings.ReplaceAll(text, "\r\n", "\n"), "\r", "\n"), "\n") + 1
		records := q.Records
		if q.Opening != nil {
			records = append(records, *q.Opening)
		}
		for _, r := range records {
			if r.Line < 1 || r.Line > lines {
				t.Fatalf("record on line %d of %d", r.Line, lines)
			}
			if r.Date == "" || !isQIFAmount(r.Amount) {
				t.Fatalf("record on line %d kept with date %q and amount %q", r.Line, r.Date, r.Amount)
			}
		}
		for _, d := range q.Dropped {
			if d.Line < 1 || d.Line > lines || d.Reason == "" {
				t.Fatalf("drop %q of a text of %d lines", d, lines)
			}
		}
	})
}
