// Package sessions stores scs sessions in PostgreSQL with the user they belong to, so that all
// of a user's sessions can be revoked at once (sign out everywhere, suspension, deletion).
package sessions

import (
	"context"
	"time"

	"github.com/alexedwards/scs/v2"
	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"tally/internal/db"
)

// UserIDKey is the session key that holds the signed-in user's id.
const UserIDKey = "user_id"

// Store is an scs.CtxStore on the sessions table.
type Store struct {
	DB    bun.IDB
	Codec scs.Codec
}

var _ scs.CtxStore = (*Store)(nil)

type clientKey struct{}

type client struct{ ip, userAgent string }

// WithClient records the requesting client in ctx, for the store to keep beside the session.
func WithClient(ctx context.Context, ip, userAgent string) context.Context {
	return context.WithValue(ctx, clientKey{}, client{ip, userAgent})
}

// FindCtx returns the session data for token, if it exists and has not expired.
func (s *Store) FindCtx(ctx context.Context, token string) ([]byte, bool, error) {
	var data []byte
	err := s.DB.NewRaw("SELECT data FROM sessions WHERE token = ? AND expiry > now()", token).Scan(ctx, &data)
	if db.IsNoRows(err) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	return data, true, nil
}

// CommitCtx saves the session, and the user id found in its data.
func (s *Store) CommitCtx(ctx context.Context, token string, b []byte, expiry time.Time) error {
	var userID *uuid.UUID
	if _, values, err := s.Codec.Decode(b); err == nil {
		if v, ok := values[UserIDKey].(string); ok {
			if id, err := uuid.Parse(v); err == nil {
				userID = &id
			}
		}
	}
	cl, _ := ctx.Value(clientKey{}).(client)
	_, err := s.DB.NewRaw(`
		INSERT INTO sessions (token, data, expiry, user_id, ip_address, user_agent) VALUES (?, ?, ?, ?, ?, ?)
		ON CONFLICT (token) DO UPDATE SET data = EXCLUDED.data, expiry = EXCLUDED.expiry,
			user_id = EXCLUDED.user_id, last_seen_at = now(),
			ip_address = CASE WHEN EXCLUDED.ip_address <> '' THEN EXCLUDED.ip_address ELSE sessions.ip_address END,
			user_agent = CASE WHEN EXCLUDED.user_agent <> '' THEN EXCLUDED.user_agent ELSE sessions.user_agent END`,
		token, b, expiry.UTC(), userID, cl.ip, cl.userAgent).Exec(ctx)
	return err
}

// DeleteCtx removes the session.
func (s *Store) DeleteCtx(ctx context.Context, token string) error {
	_, err := s.DB.NewRaw("DELETE FROM sessions WHERE token = ?", token).Exec(ctx)
	return err
}

// Find, Commit and Delete satisfy scs.Store; scs calls the Ctx versions.
func (s *Store) Find(token string) ([]byte, bool, error) {
	return s.FindCtx(context.Background(), token)
}

// Commit saves the session without request context.
func (s *Store) Commit(token string, b []byte, expiry time.Time) error {
	return s.CommitCtx(context.Background(), token, b, expiry)
}

// Delete removes the session without request context.
func (s *Store) Delete(token string) error { return s.DeleteCtx(context.Background(), token) }

// RevokeUser deletes every session of the user, except the one with token keep (if any).
func RevokeUser(ctx context.Context, db bun.IDB, userID uuid.UUID, keep string) (int64, error) {
	res, err := db.NewRaw("DELETE FROM sessions WHERE user_id = ? AND token <> ?", userID, keep).Exec(ctx)
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

// PruneExpired deletes expired sessions.
func PruneExpired(ctx context.Context, db bun.IDB) (int64, error) {
	res, err := db.NewRaw("DELETE FROM sessions WHERE expiry < now()").Exec(ctx)
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}
