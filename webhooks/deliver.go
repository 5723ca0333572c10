package webhooks

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/google/uuid"

	"tally/internal/db"
	"tally/internal/netguard"
)

// Timeout bounds one delivery attempt, from connecting to the end of the answer's headers
// and the part of its body that is kept.
const Timeout = 10 * time.Second

// maxResponseBody is how much of an endpoint's answer is read and kept.
const maxResponseBody = 2 << 10

// userAgent names Tally in every delivery.
const userAgent = "Tally-Webhooks/1"

// ErrGaveUp is a delivery that will not be tried again: it ran out of retries, or its
// endpoint can no longer be sent to. The delivery and the endpoint say why.
var ErrGaveUp = errors.New("webhook delivery failed for good")

// timeLayout is how a payload writes its time, as the API does: UTC, to the millisecond.
const timeLayout = "2006-01-02T15:04:05.000Z"

// Payload is the body of every delivery.
type Payload struct {
	ID        uuid.UUID       `json:"id"`
	Type      string          `json:"type"`
	CreatedAt string          `json:"created_at"`
	Data      json.RawMessage `json:"data"`
}

// target is a delivery with what sending it needs.
type target struct {
	ID         uuid.UUID `bun:"id"`
	EndpointID uuid.UUID `bun:"endpoint_id"`
	Status     string    `bun:"status"`
	CreatedAt  time.Time `bun:"created_at"`
	URL        string    `bun:"url"`
	Secret     string    `bun:"secret"`
	Active     bool      `bun:"active"`
	EventID    uuid.UUID `bun:"event_id"`
	Type       string    `bun:"type"`
	Data       string    `bun:"data"`
	EventAt    time.Time `bun:"event_at"`
	// Private says the event is about an account that is private now: made private after
	// the event was recorded, as Emit records none about a private account.
	Private bool `bun:"private"`
}

// outcome is what one attempt got.
type outcome struct {
	status   *int
	body     *string
	err      *string
	duration time.Duration
}

// Deliver makes attempt number attempt (from 1) of a delivery: it posts the event, signed, to
// the endpoint and records the answer. It returns nil when the delivery succeeded or has
// nothing left to do (it was deleted, or is no longer pending); an error when it failed and
// should be tried again after RetryPolicy.Delay(attempt); and an error wrapping ErrGaveUp when
// it failed for good: the next attempt would come after the retry window (or last says this
// is the last one), or the endpoint can no longer be sent to. Giving up marks the endpoint
// failing; a success clears that mark.
func (s *Service) Deliver(ctx context.Context, deliveryID uuid.UUID, attempt int, last bool) error {
	var t target
	err := s.DB.NewRaw(`SELECT d.id, d.endpoint_id, d.status, d.created_at, e.url, e.secret, e.active,
			ev.id AS event_id, ev.type, ev.data::text AS data, ev.created_at AS event_at,
			EXISTS (SELECT 1 FROM accounts a WHERE a.id = ANY(ev.account_ids) AND a.private) AS private
		FROM webhook_deliveries d JOIN webhook_endpoints e ON e.id = d.endpoint_id JOIN webhook_events ev ON ev.id = d.event_id
		WHERE d.id = ?`, deliveryID).Scan(ctx, &t)
	if db.IsNoRows(err) {
		return nil // deleted with its endpoint, or pruned
	}
	if err != nil {
		return err
	}
	if t.Status != DeliveryPending {
		return nil
	}
	if !t.Active {
		msg := "The endpoint was paused before this delivery was sent."
		return s.record(ctx, &t, attempt, DeliveryFailed, outcome{err: &msg}, nil, false)
	}
	if t.Private {
		// The endpoints are the family's, and a private account is its owner's (Emit).
		msg := "Not sent: the event is about an account that was made private."
		return s.record(ctx, &t, attempt, DeliveryFailed, outcome{err: &msg}, nil, false)
	}
	if msg := s.checkURL(t.URL); msg != "" {
		// The URL was allowed when saved, and the configuration has changed since.
		return s.giveUp(ctx, &t, attempt, outcome{err: &msg})
	}
	secret, err := s.secret(t.Secret)
	if err != nil {
		return fmt.Errorf("decrypt the secret of webhook endpoint %s: %w", t.EndpointID, err)
	}
	body, err := json.Marshal(Payload{ID: t.EventID, Type: t.Type, CreatedAt: t.EventAt.UTC().Format(timeLayout),
		Data: json.RawMessage(t.Data)})
	if err != nil {
		return err
	}
	out, err := s.post(ctx, secret, &t, body)
	if err != nil {
		return err // the worker is stopping: the job runs again
	}
	if out.err == nil {
		return s.record(ctx, &t, attempt, DeliverySucceeded, out, nil, false)
	}
	next := s.now().Add(s.Retry.Delay(attempt))
	if last || next.After(t.CreatedAt.Add(s.Retry.window())) {
		return s.giveUp(ctx, &t, attempt, out)
	}
	if err := s.record(ctx, &t, attempt, DeliveryPending, out, &next, false); err != nil {
		return err
	}
	return fmt.Errorf("webhook delivery %s, attempt %d: %s", t.ID, attempt, *out.err)
}

// giveUp records the delivery as failed for good and marks its endpoint failing.
func (s *Service) giveUp(ctx context.Context, t *target, attempt int, out outcome) error {
	if err := s.record(ctx, t, attempt, DeliveryFailed, out, nil, true); err != nil {
		return err
	}
	return fmt.Errorf("%w: delivery %s after %d attempts: %s", ErrGaveUp, t.ID, attempt, *out.err)
}

// post sends the event once and reports the answer. Its error is only the context's: every
// other failure is the attempt's outcome.
func (s *Service) post(ctx context.Context, secret string, t *target, body []byte) (outcome, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, t.URL, bytes.NewReader(body))
	if err != nil {
		msg := "The URL cannot be requested."
		return outcome{err: &msg}, nil
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", userAgent)
	req.Header.Set(HeaderEventID, t.EventID.String())
	req.Header.Set(HeaderEventType, t.Type)
	start := s.now()
	req.Header.Set(HeaderSignature, Sign(secret, start, body))
	resp, err := s.httpClient().Do(req)
	var out outcome
	if err != nil {
		if ctx.Err() != nil {
			return out, ctx.Err()
		}
		out.duration = s.now().Sub(start)
		msg := describe(err)
		out.err = &msg
		return out, nil
	}
	kept, _ := io.ReadAll(io.LimitReader(resp.Body, maxResponseBody))
	resp.Body.Close()
	out.duration = s.now().Sub(start)
	status := resp.StatusCode
	out.status = &status
	if text := printable(kept); text != "" {
		out.body = &text
	}
	if status < 200 || status > 299 {
		msg := fmt.Sprintf("The endpoint answered HTTP %d.", status)
		if status >= 300 && status < 400 {
			msg = fmt.Sprintf("The endpoint answered HTTP %d, a redirect, which Tally does not follow: register the URL it points to.", status)
		}
		out.err = &msg
	}
	return out, nil
}

// record writes an attempt's outcome on the delivery, now status; next is when it is tried
// again. failing marks the endpoint failing; a success clears that mark. A finished delivery
// also prunes its endpoint's oldest finished deliveries beyond KeptDeliveries.
func (s *Service) record(ctx context.Context, t *target, attempt int, status string, out outcome, next *time.Time, failing bool) error {
	now := s.now().UTC()
	var completed *time.Time
	if status != DeliveryPending {
		completed = &now
	}
	var ms *int
	if out.duration > 0 || out.status != nil {
		n := int(out.duration.Milliseconds())
		ms = &n
	}
	return s.DB.InTx(context.WithoutCancel(ctx), func(ctx context.Context, tx db.Tx) error {
		res, err := tx.NewRaw(`UPDATE webhook_deliveries SET status = ?, attempts = attempts + 1, response_status = ?, response_body = ?,
				error = ?, duration_ms = ?, last_attempt_at = ?, next_attempt_at = ?, completed_at = ?
			WHERE id = ? AND status = 'pending'`, status, out.status, out.body, out.err, ms, now, next, completed, t.ID).Exec(ctx)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 || status == DeliveryPending {
			return nil
		}
		switch {
		case status == DeliverySucceeded:
			_, err = tx.NewRaw("UPDATE webhook_endpoints SET failing_since = NULL, updated_at = now() WHERE id = ? AND failing_since IS NOT NULL",
				t.EndpointID).Exec(ctx)
		case failing:
			_, err = tx.NewRaw("UPDATE webhook_endpoints SET failing_since = ?, updated_at = now() WHERE id = ? AND failing_since IS NULL",
				now, t.EndpointID).Exec(ctx)
			if err == nil {
				s.Log.WarnContext(ctx, "webhook endpoint failing", "endpoint_id", t.EndpointID, "delivery_id", t.ID, "attempts", attempt)
			}
		}
		if err != nil {
			return err
		}
		// Pending deliveries are never pruned: each is an event still to be sent.
		_, err = tx.NewRaw(`DELETE FROM webhook_deliveries WHERE endpoint_id = ? AND status <> 'pending' AND id NOT IN (
				SELECT id FROM webhook_deliveries WHERE endpoint_id = ? ORDER BY created_at DESC, id DESC LIMIT ?)`,
			t.EndpointID, t.EndpointID, KeptDeliveries).Exec(ctx)
		return err
	})
}

// httpClient is s.HTTP, or the client deliveries are sent with: a 10-second timeout, no
// redirects followed, no proxy, and connections only to public addresses (and loopback ones
// with AllowInsecure).
func (s *Service) httpClient() *http.Client {
	if s.HTTP != nil {
		return s.HTTP
	}
	s.once.Do(func() {
		dialer := &net.Dialer{Timeout: Timeout, Control: netguard.Control(s.AllowInsecure)}
		s.client = &http.Client{
			Timeout: Timeout,
			Transport: &http.Transport{DialContext: dialer.DialContext, TLSHandshakeTimeout: Timeout,
				MaxIdleConnsPerHost: 2, IdleConnTimeout: time.Minute},
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		}
	})
	return s.client
}

// describe says why a request got no answer, without the URL (which may hold a token).
func describe(err error) string {
	var ne net.Error
	switch {
	case errors.Is(err, netguard.ErrPrivate):
		return "The URL's host has a private address, which Tally does not send webhooks to."
	case errors.As(err, &ne) && ne.Timeout():
		return fmt.Sprintf("No answer within %d seconds.", int(Timeout.Seconds()))
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	return "No answer: " + err.Error() + "."
}

// printable is the answer's text as kept: valid UTF-8 without NUL bytes, trimmed.
func printable(b []byte) string {
	return strings.TrimSpace(strings.ReplaceAll(strings.ToValidUTF8(string(b), "\uFFFD"), "\x00", ""))
}
