package reports

import (
	"testing"
	"time"
)

// A month converts at the rate of its last day once it is over, and at today's while it is
// not, so that this month's figures move with the rates as its days pass and a past month's
// never do.
func TestMonthConverterDay(t *testing.T) {
	day := func(s string) time.Time {
		d, err := time.Parse(time.DateOnly, s)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	c := &MonthConverter{today: day("2026-03-15")}
	for _, tc := range []struct{ month, want string }{
		{"2026-02-10", "2026-02-28"}, // over: its last day
		{"2024-02-01", "2024-02-29"}, // a leap year's February
		{"2026-03-01", "2026-03-15"}, // this month: today
		{"2026-05-01", "2026-03-15"}, // a month to come: today, the latest rate there is
	} {
		if got := c.Day(MonthOf(day(tc.month))); !got.Equal(day(tc.want)) {
			t.Errorf("month of %s converts on %s, want %s", tc.month, got.Format(time.DateOnly), tc.want)
		}
	}
	// The last day of a month that ends the day before today is over.
	if got := (&MonthConverter{today: day("2026-03-01")}).Day(MonthOf(day("2026-02-01"))); !got.Equal(day("2026-02-28")) {
		t.Errorf("February, on 1 March, converts on %s", got.Format(time.DateOnly))
	}
}
