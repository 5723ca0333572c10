package sso_test

import (
	"os"
	"strings"
	"testing"

	"tally/models"
	"tally/sso"
)

// The example shipped with Tally parses, and says what it says.
func TestTheExampleAuthFileParses(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile("../config/auth.yml.example")
	if err != nil {
		t.Fatal(err)
	}
	f, err := sso.ParseAuthFile(raw, "production", func(k string) string { return map[string]string{"CORP_OIDC_SECRET": "from-env"}[k] })
	if err != nil {
		t.Fatal(err)
	}
	if f.LocalLoginEnabled == nil || !*f.LocalLoginEnabled || f.JITMode != "create_and_link" || len(f.Providers) != 1 {
		t.Fatalf("%+v", f)
	}
	p := f.Providers[0]
	if p.Name != "corp" || p.ClientSecret != "from-env" || strings.Join(p.Scopes, " ") != "openid email profile groups" ||
		len(p.GroupMappings) != 2 || p.GroupMappings[1] != (sso.GroupMapping{Group: "it-root", Role: models.RoleSuperAdmin}) {
		t.Fatalf("provider %+v", p)
	}
}

func TestAuthFileShapes(t *testing.T) {
	t.Parallel()
	file := `default: &default
  providers:
    - id: legacy
      strategy: openid_connect
      label: Legacy
      settings:
        issuer: https://idp.example
        client_id: a
        client_secret: "${SECRET}"
        scopes: [openid, email]
        default_role: admin
staging:
  <<: *default
  jit:
    mode: link_only
`
	env := func(k string) string { return map[string]string{"SECRET": `quote"and:colon`}[k] }
	f, err := sso.ParseAuthFile([]byte(file), "staging", env)
	if err != nil {
		t.Fatal(err)
	}
	p := f.Providers[0]
	if f.JITMode != "link_only" || p.Name != "legacy" || p.Issuer != "https://idp.example" || p.ClientSecret != `quote"and:colon` ||
		strings.Join(p.Scopes, ",") != "openid,email" || p.DefaultRole != models.RoleAdmin || !p.Enabled || p.TokenAuthMethod != sso.AuthClientSecretPost {
		t.Fatalf("%+v", p)
	}
	// An unknown section falls back to default; a provider that does not validate stops the load.
	if f, err := sso.ParseAuthFile([]byte(file), "production", env); err != nil || f.JITMode != "" {
		t.Fatalf("fallback to default: %+v %v", f, err)
	}
	bad := strings.Replace(file, "issuer: https://idp.example", "issuer: not a url", 1)
	if _, err := sso.ParseAuthFile([]byte(bad), "staging", env); err == nil || !strings.Contains(err.Error(), "Issuer must be a valid URL") {
		t.Fatalf("invalid provider: %v", err)
	}
}
