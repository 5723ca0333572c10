package jobs

import (
	"context"
	"errors"
	"time"

	"github.com/google/uuid"
	"github.com/riverqueue/river"

	"tally/internal/db"
	"tally/webhooks"
)

// WebhookDeliveryArgs sends one webhook delivery.
type WebhookDeliveryArgs struct {
	DeliveryID uuid.UUID `json:"delivery_id"`
}

// Kind names the job.
func (WebhookDeliveryArgs) Kind() string { return "webhook_delivery" }

// InsertOpts gives a delivery more attempts than its retry window holds: the window, not
// River, decides when it stops (webhooks.RetryPolicy).
func (WebhookDeliveryArgs) InsertOpts() river.InsertOpts { return river.InsertOpts{MaxAttempts: 25} }

type webhookWorker struct {
	river.WorkerDefaults[WebhookDeliveryArgs]
	svc *webhooks.Service
}

// Timeout leaves room for the 10-second request and the writes around it.
func (w *webhookWorker) Timeout(*river.Job[WebhookDeliveryArgs]) time.Duration {
	return 30 * time.Second
}

// NextRetry follows the delivery's retry schedule rather than River's.
func (w *webhookWorker) NextRetry(job *river.Job[WebhookDeliveryArgs]) time.Time {
	return time.Now().Add(w.svc.Retry.Delay(job.Attempt))
}

func (w *webhookWorker) Work(ctx context.Context, job *river.Job[WebhookDeliveryArgs]) error {
	err := w.svc.Deliver(ctx, job.Args.DeliveryID, job.Attempt, job.Attempt >= job.MaxAttempts)
	if errors.Is(err, webhooks.ErrGaveUp) {
		return river.JobCancel(err)
	}
	return err
}

// WebhookEnqueuer queues webhook deliveries in the caller's transaction.
type WebhookEnqueuer struct{ Client *Client }

var _ webhooks.Enqueuer = WebhookEnqueuer{}

// EnqueueDelivery inserts the delivery's job inside tx.
func (e WebhookEnqueuer) EnqueueDelivery(ctx context.Context, tx db.Tx, deliveryID uuid.UUID) error {
	_, err := e.Client.InsertTx(ctx, tx.Pgx, WebhookDeliveryArgs{DeliveryID: deliveryID}, nil)
	return err
}
