package sso

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"sort"

	"github.com/google/uuid"

	"tally/internal/apperr"
	"tally/internal/db"
	"tally/internal/secrets"
)

// Registry is where the configured providers come from: the database
// (AUTH_PROVIDERS_SOURCE=db), read on every request so that changes apply at once, or
// config/auth.yml, read at start.
type Registry interface {
	// Source is "db" or "yaml".
	Source() string
	// All returns every provider, enabled or not, by name.
	All(ctx context.Context) ([]*Provider, error)
}

// Enabled returns the registry's enabled providers, by name.
func Enabled(ctx context.Context, r Registry) ([]*Provider, error) {
	all, err := r.All(ctx)
	if err != nil {
		return nil, err
	}
	return slices.DeleteFunc(all, func(p *Provider) bool { return !p.Enabled }), nil
}

// ByName returns the enabled provider with name; any other is unknown.
func ByName(ctx context.Context, r Registry, name string) (*Provider, error) {
	return find(ctx, r, func(p *Provider) bool { return p.Name == name })
}

func find(ctx context.Context, r Registry, match func(*Provider) bool) (*Provider, error) {
	all, err := Enabled(ctx, r)
	if err != nil {
		return nil, err
	}
	for _, p := range all {
		if match(p) {
			return p, nil
		}
	}
	return nil, apperr.New(apperr.NotFound, "There is no such sign-in provider.").WithSlug("record_not_found")
}

// The providers' secret columns, stored encrypted.
var (
	clientSecretColumn = secrets.Column{Table: "sso_providers", Key: "id", Name: "client_secret"}
	spKeyColumn        = secrets.Column{Table: "sso_providers", Key: "id", Name: "sp_private_key"}
	// EncryptedColumns are this package's encrypted columns.
	EncryptedColumns = []secrets.Column{clientSecretColumn, spKeyColumn}
)

// DBRegistry reads providers from sso_providers, decrypting their secrets.
type DBRegistry struct {
	DB   *db.DB
	Keys *secrets.Keys
	// Discovery, when set, fetches an OIDC provider's discovery document on every save that
	// sets its issuer, and refuses the save with CheckDiscovery's message when it is wrong.
	Discovery *http.Client
}

func (r *DBRegistry) Source() string { return "db" }

func (r *DBRegistry) All(ctx context.Context) ([]*Provider, error) {
	var list []*Provider
	if err := r.DB.NewSelect().Model(&list).Order("name").Scan(ctx); err != nil {
		return nil, err
	}
	for _, p := range list {
		if err := r.open(p); err != nil {
			return nil, err
		}
	}
	return list, nil
}

// Get returns the provider with id, whatever its state.
func (r *DBRegistry) Get(ctx context.Context, id uuid.UUID) (*Provider, error) {
	p := new(Provider)
	err := r.DB.NewSelect().Model(p).Where("id = ?", id).Scan(ctx)
	if db.IsNoRows(err) {
		return nil, apperr.New(apperr.NotFound, "Provider not found").WithSlug("record_not_found")
	}
	if err != nil {
		return nil, err
	}
	return p, r.open(p)
}

func (r *DBRegistry) open(p *Provider) error {
	for _, f := range []struct {
		v   *string
		ctx string
	}{{&p.ClientSecret, clientSecretColumn.Context()}, {&p.SPPrivateKey, spKeyColumn.Context()}} {
		if *f.v == "" {
			continue
		}
		plain, _, err := r.Keys.Decrypt(*f.v, f.ctx)
		if err != nil {
			return fmt.Errorf("decrypt %s of provider %s: %w", f.ctx, p.Name, err)
		}
		*f.v = plain
	}
	return nil
}

// Save validates and stores the provider, encrypting its secrets, in the caller's
// transaction: a new one when its id is nil.
func (r *DBRegistry) Save(ctx context.Context, tx db.Tx, p *Provider) error {
	if err := p.Validate(); err != nil {
		return err
	}
	if r.Discovery != nil && p.Strategy == StrategyOIDC {
		if err := CheckDiscovery(ctx, r.Discovery, p.Issuer); err != nil {
			return err
		}
	}
	row := *p
	for _, f := range []struct {
		v   *string
		ctx string
	}{{&row.ClientSecret, clientSecretColumn.Context()}, {&row.SPPrivateKey, spKeyColumn.Context()}} {
		if *f.v == "" {
			continue
		}
		enc, err := r.Keys.Encrypt(*f.v, f.ctx)
		if err != nil {
			return err
		}
		*f.v = enc
	}
	if row.GroupMappings == nil {
		row.GroupMappings = []GroupMapping{}
	}
	if row.Scopes == nil {
		row.Scopes = []string{}
	}
	if row.SecondFactorValues == nil {
		row.SecondFactorValues = []string{}
	}
	var err error
	if p.ID == uuid.Nil {
		row.ID = uuid.Must(uuid.NewV7())
		_, err = tx.NewInsert().Model(&row).Exec(ctx)
		p.ID = row.ID
	} else {
		_, err = tx.NewUpdate().Model(&row).WherePK().ExcludeColumn("created_at", "updated_at").Set("updated_at = now()").Exec(ctx)
	}
	if c, ok := apperr.UniqueViolation(err); ok && c == "sso_providers_name_key" {
		return apperr.New(apperr.Invalid, "Provider could not be saved").WithSlug("validation_failed").
			WithFields(map[string][]string{"name": {"Name has already been taken"}})
	}
	return err
}

// StaticRegistry holds providers read once, from config/auth.yml.
type StaticRegistry struct {
	Providers []*Provider
}

func (r *StaticRegistry) Source() string { return "yaml" }

func (r *StaticRegistry) All(context.Context) ([]*Provider, error) {
	out := slices.Clone(r.Providers)
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}
