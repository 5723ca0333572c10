// Package oauth makes Tally an OAuth 2.0 authorization server for API clients (a mobile app,
// a CLI, an assistant): authorization code with PKCE (S256 only), refresh tokens rotated on
// every use with reuse detection, client credentials for confidential clients owned by a
// user, revocation (RFC 7009), introspection (RFC 7662), metadata (RFC 8414) and dynamic
// registration of public clients (RFC 7591). The protocol is ory/fosite's; this package
// keeps its storage in PostgreSQL and Tally's rules around it.
package oauth

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"time"

	"github.com/google/uuid"
	"github.com/ory/fosite"
	"github.com/ory/fosite/compose"
	"github.com/ory/fosite/handler/oauth2"
	"github.com/uptrace/bun"

	"tally/auditlog"
	"tally/internal/db"
	"tally/models"
)

// Options configure the server.
type Options struct {
	DB *db.DB
	// Secret is the HMAC key for codes and tokens (32 bytes or more).
	Secret     []byte
	AccessTTL  time.Duration // default 1 hour
	RefreshTTL time.Duration // default 90 days
	// HashCost is bcrypt's cost for client secrets (default 12; tests lower it).
	HashCost int
}

// Server is the authorization server.
type Server struct {
	store    *store
	config   *fosite.Config
	strategy *oauth2.HMACSHAStrategy
	provider fosite.OAuth2Provider
}

// codeTTL is how long an authorization code can be exchanged.
const codeTTL = 5 * time.Minute

// New builds the server. A secret shorter than 32 bytes is a programming error: it panics.
func New(o Options) *Server {
	if len(o.Secret) < 32 {
		panic("oauth: the HMAC secret must be at least 32 bytes")
	}
	if o.AccessTTL == 0 {
		o.AccessTTL = time.Hour
	}
	if o.RefreshTTL == 0 {
		o.RefreshTTL = 90 * 24 * time.Hour
	}
	if o.HashCost == 0 {
		o.HashCost = 12
	}
	cfg := &fosite.Config{
		AccessTokenLifespan:            o.AccessTTL,
		RefreshTokenLifespan:           o.RefreshTTL,
		AuthorizeCodeLifespan:          codeTTL,
		GlobalSecret:                   o.Secret,
		HashCost:                       o.HashCost,
		EnforcePKCE:                    true,
		EnablePKCEPlainChallengeMethod: false,
		ScopeStrategy:                  fosite.ExactScopeStrategy,
		AudienceMatchingStrategy:       fosite.DefaultAudienceMatchingStrategy,
		RefreshTokenScopes:             []string{}, // every grant gets a refresh token, no offline scope
		MinParameterEntropy:            8,
	}
	st := &store{db: o.DB}
	strategy := compose.NewOAuth2HMACStrategy(cfg)
	provider := compose.Compose(cfg, st, strategy,
		compose.OAuth2AuthorizeExplicitFactory,
		compose.OAuth2PKCEFactory,
		compose.OAuth2RefreshTokenGrantFactory,
		compose.OAuth2ClientCredentialsGrantFactory,
		compose.OAuth2TokenIntrospectionFactory,
		compose.OAuth2TokenRevocationFactory,
	)
	return &Server{store: st, config: cfg, strategy: strategy, provider: provider}
}

// Provider is fosite's protocol engine, for the endpoints.
func (s *Server) Provider() fosite.OAuth2Provider { return s.provider }

func (s *Server) hashCost() int { return s.config.HashCost }

// NewSession is a grant's session: whose it is.
func NewSession(userID string) *fosite.DefaultSession {
	return &fosite.DefaultSession{Subject: userID, ExpiresAt: map[fosite.TokenType]time.Time{}}
}

func subjectOf(s fosite.Session) string {
	if s == nil {
		return ""
	}
	return s.GetSubject()
}

// UserOf is the user a request or token acts for.
func UserOf(r fosite.Requester) (uuid.UUID, bool) {
	id, err := uuid.Parse(subjectOf(r.GetSession()))
	return id, err == nil
}

// Bearer is an access token presented to the API.
type Bearer struct {
	UserID   uuid.UUID
	ClientID string
	Scopes   []string
}

// Scope is the API scope the token carries: read_write if granted, else read.
func (b *Bearer) Scope() string {
	if hasScope(b.Scopes, ScopeReadWrite) {
		return ScopeReadWrite
	}
	return ScopeRead
}

// errInvalidToken is an unknown, expired or revoked access token, or one without an API scope.
var errInvalidToken = errors.New("oauth: invalid access token")

// AuthenticateBearer checks an access token for the API.
func (s *Server) AuthenticateBearer(ctx context.Context, token string) (*Bearer, error) {
	use, ar, err := s.provider.IntrospectToken(ctx, token, fosite.AccessToken, NewSession(""))
	if err != nil || use != fosite.AccessToken {
		return nil, errInvalidToken
	}
	granted := ar.GetGrantedScopes()
	if !hasScope(granted, ScopeRead) && !hasScope(granted, ScopeReadWrite) {
		return nil, errInvalidToken
	}
	uid, ok := UserOf(ar)
	if !ok {
		return nil, errInvalidToken
	}
	return &Bearer{UserID: uid, ClientID: ar.GetClient().GetID(), Scopes: granted}, nil
}

// TokenOwner is the user and client of an access or refresh token, if Tally issued it and
// still has it: for the audit of a revocation.
func (s *Server) TokenOwner(ctx context.Context, token string) (*uuid.UUID, string) {
	var row struct {
		UserID   *uuid.UUID `bun:"user_id,type:uuid"`
		ClientID string     `bun:"client_id"`
	}
	err := s.store.db.NewRaw(`SELECT user_id, client_id FROM oauth_tokens WHERE (kind = ? AND signature = ?) OR (kind = ? AND signature = ?)
		LIMIT 1`, kindAccess, s.strategy.AccessTokenSignature(ctx, token), kindRefresh, s.strategy.RefreshTokenSignature(ctx, token)).
		Scan(ctx, &row)
	if err != nil {
		return nil, ""
	}
	return row.UserID, row.ClientID
}

// NewAuthorizeRequest reads an authorization request. One without PKCE, or with the plain
// method, is refused before the user is asked: fosite would only refuse it once the user had
// agreed.
func (s *Server) NewAuthorizeRequest(ctx context.Context, r *http.Request) (fosite.AuthorizeRequester, error) {
	ar, err := s.provider.NewAuthorizeRequest(ctx, r)
	if err != nil {
		return ar, err
	}
	f := ar.GetRequestForm()
	if f.Get("code_challenge") == "" {
		return ar, fosite.ErrInvalidRequest.WithHint("PKCE is required: send a code_challenge with code_challenge_method S256.")
	}
	if f.Get("code_challenge_method") != "S256" {
		return ar, fosite.ErrInvalidRequest.WithHint("Only the S256 code_challenge_method is supported.")
	}
	return ar, nil
}

// NewAccessRequest reads a token request: fosite's checks, then Tally's rules. A
// client_credentials request acts for the client's owner, with the scopes asked for (read
// when none); and the user a grant acts for must still be allowed in, so that a suspended
// user's grants stop at once. The request comes back with an error when there is one, for
// the error's audit.
func (s *Server) NewAccessRequest(ctx context.Context, r *http.Request) (fosite.AccessRequester, error) {
	ar, err := s.provider.NewAccessRequest(ctx, r, NewSession(""))
	if err != nil {
		return ar, err
	}
	if ar.GetGrantTypes().ExactOne(GrantClientCredentials) {
		if err := s.actForOwner(ctx, ar); err != nil {
			return ar, err
		}
	}
	uid, ok := UserOf(ar)
	if !ok {
		return ar, fosite.ErrInvalidGrant.WithHint("The grant has no user.")
	}
	if u, err := models.UserByID(ctx, s.store.db, uid); err != nil || !u.Active() {
		return ar, fosite.ErrInvalidGrant.WithHint("The account this grant acts for is deactivated or gone.")
	}
	return ar, nil
}

// actForOwner makes a client_credentials request act for the client's owner, with the
// scopes asked for (read when none).
func (s *Server) actForOwner(ctx context.Context, ar fosite.AccessRequester) error {
	client, err := s.GetClient(ctx, ar.GetClient().GetID())
	if err != nil {
		return err
	}
	if client.OwnerUserID == nil {
		return fosite.ErrUnauthorizedClient.WithHint("The client has no owner to act for.")
	}
	ar.GetSession().(*fosite.DefaultSession).Subject = client.OwnerUserID.String()
	if len(ar.GetRequestedScopes()) == 0 {
		ar.SetRequestedScopes(fosite.Arguments{ScopeRead})
	}
	// Nobody consents to a client credentials token: it gets what it asked for, within what
	// the client may have (fosite refused anything beyond that already).
	for _, scope := range ar.GetRequestedScopes() {
		if slices.Contains(client.Scopes, scope) {
			ar.GrantScope(scope)
		}
	}
	return nil
}

// MayIntrospect reports whether the caller of an introspection request may learn about its
// token: a client learns only about its own tokens. The caller authenticates as a
// confidential client (HTTP Basic) or with one of its access tokens (Bearer).
func (s *Server) MayIntrospect(r *http.Request, ir fosite.IntrospectionResponder) bool {
	caller := s.introspectionCaller(r)
	return caller != "" && caller == ir.GetAccessRequester().GetClient().GetID()
}

// introspectionCaller is the client an introspection request authenticated as.
func (s *Server) introspectionCaller(r *http.Request) string {
	if id, _, ok := r.BasicAuth(); ok {
		return id
	}
	if b, err := s.AuthenticateBearer(r.Context(), fosite.AccessTokenFromRequest(r)); err == nil {
		return b.ClientID
	}
	return ""
}

type metaKey struct{}

// WithMeta carries who made a token request, for the audit events the store writes.
func WithMeta(ctx context.Context, m auditlog.Meta) context.Context {
	return context.WithValue(ctx, metaKey{}, m)
}

func metaOf(ctx context.Context) auditlog.Meta {
	m, _ := ctx.Value(metaKey{}).(auditlog.Meta)
	return m
}

// AuthorizedApp is an application a user has granted access, with tokens still alive.
type AuthorizedApp struct {
	ClientID   string    `bun:"client_id"`
	Name       string    `bun:"name"`
	Scopes     []string  `bun:"scopes,array"`
	GrantedAt  time.Time `bun:"granted_at"`
	LastIssued time.Time `bun:"last_issued"`
}

// AuthorizedApps lists the applications holding live tokens for the user.
func (s *Server) AuthorizedApps(ctx context.Context, userID uuid.UUID) ([]AuthorizedApp, error) {
	var out []AuthorizedApp
	err := s.store.db.NewRaw(`SELECT t.client_id, c.name, array_agg(DISTINCT sc ORDER BY sc) AS scopes,
			min(t.requested_at) AS granted_at, max(t.created_at) AS last_issued
		FROM oauth_tokens t JOIN oauth_clients c ON c.id = t.client_id, unnest(t.granted_scopes) sc
		WHERE t.user_id = ? AND t.kind IN ('access', 'refresh') AND t.active AND (t.expires_at IS NULL OR t.expires_at > now())
		GROUP BY t.client_id, c.name ORDER BY c.name`, userID).Scan(ctx, &out)
	return out, err
}

// RevokeApp ends every grant the user gave the client; false when there was none.
func (s *Server) RevokeApp(ctx context.Context, userID uuid.UUID, clientID string) (bool, error) {
	res, err := s.store.db.NewRaw(`DELETE FROM oauth_tokens WHERE user_id = ? AND client_id = ?`, userID, clientID).Exec(ctx)
	if err != nil {
		return false, err
	}
	n, _ := res.RowsAffected()
	return n > 0, nil
}

// Prune deletes the codes and tokens that have expired. A retired refresh token is kept
// until then, so that presenting it again is still recognised as reuse.
func Prune(ctx context.Context, idb bun.IDB, now time.Time) (int64, error) {
	res, err := idb.NewRaw("DELETE FROM oauth_tokens WHERE expires_at < ? OR (expires_at IS NULL AND requested_at < ?)",
		now, now.Add(-24*time.Hour)).Exec(ctx)
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}
