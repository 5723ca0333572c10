// Package web composes Tally's web server on the core composition (package app): the
// services only the web app uses and the router. `tally serve`, `tally dev` and the test
// server build it; `tally worker` and the operator tasks do not.
package web

import (
	"context"
	"crypto/hkdf"
	"crypto/sha256"
	"net/http"
	"time"

	"github.com/alexedwards/scs/v2"
	"github.com/google/uuid"
	"github.com/labstack/echo/v4"

	"tally/app"
	"tally/auth"
	"tally/config"
	"tally/handlers"
	"tally/internal/db"
	"tally/internal/ratelimit"
	"tally/internal/sessions"
	"tally/jobs"
	"tally/members"
	"tally/mfa"
	"tally/oauth"
	"tally/sso"
)

// Options adjust what New builds; the zero value is what `tally serve` runs.
type Options struct {
	// Now is the clock of the sign-in's time limits; time.Now when nil.
	Now func() time.Time
}

// New builds the web server on a's services: the services only the web app uses (sign-in,
// sessions, second factors, the OAuth server, SSO) and every route.
func New(a *app.App, opts Options) (*echo.Echo, error) {
	cfg, d, log := a.Config, a.DB, a.Log
	mailer := a.Mailer
	// Passkeys are bound to a domain name: with an IP address in APP_URL they are off.
	rp, err := mfa.NewWebAuthn(cfg.AppURL)
	if err != nil {
		log.Warn("passkeys are off: APP_URL must name this Tally by a domain (such as tally.example.com or localhost)", "app_url", cfg.AppURL, "reason", err.Error())
		rp = nil
	}
	limiter := ratelimit.New(d)
	second := &mfa.Service{DB: d, Keys: a.Keys, WebAuthn: rp}
	deps := handlers.Deps{
		Config:  cfg,
		DB:      d,
		Imports: a.Imports,
		Limiter: limiter,
		Auth: &auth.Service{
			DB: d, Mailer: mailer, AppURL: cfg.AppURL, Log: log,
			Policy:  auth.Policy{LocalLoginEnabled: cfg.LocalLoginEnabled, AdminOverrideEnabled: cfg.LocalAdminOverrideEnabled},
			Limiter: limiter, Browsers: auth.Browsers{DB: d},
			SecondFactor: func(ctx context.Context, userID uuid.UUID) (bool, error) {
				st, err := second.StatusOf(ctx, userID)
				return st.Any(), err
			},
		},
		Sessions:       newSessionManager(d, cfg),
		Log:            log,
		OAuth:          newOAuth(cfg, d),
		MFA:            second,
		Bank:           a.Bank,
		BankQueue:      jobs.BankEnqueuer{Client: a.Jobs},
		Webhooks:       a.Webhooks,
		Budgets:        a.Budgets,
		Recurring:      a.Recurring,
		RecurringQueue: jobs.RecurringQueue{Client: a.Jobs},
		Now:            time.Now,
	}
	deps.Members = &members.Service{DB: d, Mailer: mailer, SendMail: cfg.SMTPURL != "", AppURL: cfg.AppURL, Now: time.Now, Log: log, Bank: a.Bank}
	if opts.Now != nil {
		deps.Now = opts.Now
		deps.Members.Now = opts.Now
	}
	if a.Started() {
		deps.Jobs = a.Jobs
	}
	if deps.SSO, err = loadSSO(a, &deps.Auth.Policy); err != nil {
		return nil, err
	}
	return handlers.New(deps), nil
}

// loadSSO reads the provider source the configuration names and wires sign-in through it.
// The auth file's local_login and jit settings apply to policy and the rules where their
// variables are not set.
func loadSSO(a *app.App, policy *auth.Policy) (*handlers.SSO, error) {
	cfg, d := a.Config, a.DB
	file, err := sso.LoadAuthFile(cfg.AuthConfigFile, cfg.AppEnv, cfg.Getenv)
	if err != nil {
		return nil, err
	}
	if !cfg.Set["AUTH_LOCAL_LOGIN_ENABLED"] && file.LocalLoginEnabled != nil {
		policy.LocalLoginEnabled = *file.LocalLoginEnabled
	}
	if !cfg.Set["AUTH_LOCAL_ADMIN_OVERRIDE_ENABLED"] && file.AdminOverrideEnabled != nil {
		policy.AdminOverrideEnabled = *file.AdminOverrideEnabled
	}
	rules := sso.Rules{JITMode: cfg.JITMode, AllowedDomains: sso.ParseDomains(cfg.AllowedOIDCDomains)}
	if rules.JITMode == "" {
		rules.JITMode = file.JITMode
	}
	if rules.JITMode == "" {
		rules.JITMode = sso.JITCreateAndLink
	}
	if !cfg.Set["ALLOWED_OIDC_DOMAINS"] && file.AllowedDomains != "" {
		rules.AllowedDomains = sso.ParseDomains(file.AllowedDomains)
	}
	var reg sso.Registry = &sso.StaticRegistry{Providers: file.Providers}
	if cfg.AuthProvidersSource == "db" {
		reg = &sso.DBRegistry{DB: d, Keys: a.Keys}
	}
	return &handlers.SSO{
		Service:    &sso.Service{DB: d, Rules: rules, Log: a.Log},
		Registry:   reg,
		Strategies: map[string]sso.Strategy{sso.StrategyOIDC: sso.OIDC(), sso.StrategyOAuth2: sso.OAuth2(), sso.StrategySAML: sso.SAML()},
		Flows:      &sso.Flows{DB: d},
		Env: sso.Env{AppURL: cfg.AppURL, HTTP: &http.Client{Timeout: 15 * time.Second}, Now: time.Now,
			Assertions: &sso.Assertions{DB: d}},
	}, nil
}

// newOAuth builds the authorization server, its HMAC key derived from SECRET_KEY_BASE.
func newOAuth(cfg config.Config, d *db.DB) *oauth.Server {
	key, err := hkdf.Key(sha256.New, []byte(cfg.SecretKeyBase), nil, "tally oauth tokens v1", 32)
	if err != nil {
		panic(err) // only for keys longer than HKDF-SHA-256 can give
	}
	return oauth.New(oauth.Options{DB: d, Secret: key, AccessTTL: cfg.OAuthAccessTokenTTL, RefreshTTL: cfg.OAuthRefreshTokenTTL})
}

// newSessionManager returns the scs manager storing sessions in db.
func newSessionManager(d *db.DB, cfg config.Config) *scs.SessionManager {
	sm := scs.New()
	sm.Store = &sessions.Store{DB: d, Codec: sm.Codec}
	sm.Lifetime = 30 * 24 * time.Hour
	sm.IdleTimeout = 14 * 24 * time.Hour
	sm.Cookie.Name = "tally_session"
	sm.Cookie.HttpOnly = true
	sm.Cookie.SameSite = http.SameSiteLaxMode
	sm.Cookie.Secure = cfg.SecureCookies
	sm.Cookie.Persist = true
	return sm
}
