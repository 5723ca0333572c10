package mt940

import (
	"os"
	"strings"
	"testing"

	"tally/imports/bankfile"
	"tally/imports/bankfile/bankfiletest"
)

func load(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

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

func detail(e bankfile.Entry, label string) string {
	for _, d := range e.Details {
		if d.Label == label {
			return d.Value
		}
	}
	return ""
}

// Each statement reconciles (opening + entries = closing): the corpus is built so, and a reader
// that drops, doubles or mis-signs an entry breaks it.
func TestStatementsReconcile(t *testing.T) {
	type stmt struct {
		id, key, currency      string
		entries                int
		opening, sum, closing  string
		intermediate, intraday bool
	}
	cases := []struct {
		file, version string
		stmts         []stmt
	}{
		{"german_structured.sta", "MT940", []stmt{
			{"STARTUMS/00001/001", "acct:37040044/0532013000", "EUR", 3, "1000.00", "2500.00", "3500.00", false, false},
			{"STARTUMS/00002/001", "acct:37040044/0532013000", "EUR", 2, "3500.00", "27.66", "3527.66", false, false},
		}},
		{"dutch_unstructured.940", "MT940", []stmt{
			{"INGEXPORT/00010/1", "iban:NL20INGB0001234567", "EUR", 2, "500.00", "75.00", "575.00", true, false},
			{"INGEXPORT/00010/2", "iban:NL20INGB0001234567", "EUR", 1, "575.00", "-75.00", "500.00", false, false},
		}},
		{"year_turn.940", "MT940", []stmt{{"YEAR/1/1", "iban:DE89370400440532013000", "EUR", 2, "100.00", "-5.00", "95.00", false, false}}},
		{"latin1.sta", "MT940", []stmt{{"L1/1/1", "acct:37040044/0532013000", "EUR", 1, "10.00", "-2.50", "7.50", false, false}}},
		{"mt942_intraday.942", "MT942", []stmt{{"INTRADAY1/00001/001", "iban:DE89370400440532013000", "EUR", 2, "", "77.50", "", false, true}}}, // the currency of :34F: and :90D:
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			f := read(t, load(t, c.file))
			if f.Format != bankfile.FormatMT940 || f.Version != c.version || len(f.Statements) != len(c.stmts) {
				t.Fatalf("%s %s with %d statements, want %s with %d", f.Format, f.Version, len(f.Statements), c.version, len(c.stmts))
			}
			for i, want := range c.stmts {
				st := f.Statements[i]
				if st.ID != want.id || st.Account.Key() != want.key || st.Currency != want.currency || st.Intraday != want.intraday {
					t.Errorf("statement %d: id %q key %s currency %q intraday %v", i, st.ID, st.Account.Key(), st.Currency, st.Intraday)
				}
				if len(st.Entries) != want.entries || total(st.Entries).StringFixed(2) != want.sum {
					t.Errorf("statement %d: %d entries summing to %s, want %d summing to %s", i, len(st.Entries), total(st.Entries).StringFixed(2), want.entries, want.sum)
				}
				for _, e := range st.Entries {
					if e.Pending != want.intraday || e.Booked.IsZero() || e.Value == nil {
						t.Errorf("statement %d: entry %+v", i, e)
					}
				}
				if want.opening == "" {
					continue
				}
				open, _ := st.Balance(bankfile.BalanceOpening)
				closing, _ := st.Balance(bankfile.BalanceClosing)
				if open.Amount.StringFixed(2) != want.opening || closing.Amount.StringFixed(2) != want.closing || closing.Intermediate != want.intermediate {
					t.Errorf("statement %d: opening %s closing %s (intermediate %v)", i, open.Amount, closing.Amount, closing.Intermediate)
				}
				if !open.Amount.Add(total(st.Entries)).Equal(closing.Amount) {
					t.Errorf("statement %d does not reconcile", i)
				}
			}
		})
	}
}

// The file another test of the project relies on, field by field.
func TestGermanStatement(t *testing.T) {
	in := ":20:STARTUMS\r\n:25:37040044/0532013000\r\n:28C:00001/001\r\n:60F:C260302EUR1000,00\r\n" +
		":61:2603020302CR2500,00NTRFNONREF//B2603020001\r\n" +
		":86:153?00GEHALT?20EREF+PAYROLL-03?21SVWZ+Gehalt Maerz 2026?32ACME GMBH\r\n" +
		":61:2603030303DR45,60NDDTNONREF//B2603030002\r\n" +
		":86:105?00SEPA-LASTSCHRIFT?20EREF+R1?21MREF+M-77?22CRED+DE98ZZZ09999999999?23SVWZ+Brot und?24 Kuchen?32BAECKEREI \r\n" +
		":62F:C260303EUR3454,40\r\n-\r\n"
	f := read(t, []byte(in))
	st := f.Statements[0]
	if len(f.Statements) != 1 || st.Account.Key() != "acct:37040044/0532013000" || len(st.Entries) != 2 {
		t.Fatalf("%+v", f)
	}
	salary, bread := st.Entries[0], st.Entries[1]
	if salary.ID != "B2603020001" || !salary.Booked.Equal(day("2026-03-02")) || salary.Amount.StringFixed(2) != "2500.00" || salary.Counterparty != "ACME GMBH" ||
		salary.Text != "Gehalt Maerz 2026" || salary.Reference != "PAYROLL-03" || salary.Code != "NTRF+153" || detail(salary, "funds code") != "R" {
		t.Errorf("salary %+v", salary)
	}
	if bread.ID != "B2603030002" || bread.Amount.StringFixed(2) != "-45.60" || bread.Counterparty != "BAECKEREI" || bread.Text != "Brot und Kuchen" ||
		detail(bread, "mandate") != "M-77" || detail(bread, "creditor id") != "DE98ZZZ09999999999" || bread.Reference != "R1" {
		t.Errorf("direct debit %+v", bread)
	}
	open, _ := st.Balance(bankfile.BalanceOpening)
	closing, _ := st.Balance(bankfile.BalanceClosing)
	if !open.Date.Equal(day("2026-03-02")) || open.Amount.StringFixed(2) != "1000.00" || !closing.Date.Equal(day("2026-03-03")) || closing.Amount.StringFixed(2) != "3454.40" {
		t.Errorf("balances %+v %+v", open, closing)
	}
}

func TestGermanFields(t *testing.T) {
	f := read(t, load(t, "german_structured.sta"))
	first := f.Statements[0]
	salary := first.Entries[0]
	// ?21 and ?22 break "2026", and the physical lines break "Gehalt" and the IBAN.
	if salary.Text != "Gehalt Maerz 2026 Acme" || salary.Counterparty != "ACME GMBH PERSONALABTEILUNG" ||
		salary.CounterpartyAccount != "DE02100100100006820101" || salary.Code != "NTRF+166" || detail(salary, "booking text") != "GUTSCHRIFT" {
		t.Errorf("salary %+v", salary)
	}
	dd := first.Entries[1]
	if !dd.Booked.Equal(day("2026-03-03")) || !dd.Value.Equal(day("2026-03-03")) || detail(dd, "funds code") != "" || dd.Counterparty != "BAECKEREI KORN" {
		t.Errorf("a line without entry date or funds code: %+v", dd)
	}
	back := first.Entries[2]
	if !back.Reversal || back.Amount.StringFixed(2) != "45.60" || detail(back, "return reason") != "MD06" || back.Text != "Rueckgabe Lastschrift" {
		t.Errorf("RD reversal: %+v", back)
	}
	for kind, want := range map[string]string{bankfile.BalanceAvailable: "3500.00", bankfile.BalanceForward: "3400.00"} {
		if b, ok := first.Balance(kind); !ok || b.Amount.StringFixed(2) != want {
			t.Errorf("%s balance %+v", kind, b)
		}
	}
	fee, refund := f.Statements[1].Entries[0], f.Statements[1].Entries[1]
	if fee.Reference != "KREF-99" || fee.Text != "Kontofuehrung Maerz" || detail(fee, "supplementary details") != "/OCMT/EUR12,34/" {
		t.Errorf("fee %+v", fee)
	}
	if refund.ID != "" || refund.Amount.StringFixed(2) != "40.00" || refund.Counterparty != "Max Mustermann" {
		t.Errorf("a line without a bank reference has no id: %+v", refund)
	}
}

func TestDutch(t *testing.T) {
	f := read(t, load(t, "dutch_unstructured.940"))
	lunch := f.Statements[0].Entries[0]
	if lunch.Counterparty != "J. Jansen" || lunch.CounterpartyAccount != "NL91ABNA0417164300" || lunch.Text != "Terugbetaling lunch" ||
		lunch.Reference != "EB-777" || lunch.ID != "00000000001" || detail(lunch, "supplementary details") != "/TRCD/00100/" {
		t.Errorf("structured: %+v", lunch)
	}
	plain := f.Statements[0].Entries[1]
	if plain.Text != "Overboeking van spaarrekening naar betaalrekening, ref. 2026-04-02" || plain.Counterparty != "" {
		t.Errorf("unstructured: %+v", plain)
	}
	energy := f.Statements[1].Entries[0]
	if energy.Counterparty != "ENERGIE BV" || energy.Text != "1234567890123456" || detail(energy, "mandate") != "MANDATE-9" || detail(energy, "creditor id") != "NL98ZZZ999999999999" {
		t.Errorf("direct debit: %+v", energy)
	}
	if open, _ := f.Statements[1].Balance(bankfile.BalanceOpening); !open.Intermediate {
		t.Errorf(":60M: is not intermediate: %+v", open)
	}
}

func TestYearTurn(t *testing.T) {
	st := read(t, load(t, "year_turn.940")).Statements[0]
	if a, b := st.Entries[0], st.Entries[1]; !a.Value.Equal(day("2026-12-31")) || !a.Booked.Equal(day("2027-01-02")) ||
		!b.Value.Equal(day("2027-01-02")) || !b.Booked.Equal(day("2026-12-31")) || b.Amount.StringFixed(2) != "5.00" {
		t.Errorf("dates across the turn of the year: %v/%v, %v/%v", a.Value, a.Booked, b.Value, b.Booked)
	}
}

func TestLatin1(t *testing.T) {
	e := read(t, load(t, "latin1.sta")).Statements[0].Entries[0]
	if e.Counterparty != "BÄCKEREI MÜLLER" || e.Text != "Brötchen" {
		t.Errorf("windows-1252 text: %q, %q", e.Counterparty, e.Text)
	}
}

func TestIntraday(t *testing.T) {
	b := load(t, "mt942_intraday.942")
	st := read(t, b).Statements[0]
	if st.To == nil || !st.To.Equal(day("2026-04-07")) || len(st.Notes) != 0 {
		t.Errorf("report: to %v, notes %q", st.To, st.Notes)
	}
	wrong := strings.Replace(string(b), ":90D:1EUR22,50", ":90D:2EUR30,00", 1)
	st = read(t, []byte(wrong)).Statements[0]
	if len(st.Notes) != 1 || !strings.Contains(st.Notes[0], "2 debits of 30.00 EUR") || !strings.Contains(st.Notes[0], "lists 1 of 22.50") {
		t.Errorf("a :90D: that does not match: %q", st.Notes)
	}
}

func TestErrors(t *testing.T) {
	good := ":20:X\n:25:37040044/0532013000\n:60F:C260301EUR1,00\n:61:2603020302CR2,00NTRFNONREF\n:62F:C260302EUR3,00\n-\n"
	cases := []struct {
		name, in string
		want     []string
	}{
		{"a decimal point", strings.Replace(good, "CR2,00", "CR2.00", 1), []string{"line 4, :61:", `"2.00" is not an amount`, "decimal comma"}},
		{"a bad balance", strings.Replace(good, ":60F:C260301EUR1,00", ":60F:X260301EUR1,00", 1), []string{"line 3, :60F:", "not a balance"}},
		{"a bad date", strings.Replace(good, ":62F:C260302", ":62F:C261302", 1), []string{"line 5, :62F:", "not a calendar date"}},
		{"no mark", strings.Replace(good, "0302CR2,00", "0302X2,00", 1), []string{"line 4, :61:", "no credit or debit mark"}},
		{"no account", strings.Replace(good, ":25:37040044/0532013000\n", "", 1), []string{":61:", "before the account"}},
		{"no statement", "hello\n", []string{"no statement"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Read([]byte(c.in))
			bankfiletest.WantError(t, err, c.want...)
		})
	}
}

func TestSniff(t *testing.T) {
	for _, name := range []string{"german_structured.sta", "dutch_unstructured.940", "year_turn.940", "mt942_intraday.942", "latin1.sta"} {
		if !Sniff(load(t, name)) {
			t.Errorf("Sniff(%s) = false", name)
		}
	}
	for _, s := range []string{"OFXHEADER:100\n:20:x\n:25:y\n:61:", `<?xml version="1.0"?><Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.08">`,
		"date,amount\n1,2\n", "%PDF-1.7", "\x00\x01\x02", ":20:only a reference\n"} {
		if Sniff([]byte(s)) {
			t.Errorf("Sniff(%q) = true", s)
		}
	}
}
