package handlers_test

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"tally/app/apptest"
	"tally/testkit"
)

// The limit on password sign-in holds across two instances of Tally sharing one database.
func TestSignInRateLimitIsSharedAcrossInstances(t *testing.T) {
	t.Parallel()
	first := apptest.StartServer(t, apptest.ServerOptions{})
	second := apptest.StartServer(t, apptest.ServerOptions{DB: first.DB})
	u := testkit.MustCreateUser(t, first.DB, testkit.UserOpts{})
	// The limit counts per clock minute: start well inside one, so that the eleven attempts
	// fall in the same window.
	if left := time.Until(time.Now().Truncate(time.Minute).Add(time.Minute)); left < 10*time.Second {
		time.Sleep(left + 100*time.Millisecond)
	}
	clients := []*testkit.Client{apptest.NewClient(t, first), apptest.NewClient(t, second)}

	for i := range 10 {
		r := clients[i%2].PostForm("/sessions", url.Values{"email": {u.Email}, "password": {"wrong password!"}})
		if r.Status != http.StatusUnprocessableEntity {
			t.Fatalf("attempt %d answered %d, want 422", i+1, r.Status)
		}
	}
	for i, c := range clients {
		r := c.PostForm("/sessions", url.Values{"email": {u.Email}, "password": {testkit.Password}})
		if r.Status != http.StatusTooManyRequests {
			t.Fatalf("instance %d: attempt 11 answered %d, want 429", i+1, r.Status)
		}
		secs, err := strconv.Atoi(r.Header.Get("Retry-After"))
		if err != nil || secs < 1 || secs > 60 {
			t.Fatalf("Retry-After %q", r.Header.Get("Retry-After"))
		}
		if !strings.Contains(r.Body, "Too many requests") {
			t.Fatalf("429 page does not explain: %s", r.Body)
		}
	}
}
