package imports

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"

	"tally/internal/apperr"
	"tally/internal/db"
	"tally/rules"
	"tally/transfers"
)

// Publish checks that the family's import can be published and queues it: the status becomes
// importing and the job is enqueued in one transaction. A rejection leaves the import as it
// was.
func (s *Service) Publish(ctx context.Context, familyID, id uuid.UUID) error {
	err := s.queue(ctx, familyID, id, StatusImporting, "publish_failed", s.Jobs.EnqueuePublish,
		func(ctx context.Context, tx db.Tx, im *Import) error {
			switch im.Status {
			case StatusPending, StatusFailed:
			case StatusImporting:
				return apperr.New(apperr.Conflict, "The import is already being published.").WithSlug("already_importing")
			default:
				return apperr.Errorf(apperr.Conflict, "An import that is %s cannot be published: revert it first.", im.Status).WithSlug("not_publishable")
			}
			if im.Session {
				if err := s.checkSession(ctx, tx, im); err != nil {
					return err
				}
			}
			if im.Type.Native() {
				return s.checkNativePublish(ctx, tx, im)
			}
			if im.RowsCount > s.Limits.MaxRows {
				return apperr.Errorf(apperr.Invalid, "Import was uploaded but has too many rows to publish: %d rows, the limit is %d.", im.RowsCount, s.Limits.MaxRows).
					WithSlug("max_row_count_exceeded")
			}
			d, err := Describe(ctx, tx, im)
			if err != nil || d.StatusDetail.Publishable {
				return err
			}
			e := apperr.New(apperr.Invalid, "Import was uploaded but cannot be published.").WithSlug("not_publishable")
			e.Fields = map[string][]string{"import": d.Problems}
			if d.Stats.InvalidRowsCount > 0 {
				if e.Fields["rows"], err = rowProblems(ctx, tx, im.ID, 20); err != nil {
					return err
				}
			}
			return e
		})
	if e := apperr.As(err); e != nil && e.Slug == "preflight_failed" {
		// The refusal is the import's state too: it failed, and says why.
		problems, _ := e.Details.([]Finding)
		msg := preflightFailedMessage(problems)
		if markErr := s.DB.InTx(ctx, func(ctx context.Context, tx db.Tx) error {
			// Only if nothing moved it on meanwhile (another publish, a new chunk).
			im, err := lockForUpdate(ctx, tx, id)
			if err != nil || (im.Status != StatusPending && im.Status != StatusFailed) {
				return err
			}
			if _, err := tx.NewUpdate().Model((*Import)(nil)).Where("id = ?", id).Set("problems = ?", capFindings(problems)).Exec(ctx); err != nil {
				return err
			}
			if err := setStatus(ctx, tx, id, StatusFailed, &msg, nil); err != nil {
				return err
			}
			return s.notify(ctx, tx, im, EventFailed, &msg, nil)
		}); markErr != nil {
			return markErr
		}
	}
	return err
}

// queue moves the family's import to status and enqueues its job, in one transaction under the
// import's lock, when check allows it.
func (s *Service) queue(ctx context.Context, familyID, id uuid.UUID, status, failSlug string,
	enqueue func(context.Context, db.Tx, uuid.UUID) (int64, error),
	check func(context.Context, db.Tx, *Import) error) error {
	return s.DB.InTx(ctx, func(ctx context.Context, tx db.Tx) error {
		im, err := lockForUpdate(ctx, tx, id)
		if err != nil {
			return err
		}
		if im.FamilyID != familyID {
			return importNotFound()
		}
		if err := check(ctx, tx, im); err != nil {
			return err
		}
		jobID, err := enqueue(ctx, tx, im.ID)
		if err != nil {
			msg := "Import was uploaded but could not be queued for processing."
			if status == StatusReverting {
				msg = "The revert could not be queued for processing."
			}
			return &apperr.Error{Code: apperr.Internal, Slug: failSlug, Message: msg, Err: err}
		}
		return setStatus(ctx, tx, im.ID, status, nil, &jobID)
	})
}

// rowProblems describes up to limit invalid rows: "Row 3 (line 4): Date is required".
func rowProblems(ctx context.Context, tx db.Tx, importID uuid.UUID, limit int) ([]string, error) {
	var out []string
	err := tx.NewRaw(`
		SELECT format('Row %s (line %s): %s', row_number, line, array_to_string(errors, '; '))
		FROM import_rows WHERE import_id = ? AND cardinality(errors) > 0 ORDER BY row_number LIMIT ?`,
		importID, limit).Scan(ctx, &out)
	return out, err
}

func setStatus(ctx context.Context, tx db.Tx, id uuid.UUID, status string, errMsg *string, jobID *int64) error {
	q := tx.NewUpdate().Model((*Import)(nil)).Where("id = ?", id).
		Set("status = ?", status).Set("error = ?", errMsg).
		Set("status_changed_at = now()").Set("updated_at = now()")
	if jobID != nil {
		q = q.Set("job_id = ?", *jobID)
		if _, err := tx.NewRaw("DELETE FROM import_progress WHERE import_id = ?", id).Exec(ctx); err != nil {
			return err
		}
	}
	_, err := q.Exec(ctx)
	return err
}

// RunPublish is the publish job. It writes everything in one transaction that also marks the
// import complete, so a lost or repeated job can never write twice: a second run finds the
// import no longer importing and does nothing. A failure rolls everything back and marks the
// import failed with the reason.
func (s *Service) RunPublish(ctx context.Context, id uuid.UUID) error {
	if err := timed(ctx, "statistics", func(ctx context.Context) error { _, err := s.DB.NewRaw(analyzeStaged).Exec(ctx); return err }); err != nil {
		return s.finish(ctx, id, StatusImporting, StatusFailed, "publish", err)
	}
	written := 0
	err := s.DB.InTx(ctx, func(ctx context.Context, tx db.Tx) error {
		im, err := lockForUpdate(ctx, tx, id)
		if err != nil {
			return err
		}
		if im.Status != StatusImporting {
			s.Log.InfoContext(ctx, "publish job found the import not importing: nothing to do", "import_id", id, "status", im.Status)
			return nil
		}
		p := &publisher{svc: s, tx: tx, im: im}
		run := p.run
		if im.Type.Native() {
			run = func(ctx context.Context) error { return s.publishNative(ctx, tx, im) }
		}
		if err := run(ctx); err != nil {
			return err
		}
		// The rows it wrote, about: a file published again writes none, and analyzes nothing.
		written = im.ValidRowsCount - p.duplicates
		// The family's rules run over what the import wrote, in the same transaction, unless
		// they ran over its rows before they were written (stageRules). A Sure or Tally export
		// is history its own app's rules and its people already categorised, and is taken as
		// it is (its rules run on what comes after it).
		if !im.Type.Native() && !p.rulesRan {
			if err := timed(ctx, "rules", func(ctx context.Context) error {
				_, err := (rules.Runner{Log: s.Log}).Run(ctx, tx, im.FamilyID, rules.Scope{ImportID: &id})
				return err
			}); err != nil {
				return err
			}
		}
		if err := timed(ctx, "merchants", p.dropUnusedMerchants); err != nil {
			return err
		}
		// Then transfers between the family's accounts are proposed, unless they were with
		// the rows (matchTransfers); an export names its own.
		if !im.Type.Native() && p.transfers == nil {
			if err := timed(ctx, "transfers", func(ctx context.Context) error {
				_, err := transfers.Match(ctx, tx, im.FamilyID, transfers.Scope{ImportID: &id})
				return err
			}); err != nil {
				return err
			}
		}
		_, err = tx.NewUpdate().Model((*Import)(nil)).Where("id = ?", id).
			Set("status = ?", StatusComplete).Set("error = NULL").
			Set("duplicate_rows_count = ?", p.duplicates).Set("likely_duplicate_rows_count = ?", p.likely).
			Set("status_changed_at = now()").Set("updated_at = now()").Exec(ctx)
		if err != nil {
			return err
		}
		return s.notify(ctx, tx, im, EventCompleted, nil, nil)
	})
	if err == nil {
		_ = timed(ctx, "entry statistics", func(ctx context.Context) error { s.refreshEntryStatistics(ctx, written); return nil })
	}
	return s.finish(ctx, id, StatusImporting, StatusFailed, "publish", err)
}

// refreshEntryStatistics analyzes entries after a publish of rows that grew it by a fifth or
// more of what the planner last counted, as the first large import into a young database
// does. Autovacuum would, within a minute or so; until then the planner plans the next import's
// duplicate search and the family's pages for the table it last saw, an empty one, which on
// a re-import of the same file took three times as long. A large database is not analyzed
// after each ordinary import. Best effort: the publish is done and committed.
func (s *Service) refreshEntryStatistics(ctx context.Context, rows int) {
	if rows < 1_000 {
		return
	}
	ctx = context.WithoutCancel(ctx)
	var known float64
	if err := s.DB.NewRaw("SELECT greatest(reltuples, 0) FROM pg_class WHERE oid = 'entries'::regclass").Scan(ctx, &known); err != nil {
		return
	}
	if float64(rows) < known/5 {
		return
	}
	if _, err := s.DB.NewRaw("ANALYZE entries").Exec(ctx); err != nil {
		s.Log.WarnContext(ctx, "analyze entries after a large publish", "error", err.Error())
	}
}

// finish records a failed job on the import, unless the failure is the worker shutting down or
// the database going away, which River retries.
func (s *Service) finish(ctx context.Context, id uuid.UUID, running, failed, what string, err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) || db.Unreachable(err) {
		// The worker is stopping, or the database went away (restarted, unreachable): the
		// transaction rolled back, and River runs the job again.
		return err
	}
	msg := failureMessage(what, err)
	if e := apperr.As(err); e == nil || e.Code == apperr.Internal {
		s.Log.ErrorContext(ctx, what+" failed", "import_id", id, "error", err.Error())
	}
	cause := err
	markErr := s.DB.InTx(context.WithoutCancel(ctx), func(ctx context.Context, tx db.Tx) error {
		im, err := lockForUpdate(ctx, tx, id)
		if err != nil || im.Status != running {
			return err
		}
		if im.Type.Native() && running == StatusImporting {
			rb := failedReadback(ctx, tx, im, msg, s.now().UTC())
			if _, err := tx.NewUpdate().Model(im).Set("readback = ?", rb).WherePK().Exec(ctx); err != nil {
				return err
			}
			if err := markChunks(ctx, tx, im, ChunkFailed, cause); err != nil {
				return err
			}
		}
		if err := setStatus(ctx, tx, id, failed, &msg, nil); err != nil {
			return err
		}
		if running == StatusImporting {
			return s.notify(ctx, tx, im, EventFailed, &msg, nil)
		}
		return nil
	})
	return markErr
}

// failureMessage is what the import's error says: the client-safe message of a coded error,
// else a generic sentence (the cause is in the log).
func failureMessage(what string, err error) string {
	if e := apperr.As(err); e != nil && e.Code != apperr.Internal {
		return e.Message
	}
	return fmt.Sprintf("The %s failed unexpectedly and nothing was written. The error has been logged; try again, and contact your administrator if it fails again.", what)
}

// progress records how far a running job is. It writes outside the job's transaction, so
// that the import's page can show it while the transaction is still open. It is best effort
// and bounded: a job holding its transaction's connection never waits long for another.
func (s *Service) progress(ctx context.Context, id uuid.UUID, done, total int) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	_, err := s.DB.NewRaw(`INSERT INTO import_progress (import_id, done, total) VALUES (?, ?, ?)
		ON CONFLICT (import_id) DO UPDATE SET done = EXCLUDED.done, total = EXCLUDED.total, updated_at = now()`,
		id, done, total).Exec(ctx)
	if err != nil {
		s.Log.WarnContext(ctx, "record import progress", "import_id", id, "error", err.Error())
	}
}

// publishBatch is how many rows one statement of a publish writes, between progress updates.
const publishBatch = 5_000
