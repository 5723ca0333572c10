package ofx

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"tally/imports/bankfile"
)

// FuzzRead: whatever the bytes, Read does not panic, fails only with a *bankfile.Error, and
// what it returns names an account and dates every entry.
func FuzzRead(f *testing.F) {
	files, _ := filepath.Glob("testdata/*.*")
	for _, name := range files {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
		f.Add(b[:len(b)/2])
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		file, err := Read(b)
		if err != nil {
			var be *bankfile.Error
			if !errors.As(err, &be) {
				t.Fatalf("error %v (%T) is not a *bankfile.Error", err, err)
			}
			return
		}
		for _, st := range file.Statements {
			if st.Account.Number == "" {
				t.Fatalf("statement without an account number: %+v", st.Account)
			}
			for _, e := range st.Entries {
				if e.Booked.IsZero() {
					t.Fatalf("entry without a date: %+v", e)
				}
			}
		}
	})
}
