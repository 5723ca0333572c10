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
	"tally/budgets"
	"tally/config"
	"tally/imports"
	"tally/internal/db"
	"tally/internal/probes"
	"tally/internal/ratelimit"
	"tally/members"
	"tally/mfa"
	"tally/oauth"
	"tally/recurring"
	"tally/webhooks"
)

// Deps are what the handlers need, built by the composition root (package app): handlers
// receive services and never build them. Every field is required.
type Deps struct {
	Config   config.Config
	DB       *db.DB
	Auth     *auth.Service
	Imports  *imports.Service
	Limiter  *ratelimit.Limiter
	Sessions *scs.SessionManager
	Log      *slog.Logger
	// SSO is sign-in through identity providers.
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
	Jobs probes.JobRunner
	// Budgets plans each month's spending per category.
	Budgets *budgets.Service
	// Recurring finds the families' recurring series and what they still expect.
	Recurring *recurring.Service
	// Members keeps the families' members and invitations.
	Members *members.Service
}

// RecurringQueue queues a detection of a family's recurring series over its whole history.
type RecurringQueue interface {
	EnqueueDetection(ctx context.Context, familyID uuid.UUID) error
}

// BankQueue queues a bank connection's sync; false when one is already queued or running.
type BankQueue interface {
	EnqueueSync(ctx context.Context, connID uuid.UUID) (bool, error)
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
