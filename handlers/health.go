package handlers

import (
	"context"
	"net/http"
	"strings"
	"sync/atomic"
	"time"

	"github.com/labstack/echo/v4"

	"tally/internal/db"
)

// JobRunner is the job client of a process that works jobs, as readiness sees it.
type JobRunner interface {
	// Stopped is closed once the client has stopped.
	Stopped() <-chan struct{}
}

// healthz is the liveness probe: 200 when the database answers, 503 otherwise.
func (a *app) healthz(c echo.Context) error {
	ctx, cancel := context.WithTimeout(c.Request().Context(), 2*time.Second)
	defer cancel()
	if err := a.DB.PingContext(ctx); err != nil {
		return c.JSON(http.StatusServiceUnavailable, map[string]string{"status": "unavailable", "database": "unreachable"})
	}
	return c.JSON(http.StatusOK, map[string]string{"status": "ok"})
}

// readyz is the readiness probe: 200 only when the database answers, every migration is
// applied and (in a process that works jobs) the job client runs; otherwise 503 with a body
// naming each check and what is wrong.
func (a *app) readyz(c echo.Context) error {
	ctx, cancel := context.WithTimeout(c.Request().Context(), 2*time.Second)
	defer cancel()
	checks := map[string]string{"database": "ok", "migrations": "ok"}
	ready := true
	if err := a.DB.PingContext(ctx); err != nil {
		checks["database"], checks["migrations"], ready = "unreachable", "unknown", false
	} else if pending, err := db.Pending(ctx, a.DB); err != nil {
		checks["migrations"], ready = "unknown: "+err.Error(), false
	} else if len(pending) > 0 {
		checks["migrations"], ready = "pending: "+strings.Join(pending, ", "), false
	}
	if a.Jobs != nil {
		checks["jobs"] = "running"
		select {
		case <-a.Jobs.Stopped():
			checks["jobs"], ready = "stopped", false
		default:
		}
	}
	if !ready {
		c.Response().Header().Set("Retry-After", "5")
		return c.JSON(http.StatusServiceUnavailable, map[string]any{"status": "not_ready", "checks": checks})
	}
	return c.JSON(http.StatusOK, map[string]any{"status": "ready", "checks": checks})
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
