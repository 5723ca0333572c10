package handlers_test

import (
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"tally/app/apptest"
	"tally/models"
	"tally/testkit"
)

// An API key's requests are limited a minute across every server on the database, each answer
// says where it stands, and creating imports has a lower limit of its own.
func TestAPIKeyLimitsAreSharedAcrossServers(t *testing.T) {
	t.Parallel()
	env := map[string]string{"API_RATE_LIMIT_PER_MINUTE": "3", "API_IMPORT_RATE_LIMIT_PER_MINUTE": "2"}
	a := apptest.StartServer(t, apptest.ServerOptions{Env: env})
	b := apptest.StartServer(t, apptest.ServerOptions{Env: env, DB: a.DB})
	u := testkit.MustCreateUser(t, a.DB, testkit.UserOpts{})
	key := testkit.MustCreateAPIKey(t, a.DB, u.ID, models.ScopeReadWrite)
	other := testkit.MustCreateAPIKey(t, a.DB, u.ID, models.ScopeReadWrite)
	ca, cb := apptest.NewClient(t, a), apptest.NewClient(t, b)

	// Counts are per minute: start early in one, so that the four requests share it.
	if reset, _ := strconv.Atoi(ca.API(http.MethodGet, "/api/v1/accounts", other, nil).Header.Get("RateLimit-Reset")); reset < 10 {
		time.Sleep(time.Duration(reset+1) * time.Second)
	}
	for i, c := range []*testkit.Client{ca, cb, ca} {
		r := c.API(http.MethodGet, "/api/v1/accounts", key, nil)
		if r.Status != http.StatusOK || r.Header.Get("RateLimit-Limit") != "3" || r.Header.Get("RateLimit-Remaining") != strconv.Itoa(2-i) ||
			r.Header.Get("RateLimit-Reset") == "" {
			t.Fatalf("request %d: %d, limit %q, remaining %q, reset %q", i+1, r.Status, r.Header.Get("RateLimit-Limit"),
				r.Header.Get("RateLimit-Remaining"), r.Header.Get("RateLimit-Reset"))
		}
	}
	r := cb.API(http.MethodGet, "/api/v1/accounts", key, nil)
	if r.Status != http.StatusTooManyRequests || r.Header.Get("Retry-After") == "" || r.Header.Get("RateLimit-Remaining") != "0" ||
		!strings.Contains(r.Body, `"error":"rate_limit_exceeded"`) {
		t.Fatalf("past the limit, on the other server: %d, Retry-After %q: %s", r.Status, r.Header.Get("Retry-After"), r.Body)
	}

	// Another key has a count of its own, and its imports a lower one: its third import is
	// within its 3 requests a minute, but not within its 2 imports.
	importer := testkit.MustCreateAPIKey(t, a.DB, u.ID, models.ScopeReadWrite)
	csv := map[string]any{"raw_file_content": "date,amount,name\n01/02/2026,-1,Tea\n"}
	for i := 0; i < 2; i++ {
		if r := cb.API(http.MethodPost, "/api/v1/imports", importer, csv); r.Status != http.StatusCreated {
			t.Fatalf("import %d with another key: %d %s", i+1, r.Status, r.Body)
		}
	}
	r = ca.API(http.MethodPost, "/api/v1/imports", importer, csv)
	if r.Status != http.StatusTooManyRequests || r.Header.Get("Retry-After") == "" || r.Header.Get("RateLimit-Remaining") != "0" {
		t.Fatalf("a third import a minute: %d, remaining %q", r.Status, r.Header.Get("RateLimit-Remaining"))
	}

	// 0 turns the limit off.
	off := apptest.StartServer(t, apptest.ServerOptions{Env: map[string]string{"API_RATE_LIMIT_PER_MINUTE": "0"}, DB: a.DB})
	if r := apptest.NewClient(t, off).API(http.MethodGet, "/api/v1/accounts", key, nil); r.Status != http.StatusOK || r.Header.Get("RateLimit-Limit") != "" {
		t.Fatalf("with the limit off: %d, RateLimit-Limit %q", r.Status, r.Header.Get("RateLimit-Limit"))
	}
}
