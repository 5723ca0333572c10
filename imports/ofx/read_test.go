package ofx

import (
	"os"
	"strings"
	"testing"

	"tally/imports/bankfile"
	"tally/imports/bankfile/bankfiletest"
)

func readFile(t *testing.T, name string) *bankfile.File {
	t.Helper()
	b, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	if !Sniff(b) {
		t.Fatalf("Sniff(%s) = false", name)
	}
	f, err := Read(b)
	if err != nil {
		t.Fatalf("Read(%s): %v", name, err)
	}
	return f
}

var day = bankfiletest.Day

func sum(entries []bankfile.Entry) string { return bankfiletest.Sum(entries).StringFixed(2) }

func TestStatements(t *testing.T) {
	type stmt struct {
		key, kind, currency string
		entries             int
		sum, closing        string
		closingDate         string
		from, to            string
	}
	cases := []struct {
		file, version string
		stmts         []stmt
	}{
		{"card_102.ofx", "102", []stmt{{"acct:4111222233334444", bankfile.KindCreditCard, "USD", 4, "-250.00", "-250.00", "2026-02-28", "2026-02-01", "2026-02-28"}}},
		{"checking_220.ofx", "220", []stmt{
			{"acct:121000248/000123456789", bankfile.KindChecking, "USD", 5, "730.70", "1730.70", "2026-03-31", "2026-03-01", "2026-03-31"},
			{"acct:121000248/000987654321", bankfile.KindSavings, "USD", 2, "503.12", "10503.12", "2026-03-31", "2026-03-01", "2026-03-31"},
		}},
		{"quicken_103.qfx", "103", []stmt{{"acct:30040000/9876543", bankfile.KindSavings, "EUR", 2, "110.00", "1110.00", "2026-01-15", "2026-01-01", "2026-01-15"}}},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			f := readFile(t, c.file)
			if f.Format != bankfile.FormatOFX || f.Version != c.version || len(f.Statements) != len(c.stmts) {
				t.Fatalf("format %s version %s, %d statements; want ofx %s, %d", f.Format, f.Version, len(f.Statements), c.version, len(c.stmts))
			}
			for i, want := range c.stmts {
				st := f.Statements[i]
				if st.Account.Key() != want.key || st.Account.Kind != want.kind || st.Currency != want.currency || st.Account.Currency != want.currency {
					t.Errorf("statement %d: account %+v currency %s", i, st.Account, st.Currency)
				}
				if len(st.Entries) != want.entries || sum(st.Entries) != want.sum {
					t.Errorf("statement %d: %d entries summing to %s, want %d summing to %s", i, len(st.Entries), sum(st.Entries), want.entries, want.sum)
				}
				closing, ok := st.Balance(bankfile.BalanceClosing)
				if !ok || closing.Amount.StringFixed(2) != want.closing || !closing.Date.Equal(day(want.closingDate)) {
					t.Errorf("statement %d: closing %+v, want %s on %s", i, closing, want.closing, want.closingDate)
				}
				if _, ok := st.Balance(bankfile.BalanceOpening); ok {
					t.Errorf("statement %d: OFX has no opening balance, yet one was read", i)
				}
				if st.From == nil || st.To == nil || !st.From.Equal(day(want.from)) || !st.To.Equal(day(want.to)) {
					t.Errorf("statement %d: period %v–%v, want %s–%s", i, st.From, st.To, want.from, want.to)
				}
				for _, e := range st.Entries {
					if e.ID == "" || e.IDSource != "FITID" || e.Booked.IsZero() || e.Line == 0 {
						t.Errorf("statement %d: entry %+v lacks its id, date or line", i, e)
					}
				}
			}
		})
	}
}

func TestCardEntries(t *testing.T) {
	st := readFile(t, "card_102.ofx").Statements[0]
	first := st.Entries[0]
	// 23:30 at -05:00 is still the 5th: the bank's day is kept.
	if !first.Booked.Equal(day("2026-02-05")) || first.Initiated == nil || !first.Initiated.Equal(day("2026-02-04")) {
		t.Errorf("dates: booked %v, initiated %v", first.Booked, first.Initiated)
	}
	if first.Amount.StringFixed(2) != "-42.17" || first.Counterparty != "GROCERY OUTLET #12" || first.Text != "" || first.Code != "DEBIT" || first.ID != "2026020524492150001" {
		t.Errorf("first entry: %+v", first)
	}
	if first.Line != 37 {
		t.Errorf("first entry at line %d, want 37", first.Line)
	}
	if got := st.Entries[1].Text; got != "Meter 44 & garage" {
		t.Errorf("memo %q: the &amp; entity is not expanded", got)
	}
	if got := st.Entries[3]; got.Counterparty != "AT&T WIRELESS" || len(got.Details) != 1 || got.Details[0] != (bankfile.Detail{Label: "merchant category", Value: "4814"}) {
		t.Errorf("a bare & must stay as written, and SIC kept: %+v", got)
	}
	if avail, ok := st.Balance(bankfile.BalanceAvailable); !ok || avail.Amount.StringFixed(2) != "4750.00" {
		t.Errorf("available balance %+v", avail)
	}
}

func TestCheckingEntries(t *testing.T) {
	st := readFile(t, "checking_220.ofx").Statements[0]
	check := st.Entries[1]
	if check.Counterparty != "" || check.Reference != "1043" || check.Code != "CHECK" || check.Amount.StringFixed(2) != "-1200.00" {
		t.Errorf("check: %+v", check)
	}
	pos := st.Entries[2]
	if pos.Counterparty != "Corner Hardware" || pos.Text != "Card 1234 <contactless>" {
		t.Errorf("PAYEE aggregate: %+v", pos)
	}
	if xfer := st.Entries[3]; xfer.CounterpartyAccount != "000987654321" {
		t.Errorf("transfer: %+v", xfer)
	}
	if fee := st.Entries[4]; fee.Text != "" || fee.Counterparty != "Monthly service fee" {
		t.Errorf("fee: %+v", fee)
	}
}

func TestQuickenFileInWindows1252(t *testing.T) {
	st := readFile(t, "quicken_103.qfx").Statements[0]
	dep := st.Entries[0]
	if dep.Counterparty != "Café Müller" || dep.Text != "Gebühr zurück" || dep.Amount.StringFixed(2) != "150.00" {
		t.Errorf("1252 text or a decimal comma misread: %+v", dep)
	}
	atm := st.Entries[1]
	if atm.Amount.StringFixed(2) != "-40.00" || atm.Currency != "USD" || len(atm.Details) != 1 || atm.Details[0].Value != "1.0850" {
		t.Errorf("foreign currency entry: %+v", atm)
	}
}

func TestInvestments(t *testing.T) {
	f := readFile(t, "investments_151.ofx")
	st := f.Statements[0]
	if st.Account.Key() != "acct:broker.example.com/X-1234" || st.Account.Kind != bankfile.KindInvestment {
		t.Fatalf("account %+v", st.Account)
	}
	if len(st.Trades) != 3 {
		t.Fatalf("%d trades, want buy, sell and reinvestment", len(st.Trades))
	}
	buy, sell, reinvest := st.Trades[0], st.Trades[1], st.Trades[2]
	if buy.ID != "T-1" || !buy.Date.Equal(day("2026-06-03")) || buy.Quantity.String() != "10" || buy.Price.String() != "150.25" ||
		buy.Amount.StringFixed(2) != "-1507.45" || buy.Fees.StringFixed(2) != "4.95" ||
		buy.Security != (bankfile.Security{ID: "000000AA1", IDType: "CUSIP", Ticker: "ACME", Name: "Acme Industries Inc"}) {
		t.Errorf("buy: %+v", buy)
	}
	if sell.Quantity.String() != "-5.5" || sell.Amount.StringFixed(2) != "110.00" || sell.Security.Ticker != "BMIF" {
		t.Errorf("sell: %+v", sell)
	}
	if reinvest.Quantity.String() != "0.4" || reinvest.Amount.StringFixed(2) != "-8.00" || reinvest.Security.Ticker != "BMIF" {
		t.Errorf("reinvestment: %+v", reinvest)
	}
	// Cash: the deposit, the dividend and the reinvested dividend's income.
	if len(st.Entries) != 3 || sum(st.Entries) != "2020.40" {
		t.Fatalf("entries %+v", st.Entries)
	}
	div := st.Entries[0]
	if div.Code != "INCOME/DIV" || div.Counterparty != "Acme Industries Inc" || div.Text != "Quarterly dividend" || div.ID != "T-3" {
		t.Errorf("dividend: %+v", div)
	}
	if len(st.Holdings) != 2 || st.Holdings[0].Quantity.String() != "20" || st.Holdings[0].Value.StringFixed(2) != "1520.00" ||
		!st.Holdings[1].Date.Equal(day("2026-06-30")) || st.Holdings[1].Security.Name != "Broad Market Index Fund" {
		t.Errorf("holdings: %+v", st.Holdings)
	}
	if len(st.Notes) != 1 || !strings.Contains(st.Notes[0], "1 SPLIT") {
		t.Errorf("the split is not reported: %q", st.Notes)
	}
	if cash, ok := st.Balance(bankfile.BalanceAvailable); !ok || cash.Amount.StringFixed(2) != "614.95" {
		t.Errorf("cash %+v", cash)
	}
}

func TestBodyOnOneLineAndClosedLeaves(t *testing.T) {
	in := "OFXHEADER:100\nDATA:OFXSGML\nVERSION:160\n\n<OFX><BANKMSGSRSV1><STMTTRNRS><STMTRS><CURDEF>GBP</CURDEF><BANKACCTFROM><BANKID>401234</BANKID>" +
		"<ACCTID>12345678</ACCTID><ACCTTYPE>CHECKING</ACCTTYPE></BANKACCTFROM><BANKTRANLIST><STMTTRN><TRNTYPE>OTHER</TRNTYPE><DTPOSTED>20260101</DTPOSTED>" +
		"<TRNAMT>-1.50</TRNAMT><FITID>A</FITID><NAME>Tea</NAME></STMTTRN></BANKTRANLIST></STMTRS></STMTTRNRS></BANKMSGSRSV1></OFX>"
	f, err := Read([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	if e := f.Statements[0].Entries; len(e) != 1 || e[0].Counterparty != "Tea" || e[0].Amount.StringFixed(2) != "-1.50" || f.Statements[0].Currency != "GBP" {
		t.Fatalf("%+v", f.Statements[0])
	}
}

func TestErrors(t *testing.T) {
	card, err := os.ReadFile("testdata/card_102.ofx")
	if err != nil {
		t.Fatal(err)
	}
	header := "OFXHEADER:100\nDATA:OFXSGML\nVERSION:102\n\n"
	cases := []struct {
		name, in string
		want     []string
	}{
		{"a broken amount", strings.Replace(string(card), "<TRNAMT>-7.83", "<TRNAMT>-7.8.3", 1), []string{"line 49", "STMTTRN/TRNAMT", `"-7.8.3" is not an amount`}},
		{"a broken date", strings.Replace(string(card), "<DTPOSTED>20260215", "<DTPOSTED>20261315", 1), []string{"line 56", "STMTTRN/DTPOSTED", "not a calendar date"}},
		{"a missing amount", strings.Replace(string(card), "<TRNAMT>100.00\r\n", "", 1), []string{"line 54", "STMTTRN/TRNAMT", "missing"}},
		{"no account", strings.Replace(string(card), "<ACCTID>4111222233334444\r\n", "", 1), []string{"CCACCTFROM/ACCTID", "no number"}},
		{"a DTD", header + "<!DOCTYPE OFX [<!ENTITY x 'y'>]><OFX></OFX>", []string{"line 5", "DTD"}},
		{"an entity declaration", header + "<!ENTITY x 'y'><OFX></OFX>", []string{"ENTITY"}},
		{"no statement", header + "<OFX><SIGNONMSGSRSV1><SONRS><STATUS><CODE>0<SEVERITY>INFO</STATUS></SONRS></SIGNONMSGSRSV1></OFX>", []string{"no bank, credit card or investment statement"}},
		{"the bank's error", header + "<OFX><BANKMSGSRSV1><STMTTRNRS><TRNUID>1<STATUS><CODE>2003<SEVERITY>ERROR<MESSAGE>Account not found</STATUS></STMTTRNRS></BANKMSGSRSV1></OFX>",
			[]string{"code 2003", "Account not found"}},
		{"no OFX element", header + "<HTML></HTML>", []string{"no <OFX> element"}},
		{"deep nesting", header + "<OFX>" + strings.Repeat("<STMTTRNRS>", 70), []string{"nested more than 64"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Read([]byte(c.in))
			bankfiletest.WantError(t, err, c.want...)
		})
	}
}

func TestSniff(t *testing.T) {
	yes := []string{"OFXHEADER:100\nDATA:OFXSGML\n", "\xef\xbb\xbf  ofxheader:100\n", `<?xml version="1.0"?><?OFX OFXHEADER="200" VERSION="220"?><OFX>`, "<OFX><SIGNONMSGSRSV1>"}
	no := []string{"date,amount\n", `<?xml version="1.0"?><Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.08">`,
		":20:STARTUMS\r\n:25:37040044/0532013000\r\n", "%PDF-1.7", "\x00\x01", "<html><body>OFX</body></html>"}
	for _, s := range yes {
		if !Sniff([]byte(s)) {
			t.Errorf("Sniff(%q) = false", s)
		}
	}
	for _, s := range no {
		if Sniff([]byte(s)) {
			t.Errorf("Sniff(%q) = true", s)
		}
	}
}
