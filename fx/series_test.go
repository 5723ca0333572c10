package fx

import (
	"context"
	"testing"
	"time"

	"tally/internal/apperr"
	"tally/testkit"
)

// TestDailyRatesAgreeWithQuote checks that the rates of a range, read in one query, are on
// every day what Quote says for that day alone, for pairs converted by the family's own rates
// (direct and inverted), by fetched rates crossed through EUR, and a mix; and that a day
// before any rate takes the first one after it, where Quote finds none; and that RatesOn,
// asked for a few of those days alone, says the same of each.
func TestDailyRatesAgreeWithQuote(t *testing.T) {
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
	series, err := DailyRates(ctx, d, u.FamilyID, from, "GBP", start, end)
	if err != nil {
		t.Fatal(err)
	}
	for _, code := range from {
		days := series[code]
		if len(days) != 8 {
			t.Fatalf("%s: %d days", code, len(days))
		}
		for i, got := range days {
			on := start.AddDate(0, 0, i)
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
				t.Errorf("%s on %s: DailyRates %s (%s, %s), Quote %s (%s, %s)", code, on.Format(time.DateOnly),
					got.Rate, got.Date.Format(time.DateOnly), got.Source, want.Rate, want.Date.Format(time.DateOnly), want.Source)
			}
		}
	}
	// RatesOn, asked for a few of the days alone (one at noon), says the same of each.
	picked := []time.Time{end, start.AddDate(0, 0, 3).Add(12 * time.Hour), start}
	on, err := RatesOn(ctx, d, u.FamilyID, from, "GBP", picked)
	if err != nil {
		t.Fatal(err)
	}
	for _, code := range from {
		for _, p := range picked {
			got, want := on.On(code, p), series[code][int(p.Sub(start).Hours()/24)]
			if got.Found != want.Found || !got.Rate.Equal(want.Rate) || !got.Date.Equal(want.Date) || got.Source != want.Source {
				t.Errorf("%s on %s: RatesOn %+v, DailyRates %+v", code, p, got, want)
			}
		}
	}
}
