package app

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"slices"

	"tally/auditlog"
	"tally/banksync"
	"tally/budgets"
	"tally/config"
	"tally/imports"
	"tally/internal/db"
	"tally/internal/mail"
	"tally/internal/probes"
	"tally/internal/secrets"
	"tally/jobs"
	"tally/mfa"
	"tally/recurring"
	"tally/sso"
	"tally/webhooks"
)

// Options adjust what New builds; the zero value is what `tally serve` and `tally worker` run.
type Options struct {
	// Mailer sends Tally's mail; nil means the one SMTP_URL names.
	Mailer mail.Mailer
	// WebhookRetry replaces the webhooks' retry schedule (a day).
	WebhookRetry *webhooks.RetryPolicy
	// NoAuditRetention leaves out the daily audit retention job, for tests that write audit
	// entries of any age themselves.
	NoAuditRetention bool
	// Bills replaces what budgets learn of the recurring series, for tests.
	Bills budgets.Bills
}

// App is Tally built from its configuration: the domain services on one database and the
// job client that works their jobs. The web server is built on it by app/web.
type App struct {
	Config config.Config
	DB     *db.DB
	Log    *slog.Logger
	// Keys encrypt and decrypt the secrets stored in the database.
	Keys *secrets.Keys
	// Mailer sends mail: the bank's consent notices, and the web app's.
	Mailer mail.Mailer
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
		Jobs: river, Mailer: opts.Mailer}, nil
}

// Start starts working jobs. River takes the end of ctx for a hard stop, cancelling running
// jobs at once, so callers pass a context that outlives their signal and stop the client
// themselves. A started app's probes, and its web server's, report the job client in their
// readiness.
func (a *App) Start(ctx context.Context) error {
	if err := a.Jobs.Start(ctx); err != nil {
		return fmt.Errorf("start job worker: %w", err)
	}
	a.started = true
	return nil
}

// Started says whether Start has started working jobs in this process.
func (a *App) Started() bool { return a.started }

// Probes serves /healthz and /readyz for a process without the web server (METRICS_ADDR).
func (a *App) Probes() http.Handler { return probes.Handler(a.DB, a.Jobs) }

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

// ImportLimits are the 10 MB content cap, the configured row and record limits and the time
// a move-in's export may take to read.
func ImportLimits(cfg config.Config) imports.Limits {
	l := imports.LimitsOf(cfg.ImportMaxRows, cfg.ImportMaxRecords, cfg.MaxConcurrentUploads)
	l.MoveInReadTime = cfg.MoveInReadTimeout
	return l
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
