package banksync

import (
	"context"

	"github.com/google/uuid"

	"tally/internal/db"
	"tally/models"
)

// The events a sync's end sends to whoever listens (the family's webhooks).
const (
	EventCompleted = "bank_sync.completed"
	EventFailed    = "bank_sync.failed"
)

// EventData is what a bank sync event says about the sync.
type EventData struct {
	ConnectionID uuid.UUID `json:"connection_id"`
	Name         string    `json:"name"`
	// Status is the connection's: good; failing when the sync failed and the next one tries
	// again; needs_token or needs_renewal when the provider refused it.
	Status string `json:"status"`
	// AccountIDs are the Tally accounts linked to the connection.
	AccountIDs []uuid.UUID `json:"account_ids"`
	Stats      Stats       `json:"stats"`
	Error      *string     `json:"error"`
}

// EventAccounts are the accounts the connection feeds (models.AccountsEvent).
func (d EventData) EventAccounts() []uuid.UUID { return d.AccountIDs }

// msgWriteFailed is a failed sync's error when what it read could not be written.
const msgWriteFailed = "The sync could not save what it read, so nothing was changed. Tally tries again at the next sync."

// notify tells the Notifier, if any, that c's sync ended with event, in tx.
func (s *Service) notify(ctx context.Context, tx db.Tx, c *Connection, event, status string, stats *Stats, errMsg *string) error {
	if s.Events == nil {
		return nil
	}
	accounts := []uuid.UUID{}
	if err := tx.NewRaw("SELECT account_id FROM bank_accounts WHERE connection_id = ? AND account_id IS NOT NULL ORDER BY account_id",
		c.ID).Scan(ctx, &accounts); err != nil {
		return err
	}
	data := EventData{ConnectionID: c.ID, Name: c.Name, Status: status, AccountIDs: accounts, Error: errMsg}
	if stats != nil {
		data.Stats = *stats
	}
	return s.Events.Emit(ctx, tx, c.FamilyID, event, data)
}

// differing is the set of the accounts' checkpoints that differ before the sync writes, when
// someone listens for the differences it brings.
func (s *Service) differing(ctx context.Context, tx db.Tx, familyID uuid.UUID, accounts []uuid.UUID) (map[uuid.UUID]bool, error) {
	if s.Events == nil || len(accounts) == 0 {
		return nil, nil
	}
	return models.DifferingCheckpoints(ctx, tx, familyID, accounts)
}

// notifyDifferences tells the Notifier, if any, of the checkpoints the sync made differ (a
// transaction the provider never sent shows at an earlier day's reported balance), one
// balance.differs event per account, in tx.
func (s *Service) notifyDifferences(ctx context.Context, tx db.Tx, familyID uuid.UUID, accounts []uuid.UUID, before map[uuid.UUID]bool) error {
	if s.Events == nil || len(accounts) == 0 {
		return nil
	}
	diffs, err := models.DifferencesSince(ctx, tx, familyID, accounts, before)
	if err != nil {
		return err
	}
	for _, d := range diffs {
		if err := s.Events.Emit(ctx, tx, familyID, models.EventBalanceDiffers, d); err != nil {
			return err
		}
	}
	return nil
}
