package handlers_test

import (
	"net/http"
	"strings"
	"testing"

	"tally/app/apptest"
)

// Every response carries a request id, and an error quotes it; only a trusted proxy's id is
// kept, anyone else's is replaced.
func TestRequestIDs(t *testing.T) {
	t.Parallel()
	direct := apptest.StartServer(t, apptest.ServerOptions{})
	c := apptest.NewClient(t, direct)
	r := c.Do(http.MethodGet, "/api/v1/accounts", nil, map[string]string{"X-Request-Id": "forged-id"})
	id := r.Header.Get("X-Request-Id")
	if r.Status != http.StatusUnauthorized || id == "" || id == "forged-id" {
		t.Fatalf("untrusted client: %d, X-Request-Id %q", r.Status, id)
	}
	if !strings.Contains(r.Body, `"request_id":"`+id+`"`) {
		t.Errorf("the error does not quote its request id: %s", r.Body)
	}
	if !strings.Contains(direct.Logs.String(), "request_id="+id) {
		t.Errorf("the log line does not carry the request id %s", id)
	}

	proxied := apptest.StartServer(t, apptest.ServerOptions{Env: map[string]string{"TRUSTED_PROXIES": "127.0.0.1/32"}})
	r = apptest.NewClient(t, proxied).Do(http.MethodGet, "/api/v1/accounts", nil, map[string]string{"X-Request-Id": "proxy-4711"})
	if got := r.Header.Get("X-Request-Id"); got != "proxy-4711" || !strings.Contains(r.Body, `"request_id":"proxy-4711"`) {
		t.Errorf("trusted proxy's id: header %q, body %s", got, r.Body)
	}
	// Even a trusted proxy's id is kept only when it is letters, digits, dots, dashes and
	// underscores, at most 64: it goes into logs, headers and error bodies.
	for _, bad := range []string{"<script>alert(1)</script>", "a/b", "id with spaces", strings.Repeat("x", 65), "ünïcode"} {
		r = apptest.NewClient(t, proxied).Do(http.MethodGet, "/api/v1/accounts", nil, map[string]string{"X-Request-Id": bad})
		if got := r.Header.Get("X-Request-Id"); got == bad || len(got) != 36 {
			t.Errorf("a proxy's id %q came back as %q", bad, got)
		}
	}
}
