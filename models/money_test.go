package models

import (
	"strings"
	"testing"

	"github.com/shopspring/decimal"
)

func TestParseAmountReadsWhatPeopleType(t *testing.T) {
	tests := []struct {
		in, currency, want string
	}{
		{"1250", "EUR", "1250"},
		{"1,250.00", "USD", "1250"},
		{"2.345,67", "EUR", "2345.67"},
		{"1 234,56", "EUR", "1234.56"},
		{"1'234.50", "CHF", "1234.5"},
		{"12,5", "EUR", "12.5"},
		{"-12.50", "USD", "-12.5"},
		{"2.345", "EUR", "2345"},
		{"2,345", "USD", "2345"},
		{"15.000", "JPY", "15000"},
		{"15000", "JPY", "15000"},
		{"1.234.567,89", "EUR", "1234567.89"},
		{"0.125", "BHD", "0.125"},
	}
	for _, tt := range tests {
		got, err := ParseAmount(tt.in, tt.currency)
		if err != nil || !got.Equal(decimal.RequireFromString(tt.want)) {
			t.Errorf("ParseAmount(%q, %s) = %s, %v; want %s", tt.in, tt.currency, got, err, tt.want)
		}
	}
}

func TestParseAmountRefusesRatherThanGuessOrRound(t *testing.T) {
	tests := []struct{ in, currency, want string }{
		{"15000.50", "JPY", "JPY amounts have no decimals"},
		{"12.345", "BHD", `"12.345" could be 12345 or 12.345`},
		{"12.3456", "EUR", "EUR amounts have at most 2 decimals"},
		{"12,34,5", "EUR", "grouped oddly"},
		{"twelve", "EUR", "is not a number"},
		{"", "EUR", "is not a number"},
		{"1.2.3", "EUR", "grouped oddly"},
	}
	for _, tt := range tests {
		if got, err := ParseAmount(tt.in, tt.currency); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("ParseAmount(%q, %s) = %s, %v; want an error with %q", tt.in, tt.currency, got, err, tt.want)
		}
	}
}

func TestCheckDecimals(t *testing.T) {
	for _, tt := range []struct {
		amount, currency string
		ok               bool
	}{{"12.50", "EUR", true}, {"12.500", "EUR", true}, {"12.505", "EUR", false}, {"15000.5", "JPY", false}, {"15000.0", "JPY", true}} {
		if err := CheckDecimals(decimal.RequireFromString(tt.amount), tt.currency); (err == nil) != tt.ok {
			t.Errorf("CheckDecimals(%s %s) = %v", tt.amount, tt.currency, err)
		}
	}
}

// FuzzParseAmount: any input is an amount within its currency's decimals, or an error; never
// a panic, never a rounded value.
func FuzzParseAmount(f *testing.F) {
	for _, s := range []string{"1,250.00", "2.345,67", "15000.50", "1 234,56", "-0.125", "1'000"} {
		f.Add(s, "EUR")
	}
	f.Add("12.345", "BHD")
	f.Add("15.000", "JPY")
	f.Fuzz(func(t *testing.T, s, currency string) {
		got, err := ParseAmount(s, currency)
		if err != nil {
			return
		}
		if CheckDecimals(got, currency) != nil {
			t.Fatalf("ParseAmount(%q, %q) = %s, more decimals than the currency has", s, currency, got)
		}
	})
}
