// Package sso signs people in through identity providers: OpenID Connect (go-oidc), generic
// OAuth2 and SAML 2.0 (crewjam/saml). Each strategy turns the provider's answer into the same
// normalised Identity; Service then applies Tally's sign-in rules to it (find the linked user,
// link to an existing one, or create one just in time), syncs the user's role from the
// provider's groups, and writes the audit log.
package sso

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"
)

// Identity is who the provider says signed in, the same for every strategy.
type Identity struct {
	Provider      string   // the provider's name
	Issuer        string   // the ID token's iss (OIDC), the IdP entity id (SAML), the issuer setting (OAuth2)
	Subject       string   // the provider's stable id for the account: sub, a claim, or the NameID
	Email         string   // lower-cased
	EmailVerified bool     // OIDC email_verified; SAML and OAuth2: the provider's trust_email setting
	Name          string   // the display name
	FirstName     string   // when the provider gives it apart
	LastName      string   // when the provider gives it apart
	Groups        []string // as the provider spells them: mappings match case-sensitively
	// AuthMethods are how the provider says it authenticated the person: the ID token's amr
	// (OIDC, RFC 8176). AuthContexts are the class of that authentication: the ID token's acr
	// (OIDC), the assertion's AuthnContextClassRefs (SAML). Provider.SecondFactorChecked reads
	// them.
	AuthMethods  []string
	AuthContexts []string
	// IDToken is the raw OIDC ID token, kept for RP-initiated logout.
	IDToken string
	// Claims are the raw claims or attributes received, for the admin's test login.
	Claims map[string]any
}

// Flow is what a sign-in keeps between its start and the provider's callback, in the
// browser's session: the values that tie the callback to this start.
type Flow struct {
	Provider  string    `json:"provider"` // the provider's name
	State     string    `json:"state"`
	Nonce     string    `json:"nonce,omitempty"`
	Verifier  string    `json:"verifier,omitempty"`   // PKCE code verifier
	RequestID string    `json:"request_id,omitempty"` // SAML AuthnRequest id (InResponseTo)
	Purpose   string    `json:"purpose"`              // PurposeLogin, PurposeLink or PurposeTest
	StartedAt time.Time `json:"started_at"`
}

// Purposes of a flow.
const (
	PurposeLogin = "login" // sign in (or up)
	PurposeLink  = "link"  // connect another provider to the signed-in user
	PurposeTest  = "test"  // an admin's test login: show what arrived, sign nobody in
)

// FlowLifetime is how long a started sign-in may take at the provider.
const FlowLifetime = 15 * time.Minute

// Env is what strategies need from the running service.
type Env struct {
	// AppURL is the public base URL, without a trailing slash: callback URLs are built from it.
	AppURL string
	// HTTP makes the calls to providers (discovery, token, userinfo, metadata).
	HTTP *http.Client
	// Now is the clock.
	Now func() time.Time
	// Assertions remembers the SAML assertions already used, refusing a replay.
	Assertions ReplayCache
}

// ReplayCache records one-time ids (SAML assertion ids) until they expire.
type ReplayCache interface {
	// Use records id until expires and reports false when it was already recorded.
	Use(ctx context.Context, id string, expires time.Time) (bool, error)
}

// Strategy runs one kind of provider's sign-in.
type Strategy interface {
	// Begin returns where to send the browser, and the flow to keep until the callback.
	Begin(ctx context.Context, p *Provider, env Env, purpose string) (redirect string, f Flow, err error)
	// Complete checks the provider's answer (the callback request) against the flow and
	// returns who signed in. Every refusal is a *Failure.
	Complete(ctx context.Context, p *Provider, env Env, r *http.Request, f Flow) (*Identity, error)
}

// Failure is a sign-in the rules refuse or a provider answer that does not hold. Reason is
// the audit log's; Message is what the person is told, with what to do next.
type Failure struct {
	Reason  string
	Message string
	Err     error
}

func (f *Failure) Error() string {
	if f.Err != nil {
		return fmt.Sprintf("%s: %s: %v", f.Reason, f.Message, f.Err)
	}
	return f.Reason + ": " + f.Message
}

func (f *Failure) Unwrap() error { return f.Err }

// Failure reasons.
const (
	ReasonInvalidState        = "invalid_state"        // the callback does not belong to a flow started here
	ReasonExpired             = "flow_expired"         // the flow is older than FlowLifetime
	ReasonProviderUnavailable = "provider_unavailable" // discovery, token or metadata calls failed
	ReasonInvalidResponse     = "invalid_response"     // a token or assertion that does not verify
	ReasonDenied              = "access_denied"        // the provider reported an error
	ReasonIssuerMismatch      = "issuer_mismatch"
	ReasonReplayed            = "replayed"
	ReasonEmailMissing        = "email_missing"
	ReasonEmailUnverified     = "email_unverified"
	ReasonDomainNotAllowed    = "domain_not_allowed"
	ReasonLinkOnly            = "link_only"
	ReasonSuspended           = "user_suspended"
	ReasonUnknownProvider     = "unknown_provider"
	ReasonIdentityInUse       = "identity_in_use" // the account is connected to another user
)

// fail builds a Failure.
func fail(reason, message string, err error) *Failure {
	return &Failure{Reason: reason, Message: message, Err: err}
}

// AsFailure returns err's Failure, if it is one.
func AsFailure(err error) (*Failure, bool) {
	var f *Failure
	ok := errors.As(err, &f)
	return f, ok
}

// Messages shared by strategies.
const (
	msgTryAgain    = "Single sign-on failed. Please try again."
	msgUnavailable = "The sign-in provider is unavailable right now. Please try again later, or contact your administrator."
	msgInvalid     = "The sign-in provider's answer could not be verified, so you were not signed in. Please try again; if it keeps failing, contact your administrator."
)
