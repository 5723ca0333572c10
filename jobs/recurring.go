package jobs

import (
	"context"
	"log/slog"
	"time"

	"github.com/google/uuid"
	"github.com/riverqueue/river"

	"tally/banksync"
	"tally/imports"
	"tally/internal/db"
	"tally/models"
	"tally/recurring"
)

// DetectRecurringArgs asks for a family's recurring series to be found: in the groups of an
// import's transactions, of those a bank sync wrote to some accounts since a moment, or (Full)
// in the whole history.
type DetectRecurringArgs struct {
	FamilyID   uuid.UUID   `json:"family_id"`
	ImportID   *uuid.UUID  `json:"import_id,omitempty"`
	AccountIDs []uuid.UUID `json:"account_ids,omitempty"`
	Since      time.Time   `json:"since"`
	Full       bool        `json:"full,omitempty"`
}

// Kind names the job.
func (DetectRecurringArgs) Kind() string { return "recurring_detect" }

// InsertOpts retries a detection a few times: it is idempotent, and a later one redoes it. A
// detection is unique by its arguments while it waits or runs, so that a family has one
// detection of its whole history queued however often a person asks for it (the same goes for
// an import's or a sync's, should one be queued twice); once it has finished, the next may be
// queued.
func (DetectRecurringArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{MaxAttempts: 3, UniqueOpts: river.UniqueOpts{ByArgs: true, ByState: unfinished}}
}

type recurringWorker struct {
	river.WorkerDefaults[DetectRecurringArgs]
	db  *db.DB
	svc *recurring.Service
	log *slog.Logger
}

// Timeout bounds a detection: a whole history of 500,000 transactions takes seconds.
func (w *recurringWorker) Timeout(*river.Job[DetectRecurringArgs]) time.Duration {
	return 5 * time.Minute
}

func (w *recurringWorker) Work(ctx context.Context, job *river.Job[DetectRecurringArgs]) error {
	a := job.Args
	fam, err := models.FamilyByID(ctx, w.db, a.FamilyID)
	if err != nil {
		return err
	}
	var res recurring.Result
	err = w.db.InTx(ctx, func(ctx context.Context, tx db.Tx) error {
		if a.Full {
			res, err = w.svc.Detect(ctx, tx, a.FamilyID, fam.Today())
		} else {
			res, err = w.svc.DetectNew(ctx, tx, a.FamilyID, recurring.Scope{ImportID: a.ImportID, AccountIDs: a.AccountIDs, Since: a.Since}, fam.Today())
		}
		return err
	})
	if err == nil {
		w.log.InfoContext(ctx, "recurring detection", "family_id", a.FamilyID, "read", res.Read, "found", res.Found,
			"created", res.Created, "updated", res.Updated, "removed", res.Removed, "dropped", res.Dropped)
	}
	return err
}

// notifiers tells each of its notifiers, in order.
type notifiers []models.Notifier

// Emit tells every notifier of the event, inside tx.
func (ns notifiers) Emit(ctx context.Context, tx db.Tx, familyID uuid.UUID, eventType string, data any) error {
	for _, n := range ns {
		if err := n.Emit(ctx, tx, familyID, eventType, data); err != nil {
			return err
		}
	}
	return nil
}

// RecurringEnqueuer queues a detection of recurring series after every import that completes
// and every bank sync that completes, in the transaction that records its end, so that the
// job exists if and only if the new transactions do.
type RecurringEnqueuer struct{ Client *Client }

// Emit queues the detection for the completed import's transactions, or for those the sync
// wrote in this transaction (created at its start time).
func (e *RecurringEnqueuer) Emit(ctx context.Context, tx db.Tx, familyID uuid.UUID, eventType string, data any) error {
	args := DetectRecurringArgs{FamilyID: familyID}
	switch d := data.(type) {
	case imports.EventData:
		if eventType != imports.EventCompleted || d.TransactionsCount == 0 {
			return nil
		}
		id := d.ImportID
		args.ImportID = &id
	case banksync.EventData:
		if eventType != banksync.EventCompleted || len(d.AccountIDs) == 0 {
			return nil
		}
		args.AccountIDs = d.AccountIDs
		if err := tx.NewRaw("SELECT transaction_timestamp()").Scan(ctx, &args.Since); err != nil {
			return err
		}
	default:
		return nil
	}
	if e.Client == nil {
		return nil
	}
	_, err := e.Client.InsertTx(ctx, tx.Pgx, args, nil)
	return err
}

// RecurringQueue queues detections that a person asks for.
type RecurringQueue struct{ Client *Client }

// EnqueueDetection queues a detection over the family's whole history.
func (q RecurringQueue) EnqueueDetection(ctx context.Context, familyID uuid.UUID) error {
	_, err := q.Client.Insert(ctx, DetectRecurringArgs{FamilyID: familyID, Full: true}, nil)
	return err
}
