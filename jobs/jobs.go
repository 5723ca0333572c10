// Package jobs runs Tally's background work on River: each worker is thin and calls one domain
// function. It is the only package that knows River's worker API.
package jobs

import (
	"cmp"
	"context"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivertype"

	"tally/auditlog"
	"tally/banksync"
	"tally/imports"
	"tally/internal/db"
	"tally/internal/idempotency"
	"tally/internal/metrics"
	"tally/internal/ratelimit"
	"tally/internal/sessions"
	"tally/models"
	"tally/oauth"
	"tally/recurring"
	"tally/sso"
	"tally/webhooks"
)

// Client is the River client Tally uses.
type Client = river.Client[pgx.Tx]

// unfinished are the states of a job that is waiting, running or to be retried: a job unique
// by its arguments over them keeps a second one out until it has finished, and the next may
// then be queued (River's default states would keep it out until its finished row is cleaned
// away, a day later). River requires the waiting and running states in the set.
var unfinished = []rivertype.JobState{rivertype.JobStateAvailable, rivertype.JobStatePending, rivertype.JobStateRunning,
	rivertype.JobStateScheduled, rivertype.JobStateRetryable}

// Options configures the job client.
type Options struct {
	// Work makes the client work jobs; without it, it only inserts them (web-only processes).
	Work       bool
	MaxWorkers int
	// Imports runs import publishes and reverts.
	Imports *imports.Service
	// ImportTimeout is how long a publish or revert may run; zero means an hour. River hands
	// the job of a worker that died to another worker only after this time.
	ImportTimeout time.Duration
	// RescueAfter is how long a job may run before River considers it stuck; zero means
	// River's default (an hour). Tests shorten both.
	RescueAfter time.Duration
	// AuditRetention is the audit log's tier (config AuditLogRetention); "" leaves out the
	// daily audit retention job. AuditArchiveURL is its archive, for the tiers that archive.
	AuditRetention  auditlog.Retention
	AuditArchiveURL string
	// Bank syncs bank connections; nil leaves out the bank sync jobs.
	Bank *banksync.Service
	// Webhooks delivers the families' events; nil leaves out the deliveries. New gives it the
	// client to queue them with, and NewImports tells it of imports and bank syncs.
	Webhooks *webhooks.Service
	// Recurring finds the families' recurring series after imports, bank syncs and when a
	// person asks; nil works with a new one (the service keeps no state).
	Recurring *recurring.Service
	// ExchangeRatesURL is the ECB's daily feed (config ExchangeRatesURL), fetched once a day
	// and when the client starts; "" or fx.Off ("none") leaves out the fetch.
	ExchangeRatesURL string
}

// New returns a River client over d with every worker and periodic job registered.
func New(d *db.DB, log *slog.Logger, opts Options) (*Client, error) {
	// Every job is bounded: the workers that may run long (publish, revert, bank sync, audit
	// retention, exchange rates, webhook deliveries) say their own Timeout, and the rest
	// (cleanup, reaping, rescue, scheduling) get a minute.
	//
	// A job inserted within River's fetch cooldown of the one before it is not announced, and
	// waits for the next poll: a quarter second rather than River's second, so that a file
	// published right after another is not left waiting (one cheap query a poll).
	cfg := &river.Config{Logger: log.With("component", "river"), ID: clientID(), JobTimeout: time.Minute,
		FetchPollInterval: 250 * time.Millisecond}
	var client *Client
	if opts.RescueAfter > 0 {
		cfg.RescueStuckJobsAfter = opts.RescueAfter
		cfg.JobTimeout = min(time.Minute, opts.RescueAfter/2)
	}
	if opts.Work {
		workers := river.NewWorkers()
		river.AddWorker(workers, &cleanupWorker{db: d})
		timeout := cmp.Or(opts.ImportTimeout, time.Hour)
		river.AddWorker(workers, &publishWorker{svc: opts.Imports, timeout: timeout})
		river.AddWorker(workers, &revertWorker{svc: opts.Imports, timeout: timeout})
		river.AddWorker(workers, &reapWorker{svc: opts.Imports})
		river.AddWorker(workers, &rescueWorker{db: d, log: log})
		river.AddWorker(workers, &recurringWorker{db: d, svc: cmp.Or(opts.Recurring, &recurring.Service{}), log: log})
		if opts.MaxWorkers == 0 {
			opts.MaxWorkers = 10
		}
		cfg.Workers = workers
		cfg.Queues = map[string]river.QueueConfig{river.QueueDefault: {MaxWorkers: opts.MaxWorkers}}
		cfg.PeriodicJobs = []*river.PeriodicJob{
			river.NewPeriodicJob(river.PeriodicInterval(time.Hour),
				func() (river.JobArgs, *river.InsertOpts) { return CleanupArgs{}, nil },
				&river.PeriodicJobOpts{ID: "cleanup", RunOnStart: true}),
			river.NewPeriodicJob(river.PeriodicInterval(time.Minute),
				func() (river.JobArgs, *river.InsertOpts) { return ReapImportsArgs{}, nil },
				&river.PeriodicJobOpts{ID: "reap_imports", RunOnStart: true}),
			river.NewPeriodicJob(river.PeriodicInterval(rescueEvery),
				func() (river.JobArgs, *river.InsertOpts) { return RescueArgs{}, nil },
				&river.PeriodicJobOpts{ID: "rescue_jobs", RunOnStart: true}),
		}
		audit, err := auditJobs(workers, d, log, opts)
		if err != nil {
			return nil, err
		}
		cfg.PeriodicJobs = append(cfg.PeriodicJobs, audit...)
		cfg.PeriodicJobs = append(cfg.PeriodicJobs, bankJobs(workers, log, opts.Bank, func() *Client { return client })...)
		cfg.PeriodicJobs = append(cfg.PeriodicJobs, exchangeRatesJobs(workers, d, log, opts.ExchangeRatesURL)...)
		if opts.Webhooks != nil {
			river.AddWorker(workers, &webhookWorker{svc: opts.Webhooks})
		}
	}
	var err error
	client, err = river.NewClient(riverpgxv5.New(d.Pool), cfg)
	if err == nil && opts.Webhooks != nil {
		opts.Webhooks.Jobs = WebhookEnqueuer{Client: client}
	}
	return client, err
}

// CleanupArgs asks for expired sessions, rate-limit windows and reset tokens to be deleted.
type CleanupArgs struct{}

// Kind names the job.
func (CleanupArgs) Kind() string { return "cleanup" }

// InsertOpts makes the cleanup job unique: one at a time is enough.
func (CleanupArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{UniqueOpts: river.UniqueOpts{ByPeriod: time.Hour}}
}

type cleanupWorker struct {
	river.WorkerDefaults[CleanupArgs]
	db *db.DB
}

func (w *cleanupWorker) Work(ctx context.Context, _ *river.Job[CleanupArgs]) error {
	return Cleanup(ctx, w.db, time.Now())
}

// Cleanup deletes what has expired: sessions, rate-limit windows older than a day, password
// reset tokens older than a day, idempotency keys past their day, changes of many
// transactions a day after their undo closed, sign-ins never finished,
// used SAML assertion ids, OAuth codes and tokens past their lifetime, and webhook events
// whose deliveries are gone.
func Cleanup(ctx context.Context, d *db.DB, now time.Time) error {
	if err := sso.Prune(ctx, d); err != nil {
		return err
	}
	if _, err := oauth.Prune(ctx, d, now); err != nil {
		return err
	}
	if _, err := sessions.PruneExpired(ctx, d); err != nil {
		return err
	}
	if _, err := ratelimit.Prune(ctx, d, now.Add(-24*time.Hour)); err != nil {
		return err
	}
	if _, err := webhooks.Prune(ctx, d, now); err != nil {
		return err
	}
	if _, err := idempotency.Prune(ctx, d, now); err != nil {
		return err
	}
	if _, err := models.PruneChanges(ctx, d, now); err != nil {
		return err
	}
	_, err := d.NewRaw("DELETE FROM password_resets WHERE expires_at < ?", now.Add(-24*time.Hour)).Exec(ctx)
	return err
}

// WatchDurations records how long each job the client works runs, by kind and outcome, until
// stop is called (before the client stops).
func WatchDurations(client *Client) (stop func()) {
	events, cancel := client.Subscribe(river.EventKindJobCompleted, river.EventKindJobFailed, river.EventKindJobCancelled)
	go func() {
		for ev := range events {
			if ev.Job == nil || ev.JobStats == nil {
				continue
			}
			outcome := map[river.EventKind]string{river.EventKindJobCompleted: "completed", river.EventKindJobFailed: "failed",
				river.EventKindJobCancelled: "cancelled"}[ev.Kind]
			metrics.JobDuration.WithLabelValues(ev.Job.Kind, outcome).Observe(ev.JobStats.RunDuration.Seconds())
		}
	}()
	return cancel
}
