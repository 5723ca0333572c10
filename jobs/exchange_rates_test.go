package jobs

import (
	"slices"
	"testing"

	"tally/fx"
	"tally/fx/fakeecb"
	"tally/testkit"
)

func TestClientFetchesExchangeRatesOnStart(t *testing.T) {
	d := testkit.MustOpenDB(t)
	ecb := fakeecb.NewTest(t)
	ecb.SetDay("2026-03-02", map[string]string{"USD": "1.0823", "GBP": "0.8412"})
	startWorking(t, d, Options{Work: true, ExchangeRatesURL: ecb.URL})
	eventually(t, "the exchange rates job fetches on start", func() bool {
		return count(t, d, "SELECT count(*) FROM exchange_rates WHERE family_id IS NULL") == 2
	})
	if got := ecb.Requests(); !slices.Equal(got, []string{fakeecb.History}) {
		t.Errorf("files read %v, want the history once", got)
	}
}

// TestNoExchangeRatesJobWhenOff: with the URL none (or unset, as in tests), no fetch is
// queued, even on start.
func TestNoExchangeRatesJobWhenOff(t *testing.T) {
	for _, url := range []string{fx.Off, ""} {
		d := testkit.MustOpenDB(t)
		startWorking(t, d, Options{Work: true, ExchangeRatesURL: url})
		// River queues the periodic jobs that run on start in one batch: once the cleanup is
		// queued, a fetch would be too.
		eventually(t, "the periodic jobs are queued on start", func() bool {
			return count(t, d, "SELECT count(*) FROM river_job WHERE kind = ?", CleanupArgs{}.Kind()) > 0
		})
		if n := count(t, d, "SELECT count(*) FROM river_job WHERE kind = ?", ExchangeRatesArgs{}.Kind()); n != 0 {
			t.Errorf("URL %q: %d fetches queued", url, n)
		}
	}
}
