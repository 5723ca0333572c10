// Package ratelimit counts requests in fixed windows stored in PostgreSQL, so that a limit
// holds across every instance of Tally that shares the database.
package ratelimit

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/uptrace/bun"
)

// Limiter counts requests per key.
type Limiter struct {
	db  bun.IDB
	now func() time.Time
}

// New returns a limiter over db's rate_limits table.
func New(db bun.IDB) *Limiter { return &Limiter{db: db, now: time.Now} }

// Rule is a limit: at most Limit requests per Window.
type Rule struct {
	Limit  int
	Window time.Duration
}

// Result says whether a request may go ahead.
type Result struct {
	Allowed   bool
	Remaining int
	// RetryAfter is how long until the window resets; set when not allowed.
	RetryAfter time.Duration
	// Reset is how long until the window resets, allowed or not.
	Reset time.Duration
}

// RetryAfterSeconds is RetryAfter rounded up to whole seconds, at least 1.
func (r Result) RetryAfterSeconds() int {
	return max(1, int(math.Ceil(r.RetryAfter.Seconds())))
}

// Allow counts one request for key under rule and reports whether it is within the limit.
// The count is one atomic upsert, so concurrent instances never lose an increment.
func (l *Limiter) Allow(ctx context.Context, key string, rule Rule) (Result, error) {
	now := l.now().UTC()
	start := now.Truncate(rule.Window)
	var count int
	err := l.db.NewRaw(`
		INSERT INTO rate_limits (key, window_start, count) VALUES (?, ?, 1)
		ON CONFLICT (key, window_start) DO UPDATE SET count = rate_limits.count + 1
		RETURNING count`, key, start).Scan(ctx, &count)
	if err != nil {
		return Result{}, fmt.Errorf("count request for %s: %w", key, err)
	}
	res := Result{Allowed: count <= rule.Limit, Remaining: max(0, rule.Limit-count), Reset: start.Add(rule.Window).Sub(now)}
	if !res.Allowed {
		res.RetryAfter = start.Add(rule.Window).Sub(now)
	}
	return res, nil
}

// Undo takes back one request Allow counted for key in rule's current window. Allow before
// an attempt and Undo after a success limit failed attempts only, and hold even against many
// attempts at once: each is counted before it is tried.
func (l *Limiter) Undo(ctx context.Context, key string, rule Rule) error {
	start := l.now().UTC().Truncate(rule.Window)
	_, err := l.db.NewRaw("UPDATE rate_limits SET count = count - 1 WHERE key = ? AND window_start = ? AND count > 0", key, start).Exec(ctx)
	if err != nil {
		return fmt.Errorf("take back a request of %s: %w", key, err)
	}
	return nil
}

// Reset forgets every count of key.
func (l *Limiter) Reset(ctx context.Context, key string) error {
	if _, err := l.db.NewRaw("DELETE FROM rate_limits WHERE key = ?", key).Exec(ctx); err != nil {
		return fmt.Errorf("reset count of %s: %w", key, err)
	}
	return nil
}

// Prune deletes windows that ended before cutoff.
func Prune(ctx context.Context, db bun.IDB, cutoff time.Time) (int64, error) {
	res, err := db.NewRaw("DELETE FROM rate_limits WHERE window_start < ?", cutoff).Exec(ctx)
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}
