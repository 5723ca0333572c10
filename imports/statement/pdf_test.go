package statement

import (
	"context"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"
)

// wantLine is an expected transaction; balance "" means none printed.
type wantLine struct {
	page                        int
	date, desc, amount, balance string
	problem                     string // a substring of the line's only problem, or ""
}

type wantStatement struct {
	kind, opening, closing string // "" means not found
	periodStart, periodEnd string
	currency               string
	reconciled             bool
	lines                  []wantLine
	problems               []string // substrings, one per statement problem, in order
}

func TestPDFStatements(t *testing.T) {
	tests := []struct {
		name  string
		pages [][]pdfRow
		want  wantStatement
	}{
		{
			name:  "single amount column with running balance",
			pages: singleColumnBank(false),
			want: wantStatement{
				kind: KindBank, opening: "1000", closing: "2139.24", periodStart: "2024-01-01", periodEnd: "2024-01-31",
				reconciled: true,
				lines: []wantLine{
					{1, "2024-01-02", "PAYROLL ACME CORP", "2500", "3500", ""},
					{1, "2024-01-03", "RENT JANUARY", "-1200", "2300", ""},
					{1, "2024-01-05", "COFFEE SHOP #123 SEATTLE WA", "-4.5", "2295.5", ""},
					{1, "2024-01-10", "ELECTRIC COMPANY", "-120.25", "2175.25", ""},
					{1, "2024-01-15", "ATM WITHDRAWAL", "-60", "2115.25", ""},
					{1, "2024-01-20", "REFUND ONLINE STORE", "35.99", "2151.24", ""},
					{1, "2024-01-31", "MONTHLY FEE", "-12", "2139.24", ""},
				},
			},
		},
		{
			name:  "a missing line does not reconcile",
			pages: singleColumnBank(true),
			want: wantStatement{
				kind: KindBank, opening: "1000", closing: "2139.24", periodStart: "2024-01-01", periodEnd: "2024-01-31",
				reconciled: false,
				lines: []wantLine{
					{1, "2024-01-02", "PAYROLL ACME CORP", "2500", "3500", ""},
					{1, "2024-01-03", "RENT JANUARY", "-1200", "2300", ""},
					{1, "2024-01-05", "COFFEE SHOP #123 SEATTLE WA", "-4.5", "2295.5", ""},
					{1, "2024-01-15", "ATM WITHDRAWAL", "-60", "2115.25",
						"running balance 2,115.25 does not follow from the previous balance 2,295.50 and this amount -60.00 (expected 2,235.50)"},
					{1, "2024-01-20", "REFUND ONLINE STORE", "35.99", "2151.24", ""},
					{1, "2024-01-31", "MONTHLY FEE", "-12", "2139.24", ""},
				},
				problems: []string{
					"1 running balance(s) printed on transaction lines do not follow",
					"Opening balance 1,000.00 plus the 6 transactions (1,259.49) is 2,259.49, but the statement's " +
						"closing balance is 2,139.24: 120.25 is unaccounted for.",
				},
			},
		},
		{
			name:  "money out and money in columns, day-first dates",
			pages: debitCreditBank(),
			want: wantStatement{
				kind: KindBank, opening: "1500", closing: "3616.31", periodStart: "2024-03-01", periodEnd: "2024-03-31",
				currency: "GBP", reconciled: true,
				lines: []wantLine{
					{1, "2024-03-04", "TESCO STORES 2231", "-45.6", "1454.4", ""},
					{1, "2024-03-05", "SALARY NORTHWIND LTD", "2100", "3554.4", ""},
					{1, "2024-03-12", "COUNCIL TAX", "-125", "3429.4", ""},
					{1, "2024-03-12", "TFL TRAVEL", "-23.1", "3406.3", ""},
					{1, "2024-03-18", "TRANSFER FROM SAVINGS", "300", "3706.3", ""},
					{1, "2024-03-25", "AMAZON MARKETPLACE", "-89.99", "3616.31", ""},
				},
			},
		},
		{
			name:  "two pages with balances carried and brought forward",
			pages: multiPageBank(),
			want: wantStatement{
				kind: KindBank, opening: "5000", closing: "6588.02", periodStart: "2023-12-15", periodEnd: "2024-01-14",
				reconciled: true,
				lines: []wantLine{
					{1, "2023-12-15", "GROCERY MART", "-82.4", "4917.6", ""},
					{1, "2023-12-20", "INTEREST", "4.17", "4921.77", ""},
					{1, "2023-12-24", "GIFT SHOP", "-150", "4771.77", ""},
					{1, "2023-12-28", "PHARMACY", "-23.75", "4748.02", ""},
					{2, "2024-01-02", "PAYROLL", "1800", "6548.02", ""},
					{2, "2024-01-05", "INSURANCE PREMIUM", "-210", "6338.02", ""},
					{2, "2024-01-09", "CASH DEPOSIT", "250", "6588.02", ""},
				},
			},
		},
		{
			name:  "credit card",
			pages: creditCard(),
			want: wantStatement{
				kind: KindCreditCard, opening: "1000", closing: "845.67", periodStart: "2024-01-15", periodEnd: "2024-02-14",
				reconciled: true,
				lines: []wantLine{
					{1, "2024-01-16", "ONLINE PAYMENT - THANK YOU", "500", "", ""},
					{1, "2024-01-18", "GROCERY MART", "-123.45", "", ""},
					{1, "2024-01-22", "GAS STATION 55", "-45", "", ""},
					{1, "2024-01-25", "REFUND SHOES", "20", "", ""},
					{1, "2024-02-01", "RESTAURANT ITALIANO", "-96.22", "", ""},
					{1, "2024-02-10", "STREAMING SERVICE", "-15.99", "", ""},
					{1, "2024-02-14", "INTEREST CHARGE ON PURCHASES", "-85.01", "", ""},
				},
			},
		},
	}
	for _, tt := range tests {
		pdf := buildPDF(t, tt.pages...)
		for _, method := range []string{MethodPdftotext, MethodGo} {
			t.Run(tt.name+"/"+method, func(t *testing.T) {
				if method == MethodPdftotext {
					requirePdftotext(t)
				}
				pages, err := ExtractTextWith(context.Background(), pdf, method)
				if err != nil {
					t.Fatalf("ExtractTextWith(%s): %v", method, err)
				}
				if len(pages) != len(tt.pages) {
					t.Fatalf("got %d pages, want %d", len(pages), len(tt.pages))
				}
				st := Parse(pages, Options{})
				checkStatement(t, st, tt.want)
				if t.Failed() {
					t.Logf("extracted text:\n%s", strings.Join(pages, "\n\f\n"))
				}
			})
		}
	}
}

// requirePdftotext skips a test when poppler's pdftotext is not installed.
func requirePdftotext(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("pdftotext"); err != nil {
		t.Skip("pdftotext (poppler-utils) is not on PATH; the pure-Go reader is tested on its own")
	}
}

func checkStatement(t *testing.T, st *Statement, want wantStatement) {
	t.Helper()
	if st.Kind != want.kind {
		t.Errorf("Kind = %q, want %q", st.Kind, want.kind)
	}
	checkDecimal(t, "Opening", st.Opening, want.opening)
	checkDecimal(t, "Closing", st.Closing, want.closing)
	checkDay(t, "PeriodStart", st.PeriodStart, want.periodStart)
	checkDay(t, "PeriodEnd", st.PeriodEnd, want.periodEnd)
	if st.Currency != want.currency {
		t.Errorf("Currency = %q, want %q", st.Currency, want.currency)
	}
	if st.Reconciled != want.reconciled {
		t.Errorf("Reconciled = %v, want %v (problems: %q)", st.Reconciled, want.reconciled, st.Problems)
	}
	if len(st.Problems) != len(want.problems) {
		t.Errorf("Problems = %q, want %d matching %q", st.Problems, len(want.problems), want.problems)
	} else {
		for i, p := range want.problems {
			if !strings.Contains(st.Problems[i], p) {
				t.Errorf("Problems[%d] = %q, want it to contain %q", i, st.Problems[i], p)
			}
		}
	}
	if len(st.Lines) != len(want.lines) {
		t.Errorf("got %d lines, want %d:", len(st.Lines), len(want.lines))
		for _, l := range st.Lines {
			t.Logf("  %s %q %s", l.Date.Format(time.DateOnly), l.Description, l.Amount)
		}
		return
	}
	for i, w := range want.lines {
		checkLine(t, i, st.Lines[i], w)
	}
}

func checkLine(t *testing.T, i int, got Line, w wantLine) {
	t.Helper()
	if got.Page != w.page || got.Date.Format(time.DateOnly) != w.date || got.Description != w.desc ||
		!got.Amount.Equal(decimal.RequireFromString(w.amount)) {
		t.Errorf("line %d = page %d %s %q %s, want page %d %s %q %s", i, got.Page, got.Date.Format(time.DateOnly),
			got.Description, got.Amount, w.page, w.date, w.desc, w.amount)
	}
	if !got.Date.Equal(got.Date.UTC().Truncate(24*time.Hour)) || got.Date.Location() != time.UTC {
		t.Errorf("line %d date %v is not UTC midnight", i, got.Date)
	}
	checkDecimal(t, "line balance", got.Balance, w.balance)
	if got.LineNo < 1 || got.Raw == "" || !strings.Contains(got.Raw, strings.Fields(w.desc)[0]) {
		t.Errorf("line %d: LineNo %d, Raw %q do not point at its text line", i, got.LineNo, got.Raw)
	}
	switch {
	case w.problem == "" && len(got.Problems) > 0:
		t.Errorf("line %d has problems %q, want none", i, got.Problems)
	case w.problem != "" && (len(got.Problems) != 1 || !strings.Contains(got.Problems[0], w.problem)):
		t.Errorf("line %d problems = %q, want one containing %q", i, got.Problems, w.problem)
	}
}

func checkDecimal(t *testing.T, what string, got *decimal.Decimal, want string) {
	t.Helper()
	switch {
	case want == "" && got != nil:
		t.Errorf("%s = %s, want none", what, got)
	case want != "" && got == nil:
		t.Errorf("%s not found, want %s", what, want)
	case want != "" && !got.Equal(decimal.RequireFromString(want)):
		t.Errorf("%s = %s, want %s", what, got, want)
	}
}

func checkDay(t *testing.T, what string, got *time.Time, want string) {
	t.Helper()
	switch {
	case want == "" && got != nil:
		t.Errorf("%s = %s, want none", what, got.Format(time.DateOnly))
	case want != "" && got == nil:
		t.Errorf("%s not found, want %s", what, want)
	case want != "" && got.Format(time.DateOnly) != want:
		t.Errorf("%s = %s, want %s", what, got.Format(time.DateOnly), want)
	}
}
