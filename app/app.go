package app

import (
	"context"
	"crypto/hkdf"
	"crypto/sha256"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"time"

	"github.com/alexedwards/scs/v2"
	"github.com/google/uuid"
	"github.com/labstack/echo/v4"

	"tally/auditlog"
	"tally/auth"
	"tally/banksync"
	"tally/budgets"
	"tally/config"
	"tally/handlers"
	"tally/imports"
	"tally/internal/db"
	"tally/internal/mail"
	"tally/internal/ratelimit"
	"tally/internal/secrets"
	"tally/internal/sessions"
	"tally/jobs"
	"tally/members"
	"tally/mfa"
	"tally/oauth"
	"tally/recurring"
	"tally/sso"
	"tally/webhooks"
)

// Options adjust what New builds; the zero value is what `tally serve` and `tally worker` run.
type Options struct {
	// Mailer sends the web app's mail; nil means the one SMTP_URL names.
	Mailer mail.Mailer
	// Now is the clock of the sign-in's time limits; time.Now when nil.
	Now func() time.Time
	// WebhookRetry replaces the webhooks' retry schedule (a day).
	WebhookRetry *webhooks.RetryPolicy
	// NoAuditRetention leaves out the daily audit retention job, for tests that write audit
	// entries of any age themselves.
	NoAuditRetention bool
	// Bills replaces what budgets learn of the recurring series, for tests.
	Bills budgets.Bills
}

// App is Tally built from its configuration: the domain services on one database and the
// job client that works their jobs. Handler adds the web server.
type App struct {
	Config config.Config
	DB     *db.DB
	Log    *slog.Logger
	// Keys encrypt and decrypt the secrets stored in the database.
	Keys *secrets.Keys
	// Imports runs the imports; Bank syncs the bank connections; Webhooks keeps the
	// families' endpoints and delivers their events.
	Imports  *imports.Service
	Bank     *banksync.Service
	Webhooks *webhooks.Service
	// Budgets plans each month's spending per category; Recurring finds the recurring series
	// and what they still expect.
	Budgets   *budgets.Service
	Recurring *recurring.Service
	// Jobs is the River client that works every job (not started: see Start).
	Jobs *jobs.Client

	opts    Options
	started bool
}

// New builds the domain services and the job client for cfg on d. cfg.AppURL must be final:
// links in mail and SSO callbacks are made from it.
func New(cfg config.Config, d *db.DB, log *slog.Logger, opts Options) (*App, error) {
	keys, err := EncryptionKeys(cfg)
	if err != nil {
		return nil, err
	}
	if opts.Mailer == nil {
		if opts.Mailer, err = mail.New(cfg.SMTPURL, cfg.MailFrom, log); err != nil {
			return nil, err
		}
	}
	bank := newBank(cfg, d, log, keys, opts.Mailer)
	hooks := &webhooks.Service{DB: d, Keys: keys, Log: log, AllowInsecure: cfg.WebhooksAllowInsecure}
	if opts.WebhookRetry != nil {
		hooks.Retry = *opts.WebhookRetry
	}
	series := &recurring.Service{}
	jo := jobs.Options{Work: true, Bank: bank, Webhooks: hooks, Recurring: series, ExchangeRatesURL: cfg.ExchangeRatesURL}
	if !opts.NoAuditRetention {
		jo.AuditRetention, jo.AuditArchiveURL = auditlog.Retention(cfg.AuditLogRetention), cfg.AuditArchiveURL
	}
	importSvc, river, err := jobs.NewImports(d, log, ImportLimits(cfg), jo)
	if err != nil {
		return nil, err
	}
	importSvc.LLM = imports.NewLLM(cfg.LLMBaseURL, cfg.LLMAPIKey, cfg.LLMModel)
	plans := &budgets.Service{DB: d, Bills: series}
	if opts.Bills != nil {
		plans.Bills = opts.Bills
	}
	return &App{Config: cfg, DB: d, Log: log, Keys: keys, Imports: importSvc, Bank: bank, Webhooks: hooks, Budgets: plans, Recurring: series,
		Jobs: river, opts: opts}, nil
}

// Start starts working jobs. River takes the end of ctx for a hard stop, cancelling running
// jobs at once, so callers pass a context that outlives their signal and stop the client
// themselves. A started app's web server reports the job client in its readiness.
func (a *App) Start(ctx context.Context) error {
	if err := a.Jobs.Start(ctx); err != nil {
		return fmt.Errorf("start job worker: %w", err)
	}
	a.started = true
	return nil
}

// Probes serves /healthz and /readyz for a process without the web server (METRICS_ADDR).
func (a *App) Probes() http.Handler { return handlers.Probes(a.DB, a.Jobs) }

// Handler builds the web server: the services only the web app uses (sign-in, sessions,
// second factors, the OAuth server, SSO) and every route.
func (a *App) Handler() (*echo.Echo, error) {
	cfg, d, log := a.Config, a.DB, a.Log
	mailer := a.opts.Mailer
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
	deps.Members = &members.Service{DB: d, Mailer: mailer, SendMail: cfg.SMTPURL != "", AppURL: cfg.AppURL, Now: time.Now}
	if a.opts.Now != nil {
		deps.Now = a.opts.Now
		deps.Members.Now = a.opts.Now
	}
	if a.started {
		deps.Jobs = a.Jobs
	}
	if deps.SSO, err = a.loadSSO(&deps.Auth.Policy); err != nil {
		return nil, err
	}
	return handlers.New(deps), nil
}

// loadSSO reads the provider source the configuration names and wires sign-in through it.
// The auth file's local_login and jit settings apply to policy and the rules where their
// variables are not set.
func (a *App) loadSSO(policy *auth.Policy) (*handlers.SSO, error) {
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

// EncryptionKeys are the keys of secrets stored in the database: from the
// ACTIVE_RECORD_ENCRYPTION_* variables, else from SECRET_KEY_BASE (which tally dev keeps in its
// data directory rather than the environment).
func EncryptionKeys(cfg config.Config) (*secrets.Keys, error) {
	getenv := cfg.Getenv
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	return secrets.FromEnv(func(k string) string {
		if v := getenv(k); v != "" || k != secrets.EnvSecretKeyBase {
			return v
		}
		return cfg.SecretKeyBase
	})
}

// EncryptedColumns are every column stored encrypted, as the packages that own them list
// them: what `tally security:backfill_encryption` re-encrypts.
var EncryptedColumns = slices.Concat(sso.EncryptedColumns, banksync.EncryptedColumns, mfa.EncryptedColumns, webhooks.EncryptedColumns)

// ImportLimits are the 10 MB content cap and the configured row and record limits.
func ImportLimits(cfg config.Config) imports.Limits {
	return imports.LimitsOf(cfg.ImportMaxRows, cfg.ImportMaxRecords, cfg.MaxConcurrentUploads)
}

// NewBank is the bank-sync service for cfg, with the keys of its encrypted access URLs and
// session ids, and the mailer of its consent notices.
func NewBank(cfg config.Config, d *db.DB, log *slog.Logger) (*banksync.Service, error) {
	keys, err := EncryptionKeys(cfg)
	if err != nil {
		return nil, err
	}
	mailer, err := mail.New(cfg.SMTPURL, cfg.MailFrom, log)
	if err != nil {
		return nil, err
	}
	return newBank(cfg, d, log, keys, mailer), nil
}

// newBank syncs through SimpleFIN and, when configured, Enable Banking, over one HTTP client
// (BANKSYNC_ALLOW_INSECURE governs both).
func newBank(cfg config.Config, d *db.DB, log *slog.Logger, keys *secrets.Keys, mailer mail.Mailer) *banksync.Service {
	client := &banksync.Client{AllowInsecure: cfg.BanksyncAllowInsecure}
	return &banksync.Service{DB: d, Keys: keys, Log: log, Client: client, AppURL: cfg.AppURL, Mailer: mailer,
		EB: &banksync.EBClient{BaseURL: cfg.EnableBankingAPIURL, AppID: cfg.EnableBankingAppID, Key: cfg.EnableBankingKey.Key, Transport: client}}
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
