// Package probes answers the liveness and readiness probes, /healthz and /readyz: the web
// server's routes and, for a process without it (`tally worker`), the metrics listener's.
package probes

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"time"

	"tally/internal/db"
)

// JobRunner is the job client of a process that works jobs, as readiness sees it.
type JobRunner interface {
	// Stopped is closed once the client has stopped.
	Stopped() <-chan struct{}
}

// Liveness is the liveness probe: 200 when the database answers, 503 otherwise.
func Liveness(ctx context.Context, d *db.DB) (int, map[string]string) {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	if err := d.PingContext(ctx); err != nil {
		return http.StatusServiceUnavailable, map[string]string{"status": "unavailable", "database": "unreachable"}
	}
	return http.StatusOK, map[string]string{"status": "ok"}
}

// Readiness is the readiness probe: 200 only when the database answers, every migration is
// applied and (when jobs is not nil, in a process that works jobs) the job client runs;
// otherwise 503 with a body naming each check and what is wrong.
func Readiness(ctx context.Context, d *db.DB, jobs JobRunner) (int, map[string]any) {
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

// RetryAfter is how long, in seconds, a client is asked to wait while Tally is unavailable:
// by the probes that fail, and by every request that meets the database away.
const RetryAfter = "5"

// Handler answers GET /healthz and /readyz outside the web server; jobs may be nil.
func Handler(d *db.DB, jobs JobRunner) http.Handler {
	mux := http.NewServeMux()
	write := func(w http.ResponseWriter, code int, body any) {
		w.Header().Set("Content-Type", "application/json")
		if code != http.StatusOK {
			w.Header().Set("Retry-After", RetryAfter)
		}
		w.WriteHeader(code)
		_ = json.NewEncoder(w).Encode(body)
	}
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {
		code, body := Liveness(r.Context(), d)
		write(w, code, body)
	})
	mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, r *http.Request) {
		code, body := Readiness(r.Context(), d, jobs)
		write(w, code, body)
	})
	return mux
}
