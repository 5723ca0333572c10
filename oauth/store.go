package oauth

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"time"

	"github.com/google/uuid"
	"github.com/ory/fosite"
	"github.com/uptrace/bun"

	"tally/auditlog"
	"tally/internal/db"
)

// Token kinds, as stored.
const (
	kindCode    = "code"
	kindPKCE    = "pkce"
	kindAccess  = "access"
	kindRefresh = "refresh"
)

// store is fosite's storage on PostgreSQL: clients, and every code and token by its
// signature. It is transactional, so that a refresh rotates its token atomically.
type store struct {
	db *db.DB
}

type txKey struct{}

// idb is the transaction fosite began on ctx, or the database.
func (s *store) idb(ctx context.Context) bun.IDB {
	if tx, ok := ctx.Value(txKey{}).(*bun.Tx); ok {
		return tx
	}
	return s.db
}

func (s *store) BeginTX(ctx context.Context) (context.Context, error) {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return ctx, err
	}
	return context.WithValue(ctx, txKey{}, &tx), nil
}

func (s *store) Commit(ctx context.Context) error {
	if tx, ok := ctx.Value(txKey{}).(*bun.Tx); ok {
		return tx.Commit()
	}
	return errors.New("oauth: commit without a transaction")
}

func (s *store) Rollback(ctx context.Context) error {
	if tx, ok := ctx.Value(txKey{}).(*bun.Tx); ok {
		return tx.Rollback()
	}
	return errors.New("oauth: rollback without a transaction")
}

// GetClient loads a client; fosite.ErrNotFound when there is none.
func (s *store) GetClient(ctx context.Context, id string) (fosite.Client, error) {
	c, err := loadClient(ctx, s.idb(ctx), id)
	if err != nil {
		return nil, err
	}
	return c.fosite(), nil
}

// Client assertions (private_key_jwt) are not offered, so no JWT id is ever recorded.
func (s *store) ClientAssertionJWTValid(context.Context, string) error { return nil }

func (s *store) SetClientAssertionJWT(context.Context, string, time.Time) error {
	return errors.New("oauth: client assertions are not supported")
}

// tokenRow is a stored code or token.
type tokenRow struct {
	bun.BaseModel `bun:"table:oauth_tokens"`

	Kind            string          `bun:"kind,pk"`
	Signature       string          `bun:"signature,pk"`
	RequestID       string          `bun:"request_id"`
	ClientID        string          `bun:"client_id"`
	UserID          *uuid.UUID      `bun:"user_id,type:uuid"`
	Active          bool            `bun:"active"`
	RequestedAt     time.Time       `bun:"requested_at"`
	ExpiresAt       *time.Time      `bun:"expires_at"`
	RequestedScopes []string        `bun:"requested_scopes,array"`
	GrantedScopes   []string        `bun:"granted_scopes,array"`
	Form            json.RawMessage `bun:"form,type:jsonb"`
	Session         json.RawMessage `bun:"session,type:jsonb"`
}

func (s *store) create(ctx context.Context, kind, signature string, r fosite.Requester, expiry fosite.TokenType) error {
	form, err := json.Marshal(r.GetRequestForm())
	if err != nil {
		return err
	}
	sess, err := json.Marshal(r.GetSession())
	if err != nil {
		return err
	}
	row := tokenRow{Kind: kind, Signature: signature, RequestID: r.GetID(), ClientID: r.GetClient().GetID(), Active: true,
		RequestedAt: r.GetRequestedAt(), RequestedScopes: nonNil(r.GetRequestedScopes()), GrantedScopes: nonNil(r.GetGrantedScopes()),
		Form: form, Session: sess}
	if id, err := uuid.Parse(subjectOf(r.GetSession())); err == nil {
		row.UserID = &id
	}
	if t := r.GetSession().GetExpiresAt(expiry); !t.IsZero() {
		row.ExpiresAt = &t
	}
	_, err = s.idb(ctx).NewInsert().Model(&row).Exec(ctx)
	return err
}

// get rebuilds a stored request into session. A row no longer active comes back with
// fosite's error for it, as fosite's refresh-token reuse detection needs the request.
func (s *store) get(ctx context.Context, kind, signature string, session fosite.Session, inactive error) (fosite.Requester, error) {
	var row tokenRow
	err := s.idb(ctx).NewSelect().Model(&row).Where("kind = ? AND signature = ?", kind, signature).Scan(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fosite.ErrNotFound
	}
	if err != nil {
		return nil, err
	}
	client, err := s.GetClient(ctx, row.ClientID)
	if err != nil {
		return nil, err
	}
	if session == nil {
		session = NewSession("")
	}
	if err := json.Unmarshal(row.Session, session); err != nil {
		return nil, fmt.Errorf("oauth: stored session: %w", err)
	}
	var form url.Values
	if err := json.Unmarshal(row.Form, &form); err != nil {
		return nil, fmt.Errorf("oauth: stored form: %w", err)
	}
	r := &fosite.Request{ID: row.RequestID, RequestedAt: row.RequestedAt, Client: client, Session: session, Form: form,
		RequestedScope: row.RequestedScopes, GrantedScope: row.GrantedScopes,
		RequestedAudience: fosite.Arguments{}, GrantedAudience: fosite.Arguments{}}
	if !row.Active {
		return r, inactive
	}
	return r, nil
}

func (s *store) delete(ctx context.Context, kind, signature string) error {
	_, err := s.idb(ctx).NewDelete().TableExpr("oauth_tokens").Where("kind = ? AND signature = ?", kind, signature).Exec(ctx)
	return err
}

func (s *store) CreateAuthorizeCodeSession(ctx context.Context, code string, r fosite.Requester) error {
	return s.create(ctx, kindCode, code, r, fosite.AuthorizeCode)
}

func (s *store) GetAuthorizeCodeSession(ctx context.Context, code string, session fosite.Session) (fosite.Requester, error) {
	return s.get(ctx, kindCode, code, session, fosite.ErrInvalidatedAuthorizeCode)
}

// InvalidateAuthorizeCodeSession spends a code: a second exchange, even a concurrent one,
// finds it spent.
func (s *store) InvalidateAuthorizeCodeSession(ctx context.Context, code string) error {
	return s.retire(ctx, kindCode, code, fosite.ErrInvalidatedAuthorizeCode)
}

// retire makes an active code or token inactive, or returns spent when it already was: of
// two requests racing to use it, only one can retire it.
func (s *store) retire(ctx context.Context, kind, signature string, spent error) error {
	res, err := s.idb(ctx).NewRaw("UPDATE oauth_tokens SET active = false WHERE kind = ? AND signature = ? AND active", kind, signature).Exec(ctx)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return spent
	}
	return nil
}

func (s *store) CreatePKCERequestSession(ctx context.Context, signature string, r fosite.Requester) error {
	return s.create(ctx, kindPKCE, signature, r, fosite.AuthorizeCode)
}

func (s *store) GetPKCERequestSession(ctx context.Context, signature string, session fosite.Session) (fosite.Requester, error) {
	return s.get(ctx, kindPKCE, signature, session, fosite.ErrNotFound)
}

func (s *store) DeletePKCERequestSession(ctx context.Context, signature string) error {
	return s.delete(ctx, kindPKCE, signature)
}

func (s *store) CreateAccessTokenSession(ctx context.Context, signature string, r fosite.Requester) error {
	return s.create(ctx, kindAccess, signature, r, fosite.AccessToken)
}

func (s *store) GetAccessTokenSession(ctx context.Context, signature string, session fosite.Session) (fosite.Requester, error) {
	return s.get(ctx, kindAccess, signature, session, fosite.ErrInactiveToken)
}

func (s *store) DeleteAccessTokenSession(ctx context.Context, signature string) error {
	return s.delete(ctx, kindAccess, signature)
}

func (s *store) CreateRefreshTokenSession(ctx context.Context, signature, _ string, r fosite.Requester) error {
	return s.create(ctx, kindRefresh, signature, r, fosite.RefreshToken)
}

func (s *store) GetRefreshTokenSession(ctx context.Context, signature string, session fosite.Session) (fosite.Requester, error) {
	return s.get(ctx, kindRefresh, signature, session, fosite.ErrInactiveToken)
}

// DeleteRefreshTokenSession is called by fosite only when a refresh token already used is
// presented again: the grant is about to be revoked whole. That is recorded for the audit.
func (s *store) DeleteRefreshTokenSession(ctx context.Context, signature string) error {
	var row tokenRow
	err := s.idb(ctx).NewDelete().Model(&row).Where("kind = ? AND signature = ?", kindRefresh, signature).
		Returning("user_id, client_id, request_id").Scan(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		return nil
	}
	if err != nil {
		return err
	}
	return auditlog.Record(ctx, s.idb(ctx), auditlog.Event{Type: auditlog.EventOAuthTokenReuse, UserID: row.UserID, Meta: metaOf(ctx),
		Data: map[string]any{"client_id": row.ClientID, "grant": row.RequestID}})
}

// RotateRefreshToken retires the refresh token being used, and the grant's access tokens.
// Two refreshes racing with one token: only the first retires it, the second is refused.
func (s *store) RotateRefreshToken(ctx context.Context, requestID, signature string) error {
	if err := s.retire(ctx, kindRefresh, signature, fosite.ErrInactiveToken); err != nil {
		return err
	}
	if err := s.RevokeRefreshToken(ctx, requestID); err != nil {
		return err
	}
	return s.RevokeAccessToken(ctx, requestID)
}

// RevokeRefreshToken retires every refresh token of a grant. They stay, inactive, so that
// a later use of one is recognised as reuse.
func (s *store) RevokeRefreshToken(ctx context.Context, requestID string) error {
	_, err := s.idb(ctx).NewRaw("UPDATE oauth_tokens SET active = false WHERE kind = ? AND request_id = ? AND active",
		kindRefresh, requestID).Exec(ctx)
	return err
}

// RevokeAccessToken deletes every access token of a grant.
func (s *store) RevokeAccessToken(ctx context.Context, requestID string) error {
	_, err := s.idb(ctx).NewRaw("DELETE FROM oauth_tokens WHERE kind = ? AND request_id = ?", kindAccess, requestID).Exec(ctx)
	return err
}

func nonNil(a fosite.Arguments) []string {
	if a == nil {
		return []string{}
	}
	return a
}
