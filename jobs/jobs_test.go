package jobs

import (
	"context"
	"os"
	"testing"
	"time"

	"tally/internal/db"
	"tally/testkit"
)

func TestMain(m *testing.M) { os.Exit(testkit.Main(m)) }

func TestCleanupDeletesOnlyWhatExpired(t *testing.T) {
	d := testkit.MustOpenDB(t)
	ctx := context.Background()
	u := testkit.MustCreateUser(t, d, testkit.UserOpts{})
	now := time.Now()
	exec := func(q string, args ...any) {
		t.Helper()
		if _, err := d.NewRaw(q, args...).Exec(ctx); err != nil {
			t.Fatal(err)
		}
	}
	exec("INSERT INTO sessions (token, data, expiry, user_id) VALUES ('old', '', ?, ?), ('live', '', ?, ?)", now.Add(-time.Hour), u.ID, now.Add(time.Hour), u.ID)
	exec("INSERT INTO rate_limits (key, window_start, count) VALUES ('a', ?, 3), ('b', ?, 1)", now.Add(-48*time.Hour), now)
	exec("INSERT INTO password_resets (id, user_id, token_hash, expires_at) VALUES (gen_random_uuid(), ?, 'x', ?), (gen_random_uuid(), ?, 'y', ?)",
		u.ID, now.Add(-48*time.Hour), u.ID, now.Add(time.Minute))
	exec("INSERT INTO oauth_clients (id, name) VALUES ('app', 'App')")
	exec(`INSERT INTO oauth_tokens (kind, signature, request_id, client_id, user_id, active, requested_at, expires_at) VALUES
		('refresh', 'spent', 'r1', 'app', ?, false, ?, ?), ('refresh', 'retired', 'r2', 'app', ?, false, ?, ?)`,
		u.ID, now.Add(-100*24*time.Hour), now.Add(-time.Hour), u.ID, now.Add(-time.Hour), now.Add(time.Hour))

	if err := Cleanup(ctx, d, now); err != nil {
		t.Fatal(err)
	}
	for table, want := range map[string]string{"sessions": "live", "rate_limits": "b", "password_resets": "y", "oauth_tokens": "retired"} {
		col := map[string]string{"sessions": "token", "rate_limits": "key", "password_resets": "token_hash", "oauth_tokens": "signature"}[table]
		var left []string
		if err := d.NewRaw("SELECT "+col+" FROM "+table).Scan(ctx, &left); err != nil {
			t.Fatal(err)
		}
		if len(left) != 1 || left[0] != want {
			t.Errorf("%s left %v, want [%s]", table, left, want)
		}
	}
}

func TestClientStartsAndRunsTheCleanupJob(t *testing.T) {
	d := testkit.MustOpenDB(t)
	if _, err := d.NewRaw("INSERT INTO rate_limits (key, window_start, count) VALUES ('stale', now() - interval '3 days', 1)").Exec(context.Background()); err != nil {
		t.Fatal(err)
	}
	startWorking(t, d, Options{Work: true})
	eventually(t, "the cleanup job runs on start", func() bool { return count(t, d, "SELECT count(*) FROM rate_limits") == 0 })
}

// startWorking starts a client over d with opts, stopped when the test ends.
func startWorking(t *testing.T, d *db.DB, opts Options) {
	t.Helper()
	c, err := New(d, testkit.DiscardLogger(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Stop(context.Background()) })
}

// eventually waits until done, asking every 100 ms for 20 seconds before it fails t with what
// did not happen.
func eventually(t *testing.T, what string, done func() bool) {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); !done(); time.Sleep(100 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("after 20s, not yet: %s", what)
		}
	}
}

// count is the number query counts.
func count(t *testing.T, d *db.DB, query string, args ...any) int {
	t.Helper()
	var n int
	if err := d.NewRaw(query, args...).Scan(context.Background(), &n); err != nil {
		t.Fatal(err)
	}
	return n
}
