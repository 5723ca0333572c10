// Package idempotency keeps the first answer to a request an API client marked with an
// Idempotency-Key, so that a retry of it (after a timeout, say) gets that answer again
// instead of doing the work twice.
package idempotency

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"time"

	"github.com/google/uuid"

	"tally/internal/apperr"
	"tally/internal/db"
)

// TTL is how long a key's answer is kept: a request with the key after that is new.
const TTL = 24 * time.Hour

// staleClaim is how long a request may hold its key unanswered before a retry may take it:
// longer than any create takes, and it covers a process that died mid-request.
const staleClaim = 2 * time.Minute

// MaxKeyLength is the longest key accepted.
const MaxKeyLength = 255

// Fingerprint is what makes two requests the same: the endpoint and the request as the
// server read it (fields and file contents, not the bytes on the wire, so a multipart
// boundary that changes between retries does not count).
func Fingerprint(endpoint string, request any) ([]byte, error) {
	h := sha256.New()
	h.Write([]byte(endpoint + "\n"))
	if err := json.NewEncoder(h).Encode(request); err != nil {
		return nil, fmt.Errorf("fingerprint request: %w", err)
	}
	return h.Sum(nil), nil
}

// Answer is a response kept for a key.
type Answer struct {
	Status int
	Body   json.RawMessage
}

// Claim reserves the user's key for a request with the fingerprint. It returns the kept
// answer when the same request was answered before (the caller sends it again), or nil when
// the caller is to do the work and then Store or Release the key. The same key with another
// request is a 422 (idempotency_key_reused); one whose first request is still running is a
// 409 (idempotency_key_in_use).
func Claim(ctx context.Context, d *db.DB, userID uuid.UUID, key string, fingerprint []byte, now time.Time) (*Answer, error) {
	if len(key) == 0 || len(key) > MaxKeyLength {
		return nil, apperr.New(apperr.BadRequest, fmt.Sprintf("The Idempotency-Key header must be 1 to %d characters, such as a UUID", MaxKeyLength)).
			WithFields(map[string][]string{"Idempotency-Key": {fmt.Sprintf("must be 1 to %d characters", MaxKeyLength)}})
	}
	var answer *Answer
	err := d.InTx(ctx, func(ctx context.Context, tx db.Tx) error {
		var row struct {
			Fingerprint []byte          `bun:"fingerprint"`
			Status      *int            `bun:"status"`
			Response    json.RawMessage `bun:"response,type:jsonb"`
			CreatedAt   time.Time       `bun:"created_at"`
			ClaimedAt   time.Time       `bun:"claimed_at"`
			Inserted    bool            `bun:"inserted"`
		}
		// The row lock makes two retries that arrive together take turns.
		err := tx.NewRaw(`INSERT INTO idempotency_keys (user_id, key, fingerprint, created_at, claimed_at) VALUES (?, ?, ?, ?, ?)
			ON CONFLICT (user_id, key) DO UPDATE SET key = EXCLUDED.key
			RETURNING fingerprint, status, response, created_at, claimed_at, xmax = 0 AS inserted`, userID, key, fingerprint, now, now).Scan(ctx, &row)
		if err != nil {
			return fmt.Errorf("claim idempotency key: %w", err)
		}
		switch {
		case row.Inserted:
			return nil
		case now.Sub(row.CreatedAt) >= TTL:
			return reclaim(ctx, tx, userID, key, fingerprint, now, true)
		case string(row.Fingerprint) != string(fingerprint):
			return apperr.New(apperr.Invalid, "This Idempotency-Key was used with a different request in the last 24 hours: use a new key for a new request").
				WithSlug("idempotency_key_reused")
		case row.Status != nil:
			answer = &Answer{Status: *row.Status, Body: row.Response}
			return nil
		case now.Sub(row.ClaimedAt) >= staleClaim:
			return reclaim(ctx, tx, userID, key, fingerprint, now, false)
		default:
			return apperr.New(apperr.Conflict, "A request with this Idempotency-Key is still running: retry in a moment").
				WithSlug("idempotency_key_in_use")
		}
	})
	return answer, err
}

// reclaim gives a key to a new request: one whose answer expired (fresh, so its 24 hours
// start again), or one whose first request never finished.
func reclaim(ctx context.Context, tx db.Tx, userID uuid.UUID, key string, fingerprint []byte, now time.Time, fresh bool) error {
	_, err := tx.NewRaw(`UPDATE idempotency_keys SET fingerprint = ?, claimed_at = ?, status = NULL, response = NULL,
			created_at = CASE WHEN ? THEN ?::timestamptz ELSE created_at END
		WHERE user_id = ? AND key = ?`, fingerprint, now, fresh, now, userID, key).Exec(ctx)
	return err
}

// Store keeps the answer to the claimed key's request.
func Store(ctx context.Context, d *db.DB, userID uuid.UUID, key string, a Answer) error {
	_, err := d.NewRaw(`UPDATE idempotency_keys SET status = ?, response = ? WHERE user_id = ? AND key = ?`,
		a.Status, string(a.Body), userID, key).Exec(ctx)
	return err
}

// Release frees the claimed key of a request that failed: errors are not kept, and a retry
// runs the request again.
func Release(ctx context.Context, d *db.DB, userID uuid.UUID, key string) error {
	_, err := d.NewRaw(`DELETE FROM idempotency_keys WHERE user_id = ? AND key = ? AND status IS NULL`, userID, key).Exec(ctx)
	return err
}

// Prune deletes the keys older than TTL.
func Prune(ctx context.Context, d *db.DB, now time.Time) (int64, error) {
	res, err := d.NewRaw(`DELETE FROM idempotency_keys WHERE created_at < ?`, now.Add(-TTL)).Exec(ctx)
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}
