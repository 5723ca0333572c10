// Package webhooks sends a family's events (an import completed, a bank sync failed, ...) to
// the URLs its admins register, as signed JSON POSTs.
//
// An event is recorded, and a delivery job queued for each subscribed endpoint, inside the
// transaction that makes the event true (Emit), so that an endpoint hears of exactly the
// events that committed. The job posts the event, signed with the endpoint's secret
// (Sign), and retries a failed delivery on a schedule for a day (RetryPolicy); a delivery
// that runs out of retries marks its endpoint failing until a delivery succeeds or an admin
// resumes it.
package webhooks

import (
	"context"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"tally/banksync"
	"tally/imports"
	"tally/internal/db"
	"tally/internal/secrets"
	"tally/models"
)

// EventTypes are the events an endpoint can subscribe to, in the order they are offered.
var EventTypes = []string{imports.EventCompleted, imports.EventFailed, imports.EventReverted,
	banksync.EventCompleted, banksync.EventFailed, models.EventBalanceDiffers}

// Endpoint statuses, as the API and the page show them.
const (
	StatusActive  = "active"
	StatusPaused  = "paused"
	StatusFailing = "failing"
)

// Delivery statuses.
const (
	DeliveryPending   = "pending"
	DeliverySucceeded = "succeeded"
	DeliveryFailed    = "failed"
)

// KeptDeliveries is how many deliveries of an endpoint are kept and shown: the newest.
const KeptDeliveries = 50

// MaxEndpoints is how many endpoints a family may have.
const MaxEndpoints = 20

// Endpoint is a URL a family's events are sent to.
type Endpoint struct {
	bun.BaseModel `bun:"table:webhook_endpoints,alias:we"`

	ID          uuid.UUID `bun:"id,pk,type:uuid"`
	FamilyID    uuid.UUID `bun:"family_id,type:uuid"`
	URL         string    `bun:"url"`
	Description string    `bun:"description"`
	Events      []string  `bun:"events,array"`
	// Secret is the signing secret as stored: encrypted. Only Create and RotateSecret
	// return it in the clear, once.
	Secret       string     `bun:"secret"`
	Active       bool       `bun:"active"`
	FailingSince *time.Time `bun:"failing_since"`
	CreatedAt    time.Time  `bun:"created_at,nullzero,default:now()"`
	UpdatedAt    time.Time  `bun:"updated_at,nullzero,default:now()"`
}

// Status is what the endpoint's admins see: paused, failing (its last delivery ran out of
// retries) or active.
func (e *Endpoint) Status() string {
	switch {
	case !e.Active:
		return StatusPaused
	case e.FailingSince != nil:
		return StatusFailing
	}
	return StatusActive
}

// Delivery is one delivery of an event to an endpoint, with its attempts so far.
type Delivery struct {
	bun.BaseModel `bun:"table:webhook_deliveries,alias:wd"`

	ID         uuid.UUID `bun:"id,pk,type:uuid"`
	EndpointID uuid.UUID `bun:"endpoint_id,type:uuid"`
	EventID    uuid.UUID `bun:"event_id,type:uuid"`
	FamilyID   uuid.UUID `bun:"family_id,type:uuid"`
	// EventType is the event's type, read with the delivery.
	EventType      string     `bun:"event_type,scanonly"`
	Status         string     `bun:"status"`
	Attempts       int        `bun:"attempts"`
	ResponseStatus *int       `bun:"response_status"`
	ResponseBody   *string    `bun:"response_body"`
	Error          *string    `bun:"error"`
	DurationMS     *int       `bun:"duration_ms"`
	RedeliveryOf   *uuid.UUID `bun:"redelivery_of,type:uuid"`
	LastAttemptAt  *time.Time `bun:"last_attempt_at"`
	NextAttemptAt  *time.Time `bun:"next_attempt_at"`
	CompletedAt    *time.Time `bun:"completed_at"`
	CreatedAt      time.Time  `bun:"created_at"`
}

// Enqueuer queues a delivery's job inside the caller's transaction, so that the job exists
// if and only if the delivery's row commits.
type Enqueuer interface {
	EnqueueDelivery(ctx context.Context, tx db.Tx, deliveryID uuid.UUID) error
}

// RetryPolicy is when a failed delivery is tried again.
type RetryPolicy struct {
	// Delays are the waits after the first, second, ... failed attempt; the last one repeats.
	Delays []time.Duration
	// Window is how long after a delivery was created it may still be tried: an attempt that
	// would come later is not made, and the delivery fails.
	Window time.Duration
}

// DefaultRetry tries a delivery 12 times over 24 hours: after 30 seconds, 2 and 10 minutes,
// half an hour, 1 and 2 hours, then every 4 hours.
var DefaultRetry = RetryPolicy{
	Delays: []time.Duration{30 * time.Second, 2 * time.Minute, 10 * time.Minute, 30 * time.Minute, time.Hour,
		2 * time.Hour, 4 * time.Hour},
	Window: 24 * time.Hour,
}

// Delay is the wait after failed attempt number attempt (from 1).
func (p RetryPolicy) Delay(attempt int) time.Duration {
	d := p.Delays
	if len(d) == 0 {
		d = DefaultRetry.Delays
	}
	return d[min(max(attempt, 1), len(d))-1]
}

func (p RetryPolicy) window() time.Duration {
	if p.Window <= 0 {
		return DefaultRetry.Window
	}
	return p.Window
}

// Service keeps a family's endpoints and delivers its events to them.
type Service struct {
	DB   *db.DB
	Keys *secrets.Keys
	// Jobs queues deliveries; it is set once the job client exists.
	Jobs Enqueuer
	Log  *slog.Logger
	// AllowInsecure accepts http and loopback URLs (WEBHOOKS_ALLOW_INSECURE), for local
	// development and tests; private and link-local addresses are refused whatever it says.
	AllowInsecure bool
	// Retry is when failed deliveries are tried again; the zero value is DefaultRetry.
	Retry RetryPolicy
	// HTTP sends the deliveries; nil builds a client with a 10-second timeout that follows
	// no redirects and refuses private addresses.
	HTTP *http.Client
	// Now is the clock; nil means time.Now.
	Now func() time.Time

	once   sync.Once
	client *http.Client
}

func (s *Service) now() time.Time {
	if s.Now != nil {
		return s.Now()
	}
	return time.Now()
}

// secretColumn holds each endpoint's signing secret, encrypted.
var secretColumn = secrets.Column{Table: "webhook_endpoints", Key: "id", Name: "secret"}

// EncryptedColumns are this package's encrypted columns.
var EncryptedColumns = []secrets.Column{secretColumn}
