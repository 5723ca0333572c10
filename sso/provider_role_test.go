package sso_test

import (
	"strings"
	"testing"

	"tally/sso"
)

// A provider gives member, admin or super admin: viewer, a role of families, is refused as a
// default and in a group mapping.
func TestProviderRolesExcludeViewer(t *testing.T) {
	t.Parallel()
	p := &sso.Provider{Strategy: sso.StrategyOIDC, Name: "corp", Label: "Corp", DefaultRole: "viewer", TokenAuthMethod: sso.AuthClientSecretPost,
		Issuer: "https://idp.example", ClientID: "a", ClientSecret: "b",
		GroupMappings: []sso.GroupMapping{{Group: "kids", Role: "viewer"}}}
	err := p.Validate()
	if err == nil || !strings.Contains(err.Error(), "Default role must be member, admin or super_admin") ||
		!strings.Contains(err.Error(), "Group mapping 1: role must be") {
		t.Fatalf("validate: %v", err)
	}
}
