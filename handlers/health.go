package handlers

import (
	"context"
	"encoding/json"
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
	code, body := liveness(c.Request().Context(), a.DB)
	return c.JSON(code, body)
}

func liveness(ctx context.Context, d *db.DB) (int, map[string]string) {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	if err := d.PingContext(ctx); err != nil {
		return http.StatusServiceUnavailable, map[string]string{"status": "unavailable", "database": "unreachable"}
	}
	return http.StatusOK, map[string]string{"status": "ok"}
}

// readyz is the readiness probe: 200 only when the database answers, every migration is
// applied and (in a process that works jobs) the job client runs; otherwise 503 with a body
// naming each check and what is wrong.
func (a *app) readyz(c echo.Context) error {
	code, body := readiness(c.Request().Context(), a.DB, a.Jobs)
	if code != http.StatusOK {
		c.Response().Header().Set("Retry-After", "5")
	}
	return c.JSON(code, body)
}

// readiness checks the database, its migrations and the job client (when jobs is not nil).
func readiness(ctx context.Context, d *db.DB, jobs JobRunner) (int, map[string]any) {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	checks := map[string]string{"database": "ok", "migrations": "ok"}
	ready := true
	if err := d.PingContext(ctx); err != nil {
		checks["database"], checks["migrations"], ready = "unreachable", "unknown", false
	} else if pending, err := db.Pending(ctx, d); err != nil {
		checks["migrations"], ready = "unknown: "+err.Error(), false
	} else if len(pending) > 0 {
		checks["migrations"], ready = "pending: "+strings.Join(pending, ", "), false
	}
	if jobs != nil {
		checks["jobs"] = "running"
		select {
		case <-jobs.Stopped():
			checks["jobs"], ready = "stopped", false
		default:
		}
	}
	if !ready {
		return http.StatusServiceUnavailable, map[string]any{"status": "not_ready", "checks": checks}
	}
	return http.StatusOK, map[string]any{"status": "ready", "checks": checks}
}

// Probes answers /healthz and /readyz outside the web server, for a process that has none
// (`tally worker`) on its metrics listener. jobs may be nil.
func Probes(d *db.DB, jobs JobRunner) http.Handler {
	mux := http.NewServeMux()
	write := func(w http.ResponseWriter, code int, body any) {
		w.Header().Set("Content-Type", "application/json")
		if code != http.StatusOK {
			w.Header().Set("Retry-After", "5")
		}
		w.WriteHeader(code)
		_ = json.NewEncoder(w).Encode(body)
	}
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {
		code, body := liveness(r.Context(), d)
		write(w, code, body)
	})
	mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, r *http.Request) {
		code, body := readiness(r.Context(), d, jobs)
		write(w, code, body)
	})
	return mux
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
