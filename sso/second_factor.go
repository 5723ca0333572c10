package sso

import "slices"

// DefaultSecondFactorValues are what says a provider checked a second factor when its own
// list (Provider.SecondFactorValues) is empty, by strategy.
//
// OpenID Connect: an amr (RFC 8176) of a second factor or of several (mfa, mca), a one-time
// password (otp), a hardware, software or smart-card key (hwk, swk, sc) or FIDO (fido, used
// by some providers), or an acr of a phishing-resistant sign-in (phr, phrh: OpenID's EAP
// values) or of PAPE's multi-factor policy. SAML: the AuthnContextClassRefs of two-factor
// classes (SAML 2.0's MobileTwoFactor*, TimeSyncToken, Smartcard*), REFEDS MFA, and Entra
// ID's multipleauthn.
var DefaultSecondFactorValues = map[string][]string{
	StrategyOIDC: {"mfa", "mca", "otp", "hwk", "swk", "sc", "fido", "phr", "phrh",
		"http://schemas.openid.net/pape/policies/2007/06/multi-factor"},
	StrategySAML: {
		"urn:oasis:names:tc:SAML:2.0:ac:classes:MobileTwoFactorContract",
		"urn:oasis:names:tc:SAML:2.0:ac:classes:MobileTwoFactorUnregistered",
		"urn:oasis:names:tc:SAML:2.0:ac:classes:TimeSyncToken",
		"urn:oasis:names:tc:SAML:2.0:ac:classes:Smartcard",
		"urn:oasis:names:tc:SAML:2.0:ac:classes:SmartcardPKI",
		"https://refeds.org/profile/mfa",
		"http://schemas.microsoft.com/claims/multipleauthn",
	},
}

// The provider form's bounds on SecondFactorValues.
const (
	maxSecondFactorValues = 20
	maxSecondFactorValue  = 255
)

// SecondFactorValuesOf is what says the provider checked a second factor: its own values, or
// the defaults of its strategy.
func (p *Provider) SecondFactorValuesOf() []string {
	if len(p.SecondFactorValues) > 0 {
		return p.SecondFactorValues
	}
	return DefaultSecondFactorValues[p.Strategy]
}

// SecondFactorChecked reports whether the provider's sign-in counts as the second factor of
// a user who has one: the provider is trusted to say so (TrustSecondFactor, off by default)
// and id carries one of its values, as an amr or the acr (OIDC) or as an
// AuthnContextClassRef (SAML). A plain OAuth2 sign-in never counts.
func (p *Provider) SecondFactorChecked(id *Identity) bool {
	if !p.TrustSecondFactor || id == nil || p.Strategy == StrategyOAuth2 {
		return false
	}
	values := p.SecondFactorValuesOf()
	for _, got := range append(slices.Clone(id.AuthMethods), id.AuthContexts...) {
		if slices.Contains(values, got) {
			return true
		}
	}
	return false
}
