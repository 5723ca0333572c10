package jobs

import (
	"context"
	"log/slog"
	"time"

	"github.com/google/uuid"
	"github.com/riverqueue/river"

	"tally/imports"
	"tally/internal/db"
	"tally/internal/metrics"
	"tally/models"
)

// PublishImportArgs asks for an import to be published.
type PublishImportArgs struct {
	ImportID uuid.UUID `json:"import_id"`
}

// Kind names the job.
func (PublishImportArgs) Kind() string { return "import_publish" }

// RevertImportArgs asks for an import's data to be removed.
type RevertImportArgs struct {
	ImportID uuid.UUID `json:"import_id"`
	// ByUserID is the member who asked for the revert: the records it changes back (rather
	// than removes) record them as their last change's maker.
	ByUserID *uuid.UUID `json:"by_user_id,omitempty"`
}

// Kind names the job.
func (RevertImportArgs) Kind() string { return "import_revert" }

// ReapImportsArgs asks for imports whose job was lost to be marked failed.
type ReapImportsArgs struct{}

// Kind names the job.
func (ReapImportsArgs) Kind() string { return "import_reap" }

// InsertOpts keeps one reaper in the queue at a time.
func (ReapImportsArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{UniqueOpts: river.UniqueOpts{ByPeriod: time.Minute}}
}

type publishWorker struct {
	river.WorkerDefaults[PublishImportArgs]
	svc     *imports.Service
	timeout time.Duration
}

// Timeout bounds a publish. A 10 MB file takes seconds; the bound is generous because a
// stuck job is only handed to another worker after it.
func (w *publishWorker) Timeout(*river.Job[PublishImportArgs]) time.Duration { return w.timeout }

func (w *publishWorker) Work(ctx context.Context, job *river.Job[PublishImportArgs]) error {
	return measured(ctx, w.svc, "publish", imports.StatusComplete, job.Args.ImportID, w.svc.RunPublish)
}

type revertWorker struct {
	river.WorkerDefaults[RevertImportArgs]
	svc     *imports.Service
	timeout time.Duration
}

func (w *revertWorker) Timeout(*river.Job[RevertImportArgs]) time.Duration { return w.timeout }

func (w *revertWorker) Work(ctx context.Context, job *river.Job[RevertImportArgs]) error {
	if job.Args.ByUserID != nil {
		ctx = models.WithActor(ctx, models.MemberActor(*job.Args.ByUserID))
	}
	return measured(ctx, w.svc, "revert", imports.StatusPending, job.Args.ImportID, w.svc.RunRevert)
}

// measured runs an import's publish or revert and counts it: its duration, its outcome (ok
// when the import ends in done, failed when it ends otherwise, retried when the job returns an
// error for River to run it again), and the rows a publish wrote.
func measured(ctx context.Context, svc *imports.Service, job, done string, id uuid.UUID, run func(context.Context, uuid.UUID) error) error {
	start := time.Now()
	err := run(ctx, id)
	var im struct {
		Type   string `bun:"type"`
		Status string `bun:"status"`
		Rows   int    `bun:"valid_rows_count"`
	}
	if qerr := svc.DB.NewRaw("SELECT type, status, valid_rows_count FROM imports WHERE id = ?", id).Scan(context.WithoutCancel(ctx), &im); qerr != nil {
		return err // the import is gone (or the database is): nothing to count it by
	}
	outcome := "failed"
	switch {
	case err != nil:
		outcome = "retried"
	case im.Status == done:
		outcome = "ok"
		if job == "publish" {
			metrics.ImportRowsPublished.WithLabelValues(im.Type).Add(float64(im.Rows))
		}
	}
	metrics.ImportJobs.WithLabelValues(job, im.Type, outcome).Inc()
	metrics.ImportDuration.WithLabelValues(job, im.Type).Observe(time.Since(start).Seconds())
	return err
}

type reapWorker struct {
	river.WorkerDefaults[ReapImportsArgs]
	svc *imports.Service
}

func (w *reapWorker) Work(ctx context.Context, _ *river.Job[ReapImportsArgs]) error {
	_, err := w.svc.ReapLost(ctx, 2*time.Hour)
	return err
}

// NewImports returns the import service and the River client that runs its jobs, wired to
// each other: the service enqueues through the client, whose workers call the service.
func NewImports(d *db.DB, log *slog.Logger, limits imports.Limits, opts Options) (*imports.Service, *Client, error) {
	svc := &imports.Service{DB: d, Limits: limits, Log: log}
	// Imports and bank syncs tell the family's webhooks how they ended, and queue the
	// detection of recurring series in their new transactions.
	rec := &RecurringEnqueuer{}
	events := notifiers{rec}
	if opts.Webhooks != nil {
		events = notifiers{opts.Webhooks, rec}
	}
	svc.Events = events
	if opts.Bank != nil {
		opts.Bank.Events = events
	}
	opts.Imports = svc
	client, err := New(d, log, opts)
	if err != nil {
		return nil, nil, err
	}
	svc.Jobs = Enqueuer{Client: client}
	rec.Client = client
	return svc, client, nil
}

// Enqueuer inserts import jobs in the caller's transaction.
type Enqueuer struct{ Client *Client }

var _ imports.Enqueuer = Enqueuer{}

// EnqueuePublish inserts a publish job for the import inside tx.
func (e Enqueuer) EnqueuePublish(ctx context.Context, tx db.Tx, importID uuid.UUID) (int64, error) {
	res, err := e.Client.InsertTx(ctx, tx.Pgx, PublishImportArgs{ImportID: importID}, &river.InsertOpts{MaxAttempts: 5})
	if err != nil {
		return 0, err
	}
	return res.Job.ID, nil
}

// EnqueueRevert inserts a revert job for the import inside tx, for the member of ctx's actor.
func (e Enqueuer) EnqueueRevert(ctx context.Context, tx db.Tx, importID uuid.UUID) (int64, error) {
	args := RevertImportArgs{ImportID: importID, ByUserID: models.ActorOf(ctx).UserID}
	res, err := e.Client.InsertTx(ctx, tx.Pgx, args, &river.InsertOpts{MaxAttempts: 5})
	if err != nil {
		return 0, err
	}
	return res.Job.ID, nil
}
