package webhooks

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"

	"tally/internal/apperr"
	"tally/internal/db"
	"tally/models"
)

// Emit records an event of the family and queues its delivery to each of the family's active
// endpoints subscribed to eventType, inside tx: the caller's transaction, the one that makes
// the event true. Nothing is sent unless tx commits, and what commits is sent. data is the
// event's "data" object. An event nobody is subscribed to is not recorded.
//
// Nor is an event about a private account (models.AccountsEvent): the endpoints are the
// family's, set up by its admins, and a private account is kept from every member but its
// owner and those it is shared with, admins included. An event about several accounts, one of
// them private, tells of it by its counts too, so it is not sent at all.
func (s *Service) Emit(ctx context.Context, tx db.Tx, familyID uuid.UUID, eventType string, data any) error {
	// KEY SHARE keeps the endpoints from being deleted until tx ends, so that an admin deleting
	// one never makes the caller's transaction fail on its deliveries' foreign key.
	var endpoints []uuid.UUID
	if err := tx.NewRaw(`SELECT id FROM webhook_endpoints WHERE family_id = ? AND active AND ? = ANY (events)
		ORDER BY id FOR KEY SHARE`, familyID, eventType).Scan(ctx, &endpoints); err != nil {
		return fmt.Errorf("find webhook endpoints: %w", err)
	}
	if len(endpoints) == 0 {
		return nil
	}
	accounts := []uuid.UUID{}
	if about, ok := data.(models.AccountsEvent); ok {
		accounts = append(accounts, about.EventAccounts()...)
		if private, err := anyPrivate(ctx, tx, familyID, accounts); err != nil || private {
			return err
		}
	}
	if s.Jobs == nil {
		return errors.New("webhooks: no job queue to deliver with")
	}
	raw, err := json.Marshal(data)
	if err != nil {
		return fmt.Errorf("encode %s event: %w", eventType, err)
	}
	eventID, now := uuid.Must(uuid.NewV7()), s.now().UTC()
	if _, err := tx.NewRaw("INSERT INTO webhook_events (id, family_id, type, data, account_ids, created_at) VALUES (?, ?, ?, ?::jsonb, ?, ?)",
		eventID, familyID, eventType, string(raw), pgdialect.Array(accounts), now).Exec(ctx); err != nil {
		return fmt.Errorf("record %s event: %w", eventType, err)
	}
	for _, ep := range endpoints {
		if _, err := s.queue(ctx, tx, familyID, ep, eventID, nil, now); err != nil {
			return err
		}
	}
	return nil
}

// anyPrivate reports whether any of the family's accounts ids is private.
func anyPrivate(ctx context.Context, tx db.Tx, familyID uuid.UUID, ids []uuid.UUID) (bool, error) {
	if len(ids) == 0 {
		return false, nil
	}
	var private bool
	err := tx.NewRaw("SELECT EXISTS (SELECT 1 FROM accounts WHERE family_id = ? AND id = ANY(?::uuid[]) AND private)",
		familyID, pgdialect.Array(ids)).Scan(ctx, &private)
	return private, err
}

// queue inserts a pending delivery of the event to the endpoint and its job, in tx.
func (s *Service) queue(ctx context.Context, tx db.Tx, familyID, endpointID, eventID uuid.UUID, redeliveryOf *uuid.UUID, now time.Time) (uuid.UUID, error) {
	id := uuid.Must(uuid.NewV7())
	if _, err := tx.NewRaw(`INSERT INTO webhook_deliveries (id, endpoint_id, event_id, family_id, redelivery_of, created_at)
		VALUES (?, ?, ?, ?, ?, ?)`, id, endpointID, eventID, familyID, redeliveryOf, now).Exec(ctx); err != nil {
		return uuid.Nil, fmt.Errorf("record webhook delivery: %w", err)
	}
	if err := s.Jobs.EnqueueDelivery(ctx, tx, id); err != nil {
		return uuid.Nil, fmt.Errorf("queue webhook delivery: %w", err)
	}
	return id, nil
}

// Deliveries returns the newest deliveries of the family's endpoint, at most KeptDeliveries,
// but those of an event about an account kept from the viewer v (models.Viewer): an admin who
// may not see a private account learns nothing of it from the endpoint's history.
func (s *Service) Deliveries(ctx context.Context, v models.Viewer, endpointID uuid.UUID) (*Endpoint, []Delivery, error) {
	ep, err := s.Get(ctx, v.FamilyID, endpointID)
	if err != nil {
		return nil, nil, err
	}
	list := []Delivery{}
	visible, args := v.VisibleAllSQL("ev.account_ids")
	err = deliveries(s.DB).Where("wd.endpoint_id = ?", endpointID).Where(visible, args...).
		OrderExpr("wd.created_at DESC, wd.id DESC").Limit(KeptDeliveries).Scan(ctx, &list)
	return ep, list, err
}

// deliveries selects deliveries with their event's type.
func deliveries(idb bun.IDB) *bun.SelectQuery {
	return idb.NewSelect().Model((*Delivery)(nil)).ColumnExpr("wd.*").ColumnExpr("ev.type AS event_type").
		Join("JOIN webhook_events AS ev ON ev.id = wd.event_id")
}

// Redeliver sends an event of one of the family endpoint's deliveries again, as a new
// delivery with the same event id (receivers that have it already can tell), retried like
// any other. A paused endpoint is sent nothing, so it must be resumed first. A delivery of an
// event about an account kept from the viewer v is not found, as another family's.
func (s *Service) Redeliver(ctx context.Context, v models.Viewer, endpointID, deliveryID uuid.UUID) (*Delivery, error) {
	familyID := v.FamilyID
	var out Delivery
	err := s.DB.InTx(ctx, func(ctx context.Context, tx db.Tx) error {
		ep := new(Endpoint)
		err := tx.NewSelect().Model(ep).Where("id = ? AND family_id = ?", endpointID, familyID).For("KEY SHARE").Scan(ctx)
		if db.IsNoRows(err) {
			return notFound()
		}
		if err != nil {
			return err
		}
		var eventID uuid.UUID
		visible, args := v.VisibleAllSQL("ev.account_ids")
		err = tx.NewRaw("SELECT wd.event_id FROM webhook_deliveries wd JOIN webhook_events ev ON ev.id = wd.event_id WHERE wd.id = ? AND wd.endpoint_id = ? AND "+visible,
			append([]any{deliveryID, endpointID}, args...)...).Scan(ctx, &eventID)
		if db.IsNoRows(err) {
			return apperr.New(apperr.NotFound, "Delivery not found")
		}
		if err != nil {
			return err
		}
		if !ep.Active {
			return apperr.New(apperr.Conflict, "This endpoint is paused: resume it before sending it anything.").WithSlug("webhook_paused")
		}
		id, err := s.queue(ctx, tx, familyID, endpointID, eventID, &deliveryID, s.now().UTC())
		if err != nil {
			return err
		}
		return deliveries(tx).Where("wd.id = ?", id).Scan(ctx, &out)
	})
	if err != nil {
		return nil, err
	}
	return &out, nil
}

// Prune deletes the events no delivery refers to any more (their deliveries were pruned, or
// their endpoints deleted), a day after they happened.
func Prune(ctx context.Context, idb bun.IDB, now time.Time) (int64, error) {
	res, err := idb.NewRaw(`DELETE FROM webhook_events ev WHERE ev.created_at < ?
		AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.event_id = ev.id)`, now.Add(-24*time.Hour)).Exec(ctx)
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}
