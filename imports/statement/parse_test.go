package statement

import (
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"
)

func TestParseDateFormats(t *testing.T) {
	tests := []struct {
		printed string
		opt     Options
		header  string // a line before the transaction, e.g. the statement period
		want    string
	}{
		{printed: "01/15/2024", want: "2024-01-15"},
		{printed: "1/15/2024", want: "2024-01-15"},
		{printed: "01/15/24", want: "2024-01-15"},
		{printed: "01/15", opt: Options{Year: 2023}, want: "2023-01-15"},
		{printed: "01/15", header: "Statement period 01/01/2024 - 01/31/2024", want: "2024-01-15"},
		{printed: "15/01/2024", want: "2024-01-15"}, // a first number above 12 makes the order day-first
		{printed: "03/04/2024", want: "2024-03-04"},
		{printed: "03/04/2024", opt: Options{DateOrder: "DMY"}, want: "2024-04-03"},
		{printed: "03/04/2024", header: "Period 28/03/2024 to 27/04/2024", want: "2024-04-03"},
		{printed: "15.01.2024", want: "2024-01-15"},
		{printed: "01-15-2024", want: "2024-01-15"},
		{printed: "2024-01-15", want: "2024-01-15"},
		{printed: "2024/01/15", want: "2024-01-15"},
		{printed: "15 Jan 2024", want: "2024-01-15"},
		{printed: "15-Jan-24", want: "2024-01-15"},
		{printed: "15 January 2024", want: "2024-01-15"},
		{printed: "Jan 15, 2024", want: "2024-01-15"},
		{printed: "Jan. 15, 2024", want: "2024-01-15"},
		{printed: "January 15 2024", want: "2024-01-15"},
		{printed: "Jan 15", opt: Options{Year: 2024}, want: "2024-01-15"},
		{printed: "15 Jan", header: "Statement for December 15, 2023 to January 14, 2024", want: "2024-01-15"},
		{printed: "20 Dec", header: "Statement for December 15, 2023 to January 14, 2024", want: "2023-12-20"},
		{printed: "Dec 20", header: "Statement for December 15 to January 14, 2024", want: "2023-12-20"},
		{printed: "Sept 3", header: "Period: Aug 20, 2024 - Sep 19, 2024", want: "2024-09-03"},
		{printed: "02/29", opt: Options{Year: 2024}, want: "2024-02-29"},
	}
	for _, tt := range tests {
		t.Run(tt.printed+"/"+tt.opt.DateOrder+tt.header, func(t *testing.T) {
			text := tt.header + "\n" + tt.printed + "   COFFEE SHOP      -4.50\n"
			st := Parse([]string{text}, tt.opt)
			if len(st.Lines) != 1 {
				t.Fatalf("got %d lines from %q, want 1", len(st.Lines), text)
			}
			if got := st.Lines[0].Date.Format(time.DateOnly); got != tt.want {
				t.Errorf("date %q read as %s, want %s", tt.printed, got, tt.want)
			}
			if st.Lines[0].Description != "COFFEE SHOP" {
				t.Errorf("description = %q, want %q", st.Lines[0].Description, "COFFEE SHOP")
			}
		})
	}
}

func TestParseNotDates(t *testing.T) {
	for _, text := range []string{
		"02/30/2024   COFFEE SHOP   -4.50", // no such day
		"13/13/2024   COFFEE SHOP   -4.50",
		"12.50        COFFEE SHOP   -4.50", // an amount, not a year-less date
		"15-01        COFFEE SHOP   -4.50", // year-less dates need a slash
		"2024-01-15x  COFFEE SHOP   -4.50",
		"123/01/2024  COFFEE SHOP   -4.50",
		"Janu 15      COFFEE SHOP   -4.50",
	} {
		st := Parse([]string{text}, Options{Year: 2024})
		if len(st.Lines) != 0 {
			t.Errorf("%q gave a line dated %s, want none", text, st.Lines[0].Date.Format(time.DateOnly))
		}
	}
}

func TestParseAmountFormats(t *testing.T) {
	tests := []struct {
		printed string
		kind    string // the statement's kind
		want    string
	}{
		{"1,234.56", KindBank, "1234.56"},
		{"1234.56", KindBank, "1234.56"},
		{"-1,234.56", KindBank, "-1234.56"},
		{"\u22121,234.56", KindBank, "-1234.56"},
		{"+1,234.56", KindBank, "1234.56"},
		{"(1,234.56)", KindBank, "-1234.56"},
		{"1,234.56-", KindBank, "-1234.56"},
		{"1,234.56 CR", KindBank, "1234.56"},
		{"1,234.56CR", KindBank, "1234.56"},
		{"1,234.56 DR", KindBank, "-1234.56"},
		{"$1,234.56", KindBank, "1234.56"},
		{"$ 1,234.56", KindBank, "1234.56"},
		{"-$1,234.56", KindBank, "-1234.56"},
		{"$-1,234.56", KindBank, "-1234.56"},
		{"($1,234.56)", KindBank, "-1234.56"},
		{"€1.234,56", KindBank, "1234.56"},
		{"-1.234,56", KindBank, "-1234.56"},
		{"12,50", KindBank, "12.50"},
		{"0.07", KindBank, "0.07"},
		// On a card statement purchases are printed unsigned and payments negative or CR.
		{"1,234.56", KindCreditCard, "-1234.56"},
		{"-1,234.56", KindCreditCard, "1234.56"},
		{"1,234.56 CR", KindCreditCard, "1234.56"},
		{"1,234.56 DR", KindCreditCard, "-1234.56"},
	}
	for _, tt := range tests {
		t.Run(tt.kind+"/"+tt.printed, func(t *testing.T) {
			text := "01/15/2024   SOME PAYEE 42      " + tt.printed + "\n"
			if tt.kind == KindCreditCard {
				text = "Credit card statement\n" + text
			}
			st := Parse([]string{text}, Options{})
			if st.Kind != tt.kind {
				t.Fatalf("Kind = %q, want %q", st.Kind, tt.kind)
			}
			if len(st.Lines) != 1 {
				t.Fatalf("got %d lines from %q, want 1", len(st.Lines), text)
			}
			if !st.Lines[0].Amount.Equal(decimal.RequireFromString(tt.want)) {
				t.Errorf("%q read as %s, want %s", tt.printed, st.Lines[0].Amount, tt.want)
			}
			if st.Lines[0].Description != "SOME PAYEE 42" {
				t.Errorf("description = %q", st.Lines[0].Description)
			}
		})
	}
}

// statementCase is a plain-text statement and what Parse should make of it.
type statementCase struct {
	name string
	text string // pages separated by "\f"
	opt  Options
	want wantStatement
}

func TestParseLayouts(t *testing.T) {
	tests := []statementCase{
		{
			name: "debit and credit columns without a header: the running balance decides",
			text: `
Beginning balance                                   500.00
01/03/2024  GROCERIES                 45.00         455.00
01/04/2024  PAYCHECK                           1,000.00  1,455.00
01/09/2024  UTILITY                   55.25       1,399.75
Ending balance                                    1,399.75`,
			want: wantStatement{kind: KindBank, opening: "500", closing: "1399.75", reconciled: true, lines: []wantLine{
				{1, "2024-01-03", "GROCERIES", "-45", "455", ""},
				{1, "2024-01-04", "PAYCHECK", "1000", "1455", ""},
				{1, "2024-01-09", "UTILITY", "-55.25", "1399.75", ""},
			}},
		},
		{
			name: "withdrawals and deposits header without balances",
			text: `
Previous balance: 200.00
Date        Description                Withdrawals      Deposits
01/03/2024  CHECK 1001                       80.00
01/05/2024  MOBILE DEPOSIT                                  150.00
01/07/2024  CARD PURCHASE GAS                30.10
Closing balance: 239.90`,
			want: wantStatement{kind: KindBank, opening: "200", closing: "239.9", reconciled: true, lines: []wantLine{
				{1, "2024-01-03", "CHECK 1001", "-80", "", ""},
				{1, "2024-01-05", "MOBILE DEPOSIT", "150", "", ""},
				{1, "2024-01-07", "CARD PURCHASE GAS", "-30.1", "", ""},
			}},
		},
		{
			name: "paid out and paid in columns with a date once per day and a total line",
			text: `
Date       Details                 Paid out      Paid in      Balance
01 Feb     Balance brought forward                             100.00
02 Feb     CAFE NERO                   3.20                     96.80
           BOOTS                      12.00                     84.80
           REFUND BOOTS                             12.00       96.80
           Total                      15.20         12.00
28 Feb     Closing balance                                      96.80`,
			opt: Options{Year: 2024},
			want: wantStatement{kind: KindBank, opening: "100", closing: "96.8", reconciled: true, lines: []wantLine{
				{1, "2024-02-02", "CAFE NERO", "-3.2", "96.8", ""},
				{1, "2024-02-02", "BOOTS", "-12", "84.8", ""},
				{1, "2024-02-02", "REFUND BOOTS", "12", "96.8", ""},
			}},
		},
		{
			name: "continuation lines, totals and footers",
			text: `
Opening balance 1,000.00
Date        Description                          Amount
01/02/2024  WIRE TRANSFER FROM                 2,000.00
            JOHN SMITH
            REF 88812
01/03/2024  CHECK 1002                          -150.00

            Page 1 of 2
` + "\f" + `
Date        Description                          Amount
01/20/2024  ONLINE TRANSFER TO SAVINGS          -500.00
Total debits                                    -650.00
Total credits                                  2,000.00
Closing balance 2,350.00
            Page 2 of 2`,
			want: wantStatement{kind: KindBank, opening: "1000", closing: "2350", reconciled: true, lines: []wantLine{
				{1, "2024-01-02", "WIRE TRANSFER FROM JOHN SMITH REF 88812", "2000", "", ""},
				{1, "2024-01-03", "CHECK 1002", "-150", "", ""},
				{2, "2024-01-20", "ONLINE TRANSFER TO SAVINGS", "-500", "", ""},
			}},
		},
		{
			name: "a balance brought forward that breaks the chain",
			text: `
Opening balance                                   100.00
01/02/2024  SHOP                     -10.00        90.00
            Balance carried forward                90.00
` + "\f" + `
            Balance brought forward                95.00
01/05/2024  SHOP                     -10.00        85.00
Closing balance                                    85.00`,
			want: wantStatement{kind: KindBank, opening: "100", closing: "85", reconciled: false, lines: []wantLine{
				{1, "2024-01-02", "SHOP", "-10", "90", ""},
				{2, "2024-01-05", "SHOP", "-10", "85", ""},
			}, problems: []string{
				"Page 2: the balance brought forward, 95.00, is not the running balance 90.00 carried from the page before.",
				"Opening balance 100.00 plus the 2 transactions (-20.00) is 80.00, but the statement's closing balance is 85.00: 5.00 is unaccounted for.",
			}},
		},
		{
			name: "credit card printing purchases negative",
			text: `
Card account statement                Statement period 02/01/2024 - 02/29/2024
Previous balance $300.00      New balance $370.00      Minimum payment due $25.00
02/03  COFFEE                 -20.00
02/10  BOOKS                  -100.00
02/15  PAYMENT THANK YOU       50.00`,
			want: wantStatement{kind: KindCreditCard, opening: "300", closing: "370", reconciled: true,
				periodStart: "2024-02-01", periodEnd: "2024-02-29", lines: []wantLine{
					{1, "2024-02-03", "COFFEE", "-20", "", ""},
					{1, "2024-02-10", "BOOKS", "-100", "", ""},
					{1, "2024-02-15", "PAYMENT THANK YOU", "50", "", ""},
				}},
		},
		{
			name: "credit card with a running balance owed",
			text: `
Credit card statement
Date        Description            Amount       Balance
            Previous balance                     100.00
03/01/2024  HARDWARE STORE          40.00        140.00
03/09/2024  PAYMENT                 90.00 CR      50.00
03/12/2024  INTEREST CHARGE          1.25         51.25
            New balance                           51.25`,
			want: wantStatement{kind: KindCreditCard, opening: "100", closing: "51.25", reconciled: true, lines: []wantLine{
				{1, "2024-03-01", "HARDWARE STORE", "-40", "140", ""},
				{1, "2024-03-09", "PAYMENT", "90", "50", ""},
				{1, "2024-03-12", "INTEREST CHARGE", "-1.25", "51.25", ""},
			}},
		},
		{
			name: "credit card that does not reconcile",
			text: `
Credit card statement
Previous balance      100.00
New balance           160.00
03/01/2024  HARDWARE STORE          40.00`,
			want: wantStatement{kind: KindCreditCard, opening: "100", closing: "160", lines: []wantLine{
				{1, "2024-03-01", "HARDWARE STORE", "-40", "", ""},
			}, problems: []string{
				"Previous balance 100.00 less the 1 transaction (-40.00) is 140.00, but the statement's new balance is 160.00: 20.00 is unaccounted for.",
			}},
		},
		{
			name: "a bank statement paying a credit card stays a bank statement",
			text: `
Statement period 01/01/2024 - 01/31/2024          Currency: EUR
Opening balance 50.00
01/05/2024  CREDIT CARD PAYMENT       -20.00
01/06/2024  INTEREST ON PREVIOUS BALANCE   0.10
Closing balance 30.10`,
			want: wantStatement{kind: KindBank, opening: "50", closing: "30.1", currency: "EUR", reconciled: true,
				periodStart: "2024-01-01", periodEnd: "2024-01-31", lines: []wantLine{
					{1, "2024-01-05", "CREDIT CARD PAYMENT", "-20", "", ""},
					{1, "2024-01-06", "INTEREST ON PREVIOUS BALANCE", "0.1", "", ""},
				}},
		},
		{
			name: "euro amounts with decimal commas",
			text: `
Opening balance          €1.000,00
15.01.2024  MIETE               -€750,00
20.01.2024  GEHALT             €2.100,50
Closing balance          €2.350,50`,
			want: wantStatement{kind: KindBank, opening: "1000", closing: "2350.5", currency: "EUR", reconciled: true,
				lines: []wantLine{
					{1, "2024-01-15", "MIETE", "-750", "", ""},
					{1, "2024-01-20", "GEHALT", "2100.5", "", ""},
				}},
		},
		{
			name: "no balances found, daily balance table and period line ignored",
			text: `
01/01/2024 - 01/31/2024        Summary     1,200.00
01/02/2024  DEPOSIT            100.00
Daily balances
01/02       1,300.00     01/05      1,250.00`,
			want: wantStatement{kind: KindBank, periodStart: "2024-01-01", periodEnd: "2024-01-31", lines: []wantLine{
				{1, "2024-01-02", "DEPOSIT", "100", "", ""},
			}, problems: []string{"No opening balance was found", "No closing balance was found"}},
		},
		{
			name: "two different closing balances",
			text: `
Opening balance 10.00
Closing balance 15.00
01/02/2024  DEPOSIT            5.00
Closing balance 16.00`,
			want: wantStatement{kind: KindBank, opening: "10", closing: "15", reconciled: true, lines: []wantLine{
				{1, "2024-01-02", "DEPOSIT", "5", "", ""},
			}, problems: []string{"The statement prints two different closing balances, 15.00 and 16.00; the first one is used."}},
		},
		{
			name: "nothing to read",
			text: "Dear customer,\nthank you for banking with us.",
			want: wantStatement{kind: KindBank, problems: []string{
				"No transaction lines were found.", "No opening balance", "No closing balance"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := Parse(strings.Split(tt.text, "\f"), tt.opt)
			checkStatement(t, st, tt.want)
		})
	}
}

func TestParseAssumesTheCurrentYearOnlyAsALastResort(t *testing.T) {
	st := parseAt([]string{"Jan 15  COFFEE  -4.50"}, Options{}, 2031)
	if len(st.Lines) != 1 || st.Lines[0].Date.Format(time.DateOnly) != "2031-01-15" {
		t.Fatalf("lines = %+v, want one dated 2031-01-15", st.Lines)
	}
	if !strings.Contains(strings.Join(st.Problems, "\n"), "2031 was assumed") {
		t.Errorf("problems %q do not say that the year was assumed", st.Problems)
	}
	st = parseAt([]string{"Statement date: 03/02/2022\nJan 15  COFFEE  -4.50"}, Options{}, 2031)
	if len(st.Lines) != 1 || st.Lines[0].Date.Year() != 2022 {
		t.Fatalf("lines = %+v, want one in 2022, the year the statement prints", st.Lines)
	}
}

func TestParseBoundsItsInput(t *testing.T) {
	pages := make([]string, maxPages+5)
	for i := range pages {
		pages[i] = "01/02/2024  DEPOSIT   1.00"
	}
	st := Parse(pages, Options{})
	if len(st.Lines) != maxPages {
		t.Errorf("got %d lines, want %d (one per page read)", len(st.Lines), maxPages)
	}
	if !strings.Contains(strings.Join(st.Problems, "\n"), "the rest was not read") {
		t.Errorf("problems %q do not say that the input was cut", st.Problems)
	}
	long := "01/02/2024  " + strings.Repeat("X", 5000) + "  1.00"
	if st := Parse([]string{long}, Options{}); len(st.Lines) != 0 {
		t.Errorf("a line longer than %d bytes was read whole", maxLineBytes)
	}
}

func TestParseMoney(t *testing.T) {
	tests := []struct {
		in     string
		ok     bool
		abs    string
		neg    bool
		mark   string
		symbol string
	}{
		{in: "1,234.56", ok: true, abs: "1234.56"},
		{in: "(1,234.56)", ok: true, abs: "1234.56", neg: true},
		{in: "1,234.56-", ok: true, abs: "1234.56", neg: true},
		{in: "12.00cr", ok: true, abs: "12", mark: "CR"},
		{in: "12.00 DR", ok: true, abs: "12", mark: "DR"},
		{in: "US$12.00", ok: true, abs: "12", symbol: "US$"},
		{in: "£1,000,000.00", ok: true, abs: "1000000", symbol: "£"},
		{in: "1.234.567,89", ok: true, abs: "1234567.89"},
		{in: "1,234"},   // no cents: a count or a reference, not money
		{in: "1,23.45"}, // bad grouping
		{in: "12.345"},
		{in: "1.234.56"},
		{in: "12..50"},
		{in: "2024"},
		{in: ".50"},
		{in: "CR"},
		{in: "$"},
		{in: "-"},
		{in: "()"},
		{in: "12.50x"},
		{in: strings.Repeat("1", 60) + ".00"},
	}
	for _, tt := range tests {
		m, ok := parseMoney(tt.in)
		if ok != tt.ok {
			t.Errorf("parseMoney(%q) ok = %v, want %v", tt.in, ok, tt.ok)
			continue
		}
		if !ok {
			continue
		}
		if !m.abs.Equal(decimal.RequireFromString(tt.abs)) || m.neg != tt.neg || m.mark != tt.mark || m.symbol != tt.symbol {
			t.Errorf("parseMoney(%q) = %+v, want abs %s neg %v mark %q symbol %q", tt.in, m, tt.abs, tt.neg, tt.mark, tt.symbol)
		}
	}
}

func TestFormatMoney(t *testing.T) {
	for in, want := range map[string]string{
		"0": "0.00", "5": "5.00", "-150": "-150.00", "1234.5": "1,234.50", "-1234567.891": "-1,234,567.891",
		"100": "100.00", "999999.99": "999,999.99",
	} {
		if got := formatMoney(decimal.RequireFromString(in)); got != want {
			t.Errorf("formatMoney(%s) = %q, want %q", in, got, want)
		}
	}
}
