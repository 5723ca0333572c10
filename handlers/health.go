package handlers

import (
	"context"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/labstack/echo/v4"

	"tally/internal/probes"
)

// healthz is the liveness probe (probes.Liveness).
func (a *app) healthz(c echo.Context) error {
	code, body := probes.Liveness(c.Request().Context(), a.DB)
	return probeAnswer(c, code, body)
}

// readyz is the readiness probe (probes.Readiness), with the job client of a process that
// works jobs.
func (a *app) readyz(c echo.Context) error {
	code, body := probes.Readiness(c.Request().Context(), a.DB, a.Jobs)
	return probeAnswer(c, code, body)
}

// probeAnswer answers a probe as the metrics listener's do (probes.Handler): a failing one
// says when to ask again.
func probeAnswer(c echo.Context, code int, body any) error {
	if code != http.StatusOK {
		c.Response().Header().Set("Retry-After", probes.RetryAfter)
	}
	return c.JSON(code, body)
}

// outage notices the database going away and coming back: one warning when a request first
// finds it unreachable, one info line when it answers again, and nothing per request between.
type outage struct {
	down atomic.Bool
}

// begin records that a request found the database unreachable; the first caller of an outage
// logs it and watches for its end.
func (a *app) databaseDown(ctx context.Context, err error) {
	if !a.outage.down.CompareAndSwap(false, true) {
		return
	}
	a.Log.WarnContext(ctx, "database unreachable: answering 503 until it is back", "error", err.Error())
	go func() {
		start := time.Now()
		for {
			time.Sleep(time.Second)
			pctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			err := a.DB.PingContext(pctx)
			cancel()
			if err == nil {
				a.outage.down.Store(false)
				a.Log.Info("database reachable again", "down_for", time.Since(start).Round(time.Second).String())
				return
			}
		}
	}()
}
