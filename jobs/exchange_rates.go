package jobs

import (
	"context"
	"log/slog"
	"time"

	"github.com/riverqueue/river"

	"tally/fx"
	"tally/internal/db"
)

// ExchangeRatesArgs asks for the ECB's reference rates to be fetched.
type ExchangeRatesArgs struct{}

// Kind names the job.
func (ExchangeRatesArgs) Kind() string { return "exchange_rates" }

// InsertOpts keeps it to one run a day, however many processes start that day. A fetch that
// fails is tried a few times over some minutes; the next day's reads what it missed.
func (ExchangeRatesArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{MaxAttempts: 5, UniqueOpts: river.UniqueOpts{ByPeriod: 24 * time.Hour}}
}

type exchangeRatesWorker struct {
	river.WorkerDefaults[ExchangeRatesArgs]
	fetcher *fx.Fetcher
	log     *slog.Logger
}

// Timeout bounds a fetch: the first reads the whole history (a few MB), the others a page.
func (w *exchangeRatesWorker) Timeout(*river.Job[ExchangeRatesArgs]) time.Duration {
	return 5 * time.Minute
}

func (w *exchangeRatesWorker) Work(ctx context.Context, _ *river.Job[ExchangeRatesArgs]) error {
	res, err := w.fetcher.Fetch(ctx)
	if err == nil {
		w.log.InfoContext(ctx, "exchange rates", "url", res.URL, "days", res.Days, "rates", res.Rates)
	}
	return err
}

// exchangeRatesJobs registers the fetch of exchange rates and returns its daily job, which
// also runs when the client starts; nothing when url is "" or fx.Off.
func exchangeRatesJobs(workers *river.Workers, d *db.DB, log *slog.Logger, url string) []*river.PeriodicJob {
	if url == "" || url == fx.Off {
		return nil
	}
	river.AddWorker(workers, &exchangeRatesWorker{fetcher: &fx.Fetcher{DB: d, URL: url}, log: log})
	return []*river.PeriodicJob{river.NewPeriodicJob(river.PeriodicInterval(24*time.Hour),
		func() (river.JobArgs, *river.InsertOpts) { return ExchangeRatesArgs{}, nil },
		&river.PeriodicJobOpts{ID: "exchange_rates", RunOnStart: true})}
}
