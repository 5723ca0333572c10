package imports

import (
	"context"
	"time"

	"github.com/google/uuid"

	"tally/internal/db"
)

// Messages the reaper leaves on imports whose job was lost.
const (
	MsgPublishLost = "The background job stopped before this import finished. Nothing was written: its data was rolled back, so you can safely publish it again."
	MsgRevertLost  = "The background job stopped before this revert finished. Nothing was removed: its work was rolled back, so you can safely revert again."
)

// ReapLost moves imports whose publish or revert job is gone to failed or revert_failed
// (DECISIONS 9). A job's work is one transaction, so a lost job left nothing half-written.
// A job is lost when River no longer holds it as pending or running, or when it has been
// running for longer than stale. An import whose row is locked has a live job transaction
// working on it, and is left alone.
func (s *Service) ReapLost(ctx context.Context, stale time.Duration) (int, error) {
	var reaped []struct {
		ID     uuid.UUID `bun:"id"`
		Status string    `bun:"status"`
	}
	err := s.DB.InTx(ctx, func(ctx context.Context, tx db.Tx) error {
		if err := tx.NewRaw(`
			UPDATE imports i SET
				status = CASE i.status WHEN 'importing' THEN 'failed' ELSE 'revert_failed' END,
				error = CASE i.status WHEN 'importing' THEN ? ELSE ? END,
				status_changed_at = now(), updated_at = now()
			WHERE i.id IN (
				SELECT l.id FROM imports l
				LEFT JOIN river_job j ON j.id = l.job_id
				WHERE l.status IN ('importing', 'reverting') AND l.status_changed_at < now() - interval '1 minute'
					AND (j.id IS NULL OR j.state IN ('completed', 'discarded', 'cancelled') OR l.status_changed_at < ?)
				FOR NO KEY UPDATE OF l SKIP LOCKED)
			RETURNING i.id, i.status`, MsgPublishLost, MsgRevertLost, s.now().Add(-stale)).Scan(ctx, &reaped); err != nil {
			return err
		}
		for _, r := range reaped {
			if r.Status != StatusFailed {
				continue
			}
			im, err := lockForUpdate(ctx, tx, r.ID)
			if err != nil {
				return err
			}
			if err := s.notify(ctx, tx, im, EventFailed, im.Error, nil); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return 0, err
	}
	for _, r := range reaped {
		s.Log.WarnContext(ctx, "import job lost", "import_id", r.ID, "status", r.Status)
	}
	return len(reaped), nil
}
