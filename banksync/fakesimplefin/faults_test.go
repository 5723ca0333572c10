package fakesimplefin_test

import (
	"cmp"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"tally/banksync/fakesimplefin"
)

func TestFaultAnswers(t *testing.T) {
	for _, tc := range []struct {
		name        string
		fault       fakesimplefin.Fault
		path        string // after the access URL; default /accounts
		status      int
		header      [2]string // a header and its value
		body        string    // exact, or with a trailing * a prefix
		invalidJSON bool
	}{
		{name: "5xx is an HTML page", fault: fakesimplefin.Fault{Status: 503}, status: 503,
			header: [2]string{"Content-Type", "text/html; charset=utf-8"}, body: "<html><head><title>503 Service Unavailable*"},
		{name: "Cloudflare's 524 is not JSON", fault: fakesimplefin.Fault{Status: 524}, status: 524,
			header: [2]string{"Content-Type", "text/plain; charset=utf-8"}, body: "error code: 524"},
		{name: "429 with Retry-After and the Bridge's text", fault: fakesimplefin.Fault{Status: 429, RetryAfter: time.Hour}, status: 429,
			header: [2]string{"Retry-After", "3600"},
			body:   `{"errors":["Too many requests. SimpleFIN data is only refreshed once every 24 hours. Expected usage of this API is 24 requests per day."]}`},
		{name: "402 payment required", fault: fakesimplefin.Fault{Status: 402}, status: 402,
			header: [2]string{"Content-Type", "application/json"}, body: `{"errors":["Payment Required"],"accounts":[]}`},
		{name: "a status with a body of the test's", fault: fakesimplefin.Fault{Status: 403, Body: "<html>blocked</html>"}, status: 403,
			header: [2]string{"Content-Type", "text/html; charset=utf-8"}, body: "<html>blocked</html>"},
		{name: "malformed JSON on a 200", fault: fakesimplefin.Fault{Body: `{"accounts": [`}, status: 200,
			header: [2]string{"Content-Type", "application/json"}, body: `{"accounts": [`, invalidJSON: true},
		{name: "truncated answer", fault: fakesimplefin.Fault{Truncate: 40}, status: 200,
			header: [2]string{"Content-Length", "40"}, body: `{"errors":[],"accounts":[{"org":{"domain`, invalidJSON: true},
		{name: "on /info", fault: fakesimplefin.Fault{Endpoint: fakesimplefin.Info, Status: 502}, path: "/info", status: 502,
			body: "<html>*"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, access := newSample(t)
			tc.fault.Times = 1
			s.Inject(tc.fault)
			path := cmp.Or(tc.path, "/accounts")
			resp, body := get(t, http.DefaultClient, access+path)
			if resp.StatusCode != tc.status {
				t.Errorf("status %d, want %d", resp.StatusCode, tc.status)
			}
			if h := tc.header; h[0] != "" && resp.Header.Get(h[0]) != h[1] {
				t.Errorf("%s %q, want %q", h[0], resp.Header.Get(h[0]), h[1])
			}
			if prefix, ok := strings.CutSuffix(tc.body, "*"); ok && !strings.HasPrefix(body, prefix) || !ok && body != tc.body {
				t.Errorf("body %q, want %q", body, tc.body)
			}
			if tc.invalidJSON && json.Valid([]byte(body)) {
				t.Error("body is valid JSON")
			}
			if resp, _ := get(t, http.DefaultClient, access+path); resp.StatusCode != http.StatusOK {
				t.Errorf("next request: %d, want the fault spent", resp.StatusCode)
			}
		})
	}
}

func TestFaultErrorsJoinTheAnswer(t *testing.T) {
	s, access := newSample(t)
	s.Inject(fakesimplefin.Fault{Times: 2, Errors: []fakesimplefin.Error{
		{Code: "con.auth", Msg: "Authentication failed for Example Brokerage", ConnID: "CON-B"},
	}})
	v1 := getAccounts(t, access, "", http.StatusOK)
	if !slices.Equal(v1.Errors, []string{"Authentication failed for Example Brokerage"}) || len(v1.Accounts) != 3 {
		t.Errorf("v1: errors %v with %d accounts", v1.Errors, len(v1.Accounts))
	}
	v2 := getAccounts(t, access, "version=2", http.StatusOK)
	if len(v2.Errlist) != 1 || v2.Errlist[0].Code != "con.auth" || v2.Errlist[0].ConnID != "CON-B" || len(v2.Accounts) != 3 {
		t.Errorf("v2: errlist %+v with %d accounts", v2.Errlist, len(v2.Accounts))
	}
}

func TestFaultTimes(t *testing.T) {
	s, access := newSample(t)
	statuses := func(n int) []int {
		var got []int
		for range n {
			resp, _ := get(t, http.DefaultClient, access+"/accounts")
			got = append(got, resp.StatusCode)
		}
		return got
	}

	s.Inject(fakesimplefin.Fault{Status: 503, Times: 2})
	s.Inject(fakesimplefin.Fault{Status: 502, Times: 1})
	if got := statuses(4); !slices.Equal(got, []int{503, 503, 502, 200}) {
		t.Errorf("Times 2 then 1: %v, want in order, then the real answer", got)
	}

	s.Inject(fakesimplefin.Fault{Status: 500})
	if got := statuses(3); !slices.Equal(got, []int{500, 500, 500}) {
		t.Errorf("Times 0: %v, want every request", got)
	}
	if resp, _ := get(t, http.DefaultClient, s.URL+"/simplefin/info"); resp.StatusCode != http.StatusOK {
		t.Errorf("/info: %d, want an /accounts fault to leave it alone", resp.StatusCode)
	}
	s.ClearFaults()
	if got := statuses(1); !slices.Equal(got, []int{200}) {
		t.Errorf("after ClearFaults: %v", got)
	}
}

func TestClaimFaultKeepsTheToken(t *testing.T) {
	s := fakesimplefin.NewTest(t)
	token := s.NewSetupToken()
	s.Inject(fakesimplefin.Fault{Endpoint: fakesimplefin.Claim, Status: 500, Times: 1})
	if status, _ := claim(t, http.DefaultClient, token); status != 500 {
		t.Errorf("faulted claim: %d, want 500", status)
	}
	if status, _ := claim(t, http.DefaultClient, token); status != 200 {
		t.Errorf("claim after the fault: %d, want 200", status)
	}
}

func TestFaultReset(t *testing.T) {
	s, access := newSample(t)
	s.Inject(fakesimplefin.Fault{Reset: true, Times: 1})
	// Without keep-alives the Transport cannot replay the request on a fresh connection.
	c := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	resp, err := c.Get(access + "/accounts")
	if err == nil {
		resp.Body.Close()
		t.Fatalf("got %d, want a connection reset", resp.StatusCode)
	}
	if !errors.Is(err, syscall.ECONNRESET) {
		t.Errorf("error %v, want a connection reset", err)
	}
	if got := len(s.Requests()); got != 1 {
		t.Errorf("%d requests recorded, want 1", got)
	}
	if resp, _ := get(t, c, access+"/accounts"); resp.StatusCode != http.StatusOK {
		t.Errorf("next request: %d", resp.StatusCode)
	}
}

// A Delay past the client's timeout is a timeout, and the handler ends with the client's
// request: httptest.Server.Close waits for every handler, and the server's own Close (which
// also releases delays) is never called here.
func TestFaultDelayEndsWithTheClient(t *testing.T) {
	s := fakesimplefin.New()
	ts := httptest.NewServer(s)
	s.URL = ts.URL
	s.Inject(fakesimplefin.Fault{Delay: time.Hour})

	c := &http.Client{Timeout: 50 * time.Millisecond}
	_, err := c.Get(s.NewAccessURL() + "/accounts")
	var uerr *url.Error
	if !errors.As(err, &uerr) || !uerr.Timeout() {
		t.Fatalf("error %v, want a client timeout", err)
	}

	closed := make(chan struct{})
	go func() { ts.Close(); close(closed) }()
	select {
	case <-closed:
	case <-time.After(10 * time.Second):
		t.Fatal("the delayed handler outlived its client")
	}
}

func TestCloseReleasesADelayedRequest(t *testing.T) {
	s := fakesimplefin.NewTest(t)
	access := s.NewAccessURL()
	s.Inject(fakesimplefin.Fault{Delay: time.Hour})

	errc := make(chan error, 1)
	go func() {
		resp, err := http.Get(access + "/accounts")
		if err == nil {
			resp.Body.Close()
		}
		errc <- err
	}()
	for len(s.Requests()) == 0 { // the request is recorded before its delay starts
		runtime.Gosched()
	}
	s.Close()
	if err := <-errc; err == nil {
		t.Error("the delayed request got an answer, want none")
	}
}

func TestShortDelayThenTheRealAnswer(t *testing.T) {
	s, access := newSample(t)
	s.Inject(fakesimplefin.Fault{Delay: 20 * time.Millisecond, Times: 1})
	start := time.Now()
	set := getAccounts(t, access, "", http.StatusOK)
	if elapsed := time.Since(start); elapsed < 20*time.Millisecond || len(set.Accounts) != 3 {
		t.Errorf("answered after %v with %d accounts, want at least 20ms and the data", elapsed, len(set.Accounts))
	}
}

func TestRequestsAreRecorded(t *testing.T) {
	s, access := newSample(t)
	claim(t, http.DefaultClient, s.NewSetupToken())
	get(t, http.DefaultClient, s.URL+"/simplefin/info")
	get(t, http.DefaultClient, access+"/accounts?pending=1&account=ACT-1001&account=ACT-2002&start-date=1773057600")
	u, _ := url.Parse(access)

	reqs := s.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests, want 3", len(reqs))
	}
	if r := reqs[0]; r.Method != http.MethodPost || !strings.HasPrefix(r.Path, "/simplefin/claim/") || r.User != "" {
		t.Errorf("claim recorded as %+v", r)
	}
	if r := reqs[1]; r.Method != http.MethodGet || r.Path != "/simplefin/info" {
		t.Errorf("info recorded as %+v", r)
	}
	r := reqs[2]
	if r.Path != "/simplefin/accounts" || r.User != u.User.Username() || !r.Time.Equal(fakesimplefin.SampleNow) ||
		!slices.Equal(r.Query["account"], []string{"ACT-1001", "ACT-2002"}) || !r.Query.Has("pending") ||
		r.Query.Get("start-date") != "1773057600" {
		t.Errorf("accounts recorded as %+v", r)
	}
}
