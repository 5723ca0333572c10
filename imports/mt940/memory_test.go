package mt940

import (
	"strings"
	"testing"

	"tally/imports/bankfile"
	"tally/imports/bankfile/bankfiletest"
	"tally/internal/memtest"
)

const statementHead = ":20:STARTUMS\n:25:37040044/0532013000\n:28C:00001/001\n:60F:C260301EUR1000,00\n"

// TestHostileFilesCostLittle reads files built to make a reader hold their lines, fields or
// statements, and checks that each is refused naming its problem within a few MB.
func TestHostileFilesCostLittle(t *testing.T) {
	cases := []struct {
		name, body string
		want       []string
	}{
		// Held as a slice of its 4 million lines, this one took 195 MB.
		{"a field of four million lines", ":86:x\n" + strings.Repeat("y\n", 4<<20), []string{"line 5", ":86:", "more than 1000 lines"}},
		{"a million empty statement lines", strings.Repeat(":61:\n", 1<<20), []string{"line 5", ":61:", "not a date"}},
		{"a million statements", strings.Repeat(":20:A\n:25:1\n-\n", 500_000), []string{":20:", "more than 10000 statements"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			in := []byte(statementHead + c.body)
			var err error
			u := memtest.Measure(func() { _, err = Read(in) })
			bankfiletest.WantError(t, err, c.want...)
			peak, live := u.MB()
			t.Logf("%.1f MB file: peak heap %.1f MB, live %.1f MB", memtest.MB(uint64(len(in))), peak, live)
			// The copy of the text, and the garbage of what was let go.
			if peak > 32 {
				t.Errorf("the reader's heap peaked at %.1f MB, want under 32 MB", peak)
			}
		})
	}
}

// TestLargeFileReadInLittleMemory reads a valid 10 MB statement of 350,000 entries, the
// densest a bank writes (it peaked at 265 MB when the file's lines and fields were all held and
// the entries grew a quarter at a time). What stays is the text and the entries, about 300
// bytes each.
func TestLargeFileReadInLittleMemory(t *testing.T) {
	in, n := bankfiletest.LargeMT940(bankfile.MaxBytes)
	bankfiletest.ReadsInLittleMemory(t, Read, in, n, 128, 200)
}

// BenchmarkRead reads the valid 10 MB statement and reports the heap it peaks at and keeps; it
// fails past 200 MB.
func BenchmarkRead(b *testing.B) {
	in, _ := bankfiletest.LargeMT940(bankfile.MaxBytes)
	bankfiletest.BenchmarkRead(b, Read, in, 200)
}
