package ofx

import (
	"strings"
	"testing"

	"tally/imports/bankfile"
	"tally/imports/bankfile/bankfiletest"
	"tally/internal/memtest"
)

const sgmlHeader = "OFXHEADER:100\nDATA:OFXSGML\nVERSION:102\n\n"

// repeat is head, then unit until the file is size bytes, then tail.
func repeat(head, unit, tail string, size int) []byte {
	var b strings.Builder
	b.Grow(size + len(tail))
	b.WriteString(head)
	for b.Len()+len(unit)+len(tail) <= size {
		b.WriteString(unit)
	}
	b.WriteString(tail)
	return []byte(b.String())
}

// statementHead opens a bank statement up to its transactions.
const statementHead = bankfiletest.OFXStatementHead

// TestHostileFilesCostLittle feeds the reader 8 MB files built to make a tree reader hold
// millions of nodes (one took 232 MB), and checks that each is refused naming its problem
// while the reader holds next to nothing.
func TestHostileFilesCostLittle(t *testing.T) {
	const size = 8 << 20
	cases := []struct {
		name string
		in   func() []byte
		want []string
	}{
		{"unclosed tags by the million", func() []byte { return repeat(sgmlHeader+"<OFX>", "<A>", "", size) }, []string{"line 5", "more than 2000000 elements"}},
		{"a transaction of a million leaves", func() []byte { return repeat(sgmlHeader+statementHead+"<STMTTRN>", "<MEMO>x", "", size) },
			[]string{"line 6", "MEMO", "more than 10000 elements would be held at once"}},
		{"a statement of a million unknown elements", func() []byte { return repeat(sgmlHeader+statementHead+"</BANKTRANLIST>", "<JUNK>x", "", size) },
			[]string{"JUNK", "more than 10000 elements would be held at once"}},
		{"aggregates nested without end", func() []byte { return repeat(sgmlHeader+"<OFX>", "<STMTTRNRS>", "", size) }, []string{"nested more than 64 deep"}},
		{"one tag of 8 MB", func() []byte { return []byte(sgmlHeader + "<OFX><" + strings.Repeat("A", size) + ">") }, []string{"line 5", "longer than 64 characters"}},
		{"a closing tag of 8 MB", func() []byte { return []byte(sgmlHeader + "<OFX></" + strings.Repeat("A", size) + ">") },
			[]string{"no bank, credit card or investment statement"}},
		// Split into a slice of its lines, the header took 144 MB.
		{"a header of 8 MB of line breaks", func() []byte { return []byte(sgmlHeader + strings.Repeat("\n", size) + "<OFX>") },
			[]string{"no bank, credit card or investment statement"}},
		{"a million broken transactions", func() []byte { return repeat(sgmlHeader+statementHead, "<STMTTRN><TRNAMT>x</STMTTRN>", "", size) },
			[]string{"line 6", "STMTTRN/DTPOSTED", "missing"}},
		{"statements by the thousand", func() []byte {
			return repeat(sgmlHeader+"<OFX><BANKMSGSRSV1>", "<STMTTRNRS><STMTRS><CURDEF>USD<BANKACCTFROM><ACCTID>1</BANKACCTFROM></STMTRS></STMTTRNRS>", "", size)
		}, []string{"more than 10000 statements"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			in := c.in()
			var err error
			u := memtest.Measure(func() { _, err = Read(in) })
			bankfiletest.WantError(t, err, c.want...)
			peak, live := u.MB()
			t.Logf("%.1f MB file: peak heap %.1f MB, live %.1f MB", memtest.MB(uint64(len(in))), peak, live)
			// The body is read in place: what stays is at most the 10,000 elements held, or
			// the 10,000 statements read (live also counts what is allocated while the
			// collector marks). The peak adds the garbage of what was let go, which the
			// collector lets grow to about the heap live before it, here the test's own 8 MB
			// file.
			if live > 16 || peak > 32 {
				t.Errorf("the reader held %.1f MB live and peaked at %.1f MB, want under 16 MB and 32 MB", live, peak)
			}
		})
	}
}

// TestLargeFileReadInLittleMemory reads a valid 10 MB statement (a tree of it took 187 MB):
// its transactions are read one at a time, so what stays is the text and the entries.
func TestLargeFileReadInLittleMemory(t *testing.T) {
	in, n := bankfiletest.LargeOFX(bankfile.MaxBytes)
	bankfiletest.ReadsInLittleMemory(t, Read, in, n, 64, 128)
}

// BenchmarkRead reads the valid 10 MB statement and reports the heap it peaks at and keeps; it
// fails past 128 MB.
func BenchmarkRead(b *testing.B) {
	in, _ := bankfiletest.LargeOFX(bankfile.MaxBytes)
	bankfiletest.BenchmarkRead(b, Read, in, 128)
}
