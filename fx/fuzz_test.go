package fx

import (
	"bytes"
	"errors"
	"testing"
	"time"

	"tally/models"
)

// FuzzParseECB feeds ParseECB the ECB's files, the documents it refuses and whatever the
// fuzzer makes of them: it must not panic, must fail only with a *ParseError (the reader never
// fails here), and every day it gives must be a day of the euro with ISO codes other than EUR
// and positive rates of at most 12 decimals, each day once.
func FuzzParseECB(f *testing.F) {
	for _, name := range []string{"eurofxref-daily.xml", "eurofxref-hist.xml"} {
		f.Add(loadFeed(f, name))
	}
	for _, tc := range badDocs {
		f.Add([]byte(tc.doc))
	}
	f.Fuzz(func(t *testing.T, doc []byte) {
		seen := map[time.Time]bool{}
		err := ParseECB(bytes.NewReader(doc), func(d Day) error {
			if d.Date.Before(euroStart) || d.Date.Location() != time.UTC || seen[d.Date] {
				t.Fatalf("day %v (seen %v)", d.Date, seen[d.Date])
			}
			seen[d.Date] = true
			for code, r := range d.Rates {
				if !models.ValidCurrency(code) || code == "EUR" || !r.IsPositive() || r.Exponent() < -Precision {
					t.Fatalf("%s: %s %s", d.Date.Format(time.DateOnly), code, r)
				}
			}
			return nil
		})
		var pe *ParseError
		if err != nil && !errors.As(err, &pe) {
			t.Fatalf("error %v is not a *ParseError", err)
		}
		if err == nil && len(seen) == 0 {
			t.Fatal("a document of no days was accepted")
		}
	})
}
