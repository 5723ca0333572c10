package parse

import (
	"errors"
	"testing"
)

func TestNumber(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		format  NumberFormat
		want    string // the value, when there is no error
		wantErr string // the error's text, when there is one
	}{
		// Plain numbers in every format.
		{"US amount with comma thousands and a decimal point", "1,234.56", NumberUS, "1234.56", ""},
		{"US amount with several thousands groups", "1,234,567.89", NumberUS, "1234567.89", ""},
		{"US amount without thousands separator", "1234.56", NumberUS, "1234.56", ""},
		{"US amount that is a whole number", "42", NumberUS, "42", ""},
		{"US amount with only decimals", ".5", NumberUS, "0.5", ""},
		{"US amount ending in its decimal point", "5.", NumberUS, "5", ""},
		{"US amount with comma thousands and no decimals", "1,234", NumberUS, "1234", ""},
		{"US amount with a dot is a decimal point, not thousands", "1.234", NumberUS, "1.234", ""},
		{"empty format means US", "1,234.56", "", "1234.56", ""},
		{"semicolon-free EU amount with a decimal comma", "1.234,56", NumberEU, "1234.56", ""},
		{"EU amount with one decimal", "1.234,5", NumberEU, "1234.5", ""},
		{"EU amount without thousands separator", "1234,56", NumberEU, "1234.56", ""},
		{"EU amount with a dot is thousands", "1.234", NumberEU, "1234", ""},
		{"EU amount with several thousands groups", "1.234.567,89", NumberEU, "1234567.89", ""},
		{"space-format amount with an ASCII space", "1 234,56", NumberSpace, "1234.56", ""},
		{"space-format amount with a no-break space", "1\u00a0234,56", NumberSpace, "1234.56", ""},
		{"space-format amount with a narrow no-break space", "1\u202f234,56", NumberSpace, "1234.56", ""},
		{"space-format amount without thousands separator", "1234,56", NumberSpace, "1234.56", ""},
		{"space-format amount with several groups", "12 345 678,9", NumberSpace, "12345678.9", ""},
		{"no-decimals amount with comma thousands", "1,234", NumberNoDecimals, "1234", ""},
		{"no-decimals amount without thousands separator", "1234", NumberNoDecimals, "1234", ""},
		{"surrounding whitespace is trimmed", "  \t12.50 \n", NumberUS, "12.5", ""},
		{"leading zeros are fine", "007.10", NumberUS, "7.1", ""},

		// Currency symbols and codes at the edges.
		{"dollar sign before the amount", "$1,500.00", NumberUS, "1500", ""},
		{"euro sign before a space-format amount", "€1 234,56", NumberSpace, "1234.56", ""},
		{"currency word after a space-format amount", "1 234,56 kr", NumberSpace, "1234.56", ""},
		{"ISO code before the amount", "USD 12.50", NumberUS, "12.5", ""},
		{"ISO code after the amount", "12.50 USD", NumberUS, "12.5", ""},
		{"pound sign", "£3.20", NumberUS, "3.2", ""},
		{"yen sign with a no-decimals amount", "¥1,234", NumberNoDecimals, "1234", ""},
		{"rupee sign", "₹99.99", NumberUS, "99.99", ""},
		{"euro sign after an EU amount", "1.234,56 €", NumberEU, "1234.56", ""},

		// Signs.
		{"leading minus", "-12.34", NumberUS, "-12.34", ""},
		{"leading plus", "+12.34", NumberUS, "12.34", ""},
		{"trailing minus", "12.34-", NumberUS, "-12.34", ""},
		{"accounting parentheses", "(12.34)", NumberUS, "-12.34", ""},
		{"accounting parentheses around a dollar sign", "($12.34)", NumberUS, "-12.34", ""},
		{"parentheses inside a dollar sign and code", "$(12.34)", NumberUS, "-12.34", ""},
		{"minus before a dollar sign", "-$12.34", NumberUS, "-12.34", ""},
		{"minus after a dollar sign", "$-12.34", NumberUS, "-12.34", ""},
		{"minus with a space before the digits", "- 12.34", NumberUS, "-12.34", ""},
		{"trailing minus after a currency code", "12,34 EUR-", NumberEU, "-12.34", ""},
		{"negative zero is zero", "-0.00", NumberUS, "0", ""},

		{"Swiss apostrophe thousands", "1'234'567.80", NumberSwiss, "1234567.8", ""},
		{"Swiss typographic apostrophe", "-1’234.50", NumberSwiss, "-1234.5", ""},
		{"Swiss without thousands", "12.5", NumberSwiss, "12.5", ""},
		{"Swiss group of two digits", "12'34.5", NumberSwiss, "", `"12'34.5" is not a number in format 1'234.56`},
		{"Swiss decimal comma", "12,5", NumberSwiss, "", `"12,5" is not a number in format 1'234.56`},

		// Not numbers.
		{"blank is ErrBlank", "   ", NumberUS, "", "blank"},
		{"empty is ErrBlank", "", NumberEU, "", "blank"},
		{"letters only", "abc", NumberUS, "", `"abc" is not a number in format 1,234.56`},
		{"letters in the middle", "12a34", NumberUS, "", `"12a34" is not a number in format 1,234.56`},
		{"scientific notation", "1e5", NumberUS, "", `"1e5" is not a number in format 1,234.56`},
		{"scientific notation with a capital E", "1.5E+3", NumberUS, "", `"1.5E+3" is not a number in format 1,234.56`},
		{"hexadecimal", "0x1F", NumberUS, "", `"0x1F" is not a number in format 1,234.56`},
		{"NaN", "NaN", NumberUS, "", `"NaN" is not a number in format 1,234.56`},
		{"infinity", "Inf", NumberUS, "", `"Inf" is not a number in format 1,234.56`},
		{"US thousands group of two digits", "12,34.5", NumberUS, "", `"12,34.5" is not a number in format 1,234.56`},
		{"US first group of four digits", "1234,567.00", NumberUS, "", `"1234,567.00" is not a number in format 1,234.56`},
		{"US amount starting with a thousands separator", ",123", NumberUS, "", `",123" is not a number in format 1,234.56`},
		{"US amount with two decimal points", "1.2.3", NumberUS, "", `"1.2.3" is not a number in format 1,234.56`},
		{"US amount with a decimal comma", "12,5", NumberUS, "", `"12,5" is not a number in format 1,234.56`},
		{"EU dot in a two-digit group", "1.5", NumberEU, "", `"1.5" is not a number in format 1.234,56`},
		{"EU amount with a decimal point after commas", "1,234.56", NumberEU, "", `"1,234.56" is not a number in format 1.234,56`},
		{"US amount read in space format", "1,234.56", NumberSpace, "", `"1,234.56" is not a number in format 1 234,56`},
		{"space format group of two digits", "12 34,5", NumberSpace, "", `"12 34,5" is not a number in format 1 234,56`},
		{"US spaces are not thousands separators", "1 234.56", NumberUS, "", `"1 234.56" is not a number in format 1,234.56`},
		{"no-decimals amount with a decimal point", "1,234.56", NumberNoDecimals, "", `"1,234.56" is not a number in format 1,234`},
		{"no-decimals amount with a decimal comma", "12,5", NumberNoDecimals, "", `"12,5" is not a number in format 1,234`},
		{"two leading minus signs", "--5", NumberUS, "", `"--5" is not a number in format 1,234.56`},
		{"minus before parentheses", "-(5)", NumberUS, "", `"-(5)" is not a number in format 1,234.56`},
		{"leading and trailing minus", "-5-", NumberUS, "", `"-5-" is not a number in format 1,234.56`},
		{"plus and trailing minus", "+5-", NumberUS, "", `"+5-" is not a number in format 1,234.56`},
		{"unclosed parenthesis", "(5", NumberUS, "", `"(5" is not a number in format 1,234.56`},
		{"unopened parenthesis", "5)", NumberUS, "", `"5)" is not a number in format 1,234.56`},
		{"minus in the middle", "12-34", NumberUS, "", `"12-34" is not a number in format 1,234.56`},
		{"percent sign", "12%", NumberUS, "", `"12%" is not a number in format 1,234.56`},
		{"sign and symbol without digits", "-$", NumberUS, "", `"-$" is not a number in format 1,234.56`},
		{"decimal point alone", ".", NumberUS, "", `"." is not a number in format 1,234.56`},
		{"non-ASCII digits", "١٢٣", NumberUS, "", `"١٢٣" is not a number in format 1,234.56`},

		// Size.
		{"fifteen integer digits fit", "999,999,999,999,999.9999", NumberUS, "999999999999999.9999", ""},
		{"leading zeros do not count towards the size", "0000999999999999999", NumberUS, "999999999999999", ""},
		{"sixteen integer digits are too large", "1234567890123456", NumberUS, "",
			`"1234567890123456" is too large: at most 15 digits before the decimal separator`},
		{"unknown format", "1", "1_234.56", "", `number format "1_234.56" is not one of 1,234.56, 1.234,56, 1 234,56, 1,234, 1'234.56`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Number(tt.in, tt.format)
			if tt.wantErr != "" {
				if err == nil {
					t.Fatalf("Number(%q, %q) = %s, want error %q", tt.in, tt.format, got, tt.wantErr)
				}
				if err.Error() != tt.wantErr {
					t.Fatalf("Number(%q, %q) error = %q, want %q", tt.in, tt.format, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("Number(%q, %q): %v", tt.in, tt.format, err)
			}
			if got.String() != tt.want {
				t.Fatalf("Number(%q, %q) = %s, want %s", tt.in, tt.format, got, tt.want)
			}
		})
	}
}

func TestNumberErrorTypes(t *testing.T) {
	if _, err := Number(" ", NumberUS); !errors.Is(err, ErrBlank) {
		t.Errorf("blank: error %v, want ErrBlank", err)
	}
	_, err := Number("12,34.5", NumberUS)
	var ne *NumberError
	if !errors.As(err, &ne) || ne.Value != "12,34.5" || ne.Format != NumberUS || ne.TooLarge {
		t.Errorf("bad grouping: error %#v, want a *NumberError for the value in NumberUS", err)
	}
	_, err = Number("12345678901234567", NumberUS)
	if !errors.As(err, &ne) || !ne.TooLarge {
		t.Errorf("too large: error %#v, want a *NumberError with TooLarge", err)
	}
}

func TestNumberFormatValid(t *testing.T) {
	for _, f := range NumberFormats {
		if !f.Valid() {
			t.Errorf("%q.Valid() = false", f)
		}
	}
	for _, f := range []NumberFormat{"", "1_234.56", "1234"} {
		if f.Valid() {
			t.Errorf("%q.Valid() = true", f)
		}
	}
}
