package oauth

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/base64"
	"errors"
	"fmt"
	"net"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/ory/fosite"
	"github.com/uptrace/bun"
	"golang.org/x/crypto/bcrypt"

	"tally/internal/apperr"
	"tally/models"
)

// Scopes an OAuth token can carry: the same meaning as an API key's.
const (
	ScopeRead      = "read"
	ScopeReadWrite = "read_write"
)

// Grant types Tally offers.
const (
	GrantAuthorizationCode = "authorization_code"
	GrantRefreshToken      = "refresh_token"
	GrantClientCredentials = "client_credentials"
)

// Client is an application allowed to ask for tokens.
type Client struct {
	bun.BaseModel `bun:"table:oauth_clients"`

	ID            string     `bun:"id,pk"`
	Name          string     `bun:"name"`
	SecretHash    *string    `bun:"secret_hash"`
	RedirectURIs  []string   `bun:"redirect_uris,array"`
	GrantTypes    []string   `bun:"grant_types,array"`
	Scopes        []string   `bun:"scopes,array"`
	OwnerUserID   *uuid.UUID `bun:"owner_user_id,type:uuid"`
	RegisteredVia string     `bun:"registered_via"`
	CreatedAt     time.Time  `bun:"created_at,nullzero,default:now()"`
	UpdatedAt     time.Time  `bun:"updated_at,nullzero,default:now()"`
}

// Public reports whether the client has no secret (a mobile app, a CLI, a browser app).
func (c *Client) Public() bool { return c.SecretHash == nil }

func (c *Client) fosite() *fosite.DefaultClient {
	fc := &fosite.DefaultClient{ID: c.ID, RedirectURIs: c.RedirectURIs, GrantTypes: c.GrantTypes,
		ResponseTypes: []string{"code"}, Scopes: c.Scopes, Public: c.Public(), Audience: []string{}}
	if c.SecretHash != nil {
		fc.Secret = []byte(*c.SecretHash)
	}
	return fc
}

func loadClient(ctx context.Context, idb bun.IDB, id string) (*Client, error) {
	c := new(Client)
	err := idb.NewSelect().Model(c).Where("id = ?", id).Scan(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fosite.ErrNotFound
	}
	return c, err
}

// ClientInput is what an administrator sets on a client.
type ClientInput struct {
	Name              string
	RedirectURIs      []string
	Confidential      bool // has a secret; may use client_credentials
	ClientCredentials bool
	AllowReadWrite    bool
	OwnerUserID       *uuid.UUID
}

// validate checks an administrator's client, naming each bad field.
func (in *ClientInput) validate() error {
	var v apperr.Validation
	in.Name = strings.TrimSpace(in.Name)
	if in.Name == "" {
		v.Add("name", "Name is required")
	}
	models.CheckText(&v, "name", "Name", in.Name, models.MaxName)
	if len(in.RedirectURIs) > maxRedirectURIs {
		v.Add("redirect_uris", fmt.Sprintf("At most %d redirect URIs", maxRedirectURIs))
	}
	for _, u := range in.RedirectURIs {
		if err := checkRedirectURI(u); err != nil {
			v.Add("redirect_uris", err.Error())
			break
		}
	}
	if len(in.RedirectURIs) == 0 && !in.ClientCredentials {
		v.Add("redirect_uris", "At least one redirect URI is required for the authorization code flow")
	}
	if in.ClientCredentials && !in.Confidential {
		v.Add("client_credentials", "Only a confidential client (one with a secret) may use client credentials")
	}
	if in.ClientCredentials && in.OwnerUserID == nil {
		v.Add("owner", "Client credentials act for a user: choose the owner")
	}
	return v.Err()
}

func (in *ClientInput) apply(c *Client) {
	c.Name, c.RedirectURIs, c.OwnerUserID = in.Name, nonNil(in.RedirectURIs), in.OwnerUserID
	c.GrantTypes = []string{GrantAuthorizationCode, GrantRefreshToken}
	if in.ClientCredentials {
		c.GrantTypes = append(c.GrantTypes, GrantClientCredentials)
	}
	c.Scopes = []string{ScopeRead}
	if in.AllowReadWrite {
		c.Scopes = append(c.Scopes, ScopeReadWrite)
	}
}

// CreateClient adds a client. For a confidential one it returns the secret, which is stored
// hashed and never shown again.
func (s *Server) CreateClient(ctx context.Context, idb bun.IDB, in ClientInput) (*Client, string, error) {
	if err := in.validate(); err != nil {
		return nil, "", err
	}
	c := &Client{ID: randomID(16), RegisteredVia: "admin", CreatedAt: time.Now()}
	in.apply(c)
	var secret string
	if in.Confidential {
		secret = randomID(32)
		hash, err := bcrypt.GenerateFromPassword([]byte(secret), s.hashCost())
		if err != nil {
			return nil, "", err
		}
		h := string(hash)
		c.SecretHash = &h
	}
	if _, err := idb.NewInsert().Model(c).Exec(ctx); err != nil {
		return nil, "", err
	}
	return c, secret, nil
}

// UpdateClient changes a client's settings; its id and secret stay.
func (s *Server) UpdateClient(ctx context.Context, idb bun.IDB, id string, in ClientInput) (*Client, error) {
	c, err := loadClient(ctx, idb, id)
	if err != nil {
		return nil, notFound(err)
	}
	in.Confidential = !c.Public()
	if err := in.validate(); err != nil {
		return nil, err
	}
	in.apply(c)
	c.UpdatedAt = time.Now()
	_, err = idb.NewUpdate().Model(c).Column("name", "redirect_uris", "grant_types", "scopes", "owner_user_id", "updated_at").
		WherePK().Exec(ctx)
	return c, err
}

// DeleteClient removes a client and, with it, every token it holds.
func (s *Server) DeleteClient(ctx context.Context, idb bun.IDB, id string) (*Client, error) {
	c, err := loadClient(ctx, idb, id)
	if err != nil {
		return nil, notFound(err)
	}
	_, err = idb.NewDelete().Model(c).WherePK().Exec(ctx)
	return c, err
}

// GetClient returns a client for the pages.
func (s *Server) GetClient(ctx context.Context, id string) (*Client, error) {
	c, err := loadClient(ctx, s.store.db, id)
	if err != nil {
		return nil, notFound(err)
	}
	return c, nil
}

// ListClients returns every client, newest first.
func (s *Server) ListClients(ctx context.Context) ([]Client, error) {
	var out []Client
	err := s.store.db.NewSelect().Model(&out).Order("created_at DESC").Scan(ctx)
	return out, err
}

func notFound(err error) error {
	if errors.Is(err, fosite.ErrNotFound) {
		return apperr.New(apperr.NotFound, "Application not found")
	}
	return err
}

// Registration is a dynamic client registration request (RFC 7591): the fields Tally reads.
type Registration struct {
	RedirectURIs            []string `json:"redirect_uris"`
	ClientName              string   `json:"client_name"`
	TokenEndpointAuthMethod string   `json:"token_endpoint_auth_method"`
	GrantTypes              []string `json:"grant_types"`
	Scope                   string   `json:"scope"`
}

// RegistrationError is RFC 7591's error answer.
type RegistrationError struct {
	Code        string `json:"error"`
	Description string `json:"error_description"`
}

func (e *RegistrationError) Error() string { return e.Code + ": " + e.Description }

func invalidMetadata(format string, args ...any) error {
	return &RegistrationError{Code: "invalid_client_metadata", Description: fmt.Sprintf(format, args...)}
}

// Register creates a public client from a registration request: authorization code with
// PKCE and refresh tokens, scopes read and read_write. Anything else it asks for is refused.
func (s *Server) Register(ctx context.Context, idb bun.IDB, r Registration) (*Client, error) {
	if len(r.RedirectURIs) == 0 {
		return nil, invalidMetadata("redirect_uris is required")
	}
	if len(r.RedirectURIs) > maxRedirectURIs {
		return nil, invalidMetadata("redirect_uris has more than %d URIs", maxRedirectURIs)
	}
	for _, u := range r.RedirectURIs {
		if err := checkRedirectURI(u); err != nil {
			return nil, invalidMetadata("%s", err.Error())
		}
	}
	if m := r.TokenEndpointAuthMethod; m != "" && m != "none" {
		return nil, invalidMetadata("token_endpoint_auth_method must be none: registered clients are public and use PKCE")
	}
	for _, g := range r.GrantTypes {
		if g != GrantAuthorizationCode && g != GrantRefreshToken {
			return nil, invalidMetadata("grant type %q is not available to registered clients", g)
		}
	}
	for _, sc := range strings.Fields(r.Scope) {
		if sc != ScopeRead && sc != ScopeReadWrite {
			return nil, invalidMetadata("unknown scope %q: use read or read_write", sc)
		}
	}
	name := strings.TrimSpace(r.ClientName)
	if name == "" {
		name = "MCP Client"
	}
	if len(name) > 100 {
		return nil, invalidMetadata("client_name is longer than 100 characters")
	}
	c := &Client{ID: randomID(16), Name: name, RedirectURIs: r.RedirectURIs, RegisteredVia: "dynamic", CreatedAt: time.Now(),
		GrantTypes: []string{GrantAuthorizationCode, GrantRefreshToken}, Scopes: []string{ScopeRead, ScopeReadWrite}}
	if _, err := idb.NewInsert().Model(c).Exec(ctx); err != nil {
		return nil, err
	}
	return c, nil
}

// maxRedirectURIs bounds a client's redirect URIs.
const maxRedirectURIs = 20

// checkRedirectURI accepts an absolute https URI, or http on a loopback address (a native
// app's local listener, RFC 8252), without a fragment.
func checkRedirectURI(raw string) error {
	if len(raw) > models.MaxURL {
		return errors.New(models.TextTooLong("A redirect URI", models.MaxURL))
	}
	u, err := url.Parse(raw)
	if err != nil || !u.IsAbs() || u.Host == "" {
		return fmt.Errorf("redirect URI %q is not an absolute URL", raw)
	}
	if u.Fragment != "" || strings.Contains(raw, "#") {
		return fmt.Errorf("redirect URI %q must not have a fragment", raw)
	}
	switch strings.ToLower(u.Scheme) {
	case "https":
		return nil
	case "http":
		if host := u.Hostname(); host == "localhost" || isLoopback(host) {
			return nil
		}
		return fmt.Errorf("redirect URI %q must use https (plain http only on a loopback address)", raw)
	}
	return fmt.Errorf("redirect URI %q must use https", raw)
}

func isLoopback(host string) bool {
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// randomID is n random bytes, base64url.
func randomID(n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		panic(err)
	}
	return base64.RawURLEncoding.EncodeToString(b)
}

// hasScope reports whether granted includes scope.
func hasScope(granted []string, scope string) bool { return slices.Contains(granted, scope) }
