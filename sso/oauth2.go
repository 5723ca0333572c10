package sso

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"golang.org/x/oauth2"
)

// oauth2Strategy is a generic OAuth2 authorization code flow, for providers that are not
// OpenID Connect (GitHub, Discourse, in-house servers): explicit authorization, token and
// userinfo URLs, state and PKCE, and the identity read from the userinfo answer by claim
// paths the admin configures. Without an ID token nothing is signed, so the identity is only
// as trustworthy as the TLS connection to the userinfo endpoint.
type oauth2Strategy struct{}

// OAuth2 returns the generic OAuth2 strategy.
func OAuth2() Strategy { return oauth2Strategy{} }

const (
	// oauth2CallTimeout bounds the token exchange and the userinfo call together, so that a
	// provider that never answers cannot hold the callback request open.
	oauth2CallTimeout = 15 * time.Second
	// maxUserinfoBytes bounds the userinfo answer we read.
	maxUserinfoBytes = 1 << 20
)

// authStyle is how the token endpoint gets the client's secret, for OAuth2 and OIDC alike.
// It is always explicit: the library's auto-detection would retry a refused exchange with
// the secret sent the other way, which spends a single-use code and hides a
// misconfiguration.
func authStyle(p *Provider) oauth2.AuthStyle {
	if p.TokenAuthMethod == AuthClientSecretBasic {
		return oauth2.AuthStyleInHeader
	}
	return oauth2.AuthStyleInParams
}

// oauth2Config is the provider as golang.org/x/oauth2 wants it.
func oauth2Config(p *Provider, env Env) *oauth2.Config {
	return &oauth2.Config{
		ClientID:     p.ClientID,
		ClientSecret: p.ClientSecret,
		Endpoint:     oauth2.Endpoint{AuthURL: p.AuthorizationURL, TokenURL: p.TokenURL, AuthStyle: authStyle(p)},
		RedirectURL:  p.CallbackURL(env.AppURL),
		Scopes:       p.ScopeList(),
	}
}

func (oauth2Strategy) Begin(_ context.Context, p *Provider, env Env, purpose string) (string, Flow, error) {
	f := Flow{Provider: p.Name, State: randomToken(), Verifier: oauth2.GenerateVerifier(),
		Purpose: purpose, StartedAt: env.Now()}
	// PKCE is sent to every provider: those that do not support it ignore the parameters,
	// and those that do are protected against a stolen code.
	opts := []oauth2.AuthCodeOption{oauth2.S256ChallengeOption(f.Verifier)}
	if p.Prompt != "" {
		opts = append(opts, oauth2.SetAuthURLParam("prompt", p.Prompt))
	}
	return oauth2Config(p, env).AuthCodeURL(f.State, opts...), f, nil
}

func (oauth2Strategy) Complete(ctx context.Context, p *Provider, env Env, r *http.Request, f Flow) (*Identity, error) {
	if err := checkCallback(r, f, env); err != nil {
		return nil, err
	}
	if f.Provider != p.Name {
		return nil, fail(ReasonInvalidState, msgTryAgain, fmt.Errorf("the flow was started for provider %q", f.Provider))
	}
	hc := env.HTTP
	if hc == nil {
		hc = http.DefaultClient
	}
	ctx, cancel := context.WithTimeout(ctx, oauth2CallTimeout)
	defer cancel()
	tok, err := oauth2Config(p, env).Exchange(context.WithValue(ctx, oauth2.HTTPClient, hc),
		r.URL.Query().Get("code"), oauth2.VerifierOption(f.Verifier))
	if err != nil {
		return nil, exchangeFailure(err)
	}
	claims, err := fetchUserinfo(ctx, hc, p.UserinfoURL, tok.AccessToken)
	if err != nil {
		return nil, err
	}
	return oauth2Identity(p, claims)
}

// exchangeFailure sorts a failed token exchange: the provider being down or overloaded
// (network errors, 5xx, 429) is worth retrying later; anything else (invalid_grant,
// invalid_client, a malformed answer) is not. The provider's error_description and body are
// left out: they are free text and may echo what was sent.
func exchangeFailure(err error) error {
	var re *oauth2.RetrieveError
	if errors.As(err, &re) {
		status := 0
		if re.Response != nil {
			status = re.Response.StatusCode
		}
		cause := fmt.Errorf("token endpoint answered HTTP %d %s", status, sanitizeCode(re.ErrorCode))
		if status >= 500 || status == http.StatusTooManyRequests {
			return fail(ReasonProviderUnavailable, msgUnavailable, cause)
		}
		return fail(ReasonInvalidResponse, msgInvalid, cause)
	}
	var ue *url.Error
	if errors.As(err, &ue) || errors.Is(err, context.DeadlineExceeded) {
		return fail(ReasonProviderUnavailable, msgUnavailable, fmt.Errorf("token endpoint: %w", err))
	}
	return fail(ReasonInvalidResponse, msgInvalid, fmt.Errorf("token endpoint: %w", err))
}

// fetchUserinfo GETs the userinfo endpoint with the access token and returns its JSON
// object. Numbers are kept as json.Number, so that large numeric ids keep every digit.
func fetchUserinfo(ctx context.Context, hc *http.Client, endpoint, accessToken string) (map[string]any, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, endpoint, nil)
	if err != nil {
		return nil, fail(ReasonProviderUnavailable, msgUnavailable, fmt.Errorf("userinfo URL: %w", err))
	}
	req.Header.Set("Authorization", "Bearer "+accessToken)
	req.Header.Set("Accept", "application/json")
	resp, err := hc.Do(req)
	if err != nil {
		return nil, fail(ReasonProviderUnavailable, msgUnavailable, fmt.Errorf("userinfo: %w", err))
	}
	defer resp.Body.Close()
	switch {
	case resp.StatusCode >= 500 || resp.StatusCode == http.StatusTooManyRequests:
		return nil, fail(ReasonProviderUnavailable, msgUnavailable, fmt.Errorf("userinfo answered HTTP %d", resp.StatusCode))
	case resp.StatusCode != http.StatusOK:
		return nil, fail(ReasonInvalidResponse, msgInvalid, fmt.Errorf("userinfo answered HTTP %d", resp.StatusCode))
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxUserinfoBytes+1))
	if err != nil {
		return nil, fail(ReasonProviderUnavailable, msgUnavailable, fmt.Errorf("read userinfo: %w", err))
	}
	if len(body) > maxUserinfoBytes {
		return nil, fail(ReasonInvalidResponse, msgInvalid, fmt.Errorf("userinfo is larger than %d bytes", maxUserinfoBytes))
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var claims map[string]any
	if err := dec.Decode(&claims); err != nil || claims == nil {
		// The decoder's errors name a type or a single character, never the body.
		return nil, fail(ReasonInvalidResponse, msgInvalid, fmt.Errorf("userinfo is not a JSON object: %v", err))
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fail(ReasonInvalidResponse, msgInvalid, errors.New("userinfo has data after its JSON object"))
	}
	return claims, nil
}

// oauth2Identity reads the identity from the userinfo claims. The subject has no fallback
// when its claim is configured: an account's id must come from the same claim every time,
// or one person could be linked under two ids.
func oauth2Identity(p *Provider, claims map[string]any) (*Identity, error) {
	subjectPaths := []string{"sub", "id"}
	if p.SubjectClaim != "" {
		subjectPaths = []string{p.SubjectClaim}
	}
	id := &Identity{
		Provider:  p.Name,
		Issuer:    p.Issuer,
		Subject:   firstClaim(claims, subjectPaths...),
		Email:     strings.ToLower(strings.TrimSpace(ClaimString(claims, orDefault(p.EmailClaim, "email")))),
		Name:      firstClaim(claims, p.NameClaim, "name", "preferred_username", "login"),
		FirstName: strings.TrimSpace(ClaimString(claims, "given_name")),
		LastName:  strings.TrimSpace(ClaimString(claims, "family_name")),
		Groups:    ClaimGroups(claims, orDefault(p.GroupsClaim, "groups")),
		Claims:    claims,
	}
	if id.Subject == "" {
		return nil, fail(ReasonInvalidResponse, msgInvalid, fmt.Errorf("userinfo has no subject (%s)", strings.Join(subjectPaths, ", ")))
	}
	if id.Issuer == "" {
		id.Issuer = urlOrigin(p.TokenURL)
	}
	// The admin's trust setting vouches for the provider's emails, and a provider may vouch
	// for one itself; but a provider that says an email is unverified is believed.
	verified, stated := claims["email_verified"].(bool)
	id.EmailVerified = (p.TrustEmail && (!stated || verified)) || verified
	return id, nil
}

// firstClaim is the first non-blank of the claims at paths, trimmed; blank paths are skipped.
func firstClaim(claims map[string]any, paths ...string) string {
	for _, path := range paths {
		if v := strings.TrimSpace(ClaimString(claims, path)); v != "" {
			return v
		}
	}
	return ""
}

// urlOrigin is scheme://host of u, or "" when u does not parse as an absolute URL.
func urlOrigin(u string) string {
	pu, err := url.Parse(u)
	if err != nil || pu.Scheme == "" || pu.Host == "" {
		return ""
	}
	return pu.Scheme + "://" + pu.Host
}
