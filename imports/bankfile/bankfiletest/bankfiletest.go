// Package bankfiletest holds what the tests of the statement readers share: the fuzz target's
// property and small helpers for expected values.
package bankfiletest

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"tally/imports/bankfile"
)

// Fuzz runs read over the files matching glob (and their first halves) and over whatever the
// fuzzer makes of them. Whatever the bytes, read must not panic, must fail only with a
// *bankfile.Error, and what it returns must name each statement's account and date each entry.
func Fuzz(f *testing.F, glob string, read func([]byte) (*bankfile.File, error)) {
	files, err := filepath.Glob(glob)
	if err != nil || len(files) == 0 {
		f.Fatalf("no seed files match %s", glob)
	}
	for _, name := range files {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
		f.Add(b[:len(b)/2])
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		file, err := read(b)
		if err != nil {
			var be *bankfile.Error
			if !errors.As(err, &be) {
				t.Fatalf("error %v (%T) is not a *bankfile.Error", err, err)
			}
			return
		}
		for _, st := range file.Statements {
			if st.Account.IBAN == "" && st.Account.Number == "" {
				t.Fatalf("statement without an account: %+v", st.Account)
			}
			for _, e := range st.Entries {
				if e.Booked.IsZero() {
					t.Fatalf("entry without a date: %+v", e)
				}
			}
		}
	})
}

// WantError checks that err is a *bankfile.Error whose message mentions each of want.
func WantError(t *testing.T, err error, want ...string) {
	t.Helper()
	var be *bankfile.Error
	if !errors.As(err, &be) {
		t.Fatalf("error %v (%T) is not a *bankfile.Error", err, err)
	}
	for _, w := range want {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error %q does not mention %q", err, w)
		}
	}
}

// Day is the date YYYY-MM-DD as readers return dates.
func Day(s string) time.Time {
	d, err := time.Parse(time.DateOnly, s)
	if err != nil {
		panic(err)
	}
	return d
}

// Sum adds the entries' amounts.
func Sum(entries []bankfile.Entry) decimal.Decimal {
	s := decimal.Zero
	for _, e := range entries {
		s = s.Add(e.Amount)
	}
	return s
}
