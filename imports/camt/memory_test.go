package camt

import (
	"strings"
	"testing"

	"tally/imports/bankfile"
	"tally/imports/bankfile/bankfiletest"
	"tally/internal/memtest"
)

const entryHead = `<?xml version="1.0"?><Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.08"><BkToCstmrStmt><Stmt>` +
	`<Acct><Id><IBAN>DE89370400440532013000</IBAN></Id></Acct>`

// TestHostileFilesCostLittle reads 8 MB files whose one part holds millions of elements (an
// entry read whole took 306 MB), and checks that each is refused naming it within little more
// than a copy of the file.
func TestHostileFilesCostLittle(t *testing.T) {
	cases := []struct {
		name, in string
		want     []string
	}{
		{"an entry of two million elements", entryHead + "<Ntry>" + strings.Repeat("<A/>", 2<<20), []string{"Ntry", "more than 200000 elements"}},
		{"a header of two million elements", `<?xml version="1.0"?><Document><BkToCstmrStmt><GrpHdr>` + strings.Repeat("<A/>", 2<<20),
			[]string{"more than 2000000 elements"}},
		{"a summary of a million elements", entryHead + "<TxsSummry>" + strings.Repeat("<A>x</A>", 1<<20), []string{"not well formed"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			in := []byte(c.in)
			var err error
			u := memtest.Measure(func() { _, err = Read(in) })
			bankfiletest.WantError(t, err, c.want...)
			peak, live := u.MB()
			t.Logf("%.1f MB file: peak heap %.1f MB, live %.1f MB", memtest.MB(uint64(len(in))), peak, live)
			if peak > 64 {
				t.Errorf("the reader's heap peaked at %.1f MB, want under 64 MB", peak)
			}
		})
	}
}

// TestLargeFileReadInLittleMemory reads a valid 10 MB camt.053 an entry at a time.
func TestLargeFileReadInLittleMemory(t *testing.T) {
	in, n := bankfiletest.LargeCAMT(bankfile.MaxBytes)
	bankfiletest.ReadsInLittleMemory(t, Read, in, n, 32, 80)
}
