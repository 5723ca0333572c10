// Package handlers is Tally's HTTP edge: routes, middleware, the error handler and one file per
// resource. Handlers decode the request, call one domain function and render.
package handlers

import (
	"context"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/alexedwards/scs/v2"
	"github.com/google/uuid"
	"github.com/labstack/echo/v4"

	"tally/auth"
	"tally/banksync"
	"tally/config"
	"tally/imports"
	"tally/internal/db"
	"tally/internal/mail"
	"tally/internal/ratelimit"
	"tally/internal/sessions"
	"tally/mfa"
	"tally/oauth"
	"tally/webhooks"
)

// Deps are what the handlers need. Every field is required.
type Deps struct {
	Config   config.Config
	DB       *db.DB
	Auth     *auth.Service
	Imports  *imports.Service
	Limiter  *ratelimit.Limiter
	Sessions *scs.SessionManager
	Log      *slog.Logger
	// SSO is sign-in through identity providers; nil until LoadSSO.
	SSO *SSO
	// Bank connects families to their bank-data provider; BankQueue queues its syncs.
	Bank      *banksync.Service
	BankQueue BankQueue
	// RecurringQueue queues recurring detections; nil leaves out the page's button.
	RecurringQueue RecurringQueue
	// OAuth is Tally's authorization server for API clients.
	OAuth *oauth.Server
	// MFA keeps the users' second factors.
	MFA *mfa.Service
	// Webhooks keeps the families' webhook endpoints and delivers their events.
	Webhooks *webhooks.Service
	// Now is the clock of the sign-in's time limits (time.Now; tests move it).
	Now func() time.Time
	// Jobs is the job client of a process that works jobs, for readiness; nil otherwise.
	Jobs JobRunner
}

// RecurringQueue queues a detection of a family's recurring series over its whole history.
type RecurringQueue interface {
	EnqueueDetection(ctx context.Context, familyID uuid.UUID) error
}

// BankQueue queues a bank connection's sync; false when one is already queued or running.
type BankQueue interface {
	EnqueueSync(ctx context.Context, connID uuid.UUID) (bool, error)
}

// NewDeps assembles the handlers' dependencies from the configuration: mailer sends the mail
// and imports runs the imports.
func NewDeps(cfg config.Config, d *db.DB, log *slog.Logger, mailer mail.Mailer, imp *imports.Service) (Deps, error) {
	keys, err := EncryptionKeys(cfg)
	if err != nil {
		return Deps{}, err
	}
	// Passkeys are bound to a domain name: with an IP address in APP_URL they are off.
	rp, err := mfa.NewWebAuthn(cfg.AppURL)
	if err != nil {
		log.Warn("passkeys are off: APP_URL must name this Tally by a domain (such as tally.example.com or localhost)", "app_url", cfg.AppURL, "reason", err.Error())
		rp = nil
	}
	browsers, err := auth.NewBrowsers(cfg.SecretKeyBase)
	if err != nil {
		return Deps{}, err
	}
	limiter := ratelimit.New(d)
	second := &mfa.Service{DB: d, Keys: keys, WebAuthn: rp}
	return Deps{
		Config:  cfg,
		DB:      d,
		Imports: imp,
		Limiter: limiter,
		Auth: &auth.Service{
			DB: d, Mailer: mailer, AppURL: cfg.AppURL, Log: log,
			Policy:  auth.Policy{LocalLoginEnabled: cfg.LocalLoginEnabled, AdminOverrideEnabled: cfg.LocalAdminOverrideEnabled},
			Limiter: limiter, Browsers: browsers,
			SecondFactor: func(ctx context.Context, userID uuid.UUID) (bool, error) {
				st, err := second.StatusOf(ctx, userID)
				return st.Any(), err
			},
		},
		Sessions: NewSessionManager(d, cfg),
		Log:      log,
		OAuth:    NewOAuth(cfg, d),
		MFA:      second,
		Now:      time.Now,
	}, nil
}

// ImportLimits are the 10 MB content cap and the configured row and record limits.
func ImportLimits(cfg config.Config) imports.Limits {
	return imports.LimitsOf(cfg.ImportMaxRows, cfg.ImportMaxRecords, cfg.MaxConcurrentUploads)
}

// NewBank is the bank-sync service for cfg, with the keys of its encrypted access URLs.
func NewBank(cfg config.Config, d *db.DB, log *slog.Logger) (*banksync.Service, error) {
	keys, err := EncryptionKeys(cfg)
	if err != nil {
		return nil, err
	}
	return &banksync.Service{DB: d, Keys: keys, Log: log, Client: &banksync.Client{AllowInsecure: cfg.BanksyncAllowInsecure}}, nil
}

// NewWebhooks is the webhook service for cfg, with the keys of its encrypted secrets. It
// queues deliveries once a job client is made with it (jobs.Options.Webhooks).
func NewWebhooks(cfg config.Config, d *db.DB, log *slog.Logger) (*webhooks.Service, error) {
	keys, err := EncryptionKeys(cfg)
	if err != nil {
		return nil, err
	}
	return &webhooks.Service{DB: d, Keys: keys, Log: log, AllowInsecure: cfg.WebhooksAllowInsecure}, nil
}

// app is the handlers' receiver.
type app struct {
	Deps
	outage *outage
}

// New returns the web server's handler with every route registered.
func New(d Deps) *echo.Echo {
	e := echo.New()
	e.HideBanner, e.HidePort = true, true
	a := &app{Deps: d, outage: &outage{}}
	e.HTTPErrorHandler = a.handleError
	// A session store that cannot load or save hands its error to the request, which answers
	// it as every other error (a 503 when the database is away) instead of scs's plain 500.
	if d.Sessions != nil {
		d.Sessions.ErrorFunc = func(w http.ResponseWriter, r *http.Request, err error) {
			if slot, ok := r.Context().Value(sessionErrKey{}).(*error); ok {
				*slot = err
				return
			}
			http.Error(w, http.StatusText(http.StatusInternalServerError), http.StatusInternalServerError)
		}
	}
	e.IPExtractor = ipExtractor(d.Config.TrustedProxies)
	a.routes(e)
	return e
}

// NewSessionManager returns the scs manager storing sessions in db.
func NewSessionManager(d *db.DB, cfg config.Config) *scs.SessionManager {
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

func ipExtractor(trusted []*net.IPNet) echo.IPExtractor {
	if len(trusted) == 0 {
		return echo.ExtractIPDirect()
	}
	// Only the listed proxies are trusted: not loopback or private ranges by default.
	opts := []echo.TrustOption{echo.TrustLoopback(false), echo.TrustLinkLocal(false), echo.TrustPrivateNet(false)}
	for _, n := range trusted {
		opts = append(opts, echo.TrustIPRange(n))
	}
	return echo.ExtractIPFromXFFHeader(opts...)
}
