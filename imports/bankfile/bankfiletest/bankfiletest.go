// Package bankfiletest holds what the tests of the statement readers share: the fuzz target's
// property and small helpers for expected values.
package bankfiletest

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"tally/imports/bankfile"
	"tally/internal/memtest"
)

// Fuzz runs read over the files matching glob (and their first halves) and over whatever the
// fuzzer makes of them. Whatever the bytes, read must not panic, must fail only with a
// *bankfile.Error, and what it returns must name each statement's account and date each entry.
// each, the reader's way of handing the entries over one at a time, must read the same file
// and hand over the entries read lists.
func Fuzz(f *testing.F, glob string, read func([]byte) (*bankfile.File, error), each func([]byte, bankfile.EntryFunc) (*bankfile.File, error)) {
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
		sameEntries(t, b, file, each)
	})
}

// sameEntries checks that each reads b as read did (file), handing over its entries.
func sameEntries(t *testing.T, b []byte, file *bankfile.File, each func([]byte, bankfile.EntryFunc) (*bankfile.File, error)) {
	got := make([][]bankfile.Entry, len(file.Statements))
	stream, err := each(b, func(i int, e bankfile.Entry) error {
		if i >= len(got) {
			t.Fatalf("an entry of statement %d, of %d", i, len(got))
		}
		got[i] = append(got[i], e)
		return nil
	})
	if err != nil {
		t.Fatalf("read entry by entry: %v", err)
	}
	if len(stream.Statements) != len(file.Statements) {
		t.Fatalf("read entry by entry: %d statements, want %d", len(stream.Statements), len(file.Statements))
	}
	for i, st := range file.Statements {
		for j := range got[i] {
			got[i][j].Pending = got[i][j].Pending || st.Intraday
		}
		if len(got[i]) != len(st.Entries) || len(st.Entries) > 0 && !reflect.DeepEqual(got[i], st.Entries) {
			t.Fatalf("statement %d: %d entries handed over, %d listed", i, len(got[i]), len(st.Entries))
		}
		if kept := stream.Statements[i].Entries; len(kept) > 0 {
			t.Fatalf("statement %d: %d entries kept as well", i, len(kept))
		}
		st.Entries = nil
		if !reflect.DeepEqual(st, stream.Statements[i]) {
			t.Fatalf("statement %d read entry by entry:\n%+v\nwant\n%+v", i, stream.Statements[i], st)
		}
	}
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

// Large files for the tests and benchmarks that bound memory: valid files of about size
// bytes and the number of entries each holds.

// LargeOFX is an OFX 1.x bank statement of transactions of about 120 bytes.
func LargeOFX(size int) (content []byte, entries int) {
	var b strings.Builder
	b.WriteString("OFXHEADER:100\nDATA:OFXSGML\nVERSION:102\n\n" + OFXStatementHead)
	tail := "</BANKTRANLIST><LEDGERBAL><BALAMT>100.00<DTASOF>20260131</LEDGERBAL></STMTRS></STMTTRNRS></BANKMSGSRSV1></OFX>\n"
	for ; b.Len() < size-len(tail)-200; entries++ {
		fmt.Fprintf(&b, "<STMTTRN>\n<TRNTYPE>DEBIT\n<DTPOSTED>20260105\n<TRNAMT>-%d.%02d\n<FITID>%d\n<NAME>COFFEE SHOP %d\n<MEMO>CARD 1234\n</STMTTRN>\n",
			1+entries%50, entries%100, entries, entries%1000)
	}
	b.WriteString(tail)
	return []byte(b.String()), entries
}

// OFXStatementHead opens an OFX bank statement up to its transactions.
const OFXStatementHead = "<OFX><BANKMSGSRSV1><STMTTRNRS><TRNUID>1<STATUS><CODE>0<SEVERITY>INFO</STATUS><STMTRS><CURDEF>USD" +
	"<BANKACCTFROM><BANKID>121000248<ACCTID>000123456789<ACCTTYPE>CHECKING</BANKACCTFROM><BANKTRANLIST><DTSTART>20260101<DTEND>20260131\n"

// LargeMT940 is an MT940 statement of bare statement lines of about 32 bytes, the densest a
// bank writes: 10 MB hold about 330,000.
func LargeMT940(size int) (content []byte, entries int) {
	var b strings.Builder
	b.WriteString(":20:STARTUMS\n:25:37040044/0532013000\n:28C:00001/001\n:60F:C260301EUR1000,00\n")
	tail := ":62F:C260304EUR3500,00\n-\n"
	for ; b.Len() < size-len(tail)-40; entries++ {
		fmt.Fprintf(&b, ":61:2603020302D%d,%02dNTRFNONREF\n", 1+entries%9, entries%100)
	}
	b.WriteString(tail)
	return []byte(b.String()), entries
}

// LargeCAMT is a camt.053 statement of entries of about 330 bytes, each with a bank reference,
// a party and remittance text.
func LargeCAMT(size int) (content []byte, entries int) {
	var b strings.Builder
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?><Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.08"><BkToCstmrStmt>` +
		`<GrpHdr><MsgId>1</MsgId></GrpHdr><Stmt><Id>S1</Id><Acct><Id><IBAN>DE89370400440532013000</IBAN></Id><Ccy>EUR</Ccy></Acct>`)
	tail := "</Stmt></BkToCstmrStmt></Document>\n"
	for ; b.Len() < size-len(tail)-400; entries++ {
		fmt.Fprintf(&b, `<Ntry><Amt Ccy="EUR">%d.%02d</Amt><CdtDbtInd>DBIT</CdtDbtInd><Sts><Cd>BOOK</Cd></Sts><BookgDt><Dt>2026-03-02</Dt></BookgDt>`+
			`<ValDt><Dt>2026-03-02</Dt></ValDt><AcctSvcrRef>R%d</AcctSvcrRef><NtryDtls><TxDtls><RltdPties><Cdtr><Nm>Shop %d</Nm></Cdtr></RltdPties>`+
			`<RmtInf><Ustrd>Invoice %d</Ustrd></RmtInf></TxDtls></NtryDtls></Ntry>`+"\n", 1+entries%50, entries%100, entries, entries%1000, entries)
	}
	b.WriteString(tail)
	return []byte(b.String()), entries
}

// ReadsInLittleMemory reads in, a valid file of entries entries, and fails unless read held
// at most liveMB of it once done and peaked at most at peakMB.
func ReadsInLittleMemory(t *testing.T, read func([]byte) (*bankfile.File, error), in []byte, entries int, liveMB, peakMB float64) {
	t.Helper()
	var f *bankfile.File
	var err error
	u := memtest.Measure(func() { f, err = read(in) })
	if err != nil {
		t.Fatal(err)
	}
	if got := len(f.Statements[0].Entries); got != entries {
		t.Fatalf("%d entries, want %d", got, entries)
	}
	peak, live := u.MB()
	t.Logf("%d entries: peak heap %.1f MB, live %.1f MB", entries, peak, live)
	if live > liveMB || peak > peakMB {
		t.Errorf("reading a %.1f MB file held %.1f MB live and peaked at %.1f MB, want under %.0f MB and %.0f MB",
			memtest.MB(uint64(len(in))), live, peak, liveMB, peakMB)
	}
}

// BenchmarkRead reads in with read and reports the heap it peaks at and keeps; it fails past
// peakMB.
func BenchmarkRead(b *testing.B, read func([]byte) (*bankfile.File, error), in []byte, peakMB float64) {
	var u memtest.Usage
	for b.Loop() {
		u = memtest.Measure(func() {
			if _, err := read(in); err != nil {
				b.Fatal(err)
			}
		})
	}
	peak, live := u.MB()
	b.ReportMetric(peak, "peak-MB")
	b.ReportMetric(live, "live-MB")
	if peak > peakMB {
		b.Fatalf("peak heap %.1f MB, want under %.0f MB", peak, peakMB)
	}
}
