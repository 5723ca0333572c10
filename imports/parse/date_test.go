package parse

import (
	"errors"
	"testing"
	"time"
)

func TestDateFormatsParseTheirSample(t *testing.T) {
	// 5 January 2024, as each offered format writes it.
	samples := map[string]string{
		"%m-%d-%Y":          "01-05-2024",
		"%d.%m.%Y":          "05.01.2024",
		"%d-%m-%Y":          "05-01-2024",
		"%Y-%m-%d":          "2024-01-05",
		"%d/%m/%Y":          "05/01/2024",
		"%Y/%m/%d":          "2024/01/05",
		"%m/%d/%Y":          "01/05/2024",
		"%e/%m/%Y":          "5/01/2024",
		"%Y.%m.%d":          "2024.01.05",
		"%Y%m%d":            "20240105",
		"%d %b %Y":          "05 Jan 2024",
		"%d/%m/%y":          "05/01/24",
		"%Y-%m-%d %H:%M:%S": "2024-01-05 17:45:09",
	}
	want := time.Date(2024, 1, 5, 0, 0, 0, 0, time.UTC)
	for _, f := range DateFormats {
		t.Run(f.Label, func(t *testing.T) {
			s, ok := samples[f.Pattern]
			if !ok {
				t.Fatalf("no sample for %s", f.Pattern)
			}
			got, err := Date(s, f.Pattern)
			if err != nil {
				t.Fatalf("Date(%q, %q): %v", s, f.Pattern, err)
			}
			if !got.Equal(want) || got.Location() != time.UTC {
				t.Fatalf("Date(%q, %q) = %v, want %v", s, f.Pattern, got, want)
			}
		})
	}
	if len(samples) != len(DateFormats) {
		t.Errorf("%d samples for %d formats", len(samples), len(DateFormats))
	}
}

func TestDate(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		pattern string
		want    string // YYYY-MM-DD, when there is no error
		wantErr string
	}{
		{"single-digit day and month", "5/1/2024", "%d/%m/%Y", "2024-01-05", ""},
		{"single-digit month before a two-digit day", "1/15/2024", "%m/%d/%Y", "2024-01-15", ""},
		{"%e day without padding", "5/01/2024", "%e/%m/%Y", "2024-01-05", ""},
		{"%e day padded with a space", "01/ 5/2024", "%m/%e/%Y", "2024-01-05", ""},
		{"%e day padded with a zero", "05/01/2024", "%e/%m/%Y", "2024-01-05", ""},
		{"%e day padded with a space between numeric fields", "2024 501", "%Y%e%m", "2024-01-05", ""},
		{"%y 00 is 2000", "01/01/00", "%d/%m/%y", "2000-01-01", ""},
		{"%y 68 is 2068", "01/01/68", "%d/%m/%y", "2068-01-01", ""},
		{"%y 69 is 1969", "01/01/69", "%d/%m/%y", "1969-01-01", ""},
		{"%y 99 is 1999", "31/12/99", "%d/%m/%y", "1999-12-31", ""},
		{"%y needs two digits", "01/01/5", "%d/%m/%y", "", `"01/01/5" does not match the date format %d/%m/%y`},
		{"%Y needs four digits", "01/01/24", "%d/%m/%Y", "", `"01/01/24" does not match the date format %d/%m/%Y`},
		{"%Y takes no fifth digit", "01/01/20245", "%d/%m/%Y", "", `"01/01/20245" does not match the date format %d/%m/%Y`},
		{"%b abbreviated in lower case", "05 jan 2024", "%d %b %Y", "2024-01-05", ""},
		{"%b abbreviated in upper case", "05 JAN 2024", "%d %b %Y", "2024-01-05", ""},
		{"%b accepts the full name", "05 January 2024", "%d %b %Y", "2024-01-05", ""},
		{"%B full name in mixed case", "5 sEPTember 2024", "%d %B %Y", "2024-09-05", ""},
		{"%B accepts the abbreviation", "5 Sep 2024", "%d %B %Y", "2024-09-05", ""},
		{"%b full name that starts like another abbreviation", "1 March 2024", "%d %b %Y", "2024-03-01", ""},
		{"%b May, both full and abbreviated", "1 May 2024", "%d %b %Y", "2024-05-01", ""},
		{"%b month name not English", "1 Mai 2024", "%d %b %Y", "", `"1 Mai 2024" does not match the date format %d %b %Y`},
		{"%b month name cut short", "1 Janu 2024", "%d %b %Y", "", `"1 Janu 2024" does not match the date format %d %b %Y`},
		{"%Y%m%d takes fixed widths", "20241231", "%Y%m%d", "2024-12-31", ""},
		{"a time of day is read and left out", "2026-03-02 10:01:55", "%Y-%m-%d %H:%M:%S", "2026-03-02", ""},
		{"a time of day without seconds", "02.03.2026 9:05", "%d.%m.%Y %H:%M", "2026-03-02", ""},
		{"an hour past 23 is no time", "2026-03-02 24:00:00", "%Y-%m-%d %H:%M:%S", "", `"2026-03-02 24:00:00" does not match the date format %Y-%m-%d %H:%M:%S`},
		{"a minute past 59 is no time", "2026-03-02 10:60:00", "%Y-%m-%d %H:%M:%S", "", `"2026-03-02 10:60:00" does not match the date format %Y-%m-%d %H:%M:%S`},
		{"a date with no time for a pattern with one", "2026-03-02", "%Y-%m-%d %H:%M:%S", "", `"2026-03-02" does not match the date format %Y-%m-%d %H:%M:%S`},
		{"%Y%m%d with a single-digit day is not a date", "2024015", "%Y%m%d", "", `"2024015" does not match the date format %Y%m%d`},
		{"%d%m%Y takes fixed widths", "05012024", "%d%m%Y", "2024-01-05", ""},
		{"%d%b%Y takes one-digit days before a month name", "5Jan2024", "%d%b%Y", "2024-01-05", ""},
		{"pattern whitespace matches several spaces", "05   Jan  2024", "%d %b %Y", "2024-01-05", ""},
		{"pattern whitespace matches a tab", "05\tJan 2024", "%d %b %Y", "2024-01-05", ""},
		{"pattern whitespace needs a space", "05Jan2024", "%d %b %Y", "", `"05Jan2024" does not match the date format %d %b %Y`},
		{"surrounding whitespace is trimmed", "  2024-01-05 ", "%Y-%m-%d", "2024-01-05", ""},
		{"%% matches a percent sign", "2024%01%05", "%Y%%%m%%%d", "2024-01-05", ""},
		{"literals must match", "2024/01/05", "%Y-%m-%d", "", `"2024/01/05" does not match the date format %Y-%m-%d`},
		{"trailing garbage is rejected", "2024-01-05x", "%Y-%m-%d", "", `"2024-01-05x" does not match the date format %Y-%m-%d`},
		{"trailing time is rejected", "2024-01-05 10:00", "%Y-%m-%d", "", `"2024-01-05 10:00" does not match the date format %Y-%m-%d`},
		{"missing day", "2024-01", "%Y-%m-%d", "", `"2024-01" does not match the date format %Y-%m-%d`},
		{"empty value", "", "%Y-%m-%d", "", `"" does not match the date format %Y-%m-%d`},
		{"month 13", "01/13/2024", "%d/%m/%Y", "", `"01/13/2024" does not match the date format %d/%m/%Y`},
		{"month 0", "2024-00-10", "%Y-%m-%d", "", `"2024-00-10" does not match the date format %Y-%m-%d`},
		{"day 0", "2024-01-00", "%Y-%m-%d", "", `"2024-01-00" does not match the date format %Y-%m-%d`},
		{"day 32", "2024-01-32", "%Y-%m-%d", "", `"2024-01-32" does not match the date format %Y-%m-%d`},
		{"February 30 is not a date", "2024-02-30", "%Y-%m-%d", "", `"2024-02-30" is not a date: February 2024 has 29 days`},
		{"February 29 outside a leap year", "29.02.2023", "%d.%m.%Y", "", `"29.02.2023" is not a date: February 2023 has 28 days`},
		{"February 29 in a leap year", "29.02.2024", "%d.%m.%Y", "2024-02-29", ""},
		{"April 31 is not a date", "04/31/2024", "%m/%d/%Y", "", `"04/31/2024" is not a date: April 2024 has 30 days`},
		{"pattern with surrounding whitespace", "2024-01-05", " %Y-%m-%d ", "2024-01-05", ""},
		{"invalid pattern is reported first", "2024-01-05", "%Y-%m-%Q", "", `unknown directive %Q in date format "%Y-%m-%Q": use %Y, %y, %m, %b, %B, %d, %e, %H, %M, %S or %%`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Date(tt.in, tt.pattern)
			if tt.wantErr != "" {
				if err == nil {
					t.Fatalf("Date(%q, %q) = %v, want error %q", tt.in, tt.pattern, got, tt.wantErr)
				}
				if err.Error() != tt.wantErr {
					t.Fatalf("Date(%q, %q) error = %q, want %q", tt.in, tt.pattern, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("Date(%q, %q): %v", tt.in, tt.pattern, err)
			}
			if s := got.Format(time.DateOnly); s != tt.want || got.Location() != time.UTC || got.Hour() != 0 {
				t.Fatalf("Date(%q, %q) = %v, want %s at 00:00 UTC", tt.in, tt.pattern, got, tt.want)
			}
		})
	}
}

func TestDateErrorType(t *testing.T) {
	_, err := Date(" 01/13/2024 ", "%d/%m/%Y")
	var de *DateError
	if !errors.As(err, &de) || de.Value != "01/13/2024" || de.Pattern != "%d/%m/%Y" || de.Reason != "" {
		t.Fatalf("error %#v, want a *DateError for the trimmed value and the pattern", err)
	}
}

func TestValidateDateFormat(t *testing.T) {
	tests := []struct {
		name    string
		pattern string
		wantErr string // "" when valid
	}{
		{"unknown directive", "%d/%m/%Q", `unknown directive %Q in date format "%d/%m/%Q": use %Y, %y, %m, %b, %B, %d, %e, %H, %M, %S or %%`},
		{"day of year is not supported", "%Y-%j", `unknown directive %j in date format "%Y-%j": use %Y, %y, %m, %b, %B, %d, %e, %H, %M, %S or %%`},
		{"no year", "%d/%m", `date format "%d/%m" has no year`},
		{"no month", "%d/%Y", `date format "%d/%Y" has no month`},
		{"no day", "%m/%Y", `date format "%m/%Y" has no day`},
		{"two years", "%Y %d/%m/%y", `date format "%Y %d/%m/%y" has more than one year`},
		{"two months", "%d %b %m %Y", `date format "%d %b %m %Y" has more than one month`},
		{"empty", "", "date format is empty"},
		{"whitespace only", "  ", "date format is empty"},
		{"trailing lone percent", "%d/%m/%Y%", `date format "%d/%m/%Y%" ends with a lone %`},
		{"literal percent is fine", "%Y-%m-%d%%", ""},
		{"full month name", "%B %e, %Y", ""},
		{"no separators", "%Y%m%d", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := ValidateDateFormat(tt.pattern)
			switch {
			case tt.wantErr == "" && err != nil:
				t.Fatalf("ValidateDateFormat(%q): %v", tt.pattern, err)
			case tt.wantErr != "" && (err == nil || err.Error() != tt.wantErr):
				t.Fatalf("ValidateDateFormat(%q) = %v, want %q", tt.pattern, err, tt.wantErr)
			}
		})
	}
}
