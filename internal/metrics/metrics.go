// Package metrics holds Tally's Prometheus metrics and serves them on their own listener
// (METRICS_ADDR), never on the public one.
package metrics

import (
	"context"
	"net"
	"net/http"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/uptrace/bun"
)

// Registry holds every metric of the process.
var Registry = prometheus.NewRegistry()

var (
	// HTTPRequests counts requests by route pattern, method and status.
	HTTPRequests = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "tally_http_requests_total", Help: "HTTP requests by route pattern, method and status.",
	}, []string{"route", "method", "status"})
	// HTTPDuration is the time to answer, by route pattern and method.
	HTTPDuration = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name: "tally_http_request_duration_seconds", Help: "Time to answer HTTP requests.", Buckets: prometheus.DefBuckets,
	}, []string{"route", "method"})
	// ImportJobs counts import publishes and reverts by import type and outcome.
	ImportJobs = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "tally_import_jobs_total", Help: "Import publishes and reverts by import type and outcome (ok, failed, retried).",
	}, []string{"job", "type", "outcome"})
	// ImportRowsPublished counts the rows of imports published.
	ImportRowsPublished = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "tally_import_rows_published_total", Help: "Rows of imports published, by import type.",
	}, []string{"type"})
	// ImportDuration is how long publishes and reverts run.
	ImportDuration = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name: "tally_import_job_duration_seconds", Help: "Time import publishes and reverts run.",
		Buckets: []float64{0.1, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300},
	}, []string{"job", "type"})
	// PublishPhases is the time publishes spent in each phase of their work: where a slow
	// publish's time goes (the scale benchmark names each phase's share of it from these).
	PublishPhases = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "tally_import_publish_phase_seconds_total",
		Help: "Time import publishes spent in each phase (statistics, duplicates, merchants, rules, transfers, entries, balances, entry statistics).",
	}, []string{"phase"})
	// BankSyncs counts bank syncs by outcome; BankRequests the provider requests they used.
	BankSyncs = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "tally_bank_syncs_total", Help: "Bank syncs by outcome (ok, failed, retried).",
	}, []string{"outcome"})
	BankRequests = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "tally_bank_sync_requests_total", Help: "Requests bank syncs made to the provider.",
	})
	// SSOSignIns counts single sign-ons by provider and outcome.
	SSOSignIns = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "tally_sso_signins_total", Help: "Single sign-ons by provider and outcome (ok, failed).",
	}, []string{"provider", "outcome"})
	// RateLimited counts requests refused by a limit, by limit.
	RateLimited = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "tally_rate_limit_refusals_total", Help: "Requests refused by a rate limit, by limit.",
	}, []string{"limit"})
	// JobDuration is how long background jobs run, by kind and outcome.
	JobDuration = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name: "tally_job_duration_seconds", Help: "Time background jobs run, by kind and outcome.",
		Buckets: []float64{0.01, 0.1, 0.5, 1, 5, 10, 30, 60, 300},
	}, []string{"kind", "outcome"})
)

func init() {
	Registry.MustRegister(HTTPRequests, HTTPDuration, ImportJobs, ImportRowsPublished, ImportDuration, PublishPhases, BankSyncs,
		BankRequests, SSOSignIns, RateLimited, JobDuration,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
}

// WatchDatabase adds the pool's statistics and the job queue's depth, read at each scrape.
func WatchDatabase(pool *pgxpool.Pool, d bun.IDB) {
	Registry.MustRegister(&poolCollector{pool: pool}, &queueCollector{db: d})
}

var (
	poolConns    = prometheus.NewDesc("tally_db_pool_connections", "Database pool connections by state.", []string{"state"}, nil)
	poolWaits    = prometheus.NewDesc("tally_db_pool_acquire_waits_total", "Connection acquisitions that had to wait.", nil, nil)
	poolWaitTime = prometheus.NewDesc("tally_db_pool_acquire_wait_seconds_total", "Time spent waiting for a connection.", nil, nil)
	queueDepth   = prometheus.NewDesc("tally_job_queue_jobs", "Background jobs by kind and state.", []string{"kind", "state"}, nil)
)

type poolCollector struct{ pool *pgxpool.Pool }

func (c *poolCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- poolConns
	ch <- poolWaits
	ch <- poolWaitTime
}

func (c *poolCollector) Collect(ch chan<- prometheus.Metric) {
	s := c.pool.Stat()
	ch <- prometheus.MustNewConstMetric(poolConns, prometheus.GaugeValue, float64(s.AcquiredConns()), "acquired")
	ch <- prometheus.MustNewConstMetric(poolConns, prometheus.GaugeValue, float64(s.IdleConns()), "idle")
	ch <- prometheus.MustNewConstMetric(poolConns, prometheus.GaugeValue, float64(s.MaxConns()), "max")
	ch <- prometheus.MustNewConstMetric(poolWaits, prometheus.CounterValue, float64(s.EmptyAcquireCount()))
	ch <- prometheus.MustNewConstMetric(poolWaitTime, prometheus.CounterValue, s.AcquireDuration().Seconds())
}

type queueCollector struct{ db bun.IDB }

func (c *queueCollector) Describe(ch chan<- *prometheus.Desc) { ch <- queueDepth }

// Collect reads the queue's unfinished jobs; a database that does not answer in two seconds
// leaves the depth out of this scrape.
func (c *queueCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	var rows []struct {
		Kind  string `bun:"kind"`
		State string `bun:"state"`
		N     int    `bun:"n"`
	}
	if err := c.db.NewRaw(`SELECT kind, state::text, count(*) AS n FROM river_job
		WHERE state IN ('available', 'pending', 'running', 'retryable', 'scheduled') GROUP BY 1, 2`).Scan(ctx, &rows); err != nil {
		return
	}
	for _, r := range rows {
		ch <- prometheus.MustNewConstMetric(queueDepth, prometheus.GaugeValue, float64(r.N), r.Kind, r.State)
	}
}

// Serve answers /metrics on ln until ctx ends, and every other path with other (the health
// probes), when it is not nil.
func Serve(ctx context.Context, ln net.Listener, other http.Handler) error {
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(Registry, promhttp.HandlerOpts{}))
	if other != nil {
		mux.Handle("/", other)
	}
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		<-ctx.Done()
		shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(shutdown)
	}()
	if err := srv.Serve(ln); err != http.ErrServerClosed {
		return err
	}
	return nil
}
