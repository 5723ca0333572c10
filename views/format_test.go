package views

import (
	"testing"

	"github.com/shopspring/decimal"
)

func TestFormatMoney(t *testing.T) {
	cases := []struct {
		amount, currency, want string
	}{
		{"1234.5", "USD", "$1,234.50"},
		{"-1234.5", "USD", "-$1,234.50"},
		{"0", "USD", "$0.00"},
		{"1234567.891", "EUR", "€1,234,567.89"},
		{"1500.4", "JPY", "¥1,500"},
		{"12.3456", "BHD", "BHD 12.346"},
		{"999.999", "USD", "$1,000.00"},
		{"-0.001", "USD", "$0.00"},
		{"42", "XYZ", "XYZ 42.00"},
	}
	for _, c := range cases {
		got := FormatMoney(decimal.RequireFromString(c.amount), c.currency)
		if got != c.want {
			t.Errorf("FormatMoney(%s, %s) = %q, want %q", c.amount, c.currency, got, c.want)
		}
	}
}

func TestFormatRate(t *testing.T) {
	for in, want := range map[string]string{"1.284829721362": "1.28483", "1.080000000000": "1.08", "0.000057063300": "0.0000570633",
		"17524.69": "17524.7", "1561.2345": "1561.23", "162.41": "162.41", "1234567.5": "1234568", "0.8": "0.8"} {
		if got := FormatRate(decimal.RequireFromString(in)); got != want {
			t.Errorf("FormatRate(%s) = %q, want %q", in, got, want)
		}
	}
}
