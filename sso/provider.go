package sso

import (
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"tally/internal/apperr"
	"tally/models"
)

// Strategies.
const (
	StrategyOIDC   = "openid_connect"
	StrategyOAuth2 = "oauth2"
	StrategySAML   = "saml"
)

// Strategies lists them in the order forms offer them.
var Strategies = []string{StrategyOIDC, StrategyOAuth2, StrategySAML}

// Token endpoint client authentication methods (OAuth2 and OIDC).
const (
	AuthClientSecretPost  = "client_secret_post"
	AuthClientSecretBasic = "client_secret_basic"
)

// GroupMapping gives the members of an IdP group a role.
type GroupMapping struct {
	Group string      `json:"group" yaml:"group"`
	Role  models.Role `json:"role" yaml:"role"`
}

// Provider is a configured identity provider, from the database or config/auth.yml. Secrets
// are held decrypted here; the database stores them encrypted.
type Provider struct {
	bun.BaseModel `bun:"table:sso_providers,alias:p"`

	ID            uuid.UUID      `bun:"id,pk,type:uuid"`
	Key           string         `bun:"-"` // the YAML id; for database providers their uuid
	Strategy      string         `bun:"strategy"`
	Name          string         `bun:"name"`
	Label         string         `bun:"label"`
	Icon          *string        `bun:"icon"`
	Enabled       bool           `bun:"enabled"`
	DefaultRole   models.Role    `bun:"default_role"`
	GroupMappings []GroupMapping `bun:"group_mappings,type:jsonb"`
	TrustEmail    bool           `bun:"trust_email"`
	// TrustSecondFactor lets a sign-in the provider says checked a second factor stand for
	// Tally's own (SecondFactorChecked), for users who have one. SecondFactorValues are what
	// says so; empty means DefaultSecondFactorValues.
	TrustSecondFactor  bool     `bun:"trust_second_factor"`
	SecondFactorValues []string `bun:"second_factor_values,array"`

	Issuer           string   `bun:"issuer,nullzero"`
	ClientID         string   `bun:"client_id,nullzero"`
	ClientSecret     string   `bun:"client_secret,nullzero"`
	Scopes           []string `bun:"scopes,array"`
	Prompt           string   `bun:"prompt,nullzero"`
	AuthorizationURL string   `bun:"authorization_url,nullzero"`
	TokenURL         string   `bun:"token_url,nullzero"`
	UserinfoURL      string   `bun:"userinfo_url,nullzero"`
	TokenAuthMethod  string   `bun:"token_endpoint_auth_method"`
	SubjectClaim     string   `bun:"subject_claim,nullzero"`
	EmailClaim       string   `bun:"email_claim,nullzero"`
	NameClaim        string   `bun:"name_claim,nullzero"`
	GroupsClaim      string   `bun:"groups_claim,nullzero"`

	IdPSSOURL       string `bun:"idp_sso_url,nullzero"`
	IdPEntityID     string `bun:"idp_entity_id,nullzero"`
	IdPCertificate  string `bun:"idp_certificate,nullzero"`
	IdPMetadataURL  string `bun:"idp_metadata_url,nullzero"`
	IdPSLOURL       string `bun:"idp_slo_url,nullzero"`
	SignRequests    bool   `bun:"sign_requests"`
	SPPrivateKey    string `bun:"sp_private_key,nullzero"`
	SPCertificate   string `bun:"sp_certificate,nullzero"`
	GroupsAttribute string `bun:"groups_attribute,nullzero"`
	NameIDFormat    string `bun:"name_id_format,nullzero"`

	CreatedAt time.Time `bun:"created_at,nullzero,default:now()"`
	UpdatedAt time.Time `bun:"updated_at,nullzero,default:now()"`
}

// PathKey is the provider's key in SAML paths: its id (a uuid for database providers, the
// YAML id otherwise).
func (p *Provider) PathKey() string {
	if p.Key != "" {
		return p.Key
	}
	return p.ID.String()
}

// CallbackURL is where the provider sends the browser back: the URL to register at the IdP.
func (p *Provider) CallbackURL(appURL string) string {
	if p.Strategy == StrategySAML {
		return p.EntityID(appURL) + "/callback"
	}
	return strings.TrimRight(appURL, "/") + "/auth/" + p.Name + "/callback"
}

// EntityID is the SAML service provider's entity id for this provider.
func (p *Provider) EntityID(appURL string) string {
	return strings.TrimRight(appURL, "/") + "/auth/saml/" + p.PathKey()
}

// MetadataURL is the SAML service provider's metadata for this provider.
func (p *Provider) MetadataURL(appURL string) string { return p.EntityID(appURL) + "/metadata" }

// ScopeList is the OIDC or OAuth2 scopes to ask for.
func (p *Provider) ScopeList() []string {
	if len(p.Scopes) > 0 {
		return p.Scopes
	}
	if p.Strategy == StrategyOIDC {
		return []string{"openid", "email", "profile"}
	}
	return nil
}

// WantsGroups reports whether the provider's groups matter: a groups scope or a mapping.
func (p *Provider) WantsGroups() bool {
	return slices.Contains(p.Scopes, "groups") || len(p.GroupMappings) > 0
}

var nameFormat = regexp.MustCompile(`^[a-z0-9_]+$`)

// Validate checks the provider's settings and reports every problem by field.
func (p *Provider) Validate() error {
	var v apperr.Validation
	if !slices.Contains(Strategies, p.Strategy) {
		v.Add("strategy", fmt.Sprintf("Strategy %q is not one of: %s", p.Strategy, strings.Join(Strategies, ", ")))
	}
	switch {
	case p.Name == "":
		v.Add("name", "Name is required")
	case p.Name == StrategySAML:
		v.Add("name", `Name "saml" is reserved for the SAML routes: choose another`)
	case !nameFormat.MatchString(p.Name):
		v.Add("name", "Name must contain only lowercase letters, numbers, and underscores")
	}
	if strings.TrimSpace(p.Label) == "" {
		v.Add("label", "Button label is required")
	}
	if !providerRole(p.DefaultRole) {
		v.Add("default_role", "Default role must be member, admin or super_admin")
	}
	for i, m := range p.GroupMappings {
		if strings.TrimSpace(m.Group) == "" {
			v.Add("group_mappings", fmt.Sprintf("Group mapping %d needs a group name", i+1))
		}
		if !providerRole(m.Role) {
			v.Add("group_mappings", fmt.Sprintf("Group mapping %d: role must be member, admin or super_admin", i+1))
		}
	}
	if p.TrustSecondFactor && p.Strategy == StrategyOAuth2 {
		v.Add("trust_second_factor", "A plain OAuth2 provider does not say how it signed people in: only OpenID Connect and SAML sign-ins can count as the second factor")
	}
	if len(p.SecondFactorValues) > maxSecondFactorValues {
		v.Add("second_factor_values", fmt.Sprintf("At most %d values", maxSecondFactorValues))
	}
	for _, val := range p.SecondFactorValues {
		if len(val) > maxSecondFactorValue {
			v.Add("second_factor_values", fmt.Sprintf("Each value is at most %d characters", maxSecondFactorValue))
			break
		}
	}
	if p.TokenAuthMethod != AuthClientSecretPost && p.TokenAuthMethod != AuthClientSecretBasic {
		v.Add("token_endpoint_auth_method", "Token endpoint authentication must be client_secret_post or client_secret_basic")
	}
	switch p.Strategy {
	case StrategyOIDC:
		requireURL(&v, "issuer", "Issuer", p.Issuer, "is required for OpenID Connect providers")
		requireText(&v, "client_id", "Client ID", p.ClientID, "is required for OpenID Connect providers")
		requireText(&v, "client_secret", "Client secret", p.ClientSecret, "is required for OpenID Connect providers")
	case StrategyOAuth2:
		requireURL(&v, "authorization_url", "Authorization URL", p.AuthorizationURL, "is required for OAuth2 providers")
		requireURL(&v, "token_url", "Token URL", p.TokenURL, "is required for OAuth2 providers")
		requireURL(&v, "userinfo_url", "Userinfo URL", p.UserinfoURL, "is required for OAuth2 providers")
		requireText(&v, "client_id", "Client ID", p.ClientID, "is required for OAuth2 providers")
		requireText(&v, "client_secret", "Client secret", p.ClientSecret, "is required for OAuth2 providers")
	case StrategySAML:
		if p.IdPMetadataURL == "" && p.IdPSSOURL == "" {
			v.Add("idp_sso_url", "Either IdP Metadata URL or IdP SSO URL is required for SAML providers")
		}
		if p.IdPMetadataURL != "" && !validURL(p.IdPMetadataURL) {
			v.Add("idp_metadata_url", "IdP Metadata URL must be a valid URL")
		}
		if p.IdPSSOURL != "" && !validURL(p.IdPSSOURL) {
			v.Add("idp_sso_url", "IdP SSO URL must be a valid URL")
		}
		if p.IdPMetadataURL == "" && p.IdPSSOURL != "" && strings.TrimSpace(p.IdPCertificate) == "" {
			v.Add("idp_certificate", "IdP Certificate is required when not using a metadata URL")
		}
		if p.IdPMetadataURL == "" && p.IdPSSOURL != "" && strings.TrimSpace(p.IdPEntityID) == "" {
			v.Add("idp_entity_id", "IdP Entity ID is required when not using a metadata URL")
		}
		if p.SignRequests && strings.TrimSpace(p.SPPrivateKey) == "" {
			v.Add("sp_private_key", "A private key is required to sign requests")
		}
	}
	return v.Err()
}

func requireText(v *apperr.Validation, field, label, value, msg string) {
	if strings.TrimSpace(value) == "" {
		v.Add(field, label+" "+msg)
	}
}

func requireURL(v *apperr.Validation, field, label, value, msg string) {
	switch {
	case strings.TrimSpace(value) == "":
		v.Add(field, label+" "+msg)
	case !validURL(value):
		v.Add(field, label+" must be a valid URL")
	}
}

func validURL(s string) bool {
	u, err := url.Parse(strings.TrimSpace(s))
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != ""
}

// Changes names the settings of next that differ from prev (all of them when prev is nil),
// for the seed task and the audit log. Secrets are compared but never shown.
func Changes(prev, next *Provider) []string {
	if prev == nil {
		prev = &Provider{}
	}
	var out []string
	add := func(name string, differ bool) {
		if differ {
			out = append(out, name)
		}
	}
	add("strategy", prev.Strategy != next.Strategy)
	add("label", prev.Label != next.Label)
	add("icon", derefString(prev.Icon) != derefString(next.Icon))
	add("enabled", prev.Enabled != next.Enabled || prev.ID == uuid.Nil)
	add("default_role", prev.DefaultRole != next.DefaultRole)
	add("group_mappings", !slices.Equal(prev.GroupMappings, next.GroupMappings))
	add("trust_email", prev.TrustEmail != next.TrustEmail)
	add("trust_second_factor", prev.TrustSecondFactor != next.TrustSecondFactor)
	add("second_factor_values", !slices.Equal(prev.SecondFactorValues, next.SecondFactorValues) &&
		(len(prev.SecondFactorValues) > 0 || len(next.SecondFactorValues) > 0))
	add("issuer", prev.Issuer != next.Issuer)
	add("client_id", prev.ClientID != next.ClientID)
	add("client_secret", prev.ClientSecret != next.ClientSecret)
	add("scopes", !slices.Equal(prev.Scopes, next.Scopes) && (len(prev.Scopes) > 0 || len(next.Scopes) > 0))
	add("prompt", prev.Prompt != next.Prompt)
	add("authorization_url", prev.AuthorizationURL != next.AuthorizationURL)
	add("token_url", prev.TokenURL != next.TokenURL)
	add("userinfo_url", prev.UserinfoURL != next.UserinfoURL)
	add("token_endpoint_auth_method", prev.TokenAuthMethod != next.TokenAuthMethod)
	add("subject_claim", prev.SubjectClaim != next.SubjectClaim)
	add("email_claim", prev.EmailClaim != next.EmailClaim)
	add("name_claim", prev.NameClaim != next.NameClaim)
	add("groups_claim", prev.GroupsClaim != next.GroupsClaim)
	add("idp_sso_url", prev.IdPSSOURL != next.IdPSSOURL)
	add("idp_entity_id", prev.IdPEntityID != next.IdPEntityID)
	add("idp_certificate", prev.IdPCertificate != next.IdPCertificate)
	add("idp_metadata_url", prev.IdPMetadataURL != next.IdPMetadataURL)
	add("idp_slo_url", prev.IdPSLOURL != next.IdPSLOURL)
	add("sign_requests", prev.SignRequests != next.SignRequests)
	add("sp_private_key", prev.SPPrivateKey != next.SPPrivateKey)
	add("groups_attribute", prev.GroupsAttribute != next.GroupsAttribute)
	add("name_id_format", prev.NameIDFormat != next.NameIDFormat)
	return out
}

func derefString(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// providerRole reports whether a provider may give role: a viewer is made by a family admin's
// invitation or role change, never by a provider's default or groups.
func providerRole(r models.Role) bool { return r.Valid() && r != models.RoleViewer }
