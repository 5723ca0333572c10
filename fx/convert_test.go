package fx

import (
	"context"
	"testing"
	"time"

	"tally/internal/apperr"
	"tally/testkit"
)

// TestConverterAgreesWithQuote checks that a Converter read for a range converts on every day
// at what Quote says for that day alone, for pairs converted by the family's own rates (direct
// and inverted), by fetched rates crossed through EUR, and a mix; that a day before any rate
// takes the first one after it, where Quote finds none; and that a Converter read for a few
// of those days alone says the same of each.
func TestConverterAgreesWithQuote(t *testing.T) {
	ctx := context.Background()
	d := testkit.MustOpenDB(t)
	u := testkit.MustCreateUser(t, d, testkit.UserOpts{})
	mustFetched(t, d, "2026-03-02", map[string]string{"USD": "1.08", "GBP": "0.85"})
	mustFetched(t, d, "2026-03-04", map[string]string{"USD": "1.10"})
	mustFetched(t, d, "2026-03-06", map[string]string{"GBP": "0.86", "USD": "1.09"})
	mustSetRate(t, d, u.FamilyID, "2026-03-05", "CHF", "GBP", "0.9")
	mustSetRate(t, d, u.FamilyID, "2026-03-03", "GBP", "USD", "1.3")
	mustSetRate(t, d, u.FamilyID, "2026-03-06", "USD", "GBP", "0.75") // same pair, inverted, later

	start, end := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC), time.Date(2026, 3, 8, 0, 0, 0, 0, time.UTC)
	from := []string{"USD", "EUR", "CHF", "GBP", "JPY"}
	series, err := NewConverter(ctx, d, u.FamilyID, from, "GBP", start, end)
	if err != nil {
		t.Fatal(err)
	}
	for _, code := range from {
		for on := start; !on.After(end); on = on.AddDate(0, 0, 1) {
			got := series.On(code, on)
			want, err := Quote(ctx, d, u.FamilyID, code, "GBP", on)
			switch {
			case apperr.CodeOf(err) == apperr.NotFound:
				// Before any rate of the pair: the first after it, or none at all.
				if code == "JPY" && got.Found || code != "JPY" && (!got.Found || !got.Date.After(on)) {
					t.Errorf("%s on %s, before any rate: %+v", code, on.Format(time.DateOnly), got)
				}
			case err != nil:
				t.Fatal(err)
			case !got.Found || !got.Rate.Equal(want.Rate) || !got.Date.Equal(want.Date) || got.Source != want.Source:
				t.Errorf("%s on %s: On %s (%s, %s), Quote %s (%s, %s)", code, on.Format(time.DateOnly),
					got.Rate, got.Date.Format(time.DateOnly), got.Source, want.Rate, want.Date.Format(time.DateOnly), want.Source)
			}
		}
	}
	// Read for a few of the days alone (one at noon), it says the same of each; also from a
	// day after some rates of each pair, which it reads as the latest before that day.
	for _, picked := range [][]time.Time{
		{end, start.AddDate(0, 0, 3).Add(12 * time.Hour), start},
		{end, start.AddDate(0, 0, 4)},
	} {
		on, err := NewConverter(ctx, d, u.FamilyID, from, "GBP", picked...)
		if err != nil {
			t.Fatal(err)
		}
		for _, code := range from {
			for _, p := range picked {
				got, want := on.On(code, p), series.On(code, p)
				if got.Found != want.Found || !got.Rate.Equal(want.Rate) || !got.Date.Equal(want.Date) || got.Source != want.Source {
					t.Errorf("%s on %s: read for a few days %+v, for the range %+v", code, p, got, want)
				}
			}
		}
	}
}
