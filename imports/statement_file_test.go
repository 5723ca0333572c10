package imports

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"tally/imports/bankfile"
)

func day(d int) time.Time { return bankfile.Date(2026, 3, d) }

func money(s string) decimal.Decimal { return decimal.RequireFromString(s) }

// build turns statements into rows and summaries as Create would, reading their entries as a
// reader hands them over.
func build(sts ...bankfile.Statement) ([]Row, []StatementSummary) {
	file := &bankfile.File{Format: bankfile.FormatCAMT}
	for _, st := range sts {
		st.Entries = nil
		file.Statements = append(file.Statements, st)
	}
	b := &rowBuilder{rc: &rowContext{now: day(31)}, read: func(each bankfile.EntryFunc) (*bankfile.File, error) {
		for i, st := range sts {
			for _, e := range st.Entries {
				if err := each(i, e); err != nil {
					return nil, err
				}
			}
		}
		return file, nil
	}}
	_, sums, err := b.plan()
	if err != nil {
		panic(err)
	}
	var rows []Row
	for r := range b.rows {
		rows = append(rows, *r)
	}
	return rows, sums
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
	rows, _ := build(st)
	r := rows[0]
	if r.AccountKey != "acct:37040044/0532013000" || r.Name != "Corner Bakery" || r.Amount.String() != "45.6" || r.Currency != "EUR" {
		t.Fatalf("row: key %s name %q amount %s currency %s", r.AccountKey, r.Name, r.Amount, r.Currency)
	}
	// The notes are the bank's words; its references and codes are details, apart.
	if r.Notes != "Bread and cake" {
		t.Fatalf("notes %q, want the entry's text alone", r.Notes)
	}
	wantDetails := []RowDetail{{"Mandate", "M-77"}, {"Reference", "E2E-7"}, {"Value date", "2026-03-04"}, {"Bank code", "PMNT/IDDT/ESDD"}}
	if got := r.Extra["details"]; !slices.Equal(got.([]RowDetail), wantDetails) {
		t.Fatalf("details %v, want %v", got, wantDetails)
	}
	if r.Extra["external_id"] != "B1" || r.Extra["source"] != "camt" || r.Extra["value_date"] != "2026-03-04" {
		t.Fatalf("extra: %v", r.Extra)
	}
	if rows[1].Name != "ATM withdrawal" || rows[2].Name != "Bank credit" {
		t.Fatalf("names without text: %q, %q", rows[1].Name, rows[2].Name)
	}
	if _, ok := rows[1].Extra["external_id"]; ok {
		t.Fatal("an entry without a bank id got one")
	}
}

// The card statement: its header masked the card as "…4821", and every row showed
// acct:4266841234564821. Rows, notes and details show a card number as its last four digits;
// an IBAN, which is no card, stays whole.
func TestStatementRowsMaskCardNumbers(t *testing.T) {
	st := bankfile.Statement{Account: bankfile.Account{Number: "4266841234564821", Kind: bankfile.KindCreditCard}, Currency: "USD",
		Entries: []bankfile.Entry{{ID: "F1", Booked: day(3), Amount: money("-11.40"), Counterparty: "UBER TRIP",
			Text: "Card 4266 8412 3456 4821 on 03/02", CounterpartyAccount: "4266841234564821",
			Details: []bankfile.Detail{{Label: "original card", Value: "card no. 4266-8412-3456-4821"}, {Label: "payee account", Value: "DE89 3704 0044 0532 0130 00"}}}}}
	rows, sums := build(st)
	r := rows[0]
	if r.AccountKey != "acct:4266841234564821" {
		t.Fatalf("account key %s: the mapping's key is the bank's identifier, unmasked", r.AccountKey)
	}
	if r.Raw[ColAccount] != "…4821" || sums[0].Account.Display != "…4821" {
		t.Errorf("account shown as %q in the rows, %q in the header", r.Raw[ColAccount], sums[0].Account.Display)
	}
	if r.Notes != "Card …4821 on 03/02" || r.Raw[ColNotes] != r.Notes {
		t.Errorf("notes %q (cell %q)", r.Notes, r.Raw[ColNotes])
	}
	want := []RowDetail{{"Original card", "card no. …4821"}, {"Payee account", "DE89 3704 0044 0532 0130 00"}, {"Counterparty account", "…4821"}}
	if got := r.Extra["details"].([]RowDetail); !slices.Equal(got, want) {
		t.Errorf("details %v, want %v", got, want)
	}
	for _, s := range []string{"4266841234564821", "4266 8412 3456 4821", "4266-8412-3456-4821"} {
		if strings.Contains(strings.Join(r.Raw[:], "|")+r.Notes+fmt.Sprint(r.Extra["details"]), s) {
			t.Errorf("the card number %s is shown", s)
		}
	}
}

func TestMaskCardNumbers(t *testing.T) {
	const card = "4266841234564821" // the statement's own card
	for in, want := range map[string]string{
		"4266841234564821":                         "…4821",
		"paid with 4266 8412 3456 4821 online":     "paid with …4821 online",
		"refund to 4266-8412-3456-4821":            "refund to …4821",
		"378282246310005":                          "…0005", // another card: 15 digits that pass the Luhn check
		"4111111111111111":                         "…1111",
		"4266841234564822":                         "4266841234564822", // neither: an id, not a card
		"order 1234567890123 and 4266841234564821": "order 1234567890123 and …4821",
		"DE89370400440532013000":                   "DE89370400440532013000",
		"IBAN DE89 3704 0044 0532 0130 00":         "IBAN DE89 3704 0044 0532 0130 00",
		"EREF+4266841234564821X":                   "EREF+4266841234564821X",
	} {
		if got := maskCardNumbers(in, card); got != want {
			t.Errorf("maskCardNumbers(%q) = %q, want %q", in, got, want)
		}
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
	rows, _ := build(report, booked, other)
	var got []string
	for _, r := range rows {
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
