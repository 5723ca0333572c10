package ratelimit

import (
	"context"
	"os"
	"sync"
	"testing"
	"time"

	"tally/testkit"
)

func TestMain(m *testing.M) { os.Exit(testkit.Main(m)) }

func TestAllowCountsAcrossLimitersSharingTheDatabase(t *testing.T) {
	d := testkit.MustOpenDB(t)
	ctx := context.Background()
	now := time.Date(2026, 1, 5, 10, 0, 30, 0, time.UTC)
	a, b := New(d), New(d)
	a.now = func() time.Time { return now }
	b.now = a.now
	rule := Rule{Limit: 10, Window: time.Minute}

	// Twenty concurrent requests through two limiters: exactly ten are allowed.
	var wg sync.WaitGroup
	var mu sync.Mutex
	allowed := 0
	for i := range 20 {
		l := a
		if i%2 == 1 {
			l = b
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, err := l.Allow(ctx, "login:1.2.3.4", rule)
			if err != nil {
				t.Error(err)
				return
			}
			if res.Allowed {
				mu.Lock()
				allowed++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if allowed != 10 {
		t.Fatalf("allowed %d requests, want 10", allowed)
	}

	res, _ := a.Allow(ctx, "login:1.2.3.4", rule)
	if res.Allowed || res.RetryAfterSeconds() != 30 {
		t.Fatalf("over-limit result %+v, want refused with 30s to wait", res)
	}
	if res, _ := a.Allow(ctx, "login:5.6.7.8", rule); !res.Allowed || res.Remaining != 9 {
		t.Fatalf("another key shares the count: %+v", res)
	}

	// The next window starts afresh.
	now = now.Add(time.Minute)
	if res, _ := a.Allow(ctx, "login:1.2.3.4", rule); !res.Allowed {
		t.Fatalf("new window still refused: %+v", res)
	}
	n, err := Prune(ctx, d, now.Truncate(time.Minute))
	if err != nil || n != 2 {
		t.Fatalf("pruned %d windows (err %v), want 2", n, err)
	}
}

// TestUndoAndResetLimitFailuresOnly counts every attempt before it is tried and takes back
// the ones that succeed (Undo) or forgets them all (Reset): successes never use the limit up.
func TestUndoAndResetLimitFailuresOnly(t *testing.T) {
	d := testkit.MustOpenDB(t)
	ctx := context.Background()
	now := time.Date(2026, 1, 5, 10, 5, 0, 0, time.UTC)
	l := New(d)
	l.now = func() time.Time { return now }
	rule := Rule{Limit: 3, Window: 15 * time.Minute}
	for i := range 10 {
		res, err := l.Allow(ctx, "mfa_ip:1.2.3.4", rule)
		if err != nil || !res.Allowed {
			t.Fatalf("success %d refused: %+v %v", i, res, err)
		}
		if err := l.Undo(ctx, "mfa_ip:1.2.3.4", rule); err != nil {
			t.Fatal(err)
		}
	}
	for range 3 {
		if res, _ := l.Allow(ctx, "mfa_user:u1", rule); !res.Allowed {
			t.Fatal("a failure within the limit refused")
		}
	}
	res, err := l.Allow(ctx, "mfa_user:u1", rule)
	if err != nil || res.Allowed || res.RetryAfter != 10*time.Minute {
		t.Fatalf("a fourth attempt after three failures: %+v %v, want refused for the 10 minutes left", res, err)
	}
	if err := l.Reset(ctx, "mfa_user:u1"); err != nil {
		t.Fatal(err)
	}
	if res, _ := l.Allow(ctx, "mfa_user:u1", rule); !res.Allowed || res.Remaining != 2 {
		t.Fatalf("after a reset: %+v", res)
	}
	// Undo never goes below nothing, nor reaches another window.
	if err := l.Undo(ctx, "mfa_user:none", rule); err != nil {
		t.Fatal(err)
	}
	now = now.Add(15 * time.Minute)
	if err := l.Undo(ctx, "mfa_user:u1", rule); err != nil {
		t.Fatal(err)
	}
	var counts []int
	if err := d.NewRaw("SELECT count FROM rate_limits WHERE key LIKE 'mfa_user:%' ORDER BY window_start").Scan(ctx, &counts); err != nil || len(counts) != 1 || counts[0] != 1 {
		t.Fatalf("counts %v %v, want the one failure of the first window", counts, err)
	}
}
