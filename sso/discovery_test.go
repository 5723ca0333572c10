package sso_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"tally/internal/apperr"
	"tally/sso"
)

func TestCheckDiscovery(t *testing.T) {
	t.Parallel()
	var body string
	status := http.StatusOK
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/.well-known/openid-configuration" {
			http.NotFound(w, r)
			return
		}
		w.WriteHeader(status)
		w.Write([]byte(strings.ReplaceAll(body, "ISSUER", "http://"+r.Host)))
	}))
	t.Cleanup(srv.Close)
	good := `{"issuer":"ISSUER","authorization_endpoint":"ISSUER/authorize","token_endpoint":"ISSUER/token"}`
	cases := []struct {
		name, issuer, body string
		status             int
		want               string
	}{
		{"valid", srv.URL, good, 200, ""},
		{"trailing slash", srv.URL + "/", good, 200, "trailing slash mismatch"},
		{"another issuer", srv.URL, `{"issuer":"https://elsewhere.example","authorization_endpoint":"a","token_endpoint":"b"}`, 200, "Copy the issuer exactly"},
		{"not JSON", srv.URL, "<html>", 200, "invalid JSON"},
		{"no issuer", srv.URL, `{"authorization_endpoint":"a","token_endpoint":"b"}`, 200, "missing required fields: issuer"},
		{"status", srv.URL, good, 404, "returned HTTP 404"},
		{"unreachable", "http://127.0.0.1:1", good, 200, "Could not connect to the discovery endpoint"},
	}
	for _, c := range cases {
		body, status = c.body, c.status
		err := sso.CheckDiscovery(context.Background(), http.DefaultClient, c.issuer)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.want != "":
			e := apperr.As(err)
			if e == nil || len(e.Fields["issuer"]) != 1 || !strings.Contains(e.Fields["issuer"][0], c.want) {
				t.Errorf("%s: %v, want an issuer error with %q", c.name, err, c.want)
			}
		}
	}
}
