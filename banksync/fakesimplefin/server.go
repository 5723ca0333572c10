package fakesimplefin

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// root is where the protocol lives on the server, as on the Bridge, so that access URLs look
// like the real thing.
const root = "/simplefin"

// Server is a fake SimpleFIN Bridge. It is an http.Handler; its methods are safe for
// concurrent use with the requests it serves.
type Server struct {
	// URL is the server's base URL without the root, e.g. http://127.0.0.1:8787. NewTest sets
	// it; whoever serves a Server from New sets it before minting tokens or serving.
	URL string

	mux       *http.ServeMux
	done      chan struct{} // closed by Close: releases delayed requests
	closeOnce sync.Once
	httptest  *httptest.Server // nil unless from NewTest or NewTLSTest

	mu            sync.Mutex
	now           time.Time // zero: the wall clock
	tokens        map[string]*setupToken
	creds         map[string]*credential // by Basic-auth user
	conns         []Connection
	accounts      []*Account
	accountErrors map[string]string // account id → message
	versions      []string          // what GET /info lists; "2.0" enables the v2 shape
	faults        []*queuedFault
	requests      []Request
	rangeDays     int
	rangeMode     RangeMode
	warnAt        int
	blockAt       int
}

// Request is one request the server received, whatever its outcome.
type Request struct {
	Method string
	Path   string // e.g. /simplefin/accounts
	Query  url.Values
	User   string    // the Basic-auth user name, valid or not; "" without credentials
	Time   time.Time // by the server's clock
}

// New returns a fake with no data and the Bridge's limits, not yet serving. Serve it with
// any http.Server after setting URL; NewTest does both for a test.
func New() *Server {
	s := &Server{
		mux:           http.NewServeMux(),
		done:          make(chan struct{}),
		tokens:        map[string]*setupToken{},
		creds:         map[string]*credential{},
		accountErrors: map[string]string{},
		versions:      []string{"1.0", "2.0"},
		rangeDays:     90,
		rangeMode:     RangeCap,
		warnAt:        48,
		blockAt:       96,
	}
	s.mux.HandleFunc("POST "+root+"/claim/{code}", s.serveClaim)
	s.mux.HandleFunc("GET "+root+"/info", s.serveInfo)
	s.mux.HandleFunc("GET "+root+"/accounts", s.serveAccounts)
	return s
}

// NewTest starts a fake on a loopback HTTP server that closes when the test ends.
func NewTest(tb testing.TB) *Server { return newTest(tb, false) }

// NewTLSTest is NewTest over HTTPS, for code that insists on https (as the protocol does);
// its requests must go through Client, which trusts the server's certificate.
func NewTLSTest(tb testing.TB) *Server { return newTest(tb, true) }

func newTest(tb testing.TB, tls bool) *Server {
	tb.Helper()
	s := New()
	s.httptest = httptest.NewUnstartedServer(s)
	if tls {
		s.httptest.StartTLS()
	} else {
		s.httptest.Start()
	}
	s.URL = s.httptest.URL
	tb.Cleanup(s.Close)
	return s
}

// Client returns an HTTP client for a server started by NewTest or NewTLSTest (trusting the
// latter's certificate), or http.DefaultClient otherwise.
func (s *Server) Client() *http.Client {
	if s.httptest == nil {
		return http.DefaultClient
	}
	return s.httptest.Client()
}

// Close releases any request held by a Delay fault and, for a server from NewTest, shuts it
// down. It is idempotent.
func (s *Server) Close() {
	s.closeOnce.Do(func() {
		// Release delayed handlers first: httptest.Server.Close waits for every handler.
		close(s.done)
		if s.httptest != nil {
			s.httptest.Close()
		}
	})
}

// ServeHTTP records the request, plays the next fault for its endpoint, then answers it.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	user, _, _ := r.BasicAuth()
	s.mu.Lock()
	s.requests = append(s.requests, Request{
		Method: r.Method, Path: r.URL.Path, Query: r.URL.Query(), User: user, Time: s.clock(),
	})
	f := s.nextFault(endpointOf(r.URL.Path))
	s.mu.Unlock()

	if f != nil {
		var ok bool
		if w, r, ok = s.play(f, w, r); !ok {
			return
		}
	}
	s.mux.ServeHTTP(w, r)
}

// endpointOf names the endpoint a path belongs to, for matching faults.
func endpointOf(path string) Endpoint {
	rest, ok := strings.CutPrefix(path, root)
	switch {
	case !ok:
		return ""
	case strings.HasPrefix(rest, string(Claim)+"/"):
		return Claim
	default:
		return Endpoint(rest)
	}
}

// Requests returns every request received so far, oldest first.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.requests)
}

// SetNow fixes the server's clock at t.
func (s *Server) SetNow(t time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.now = t
}

// Advance moves the server's clock forward by d, fixing it first at the wall clock's now if
// it was not fixed.
func (s *Server) Advance(d time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.now = s.clock().Add(d)
}

// clock is the server's now. The caller holds s.mu.
func (s *Server) clock() time.Time {
	if s.now.IsZero() {
		return time.Now()
	}
	return s.now
}
