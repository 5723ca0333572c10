package sso

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/coreos/go-oidc/v3/oidc"
	"golang.org/x/oauth2"
)

// oidcStrategy is OpenID Connect's authorization code flow with PKCE, state and nonce, on
// go-oidc: discovery from the issuer, and an ID token verified for signature, issuer,
// audience, expiry and nonce.
type oidcStrategy struct {
	mu        sync.Mutex
	providers map[string]cachedDiscovery // by issuer
}

type cachedDiscovery struct {
	p       *oidc.Provider
	fetched time.Time
}

// discoveryTTL is how long a provider's discovery document is reused.
const discoveryTTL = 5 * time.Minute

// OIDC returns the OpenID Connect strategy.
func OIDC() Strategy { return &oidcStrategy{providers: map[string]cachedDiscovery{}} }

func (s *oidcStrategy) discover(ctx context.Context, p *Provider, env Env) (*oidc.Provider, error) {
	s.mu.Lock()
	c, ok := s.providers[p.Issuer]
	s.mu.Unlock()
	if ok && env.Now().Sub(c.fetched) < discoveryTTL {
		return c.p, nil
	}
	dctx, cancel := context.WithTimeout(oidc.ClientContext(ctx, env.HTTP), 10*time.Second)
	defer cancel()
	op, err := oidc.NewProvider(dctx, p.Issuer)
	if err != nil {
		return nil, fail(ReasonProviderUnavailable, msgUnavailable, fmt.Errorf("discovery of %s: %w", p.Issuer, err))
	}
	s.mu.Lock()
	s.providers[p.Issuer] = cachedDiscovery{p: op, fetched: env.Now()}
	s.mu.Unlock()
	return op, nil
}

func (s *oidcStrategy) config(op *oidc.Provider, p *Provider, env Env) *oauth2.Config {
	ep := op.Endpoint()
	ep.AuthStyle = authStyle(p)
	return &oauth2.Config{ClientID: p.ClientID, ClientSecret: p.ClientSecret, Endpoint: ep,
		RedirectURL: p.CallbackURL(env.AppURL), Scopes: p.ScopeList()}
}

// groupsClaimsRequest asks the provider to put groups in the ID token and userinfo (OIDC Core
// §5.5); providers that do not support it ignore it.
const groupsClaimsRequest = `{"id_token":{"groups":null},"userinfo":{"groups":null}}`

func (s *oidcStrategy) Begin(ctx context.Context, p *Provider, env Env, purpose string) (string, Flow, error) {
	if env.HTTP == nil {
		env.HTTP = http.DefaultClient
	}
	op, err := s.discover(ctx, p, env)
	if err != nil {
		return "", Flow{}, err
	}
	f := Flow{Provider: p.Name, State: randomToken(), Nonce: randomToken(), Verifier: oauth2.GenerateVerifier(),
		Purpose: purpose, StartedAt: env.Now()}
	opts := []oauth2.AuthCodeOption{oidc.Nonce(f.Nonce), oauth2.S256ChallengeOption(f.Verifier)}
	if p.Prompt != "" {
		opts = append(opts, oauth2.SetAuthURLParam("prompt", p.Prompt))
	}
	if p.WantsGroups() {
		opts = append(opts, oauth2.SetAuthURLParam("claims", groupsClaimsRequest))
	}
	return s.config(op, p, env).AuthCodeURL(f.State, opts...), f, nil
}

func (s *oidcStrategy) Complete(ctx context.Context, p *Provider, env Env, r *http.Request, f Flow) (*Identity, error) {
	if f.Provider != p.Name {
		return nil, fail(ReasonInvalidState, msgTryAgain, fmt.Errorf("the flow is %s's, not %s's", f.Provider, p.Name))
	}
	if err := checkCallback(r, f, env); err != nil {
		return nil, err
	}
	if env.HTTP == nil {
		env.HTTP = http.DefaultClient
	}
	op, err := s.discover(ctx, p, env)
	if err != nil {
		return nil, err
	}
	hctx := oidc.ClientContext(ctx, env.HTTP)
	tok, err := s.config(op, p, env).Exchange(hctx, r.URL.Query().Get("code"), oauth2.VerifierOption(f.Verifier))
	if err != nil {
		return nil, exchangeFailure(err)
	}
	raw, _ := tok.Extra("id_token").(string)
	if raw == "" {
		return nil, fail(ReasonInvalidResponse, msgInvalid, fmt.Errorf("the token response has no id_token"))
	}
	// Verify checks the signature against the provider's keys (an unsigned "alg: none" token
	// has none), the issuer, the audience (our client id) and the expiry.
	idt, err := op.Verifier(&oidc.Config{ClientID: p.ClientID, Now: env.Now}).Verify(hctx, raw)
	if err != nil {
		return nil, fail(ReasonInvalidResponse, msgInvalid, fmt.Errorf("verify ID token: %w", err))
	}
	if idt.Nonce != f.Nonce {
		return nil, fail(ReasonInvalidResponse, msgInvalid, fmt.Errorf("the ID token's nonce is not this sign-in's"))
	}
	claims := map[string]any{}
	if err := idt.Claims(&claims); err != nil {
		return nil, fail(ReasonInvalidResponse, msgInvalid, fmt.Errorf("read ID token claims: %w", err))
	}
	groupsPath := orDefault(p.GroupsClaim, "groups")
	needGroups := p.WantsGroups() && ClaimGroups(claims, groupsPath) == nil && !hasClaim(claims, groupsPath)
	if needGroups || ClaimString(claims, orDefault(p.EmailClaim, "email")) == "" {
		// Groups, and sometimes the email, come from userinfo only. Without the groups a
		// sign-in would demote a mapped user, so then a failed userinfo call refuses it.
		extra, err := s.userinfo(hctx, op, tok)
		switch {
		case err == nil && extra["sub"] != claims["sub"]:
			return nil, fail(ReasonInvalidResponse, msgInvalid, fmt.Errorf("userinfo is about another subject"))
		case err == nil:
			for k, v := range extra {
				if _, ok := claims[k]; !ok {
					claims[k] = v
				}
			}
		case needGroups:
			return nil, fail(ReasonProviderUnavailable, msgUnavailable, fmt.Errorf("userinfo, for the groups: %w", err))
		}
	}
	id := &Identity{Provider: p.Name, Issuer: idt.Issuer, Subject: idt.Subject, IDToken: raw, Claims: claims,
		Email:     strings.ToLower(strings.TrimSpace(ClaimString(claims, orDefault(p.EmailClaim, "email")))),
		Name:      ClaimString(claims, orDefault(p.NameClaim, "name")),
		FirstName: ClaimString(claims, "given_name"), LastName: ClaimString(claims, "family_name"),
		Groups: ClaimGroups(claims, groupsPath)}
	id.EmailVerified, _ = claims["email_verified"].(bool)
	// How the provider signed the person in comes from the ID token alone, never userinfo: it
	// is what the provider signed for this sign-in. A malformed amr or acr says nothing.
	var authn struct {
		AMR []string `json:"amr"`
		ACR string   `json:"acr"`
	}
	if idt.Claims(&authn) == nil {
		id.AuthMethods = authn.AMR
		if authn.ACR != "" {
			id.AuthContexts = []string{authn.ACR}
		}
	}
	if p.SubjectClaim != "" {
		id.Subject = ClaimString(claims, p.SubjectClaim)
	}
	if id.Subject == "" {
		return nil, fail(ReasonInvalidResponse, msgInvalid, fmt.Errorf("the ID token has no subject"))
	}
	return id, nil
}

// userinfo reads the provider's userinfo answer for the token.
func (s *oidcStrategy) userinfo(ctx context.Context, op *oidc.Provider, tok *oauth2.Token) (map[string]any, error) {
	info, err := op.UserInfo(ctx, oauth2.StaticTokenSource(tok))
	if err != nil {
		return nil, err
	}
	out := map[string]any{}
	return out, info.Claims(&out)
}

// hasClaim reports whether a claim path is present, whatever its value.
func hasClaim(claims map[string]any, path string) bool {
	if _, ok := claims[path]; ok {
		return true
	}
	var cur any = claims
	for _, part := range strings.Split(path, ".") {
		m, ok := cur.(map[string]any)
		if !ok {
			return false
		}
		if cur, ok = m[part]; !ok {
			return false
		}
	}
	return true
}

// EndSessioner is a strategy that can end the provider's session too (OIDC RP-initiated
// logout).
type EndSessioner interface {
	EndSessionURL(ctx context.Context, p *Provider, env Env, idToken, postLogout string) string
}

// EndSessionURL returns the provider's RP-initiated logout URL for an ID token, or "" when
// the provider has none.
func (s *oidcStrategy) EndSessionURL(ctx context.Context, p *Provider, env Env, idToken, postLogout string) string {
	op, err := s.discover(ctx, p, env)
	if err != nil {
		return ""
	}
	var meta struct {
		EndSession string `json:"end_session_endpoint"`
	}
	if op.Claims(&meta) != nil || meta.EndSession == "" {
		return ""
	}
	sep := "?"
	if strings.Contains(meta.EndSession, "?") {
		sep = "&"
	}
	return meta.EndSession + sep + "id_token_hint=" + url.QueryEscape(idToken) + "&post_logout_redirect_uri=" + url.QueryEscape(postLogout)
}

// checkCallback checks what every redirect-based callback carries: no provider error, this
// flow's state, and a flow that is not too old.
func checkCallback(r *http.Request, f Flow, env Env) error {
	q := r.URL.Query()
	if e := q.Get("error"); e != "" {
		return fail(ReasonDenied, "The sign-in provider did not let you in ("+sanitizeCode(e)+"). Please try again, or contact your administrator.", nil)
	}
	if q.Get("state") == "" || q.Get("state") != f.State {
		return fail(ReasonInvalidState, msgTryAgain, fmt.Errorf("the callback's state is not this sign-in's"))
	}
	if env.Now().Sub(f.StartedAt) > FlowLifetime {
		return fail(ReasonExpired, "The sign-in took too long. Please try again.", nil)
	}
	if q.Get("code") == "" {
		return fail(ReasonInvalidResponse, msgInvalid, fmt.Errorf("the callback has no code"))
	}
	return nil
}

// sanitizeCode keeps an OAuth error code readable and harmless.
func sanitizeCode(s string) string {
	var b strings.Builder
	for _, r := range s {
		if (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || (r >= '0' && r <= '9') || r == '_' || r == '-' {
			b.WriteRune(r)
		}
		if b.Len() >= 40 {
			break
		}
	}
	return b.String()
}

// randomToken is 32 random bytes, base64url (43 characters: short enough for a SAML
// RelayState, which bindings limit to 80 bytes).
func randomToken() string {
	b := make([]byte, 32)
	_, _ = rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
