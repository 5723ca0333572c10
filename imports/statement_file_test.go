package imports

import (
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"tally/imports/bankfile"
)

func day(d int) time.Time { return bankfile.Date(2026, 3, d) }

func money(s string) decimal.Decimal { return decimal.RequireFromString(s) }

// build turns statements into rows and summaries as Create would.
func build(sts ...bankfile.Statement) (*prepared, []StatementSummary) {
	p := &prepared{}
	b := rowBuilder{rc: &rowContext{now: day(31)}, p: p, format: "camt", seen: map[string]int{}}
	var sums []StatementSummary
	for i, st := range sts {
		sums = append(sums, b.statement(i, st))
	}
	return p, sums
}

func TestStatementReconciliation(t *testing.T) {
	acct := bankfile.Account{IBAN: "DE89370400440532013000", Kind: bankfile.KindChecking}
	bal := func(kind, amount string, d int) bankfile.Balance {
		return bankfile.Balance{Kind: kind, Amount: money(amount), Date: day(d)}
	}
	entries := []bankfile.Entry{
		{ID: "A", Booked: day(2), Amount: money("2500")},
		{ID: "B", Booked: day(3), Amount: money("-45.60")},
		{ID: "C", Booked: day(3), Amount: money("-10"), Pending: true},
	}
	cases := []struct {
		name      string
		st        bankfile.Statement
		want      string
		wantDiff  string
		wantCount int
	}{
		{"opening plus booked entries is the closing balance, pending ones aside",
			bankfile.Statement{Account: acct, Currency: "EUR", Entries: entries, Balances: []bankfile.Balance{bal("opening", "1000", 1), bal("closing", "3454.40", 3)}},
			"reconciled", "", 1},
		{"a gap is reported as the difference",
			bankfile.Statement{Account: acct, Currency: "EUR", Entries: entries, Balances: []bankfile.Balance{bal("opening", "1000", 1), bal("closing", "3450", 3)}},
			"difference", "-4.4", 1},
		{"an OFX file has no opening balance",
			bankfile.Statement{Account: acct, Currency: "USD", Entries: entries, Balances: []bankfile.Balance{bal("closing", "1", 3)}},
			"no_opening_balance", "", 1},
		{"an intraday report has nothing to reconcile",
			bankfile.Statement{Account: acct, Currency: "EUR", Intraday: true, Entries: entries},
			"intraday", "", 3},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, sums := build(c.st)
			s := sums[0]
			if s.Reconciliation != c.want || s.PendingCount != c.wantCount {
				t.Fatalf("reconciliation %s with %d pending, want %s with %d", s.Reconciliation, s.PendingCount, c.want, c.wantCount)
			}
			if got := ""; s.Difference != nil {
				got = s.Difference.String()
				if got != c.wantDiff {
					t.Fatalf("difference %s, want %s", got, c.wantDiff)
				}
			} else if c.wantDiff != "" {
				t.Fatalf("no difference, want %s", c.wantDiff)
			}
		})
	}
}

func TestRowsFromAStatement(t *testing.T) {
	value := day(4)
	st := bankfile.Statement{Account: bankfile.Account{BankID: "37040044", Number: "0532013000"}, Currency: "EUR", Entries: []bankfile.Entry{
		{ID: "B1", IDSource: "AcctSvcrRef", Booked: day(3), Value: &value, Amount: money("-45.60"), Counterparty: "  Corner   Bakery ",
			Text: "Bread and cake", Reference: "E2E-7", Code: "PMNT/IDDT/ESDD", Details: []bankfile.Detail{{Label: "mandate", Value: "M-77"}}},
		{Booked: day(3), Amount: money("-20"), Code: "ATM"},
		{Booked: day(3), Amount: money("12.5")},
	}}
	p, _ := build(st)
	r := p.rows[0]
	if r.AccountKey != "acct:37040044/0532013000" || r.Name != "Corner Bakery" || r.Amount.String() != "45.6" || r.Currency != "EUR" {
		t.Fatalf("row: key %s name %q amount %s currency %s", r.AccountKey, r.Name, r.Amount, r.Currency)
	}
	wantNotes := "Bread and cake\nReference: E2E-7\nValue date: 2026-03-04\nBank code: PMNT/IDDT/ESDD\nMandate: M-77"
	if r.Notes != wantNotes {
		t.Fatalf("notes:\n%s\nwant\n%s", r.Notes, wantNotes)
	}
	if r.Extra["external_id"] != "B1" || r.Extra["source"] != "camt" || r.Extra["value_date"] != "2026-03-04" {
		t.Fatalf("extra: %v", r.Extra)
	}
	if p.rows[1].Name != "ATM withdrawal" || p.rows[2].Name != "Bank credit" {
		t.Fatalf("names without text: %q, %q", p.rows[1].Name, p.rows[2].Name)
	}
	if _, ok := p.rows[1].Extra["external_id"]; ok {
		t.Fatal("an entry without a bank id got one")
	}
}

func TestBankIDRepeatedInTheFile(t *testing.T) {
	acct := bankfile.Account{IBAN: "DE89370400440532013000"}
	report := bankfile.Statement{Account: acct, Currency: "EUR", Intraday: true, Entries: []bankfile.Entry{
		{ID: "R1", Booked: day(7), Amount: money("-22.50"), Pending: true},
	}}
	booked := bankfile.Statement{Account: acct, Currency: "EUR", Entries: []bankfile.Entry{
		{ID: "R1", Booked: day(8), Amount: money("-22.50")},
		{ID: "R2", Booked: day(8), Amount: money("-5")},
		{ID: "R2", Booked: day(8), Amount: money("-7")},
	}}
	other := bankfile.Statement{Account: bankfile.Account{IBAN: "NL91ABNA0417164300"}, Currency: "EUR", Entries: []bankfile.Entry{
		{ID: "R1", Booked: day(8), Amount: money("-22.50")},
	}}
	p, _ := build(report, booked, other)
	var got []string
	for _, r := range p.rows {
		s := r.Extra["external_id"].(string)
		if r.Extra["in_file_duplicate"] == true {
			s += " (repeated)"
		}
		got = append(got, s)
	}
	// The pending report's R1 gives way to the booked R1; two different R2s are both kept;
	// another account's R1 is its own.
	want := "R1 (repeated), R1, R2, R2#2, R1"
	if strings.Join(got, ", ") != want {
		t.Fatalf("rows: %s, want %s", strings.Join(got, ", "), want)
	}
}

func TestDetectType(t *testing.T) {
	cases := []struct {
		name, content string
		want          Type
		ok            bool
	}{
		{"a PDF", "%PDF-1.7\n...", PdfImport, true},
		{"QIF", "!Type:Bank\nD01/02/2024\nT-1\n^\n", QifImport, true},
		{"NDJSON", `{"type":"Account","data":{}}` + "\n", NativeImport, true},
		{"a CSV", "date,amount,name\n2024-01-01,1,x\n", TransactionImport, true},
		{"a semicolon CSV", "Datum;Betrag\n01.01.2024;1,00\n", TransactionImport, true},
		{"a card export under a line naming the card and period",
			"Chase Sapphire Preferred (...4821) activity from 10/01/2026 to 10/31/2026\n" +
				"Transaction Date,Post Date,Description,Category,Type,Amount,Memo\n" +
				"10/02/2026,10/03/2026,STARBUCKS STORE 0815,Food & Drink,Sale,-5.75,\n", TransactionImport, true},
		{"a German export under its account and period", "Umsätze Girokonto\nZeitraum: 01.01.2026 - 31.01.2026\n\n" +
			"Buchungstag;Verwendungszweck;Betrag\n02.01.2026;Miete;-900,00\n03.01.2026;Brötchen;-3,50\n", TransactionImport, true},
		{"binary", "\x00\x01\x02", "", false},
		{"one word", "hello", "", false},
		{"lines of prose", "Your statement is attached\nKind regards\n", "", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, ok := DetectType([]byte(c.content))
			if got != c.want || ok != c.ok {
				t.Fatalf("DetectType = %s, %v; want %s, %v", got, ok, c.want, c.ok)
			}
		})
	}
}
