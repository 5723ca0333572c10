package sso

import (
	"fmt"
	"os"
	"regexp"
	"strings"

	"gopkg.in/yaml.v3"

	"tally/models"
)

// AuthFile is config/auth.yml: the sign-in settings and the providers of the legacy
// (non-database) provider source.
type AuthFile struct {
	// LocalLoginEnabled and AdminOverrideEnabled are nil when the file does not set them.
	LocalLoginEnabled    *bool
	AdminOverrideEnabled *bool
	JITMode              string
	AllowedDomains       string
	Providers            []*Provider
}

type authSection struct {
	LocalLogin struct {
		Enabled              *bool `yaml:"enabled"`
		AdminOverrideEnabled *bool `yaml:"admin_override_enabled"`
	} `yaml:"local_login"`
	JIT struct {
		Mode               string `yaml:"mode"`
		AllowedOIDCDomains string `yaml:"allowed_oidc_domains"`
	} `yaml:"jit"`
	Providers []yaml.Node `yaml:"providers"`
}

// yamlProvider is one provider's keys. Every key may also sit under "settings" (Sure's
// shape); a top-level key wins.
type yamlProvider struct {
	ID                      string         `yaml:"id"`
	Strategy                string         `yaml:"strategy"`
	Name                    string         `yaml:"name"`
	Label                   string         `yaml:"label"`
	Icon                    string         `yaml:"icon"`
	Enabled                 *bool          `yaml:"enabled"`
	DefaultRole             string         `yaml:"default_role"`
	GroupMappings           []GroupMapping `yaml:"group_mappings"`
	TrustEmail              *bool          `yaml:"trust_email"`
	TrustSecondFactor       *bool          `yaml:"trust_second_factor"`
	SecondFactorValues      yaml.Node      `yaml:"second_factor_values"`
	Issuer                  string         `yaml:"issuer"`
	ClientID                string         `yaml:"client_id"`
	ClientSecret            string         `yaml:"client_secret"`
	Scopes                  yaml.Node      `yaml:"scopes"`
	Prompt                  string         `yaml:"prompt"`
	AuthorizationURL        string         `yaml:"authorization_url"`
	TokenURL                string         `yaml:"token_url"`
	UserinfoURL             string         `yaml:"userinfo_url"`
	TokenEndpointAuthMethod string         `yaml:"token_endpoint_auth_method"`
	SubjectClaim            string         `yaml:"subject_claim"`
	EmailClaim              string         `yaml:"email_claim"`
	NameClaim               string         `yaml:"name_claim"`
	GroupsClaim             string         `yaml:"groups_claim"`
	IdPSSOURL               string         `yaml:"idp_sso_url"`
	IdPEntityID             string         `yaml:"idp_entity_id"`
	IdPCertificate          string         `yaml:"idp_certificate"`
	IdPMetadataURL          string         `yaml:"idp_metadata_url"`
	IdPSLOURL               string         `yaml:"idp_slo_url"`
	SignRequests            *bool          `yaml:"sign_requests"`
	SPPrivateKey            string         `yaml:"sp_private_key"`
	SPCertificate           string         `yaml:"sp_certificate"`
	GroupsAttribute         string         `yaml:"groups_attribute"`
	NameIDFormat            string         `yaml:"name_id_format"`
	Settings                yaml.Node      `yaml:"settings"`
}

var envRef = regexp.MustCompile(`\$\{([A-Za-z_][A-Za-z0-9_]*)\}`)

// LoadAuthFile reads path, taking the section named env (which may inherit "default" with
// YAML's merge key) or else "default". ${NAME} in the file is replaced by the environment
// variable NAME, so secrets can stay out of it. A missing file is an empty AuthFile.
func LoadAuthFile(path, env string, getenv func(string) string) (*AuthFile, error) {
	raw, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return &AuthFile{}, nil
	}
	if err != nil {
		return nil, err
	}
	return ParseAuthFile(raw, env, getenv)
}

// ParseAuthFile is LoadAuthFile on the file's content.
func ParseAuthFile(raw []byte, env string, getenv func(string) string) (*AuthFile, error) {
	var root yaml.Node
	if err := yaml.Unmarshal(raw, &root); err != nil {
		return nil, fmt.Errorf("config/auth.yml: %w", err)
	}
	expandEnv(&root, getenv)
	var sections map[string]authSection
	if err := root.Decode(&sections); err != nil {
		return nil, fmt.Errorf("config/auth.yml: %w", err)
	}
	sec, ok := sections[env]
	if !ok {
		sec = sections["default"]
	}
	out := &AuthFile{LocalLoginEnabled: sec.LocalLogin.Enabled, AdminOverrideEnabled: sec.LocalLogin.AdminOverrideEnabled,
		JITMode: sec.JIT.Mode, AllowedDomains: sec.JIT.AllowedOIDCDomains}
	names := map[string]int{}
	for i, node := range sec.Providers {
		p, err := providerFromYAML(&node)
		if err != nil {
			return nil, fmt.Errorf("config/auth.yml provider %d: %w", i+1, err)
		}
		if err := p.Validate(); err != nil {
			return nil, fmt.Errorf("config/auth.yml provider %q: %w", p.Name, err)
		}
		if first, dup := names[p.Name]; dup {
			return nil, fmt.Errorf("config/auth.yml: providers %d and %d are both named %q", first, i+1, p.Name)
		}
		names[p.Name] = i + 1
		out.Providers = append(out.Providers, p)
	}
	return out, nil
}

// expandEnv replaces ${NAME} in every scalar of the document by the environment's value,
// after parsing, so that a value needs no quoting whatever it holds.
func expandEnv(n *yaml.Node, getenv func(string) string) {
	if n.Kind == yaml.ScalarNode && strings.Contains(n.Value, "${") {
		n.Value = envRef.ReplaceAllStringFunc(n.Value, func(m string) string { return getenv(envRef.FindStringSubmatch(m)[1]) })
		return
	}
	for _, c := range n.Content {
		expandEnv(c, getenv)
	}
}

func providerFromYAML(node *yaml.Node) (*Provider, error) {
	var top, inner yamlProvider
	if err := node.Decode(&top); err != nil {
		return nil, err
	}
	if top.Settings.Kind != 0 {
		if err := top.Settings.Decode(&inner); err != nil {
			return nil, fmt.Errorf("settings: %w", err)
		}
	}
	// Top-level keys win over settings.
	pick := func(a, b string) string { return strings.TrimSpace(orDefault(a, b)) }
	boolOf := func(a, b *bool, def bool) bool {
		switch {
		case a != nil:
			return *a
		case b != nil:
			return *b
		}
		return def
	}
	p := &Provider{
		Key: pick(top.ID, inner.ID), Strategy: pick(top.Strategy, inner.Strategy), Name: pick(top.Name, inner.Name),
		Label: pick(top.Label, inner.Label), Enabled: boolOf(top.Enabled, inner.Enabled, true),
		DefaultRole:   models.Role(orDefault(pick(top.DefaultRole, inner.DefaultRole), string(models.RoleMember))),
		GroupMappings: top.GroupMappings, TrustEmail: boolOf(top.TrustEmail, inner.TrustEmail, false),
		Issuer: pick(top.Issuer, inner.Issuer), ClientID: pick(top.ClientID, inner.ClientID), ClientSecret: pick(top.ClientSecret, inner.ClientSecret),
		Prompt: pick(top.Prompt, inner.Prompt), AuthorizationURL: pick(top.AuthorizationURL, inner.AuthorizationURL),
		TokenURL: pick(top.TokenURL, inner.TokenURL), UserinfoURL: pick(top.UserinfoURL, inner.UserinfoURL),
		TokenAuthMethod: orDefault(pick(top.TokenEndpointAuthMethod, inner.TokenEndpointAuthMethod), AuthClientSecretPost),
		SubjectClaim:    pick(top.SubjectClaim, inner.SubjectClaim), EmailClaim: pick(top.EmailClaim, inner.EmailClaim),
		NameClaim: pick(top.NameClaim, inner.NameClaim), GroupsClaim: pick(top.GroupsClaim, inner.GroupsClaim),
		IdPSSOURL: pick(top.IdPSSOURL, inner.IdPSSOURL), IdPEntityID: pick(top.IdPEntityID, inner.IdPEntityID),
		IdPCertificate: pick(top.IdPCertificate, inner.IdPCertificate), IdPMetadataURL: pick(top.IdPMetadataURL, inner.IdPMetadataURL),
		IdPSLOURL: pick(top.IdPSLOURL, inner.IdPSLOURL), SignRequests: boolOf(top.SignRequests, inner.SignRequests, false),
		SPPrivateKey: pick(top.SPPrivateKey, inner.SPPrivateKey), SPCertificate: pick(top.SPCertificate, inner.SPCertificate),
		GroupsAttribute: pick(top.GroupsAttribute, inner.GroupsAttribute), NameIDFormat: pick(top.NameIDFormat, inner.NameIDFormat),
	}
	p.TrustSecondFactor = boolOf(top.TrustSecondFactor, inner.TrustSecondFactor, false)
	if p.GroupMappings == nil {
		p.GroupMappings = inner.GroupMappings
	}
	if icon := pick(top.Icon, inner.Icon); icon != "" {
		p.Icon = &icon
	}
	if p.Name == "" {
		p.Name = p.Key
	}
	if p.Key == "" {
		p.Key = p.Name
	}
	scopes, err := wordList(&top.Scopes, &inner.Scopes)
	if err != nil {
		return nil, fmt.Errorf("scopes: %w", err)
	}
	values, err := wordList(&top.SecondFactorValues, &inner.SecondFactorValues)
	if err != nil {
		return nil, fmt.Errorf("second_factor_values: %w", err)
	}
	p.Scopes, p.SecondFactorValues = scopes, values
	return p, nil
}

// wordList reads the first of nodes that has words: a list, or a space-separated string.
func wordList(nodes ...*yaml.Node) ([]string, error) {
	for _, n := range nodes {
		words, err := words(n)
		if err != nil || len(words) > 0 {
			return words, err
		}
	}
	return nil, nil
}

// words reads a list, or a space-separated string.
func words(n *yaml.Node) ([]string, error) {
	switch n.Kind {
	case 0:
		return nil, nil
	case yaml.ScalarNode:
		return strings.Fields(n.Value), nil
	}
	var list []string
	if err := n.Decode(&list); err != nil {
		return nil, err
	}
	return list, nil
}
