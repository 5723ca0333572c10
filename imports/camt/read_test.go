package camt

import (
	"archive/zip"
	"bytes"
	"encoding/xml"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"tally/imports/bankfile"
	"tally/imports/bankfile/bankfiletest"
)

func load(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// load2 is a testdata file as a string.
func load2(t testing.TB, name string) string { return string(load(t, name)) }

func read(t *testing.T, b []byte) *bankfile.File {
	t.Helper()
	if !Sniff(b) {
		t.Fatal("Sniff = false")
	}
	f, err := Read(b)
	if err != nil {
		t.Fatalf("Read: %v", err)
	}
	return f
}

var (
	day   = bankfiletest.Day
	total = bankfiletest.Sum
)

func zipOf(t testing.TB, files map[string][]byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := zip.NewWriter(&buf)
	for name, b := range files {
		f, err := w.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.Write(b); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// Every statement with an opening and a closing balance reconciles: the corpus is built so, and
// a reader that drops, doubles or mis-signs an entry breaks it.
func TestStatementsReconcile(t *testing.T) {
	type stmt struct {
		key, currency string
		balances      string // kind amount, in the file's order
		entries       int
		sum           string
	}
	cases := []struct {
		file, version string
		intraday      bool
		stmts         []stmt
	}{
		{"camt053_v02_batch.xml", "camt.053.001.02", false, []stmt{
			{"iban:DE89370400440532013000", "EUR", "opening 1000.00, closing 3295.61", 6, "2295.61"}}},
		{"camt053_v08_structured.xml", "camt.053.001.08", false, []stmt{
			{"iban:DE02120300000000202051", "EUR", "opening 200.00, closing 120.10, available 1120.10", 2, "-79.90"},
			{"acct:1234567890", "CHF", "opening -50.00, closing 950.00", 1, "1000.00"}}},
		{"camt052_intraday.xml", "camt.052.001.06", true, []stmt{
			{"iban:DE89370400440532013000", "EUR", "interim 462.50", 2, "-37.50"}}},
		{"camt054_notification.xml", "camt.054.001.04", false, []stmt{
			{"iban:NL91ABNA0417164300", "EUR", "", 2, "30.00"}}},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			f := read(t, load(t, c.file))
			if f.Format != bankfile.FormatCAMT || f.Version != c.version || len(f.Statements) != len(c.stmts) {
				t.Fatalf("%s %s with %d statements, want %s with %d", f.Format, f.Version, len(f.Statements), c.version, len(c.stmts))
			}
			for i, want := range c.stmts {
				st := f.Statements[i]
				if st.Account.Key() != want.key || st.Currency != want.currency || st.Intraday != c.intraday {
					t.Errorf("statement %d: key %s currency %q intraday %v", i, st.Account.Key(), st.Currency, st.Intraday)
				}
				var bals []string
				for _, b := range st.Balances {
					bals = append(bals, b.Kind+" "+b.Amount.StringFixed(2))
				}
				if got := strings.Join(bals, ", "); got != want.balances {
					t.Errorf("statement %d: balances %q, want %q", i, got, want.balances)
				}
				if len(st.Entries) != want.entries || total(st.Entries).StringFixed(2) != want.sum {
					t.Errorf("statement %d: %d entries summing to %s, want %d summing to %s", i, len(st.Entries), total(st.Entries).StringFixed(2), want.entries, want.sum)
				}
				for _, e := range st.Entries {
					if e.Pending != c.intraday || e.Booked.IsZero() || e.ID == "" {
						t.Errorf("statement %d: entry %+v", i, e)
					}
				}
				open, okOpen := st.Balance(bankfile.BalanceOpening)
				closing, okClose := st.Balance(bankfile.BalanceClosing)
				if okOpen != okClose || okOpen && !open.Amount.Add(total(st.Entries)).Equal(closing.Amount) {
					t.Errorf("statement %d: opening %v + entries %v != closing %v", i, open.Amount, total(st.Entries), closing.Amount)
				}
			}
		})
	}
}

func TestVersion02(t *testing.T) {
	st := read(t, load(t, "camt053_v02_batch.xml")).Statements[0]
	if st.ID != "2026-03-03-0001" || st.Account.Owner != "Erika Mustermann" || st.Account.BankID != "COBADEFFXXX" ||
		st.Account.Kind != bankfile.KindOther || !st.From.Equal(day("2026-03-01")) || !st.To.Equal(day("2026-03-03")) || st.Line != 5 {
		t.Errorf("statement %+v", st)
	}
	if len(st.Notes) != 1 || !strings.Contains(st.Notes[0], "XPCD") {
		t.Errorf("the unused balance is not noted: %q", st.Notes)
	}
	salary := st.Entries[0]
	if salary.ID != "REF-A1" || salary.IDSource != "AcctSvcrRef" || !salary.Booked.Equal(day("2026-03-01")) || !salary.Value.Equal(day("2026-03-02")) ||
		salary.Amount.StringFixed(2) != "2500.00" || salary.Currency != "EUR" || salary.Counterparty != "Acme GmbH" || salary.Text != "Gehalt Maerz 2026" ||
		salary.Code != "NTRF+153" || salary.Reference != "PAY-03" || salary.CounterpartyAccount != "DE02100100100006820101" ||
		len(salary.Details) != 0 || salary.Pending || salary.Reversal || salary.Line != 20 {
		t.Errorf("salary %+v", salary)
	}
	// The batch of three adds up to its entry: three transactions, each with its own party.
	batch := st.Entries[1:4]
	for i, want := range []struct {
		id, amount, party, text string
		line                    int
	}{
		{"REF-B1/1", "-50.00", "Stadtwerke", "Strom", 47}, {"REF-B1/2", "-70.00", "Telco AG", "Handy", 53}, {"REF-B1/3", "-30.00", "Sportverein", "Beitrag", 58},
	} {
		e := batch[i]
		if e.ID != want.id || e.IDSource != "AcctSvcrRef/n" || e.Amount.StringFixed(2) != want.amount || e.Counterparty != want.party ||
			e.Text != want.text || e.Code != "PMNT/IDDT/ESDD" || !e.Booked.Equal(day("2026-03-02")) || e.Line != want.line {
			t.Errorf("batch part %d: %+v", i, e)
		}
	}
	if batch[0].Reference != "" || len(batch[0].Details) != 1 || batch[0].Details[0] != (bankfile.Detail{Label: "mandate", Value: "MAND-1"}) {
		t.Errorf("NOTPROVIDED is not a reference, the mandate is kept: %+v", batch[0])
	}
	// 40 + 50 is not 99.99: the entry stays whole.
	whole := st.Entries[4]
	if whole.ID != "REF-C1" || whole.Amount.StringFixed(2) != "-99.99" || whole.Text != "SAMMLER-UEBERWEISUNG" || whole.Counterparty != "" ||
		len(whole.Details) != 1 || whole.Details[0] != (bankfile.Detail{Label: "batch", Value: "2 transactions"}) {
		t.Errorf("a batch that does not add up: %+v", whole)
	}
	// A returned direct debit: CRDT gives the sign, and the counterparty is the creditor of the
	// debit it undoes, not the holder named as debtor.
	rev := st.Entries[5]
	if !rev.Reversal || rev.Amount.StringFixed(2) != "45.60" || rev.Counterparty != "Baeckerei Korn" ||
		rev.CounterpartyAccount != "DE75512108001245126199" || rev.Text != "RUECKLASTSCHRIFT Brot" {
		t.Errorf("reversal: %+v", rev)
	}
}

func TestVersion08(t *testing.T) {
	f := read(t, load(t, "camt053_v08_structured.xml"))
	a := f.Statements[0]
	if a.Account.Kind != bankfile.KindChecking || a.Account.Name != "Girokonto" || a.Account.Owner != "Erika Mustermann" || a.ID != "0502-A" {
		t.Errorf("account %+v", a.Account)
	}
	if open, ok := a.Balance(bankfile.BalanceOpening); !ok || open.Amount.StringFixed(2) != "200.00" || !open.Date.Equal(day("2026-05-01")) || open.Currency != "EUR" {
		t.Errorf("PRCD is the opening balance: %+v", open)
	}
	if av, ok := a.Balance(bankfile.BalanceAvailable); !ok || !av.Date.Equal(day("2026-05-02")) {
		t.Errorf("available %+v", av)
	}
	if len(a.Notes) != 1 || a.Notes[0] != "1 entry of status INFO was left out: it is information, not a booking." {
		t.Errorf("the INFO entry is not reported: %q", a.Notes)
	}
	dd := a.Entries[0]
	want := []bankfile.Detail{{Label: "mandate", Value: "STW-4711"}, {Label: "creditor id", Value: "DE98ZZZ09999999999"}, {Label: "additional info", Value: "SEPA-BASISLASTSCHRIFT"}}
	if dd.ID != "2026050200001" || dd.Text != "RF18539007547034" || dd.Counterparty != "Stadtwerke Beispiel" || dd.Code != "NDDT+105" ||
		!dd.Booked.Equal(day("2026-05-02")) || !dd.Value.Equal(day("2026-05-04")) || dd.Reference != "" || dd.CounterpartyAccount != "DE44500105175407324931" ||
		fmt.Sprint(dd.Details) != fmt.Sprint(want) {
		t.Errorf("direct debit: %+v", dd)
	}
	refund := a.Entries[1]
	if refund.ID != "NR-7" || refund.IDSource != "NtryRef" || refund.Text != "Erstattung" || refund.Counterparty != "Max Muster" ||
		len(refund.Details) != 1 || refund.Details[0] != (bankfile.Detail{Label: "additional info", Value: "GUTSCHRIFT"}) {
		t.Errorf("refund: %+v", refund)
	}
	b := f.Statements[1]
	if open, _ := b.Balance(bankfile.BalanceOpening); open.Amount.StringFixed(2) != "-50.00" || b.Account.Kind != bankfile.KindSavings || b.Account.Number != "1234567890" {
		t.Errorf("a DBIT balance is negative: %+v", open)
	}
	if e := b.Entries[0]; len(e.Details) != 1 || e.Details[0] != (bankfile.Detail{Label: "original amount", Value: "1040.00 EUR"}) || e.Currency != "CHF" {
		t.Errorf("foreign amount: %+v", e)
	}
}

// A camt.052 report of past days, as German banks answer a request for an account's bookings,
// states its closing balance: it is a statement, whose booked entries are booked and whose
// pending ones pending. One without a closing balance is intraday, all of it pending.
func TestReportOfPastDaysIsAStatement(t *testing.T) {
	report := func(balances string) string {
		return `<?xml version="1.0" encoding="UTF-8"?>
<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.052.001.08"><BkToCstmrAcctRpt><GrpHdr><MsgId>R</MsgId></GrpHdr>
<Rpt><Id>R1</Id><FrToDt><FrDtTm>2026-11-01T00:00:00</FrDtTm><ToDtTm>2026-11-30T23:59:59</ToDtTm></FrToDt>
<Acct><Id><IBAN>DE89370400440532013000</IBAN></Id><Ccy>EUR</Ccy></Acct>` + balances + `
<Ntry><Amt Ccy="EUR">45.60</Amt><CdtDbtInd>DBIT</CdtDbtInd><Sts><Cd>BOOK</Cd></Sts><BookgDt><Dt>2026-11-05</Dt></BookgDt><AcctSvcrRef>B1</AcctSvcrRef></Ntry>
<Ntry><Amt Ccy="EUR">9.99</Amt><CdtDbtInd>DBIT</CdtDbtInd><Sts><Cd>PDNG</Cd></Sts><BookgDt><Dt>2026-11-30</Dt></BookgDt><AcctSvcrRef>P1</AcctSvcrRef></Ntry>
</Rpt></BkToCstmrAcctRpt></Document>`
	}
	bal := func(code, amount, date string) string {
		return `<Bal><Tp><CdOrPrtry><Cd>` + code + `</Cd></CdOrPrtry></Tp><Amt Ccy="EUR">` + amount + `</Amt><CdtDbtInd>CRDT</CdtDbtInd><Dt><Dt>` + date + `</Dt></Dt></Bal>`
	}
	for _, c := range []struct {
		name, balances string
		intraday       bool
		pending        []bool
	}{
		{"with its closing balance", bal("OPBD", "1000.00", "2026-10-31") + bal("CLBD", "954.40", "2026-11-30"), false, []bool{false, true}},
		{"with an interim balance only", bal("ITBD", "954.40", "2026-11-30"), true, []bool{true, true}},
	} {
		st := read(t, []byte(report(c.balances))).Statements[0]
		if st.Intraday != c.intraday || len(st.Entries) != 2 || st.Entries[0].Pending != c.pending[0] || st.Entries[1].Pending != c.pending[1] {
			t.Errorf("%s: intraday %v, entries %+v", c.name, st.Intraday, st.Entries)
		}
	}
}

func TestIntradayAndNotification(t *testing.T) {
	rpt := read(t, load(t, "camt052_intraday.xml")).Statements[0]
	ticket, cafe := rpt.Entries[0], rpt.Entries[1]
	if ticket.Counterparty != "Verkehrsbetriebe München" || cafe.Counterparty != "Café Lumen" {
		t.Errorf("character reference or ISO-8859-1 text misread: %q, %q", ticket.Counterparty, cafe.Counterparty)
	}
	// Without a booking date the value date is the entry's day, as written whatever its zone.
	if !ticket.Booked.Equal(day("2026-04-07")) || !ticket.Value.Equal(day("2026-04-07")) || !ticket.Pending {
		t.Errorf("an entry without a booking date: %+v", ticket)
	}
	if cafe.ID != "TX-552" || cafe.IDSource != "TxId" || !cafe.Pending {
		t.Errorf("a NOTPROVIDED AcctSvcrRef falls back to the TxId: %+v", cafe)
	}
	if b, ok := rpt.Balance(bankfile.BalanceInterim); !ok || b.Amount.StringFixed(2) != "462.50" || !b.Date.Equal(day("2026-04-07")) {
		t.Errorf("interim balance %+v", b)
	}
	ntf := read(t, load(t, "camt054_notification.xml")).Statements[0]
	in, fee := ntf.Entries[0], ntf.Entries[1]
	want := []bankfile.Detail{{Label: "end-to-end id", Value: "E2E-A"}, {Label: "original amount", Value: "55.00 USD"}, {Label: "additional info", Value: "VERZAMELBETALING"}}
	if in.ID != "N-1-A" || in.IDSource != "TxDtls/AcctSvcrRef" || in.Amount.StringFixed(2) != "50.00" || in.Counterparty != "Jan Jansen" ||
		in.Text != "Terugbetaling factuur 2026-114" || in.Reference != "RF471234567890" || fmt.Sprint(in.Details) != fmt.Sprint(want) {
		t.Errorf("first part: %+v", in)
	}
	if fee.ID != "NTF-9/2" || fee.Amount.StringFixed(2) != "-20.00" || fee.Counterparty != "Bank Kosten" || fee.Text != "Transactiekosten" || fee.Line != 20 {
		t.Errorf("second part: %+v", fee)
	}
}

func TestZip(t *testing.T) {
	z := zipOf(t, map[string][]byte{
		"2026-05-02.xml": load(t, "camt053_v08_structured.xml"), "2026-03-03.xml": load(t, "camt053_v02_batch.xml"),
		"readme.txt": []byte("hello"), "__MACOSX/._2026-03-03.xml": []byte("junk"),
	})
	f := read(t, z)
	if len(f.Statements) != 3 || f.Statements[0].ID != "2026-03-03-0001" || f.Version != "camt.053.001.02" {
		t.Fatalf("ZIP members are not read in name order: %d statements, first %q", len(f.Statements), f.Statements[0].ID)
	}
	if notes := f.Statements[0].Notes; !strings.Contains(strings.Join(notes, " "), "readme.txt") {
		t.Errorf("the skipped member is not reported: %q", notes)
	}
	broken := zipOf(t, map[string][]byte{"b.xml": bytes.Replace(load(t, "camt053_v02_batch.xml"), []byte(">2500.00<"), []byte(">2500,00<"), 1)})
	if _, err := Read(broken); err == nil || !strings.Contains(err.Error(), "b.xml: Ntry/Amt") {
		t.Errorf("an error in a member does not name it: %v", err)
	}
	if _, err := Read(zipOf(t, map[string][]byte{"a.txt": []byte("x")})); err == nil || !strings.Contains(err.Error(), "no camt XML") {
		t.Errorf("a ZIP without XML: %v", err)
	}
	if _, err := Read(zipOf(t, map[string][]byte{"feed.xml": []byte("<rss/>")})); err == nil || !strings.Contains(err.Error(), "feed.xml: rss: not a camt") {
		t.Errorf("a ZIP of other XML: %v", err)
	}
}

func TestZipBounds(t *testing.T) {
	v02, v08 := load(t, "camt053_v02_batch.xml"), load(t, "camt053_v08_structured.xml")
	z := zipOf(t, map[string][]byte{"a.xml": v02, "b.xml": v08})
	defer func(members int, member, total int64) {
		maxZipMembers, maxMemberBytes, maxUnpackedBytes = members, member, total
	}(maxZipMembers, maxMemberBytes, maxUnpackedBytes)

	maxMemberBytes = int64(len(v08))
	if _, err := Read(z); err == nil || !strings.Contains(err.Error(), "a.xml: the file unpacks to more than") {
		t.Errorf("a member over the cap is read: %v", err)
	}
	maxMemberBytes, maxUnpackedBytes = int64(len(v02)), int64(len(v02)+len(v08)-1)
	if _, err := Read(z); err == nil || !strings.Contains(err.Error(), "b.xml: the ZIP unpacks to more than") {
		t.Errorf("members over the total are read: %v", err)
	}
	maxUnpackedBytes = int64(len(v02) + len(v08))
	if _, err := Read(z); err != nil {
		t.Errorf("members exactly at the caps: %v", err)
	}
	maxZipMembers = 1
	if _, err := Read(z); err == nil || !strings.Contains(err.Error(), "the ZIP holds 2 files") {
		t.Errorf("a ZIP of too many files is read: %v", err)
	}
}

func TestErrors(t *testing.T) {
	doc := string(load(t, "camt053_v08_structured.xml"))
	cases := []struct {
		name, in string
		want     []string
	}{
		{"a decimal comma", strings.Replace(doc, ">89.90</Amt><CdtDbtInd>DBIT</CdtDbtInd><Sts>", ">89,90</Amt><CdtDbtInd>DBIT</CdtDbtInd><Sts>", 1),
			[]string{"line 12, Ntry/Amt", `"89,90" is not an amount (camt amounts use a point: 89.90)`}},
		{"a signed amount", strings.Replace(doc, ">950.00</Amt>", ">-950.00</Amt>", 1), []string{"line 40, Bal/Amt", "no sign"}},
		{"a bad batch amount", strings.Replace(load2(t, "camt054_notification.xml"), ">20.00</Amt>", ">20.0.0</Amt>", 1), []string{"line 21, TxDtls/Amt", `"20.0.0"`}},
		{"no amount", strings.Replace(doc, "<Amt Ccy=\"EUR\">10.00</Amt>", "", 1), []string{"line 28, Ntry/Amt", "no amount"}},
		{"no date", strings.Replace(doc, "<BookgDt><Dt>2026-05-02</Dt></BookgDt>\n<NtryDtls><TxDtls><RltdPties><Dbtr>", "<NtryDtls><TxDtls><RltdPties><Dbtr>", 1),
			[]string{"line 28, Ntry/BookgDt", "neither a booking date nor a value date"}},
		{"a bad mark", strings.Replace(doc, "<CdtDbtInd>DBIT</CdtDbtInd><Sts>", "<CdtDbtInd>D</CdtDbtInd><Sts>", 1), []string{"line 12, Ntry/CdtDbtInd", `"D" is neither CRDT nor DBIT`}},
		{"no credit or debit mark", strings.Replace(doc, "<Amt Ccy=\"EUR\">10.00</Amt><CdtDbtInd>CRDT</CdtDbtInd>", "<Amt Ccy=\"EUR\">10.00</Amt>", 1),
			[]string{"line 28, Ntry/CdtDbtInd", "missing"}},
		{"a bad date", strings.Replace(doc, "<Dt>2026-05-04</Dt>", "<Dt>04.05.2026</Dt>", 1), []string{"line 13", "Ntry/ValDt/Dt", "not a date"}},
		{"a time that is not one", strings.Replace(doc, "2026-05-02T10:15:00+02:00", "2026-05-02 at ten", 1), []string{"line 13, Ntry/BookgDt/DtTm", "not a date"}},
		{"a day that is not one", strings.Replace(doc, "<Dt>2026-05-04</Dt>", "<Dt>2026-02-30</Dt>", 1), []string{"line 13", "not a calendar date"}},
		{"a DTD", strings.Replace(doc, "<Document", `<!DOCTYPE Document [<!ENTITY x "y">]><Document`, 1), []string{"DTD"}},
		{"an account without an id", strings.Replace(doc, "<Id><Othr><Id>1234567890</Id></Othr></Id>", "", 1), []string{"Acct", "account"}},
		{"not camt", `<?xml version="1.0"?><Document xmlns="urn:iso:std:iso:20022:tech:xsd:pain.001.001.09"><CstmrCdtTrfInitn/></Document>`,
			[]string{"not a camt.052, camt.053 or camt.054 document (root <Document/CstmrCdtTrfInitn>)"}},
		{"rss", `<?xml version="1.0"?>` + "\n" + `<rss version="2.0"><channel/></rss>`, []string{"line 2, rss: not a camt.052, camt.053 or camt.054 document (root <rss>)"}},
		{"an empty document", `<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.08"></Document>`, []string{"Document", "no message"}},
		{"no statement", `<Document><BkToCstmrStmt><GrpHdr/></BkToCstmrStmt></Document>`, []string{"BkToCstmrStmt", "no <Stmt>"}},
		{"not XML", "hello", []string{"no XML element"}},
		{"truncated", doc[:len(doc)/2], []string{"line"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Read([]byte(c.in))
			bankfiletest.WantError(t, err, c.want...)
		})
	}
}

func TestSniff(t *testing.T) {
	yes := [][]byte{
		zipOf(t, map[string][]byte{"readme.txt": []byte("x"), "2026.xml": load(t, "camt054_notification.xml")}),
		[]byte("\xef\xbb\xbf\r\n  <Document><BkToCstmrDbtCdtNtfctn>"),
		[]byte(`<?xml version="1.0"?><ns:Document xmlns:ns="urn:example"><ns:BkToCstmrAcctRpt>`),
	}
	for _, name := range []string{"camt053_v02_batch.xml", "camt053_v08_structured.xml", "camt052_intraday.xml", "camt054_notification.xml"} {
		yes = append(yes, load(t, name))
	}
	for i, b := range yes {
		if !Sniff(b) {
			t.Errorf("Sniff(%d: %.40q) = false", i, b)
		}
	}
	no := []string{"OFXHEADER:100\nDATA:OFXSGML\n", "<OFX><SIGNONMSGSRSV1>", ":20:STARTUMS\r\n:25:37040044/0532013000\r\n", "date,amount\n1,2\n",
		"%PDF-1.7", "\x00\x01\x02\xff\xfe", "PK\x03\x04garbage",
		"<html><p>BkToCstmrStmt</p></html>", `<?xml version="1.0"?><rss version="2.0"><channel/></rss>`}
	for _, s := range no {
		if Sniff([]byte(s)) {
			t.Errorf("Sniff(%q) = true", s)
		}
	}
	if Sniff(zipOf(t, map[string][]byte{"a.xml": []byte("<rss/>")})) {
		t.Error("a ZIP of other XML sniffs as camt")
	}
}

// bigStatement is a camt.053 of n entries of about 500 bytes each, alternating 10.00 in and
// 2.50 out, opening at 0.00 and closing where they add up to.
func bigStatement(n int) []byte {
	var b bytes.Buffer
	closing := decimal.NewFromInt(int64((n + 1) / 2 * 1000)).Sub(decimal.NewFromInt(int64(n / 2 * 250))).Shift(-2)
	fmt.Fprintf(&b, `<?xml version="1.0" encoding="UTF-8"?>
<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.08"><BkToCstmrStmt><Stmt><Id>BIG</Id>
<Acct><Id><IBAN>DE89370400440532013000</IBAN></Id><Ccy>EUR</Ccy></Acct>
<Bal><Tp><CdOrPrtry><Cd>OPBD</Cd></CdOrPrtry></Tp><Amt Ccy="EUR">0.00</Amt><CdtDbtInd>CRDT</CdtDbtInd><Dt><Dt>2026-01-01</Dt></Dt></Bal>
<Bal><Tp><CdOrPrtry><Cd>CLBD</Cd></CdOrPrtry></Tp><Amt Ccy="EUR">%s</Amt><CdtDbtInd>CRDT</CdtDbtInd><Dt><Dt>2026-01-31</Dt></Dt></Bal>
`, closing.StringFixed(2))
	for i := range n {
		amt, ind, party := "10.00", "CRDT", "Dbtr"
		if i%2 == 1 {
			amt, ind, party = "2.50", "DBIT", "Cdtr"
		}
		fmt.Fprintf(&b, `<Ntry><Amt Ccy="EUR">%[1]s</Amt><CdtDbtInd>%[2]s</CdtDbtInd><Sts><Cd>BOOK</Cd></Sts>
<BookgDt><Dt>2026-01-%02[3]d</Dt></BookgDt><ValDt><Dt>2026-01-%02[3]d</Dt></ValDt><AcctSvcrRef>BIG-%[4]d</AcctSvcrRef>
<BkTxCd><Domn><Cd>PMNT</Cd><Fmly><Cd>RCDT</Cd><SubFmlyCd>ESCT</SubFmlyCd></Fmly></Domn></BkTxCd>
<NtryDtls><TxDtls><Refs><EndToEndId>E2E-%[4]d</EndToEndId></Refs><RltdPties><%[5]s><Pty><Nm>Party %[4]d</Nm></Pty></%[5]s></RltdPties>
<RmtInf><Ustrd>Payment number %[4]d of the month</Ustrd></RmtInf></TxDtls></NtryDtls></Ntry>
`, amt, ind, i%28+1, i, party)
	}
	b.WriteString("</Stmt></BkToCstmrStmt></Document>\n")
	return b.Bytes()
}

func TestManyEntries(t *testing.T) {
	st := read(t, bigStatement(2001)).Statements[0]
	open, _ := st.Balance(bankfile.BalanceOpening)
	closing, _ := st.Balance(bankfile.BalanceClosing)
	if len(st.Entries) != 2001 || !open.Amount.Add(total(st.Entries)).Equal(closing.Amount) || st.Entries[2000].ID != "BIG-2000" {
		t.Errorf("%d entries, opening %s + %s != closing %s", len(st.Entries), open.Amount, total(st.Entries), closing.Amount)
	}
}

// BenchmarkRead reads a statement of 20,000 entries, about 10 MB.
// BenchmarkRead reads a 20,000-entry statement and compares it with the least work reading it
// needs: one pass of encoding/xml's tokenizer over the same bytes.
func BenchmarkRead(b *testing.B) {
	content := bigStatement(20_000)
	start := time.Now()
	d := xml.NewDecoder(bytes.NewReader(content))
	for {
		if _, err := d.RawToken(); err != nil {
			break
		}
	}
	floor := time.Since(start)
	b.SetBytes(int64(len(content)))
	b.ResetTimer()
	for b.Loop() {
		if _, err := Read(content); err != nil {
			b.Fatal(err)
		}
	}
	per := b.Elapsed() / time.Duration(b.N)
	b.ReportMetric(per.Seconds()/floor.Seconds(), "x-tokenize")
	fmt.Printf("camt read: %d entries (%.1f MB) in %s; bare XML tokenizing %s; ratio %.2fx\n",
		20_000, float64(len(content))/(1<<20), per.Round(time.Millisecond), floor.Round(time.Millisecond), per.Seconds()/floor.Seconds())
}
