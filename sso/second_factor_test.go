package sso_test

import (
	"strings"
	"testing"

	"tally/sso"
)

// TestSecondFactorChecked is the rule of a provider's sign-in standing for Tally's second
// factor: only when the provider is trusted to say so, and says so with one of the values
// that count (its own, or its strategy's defaults).
func TestSecondFactorChecked(t *testing.T) {
	t.Parallel()
	oidc := func(trust bool, values ...string) *sso.Provider {
		return &sso.Provider{Strategy: sso.StrategyOIDC, TrustSecondFactor: trust, SecondFactorValues: values}
	}
	saml := func(trust bool, values ...string) *sso.Provider {
		return &sso.Provider{Strategy: sso.StrategySAML, TrustSecondFactor: trust, SecondFactorValues: values}
	}
	const twoFactor = "urn:oasis:names:tc:SAML:2.0:ac:classes:MobileTwoFactorContract"
	const password = "urn:oasis:names:tc:SAML:2.0:ac:classes:PasswordProtectedTransport"
	for _, tc := range []struct {
		name string
		p    *sso.Provider
		id   sso.Identity
		want bool
	}{
		{"off by default, whatever the provider says", &sso.Provider{Strategy: sso.StrategyOIDC}, sso.Identity{AuthMethods: []string{"pwd", "mfa"}}, false},
		{"amr mfa counts by default", oidc(true), sso.Identity{AuthMethods: []string{"pwd", "mfa"}}, true},
		{"amr otp or hwk counts by default", oidc(true), sso.Identity{AuthMethods: []string{"hwk"}}, true},
		{"a password alone does not", oidc(true), sso.Identity{AuthMethods: []string{"pwd"}}, false},
		{"nothing said is nothing checked", oidc(true), sso.Identity{}, false},
		{"an acr of the provider's list counts", oidc(true, "gold"), sso.Identity{AuthContexts: []string{"gold"}}, true},
		{"the provider's list replaces the defaults", oidc(true, "gold"), sso.Identity{AuthMethods: []string{"mfa"}}, false},
		{"values match exactly", oidc(true), sso.Identity{AuthMethods: []string{"MFA"}}, false},
		{"a SAML two-factor class counts by default", saml(true), sso.Identity{AuthContexts: []string{twoFactor}}, true},
		{"SAML's password class does not", saml(true), sso.Identity{AuthContexts: []string{password}}, false},
		{"a SAML class of the provider's list", saml(true, "https://example.com/acr/strong"), sso.Identity{AuthContexts: []string{"https://example.com/acr/strong"}}, true},
		{"a plain OAuth2 sign-in never counts", &sso.Provider{Strategy: sso.StrategyOAuth2, TrustSecondFactor: true}, sso.Identity{AuthMethods: []string{"mfa"}}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.p.SecondFactorChecked(&tc.id); got != tc.want {
				t.Fatalf("SecondFactorChecked = %v, want %v", got, tc.want)
			}
		})
	}
}

// TestSecondFactorSettingsValidate refuses the setting where it cannot hold (plain OAuth2)
// and lists of values past their bounds, and reads both from the auth file.
func TestSecondFactorSettingsValidate(t *testing.T) {
	t.Parallel()
	p := &sso.Provider{Strategy: sso.StrategyOAuth2, Name: "gh", Label: "GitHub", DefaultRole: "member", TokenAuthMethod: sso.AuthClientSecretPost,
		AuthorizationURL: "https://gh.example/authorize", TokenURL: "https://gh.example/token", UserinfoURL: "https://gh.example/user",
		ClientID: "a", ClientSecret: "b", TrustSecondFactor: true, SecondFactorValues: []string{strings.Repeat("x", 256)}}
	err := p.Validate()
	if err == nil || !strings.Contains(err.Error(), "only OpenID Connect and SAML sign-ins can count as the second factor") ||
		!strings.Contains(err.Error(), "at most 255 characters") {
		t.Fatalf("validate: %v", err)
	}

	file := `default:
  providers:
    - id: corp
      strategy: openid_connect
      label: Corp
      issuer: https://idp.example
      client_id: a
      client_secret: b
      trust_second_factor: true
      second_factor_values: mfa gold
    - id: okta
      strategy: saml
      label: Okta
      idp_metadata_url: https://okta.example/metadata
      settings:
        second_factor_values: [https://refeds.org/profile/mfa]
`
	f, err := sso.ParseAuthFile([]byte(file), "production", func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	corp, okta := f.Providers[0], f.Providers[1]
	if !corp.TrustSecondFactor || strings.Join(corp.SecondFactorValues, ",") != "mfa,gold" ||
		okta.TrustSecondFactor || strings.Join(okta.SecondFactorValues, ",") != "https://refeds.org/profile/mfa" {
		t.Fatalf("corp %v %v, okta %v %v", corp.TrustSecondFactor, corp.SecondFactorValues, okta.TrustSecondFactor, okta.SecondFactorValues)
	}
}
