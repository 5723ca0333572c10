package jobs

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/riverqueue/river"

	"tally/auditlog"
	"tally/internal/db"
)

// AuditRetentionArgs asks for the audit log's retention to be applied: old entries archived
// or deleted, expired archived days deleted.
type AuditRetentionArgs struct{}

// Kind names the job.
func (AuditRetentionArgs) Kind() string { return "audit_retention" }

// InsertOpts keeps it to one run a day, however many processes start that day.
func (AuditRetentionArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{UniqueOpts: river.UniqueOpts{ByPeriod: 24 * time.Hour}}
}

type auditWorker struct {
	river.WorkerDefaults[AuditRetentionArgs]
	db      *db.DB
	archive auditlog.Archive
	tier    auditlog.Retention
	log     *slog.Logger
}

// Timeout is generous: the first run on an old log archives many days. Each day is its own
// transaction, so a run cut short loses nothing and the next one carries on.
func (w *auditWorker) Timeout(*river.Job[AuditRetentionArgs]) time.Duration { return time.Hour }

func (w *auditWorker) Work(ctx context.Context, _ *river.Job[AuditRetentionArgs]) error {
	res, err := auditlog.Run(ctx, w.db, w.archive, w.tier, time.Now())
	w.log.Info("audit log retention", "tier", w.tier, "archived_days", res.ArchivedDays,
		"archived_entries", res.ArchivedEntries, "deleted_entries", res.DeletedEntries, "expired_days", res.ExpiredObjects)
	return err
}

// auditJobs registers the audit retention worker and returns its daily job, which also runs
// when the client starts; nothing when opts names no tier.
func auditJobs(workers *river.Workers, d *db.DB, log *slog.Logger, opts Options) ([]*river.PeriodicJob, error) {
	if opts.AuditRetention == "" {
		return nil, nil
	}
	w := &auditWorker{db: d, tier: opts.AuditRetention, log: log}
	if opts.AuditRetention.Archives() {
		var err error
		if w.archive, err = auditlog.Open(opts.AuditArchiveURL); err != nil {
			return nil, fmt.Errorf("audit archive %q: %w", opts.AuditArchiveURL, err)
		}
	}
	river.AddWorker(workers, w)
	return []*river.PeriodicJob{river.NewPeriodicJob(river.PeriodicInterval(24*time.Hour),
		func() (river.JobArgs, *river.InsertOpts) { return AuditRetentionArgs{}, nil },
		&river.PeriodicJobOpts{ID: "audit_retention", RunOnStart: true})}, nil
}
