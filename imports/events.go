package imports

import (
	"context"

	"github.com/google/uuid"
	"github.com/uptrace/bun/dialect/pgdialect"

	"tally/internal/db"
	"tally/models"
)

// The events an import's end sends to whoever listens (the family's webhooks).
const (
	EventCompleted = "import.completed"
	EventFailed    = "import.failed"
	EventReverted  = "import.reverted"
)

// EventData is what an import event says about the import.
type EventData struct {
	ImportID           uuid.UUID   `json:"import_id"`
	Type               Type        `json:"type"`
	Status             string      `json:"status"`
	AccountID          *uuid.UUID  `json:"account_id"`
	RowsCount          int         `json:"rows_count"`
	ValidRowsCount     int         `json:"valid_rows_count"`
	DuplicateRowsCount int         `json:"duplicate_rows_count"`
	TransactionsCount  int         `json:"transactions_count"`
	AccountIDs         []uuid.UUID `json:"account_ids"`
	Error              *string     `json:"error"`
}

// EventAccounts are the accounts the import read into (models.AccountsEvent).
func (d EventData) EventAccounts() []uuid.UUID {
	if d.AccountID == nil {
		return d.AccountIDs
	}
	return append([]uuid.UUID{*d.AccountID}, d.AccountIDs...)
}

// footprint is what an import's entries touch: its transactions and their accounts.
type footprint struct {
	Transactions int
	Accounts     []uuid.UUID
}

// footprintOf counts the import's transactions and lists their accounts, as tx sees them.
func footprintOf(ctx context.Context, tx db.Tx, id uuid.UUID) (footprint, error) {
	var f footprint
	err := tx.NewRaw(`SELECT count(*) FILTER (WHERE kind = 'transaction'), coalesce(array_agg(DISTINCT account_id), '{}')
		FROM entries WHERE import_id = ?`, id).Scan(ctx, &f.Transactions, pgdialect.Array(&f.Accounts))
	return f, err
}

// footprintFor is footprintOf when someone listens for events, else nothing: a revert takes
// it before it removes the entries.
func (s *Service) footprintFor(ctx context.Context, tx db.Tx, id uuid.UUID) (*footprint, error) {
	if s.Events == nil {
		return nil, nil
	}
	f, err := footprintOf(ctx, tx, id)
	return &f, err
}

// eventStatus is the status an import has after each event.
var eventStatus = map[string]string{EventCompleted: StatusComplete, EventFailed: StatusFailed, EventReverted: StatusPending}

// notify tells the Notifier, if any, that the import ended with event, in tx: errMsg is why
// it failed, and f what its entries touched (read here after a publish; a revert passes what
// they touched before it removed them).
func (s *Service) notify(ctx context.Context, tx db.Tx, im *Import, event string, errMsg *string, f *footprint) error {
	if s.Events == nil {
		return nil
	}
	if f == nil {
		f = &footprint{}
		if event == EventCompleted {
			var err error
			if *f, err = footprintOf(ctx, tx, im.ID); err != nil {
				return err
			}
		}
	}
	if f.Accounts == nil {
		f.Accounts = []uuid.UUID{}
	}
	duplicates := im.DuplicateRowsCount
	if event == EventCompleted {
		// The publish counts them as it writes; the import row read before it does not yet.
		if err := tx.NewRaw("SELECT duplicate_rows_count FROM imports WHERE id = ?", im.ID).Scan(ctx, &duplicates); err != nil {
			return err
		}
	}
	if err := s.Events.Emit(ctx, tx, im.FamilyID, event, EventData{
		ImportID: im.ID, Type: im.Type, Status: eventStatus[event], AccountID: im.AccountID, RowsCount: im.RowsCount,
		ValidRowsCount: im.ValidRowsCount, DuplicateRowsCount: duplicates, TransactionsCount: f.Transactions,
		AccountIDs: f.Accounts, Error: errMsg,
	}); err != nil || event != EventCompleted {
		return err
	}
	// The balances it brought that the ledger does not meet, one event an account.
	diffs, err := models.NewDifferences(ctx, tx, im.FamilyID, im.ID)
	if err != nil {
		return err
	}
	for _, d := range diffs {
		if err := s.Events.Emit(ctx, tx, im.FamilyID, models.EventBalanceDiffers, d); err != nil {
			return err
		}
	}
	return nil
}
