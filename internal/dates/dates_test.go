package dates_test

import (
	"testing"
	"time"

	"tally/internal/apperr"
	"tally/internal/dates"
)

// TestDayAndMonth reads days and months at the edges of the range and past them: every
// refusal is an Invalid error whose one problem is on the field given, and says what to write.
func TestDayAndMonth(t *testing.T) {
	for _, tc := range []struct {
		field, in string
		month     bool
		want      string // the day read, or the problem on field
	}{
		{"date", "2026-03-02", false, "2026-03-02"},
		{"date", " 1970-01-01 ", false, "1970-01-01"},
		{"date", "2100-12-31", false, "2100-12-31"},
		{"start_date", "1969-12-31", false, "start_date 1969-12-31 is out of range: give one from 1970-01-01 to 2100-12-31"},
		{"date", "2101-01-01", false, "date 2101-01-01 is out of range: give one from 1970-01-01 to 2100-12-31"},
		{"date", "0000-01-01", false, "date 0000-01-01 is out of range: give one from 1970-01-01 to 2100-12-31"},
		{"date", "2026-02-30", false, `date "2026-02-30" is not a date (YYYY-MM-DD)`},
		{"date", "", false, `date "" is not a date (YYYY-MM-DD)`},
		{"month", "2026-10", true, "2026-10-01"},
		{"month", "1970-01", true, "1970-01-01"},
		{"month", "2100-12", true, "2100-12-01"},
		{"month", "0000-01", true, "month 0000-01 is out of range: give one from 1970-01 to 2100-12"},
		{"by", "0001-01", true, "by 0001-01 is out of range: give one from 1970-01 to 2100-12"},
		{"month", "2101-01", true, "month 2101-01 is out of range: give one from 1970-01 to 2100-12"},
		{"month", "2026-13", true, `month "2026-13" is not a month (YYYY-MM)`},
		{"month", "2026-10-01", true, `month "2026-10-01" is not a month (YYYY-MM)`},
	} {
		t.Run(tc.field+" "+tc.in, func(t *testing.T) {
			read := dates.Day
			if tc.month {
				read = dates.Month
			}
			d, err := read(tc.field, tc.in)
			if err == nil {
				if got := d.Format(time.DateOnly); got != tc.want || d.Location() != time.UTC {
					t.Errorf("read %s (%s), want %s", got, d.Location(), tc.want)
				}
				return
			}
			if e := apperr.As(err); e == nil || e.Code != apperr.Invalid || len(e.Fields) != 1 || len(e.Fields[tc.field]) != 1 || e.Fields[tc.field][0] != tc.want {
				t.Errorf("error %v, want Invalid with %q on %s alone", err, tc.want, tc.field)
			}
		})
	}
}
