package jobs

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/google/uuid"
	"github.com/riverqueue/river"

	"tally/banksync"
	"tally/internal/db"
	"tally/internal/metrics"
)

// BankSyncArgs syncs one bank connection.
type BankSyncArgs struct {
	ConnectionID uuid.UUID `json:"connection_id"`
}

// Kind names the job.
func (BankSyncArgs) Kind() string { return "bank_sync" }

// InsertOpts makes a connection's sync unique while one is queued or running: "Sync now"
// during a sync does nothing. A sync the bank failed is not retried by River: the connection
// records why, and the next scheduled (or manual) sync tries again. A sync cut short by the
// database going away, or by the worker stopping, is run again.
func (BankSyncArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{MaxAttempts: 3, UniqueOpts: river.UniqueOpts{ByArgs: true, ByState: unfinished}}
}

type bankSyncWorker struct {
	river.WorkerDefaults[BankSyncArgs]
	svc *banksync.Service
	log *slog.Logger
}

func (w *bankSyncWorker) Timeout(*river.Job[BankSyncArgs]) time.Duration { return 15 * time.Minute }

func (w *bankSyncWorker) Work(ctx context.Context, job *river.Job[BankSyncArgs]) error {
	st, err := w.svc.Sync(ctx, job.Args.ConnectionID)
	if st != nil {
		metrics.BankRequests.Add(float64(st.Requests))
	}
	if errors.Is(err, context.Canceled) || db.Unreachable(err) {
		metrics.BankSyncs.WithLabelValues("retried").Inc()
		return err
	}
	if err != nil {
		metrics.BankSyncs.WithLabelValues("failed").Inc()
		// The connection already says what went wrong; the log keeps the detail.
		w.log.WarnContext(ctx, "bank sync failed", "connection_id", job.Args.ConnectionID, "error", err.Error())
		return nil
	}
	metrics.BankSyncs.WithLabelValues("ok").Inc()
	if st != nil {
		w.log.InfoContext(ctx, "bank sync", "connection_id", job.Args.ConnectionID, "requests", st.Requests,
			"created", st.Created, "updated", st.Updated, "pending_posted", st.PendingPosted)
	}
	return err
}

// BankScheduleArgs queues the syncs that are due.
type BankScheduleArgs struct{}

// Kind names the job.
func (BankScheduleArgs) Kind() string { return "bank_sync_schedule" }

type bankScheduleWorker struct {
	river.WorkerDefaults[BankScheduleArgs]
	svc    *banksync.Service
	client func() *Client
}

// Work queues a sync for every connection that is due (banksync.Service.Due): its daily time
// has come today in its family's time zone and it has not been tried since.
func (w *bankScheduleWorker) Work(ctx context.Context, _ *river.Job[BankScheduleArgs]) error {
	due, err := w.svc.Due(ctx)
	if err != nil {
		return err
	}
	for _, id := range due {
		if _, err := w.client().Insert(ctx, BankSyncArgs{ConnectionID: id}, nil); err != nil {
			return err
		}
	}
	return nil
}

// BankConsentNoticesArgs mails the admins of European connections whose consent ends soon.
type BankConsentNoticesArgs struct{}

// Kind names the job.
func (BankConsentNoticesArgs) Kind() string { return "bank_consent_notices" }

type bankConsentNoticesWorker struct {
	river.WorkerDefaults[BankConsentNoticesArgs]
	svc *banksync.Service
}

// Work sends the notices that are due (banksync.Service.SendConsentNotices): each once per
// consent, so that running it every hour mails nobody twice.
func (w *bankConsentNoticesWorker) Work(ctx context.Context, _ *river.Job[BankConsentNoticesArgs]) error {
	_, err := w.svc.SendConsentNotices(ctx)
	return err
}

// bankJobs registers the bank sync workers, the schedule that queues due syncs and the
// hourly consent notices.
func bankJobs(workers *river.Workers, log *slog.Logger, svc *banksync.Service, client func() *Client) []*river.PeriodicJob {
	if svc == nil {
		return nil
	}
	river.AddWorker(workers, &bankSyncWorker{svc: svc, log: log})
	river.AddWorker(workers, &bankScheduleWorker{svc: svc, client: client})
	river.AddWorker(workers, &bankConsentNoticesWorker{svc: svc})
	return []*river.PeriodicJob{river.NewPeriodicJob(river.PeriodicInterval(5*time.Minute),
		func() (river.JobArgs, *river.InsertOpts) { return BankScheduleArgs{}, nil },
		&river.PeriodicJobOpts{ID: "bank_sync_schedule", RunOnStart: true}),
		river.NewPeriodicJob(river.PeriodicInterval(time.Hour),
			func() (river.JobArgs, *river.InsertOpts) { return BankConsentNoticesArgs{}, nil },
			&river.PeriodicJobOpts{ID: "bank_consent_notices", RunOnStart: true})}
}

// BankEnqueuer queues bank syncs for the web pages.
type BankEnqueuer struct{ Client *Client }

// EnqueueSync queues a sync of the connection; false when one is already queued or running.
func (e BankEnqueuer) EnqueueSync(ctx context.Context, connID uuid.UUID) (bool, error) {
	res, err := e.Client.Insert(ctx, BankSyncArgs{ConnectionID: connID}, nil)
	if err != nil {
		return false, err
	}
	return !res.UniqueSkippedAsDuplicate, nil
}
