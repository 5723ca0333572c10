package models

import (
	"context"

	"github.com/google/uuid"

	"tally/internal/db"
)

// Notifier hears of a family's events (an import or a bank sync that ends) inside the
// transaction that records them, so that what it does commits with them or not at all. The
// webhooks service is one; imports and banksync declare their events and call it.
type Notifier interface {
	Emit(ctx context.Context, tx db.Tx, familyID uuid.UUID, eventType string, data any) error
}

// AccountsEvent is an event's data that is about accounts of the family: the webhooks, which
// send the family's events wherever its admins point them, send none about a private account.
type AccountsEvent interface {
	EventAccounts() []uuid.UUID
}
