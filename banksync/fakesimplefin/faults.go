package fakesimplefin

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Endpoint names a protocol endpoint, relative to the root.
type Endpoint string

// The endpoints a fault can target.
const (
	Accounts Endpoint = "/accounts"
	Info     Endpoint = "/info"
	Claim    Endpoint = "/claim" // every claim code
)

// Fault is a failure the server plays instead of, or on top of, its real answer. Fields
// combine: Delay comes first, then Reset, a Status or a Body answer the request instead of
// the server, and Truncate and Errors alter the real answer.
type Fault struct {
	Endpoint Endpoint // "" is Accounts
	// Times is how many requests the fault affects; 0 is every request until ClearFaults.
	Times int

	// Delay holds the request before answering. Longer than the client's timeout it is a
	// timeout; the handler still returns as soon as the client gives up or Close is called,
	// so nothing outlives the test.
	Delay time.Duration
	// Reset closes the TCP connection without an answer (a reset, not a clean close). Go's
	// Transport silently replays a GET once when a reused connection dies this way: use
	// Times: 2, or a client without keep-alives, to see the error.
	Reset bool
	// Status answers with this status and Body, or the Bridge's body for it: the quota text
	// for 429, "error code: 524" for Cloudflare's 524, an HTML page for other 5xx, JSON
	// errors otherwise ("Forbidden" as text on Claim).
	Status     int
	RetryAfter time.Duration // a Retry-After header, in whole seconds, with Status
	// Body without Status is a 200 application/json answer with this body, e.g. "not json".
	Body string
	// Truncate cuts the real answer after this many bytes.
	Truncate int
	// Errors are added to the real answer's errors (v1, Msg only) or errlist (v2).
	Errors []Error
}

// Error is an entry of an answer's errors (v1: Msg) or errlist (v2).
type Error struct {
	Code      string // e.g. con.auth, act.missingdata; "" is gen.
	Msg       string // user-displayable
	ConnID    string
	AccountID string
}

// queuedFault is an injected fault and how many more requests it affects (< 0: until
// cleared).
type queuedFault struct {
	Fault
	left int
}

// Inject queues a fault. The faults of an endpoint play in the order injected; one that lasts
// until ClearFaults holds back those queued after it.
func (s *Server) Inject(f Fault) {
	if f.Endpoint == "" {
		f.Endpoint = Accounts
	}
	left := f.Times
	if left == 0 {
		left = -1
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults = append(s.faults, &queuedFault{Fault: f, left: left})
}

// ClearFaults drops every queued fault.
func (s *Server) ClearFaults() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults = nil
}

// nextFault takes one use of the first fault queued for e, or returns nil. The caller holds
// s.mu.
func (s *Server) nextFault(e Endpoint) *Fault {
	i := slices.IndexFunc(s.faults, func(q *queuedFault) bool { return q.Endpoint == e })
	if i < 0 {
		return nil
	}
	q := s.faults[i]
	if q.left > 0 {
		if q.left--; q.left == 0 {
			s.faults = slices.Delete(s.faults, i, i+1)
		}
	}
	f := q.Fault // a copy: the handler plays it after s.mu is released
	return &f
}

// extraErrorsKey carries a fault's Errors from ServeHTTP to the accounts handler.
type extraErrorsKey struct{}

// play plays f's failures on r and returns the writer and request the server answers with,
// or ok false when f has answered it already.
func (s *Server) play(f *Fault, w http.ResponseWriter, r *http.Request) (_ http.ResponseWriter, _ *http.Request, ok bool) {
	if f.Delay > 0 {
		t := time.NewTimer(f.Delay)
		defer t.Stop()
		select {
		case <-t.C:
		case <-r.Context().Done(): // the client gave up
			return nil, nil, false
		case <-s.done:
			panic(http.ErrAbortHandler) // no answer rather than an empty 200
		}
	}
	switch {
	case f.Reset:
		reset(w)
		return nil, nil, false
	case f.Status != 0:
		if f.RetryAfter > 0 {
			w.Header().Set("Retry-After", strconv.Itoa(int(f.RetryAfter/time.Second)))
		}
		body := f.Body
		if body == "" {
			body = defaultBody(f.Endpoint, f.Status)
		}
		writeBody(w, f.Status, body)
		return nil, nil, false
	case f.Body != "":
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, f.Body)
		return nil, nil, false
	}
	if f.Truncate > 0 {
		w = &truncatingWriter{ResponseWriter: w, left: f.Truncate}
	}
	if len(f.Errors) > 0 {
		r = r.WithContext(context.WithValue(r.Context(), extraErrorsKey{}, f.Errors))
	}
	return w, r, true
}

// reset drops the connection under w with a TCP RST, as a crashed proxy does.
func reset(w http.ResponseWriter) {
	conn, _, err := http.NewResponseController(w).Hijack()
	if err != nil {
		panic(http.ErrAbortHandler) // cannot hijack (HTTP/2): abort the stream instead
	}
	raw := conn
	if tc, ok := conn.(interface{ NetConn() net.Conn }); ok { // TLS
		raw = tc.NetConn()
	}
	if tcp, ok := raw.(*net.TCPConn); ok {
		tcp.SetLinger(0) // close with RST rather than FIN
	}
	conn.Close()
}

// quotaText is the Bridge's 429 body, as observed (Firefly III #12538).
const quotaText = `{"errors":["Too many requests. SimpleFIN data is only refreshed once every 24 hours. Expected usage of this API is 24 requests per day."]}`

// defaultBody is what the Bridge, or the Cloudflare proxy in front of it, answers with status.
func defaultBody(e Endpoint, status int) string {
	switch {
	case status == http.StatusTooManyRequests:
		return quotaText
	case status == 524:
		return "error code: 524"
	case status >= 500:
		text := fmt.Sprintf("%d %s", status, http.StatusText(status))
		return "<html><head><title>" + text + "</title></head><body><h1>" + text + "</h1></body></html>"
	case e == Claim:
		return http.StatusText(status)
	default:
		return errorsBody(http.StatusText(status))
	}
}

// writeBody writes a fault's body with the content type it looks like.
func writeBody(w http.ResponseWriter, status int, body string) {
	ct := http.DetectContentType([]byte(body))
	if b := strings.TrimSpace(body); strings.HasPrefix(b, "{") || strings.HasPrefix(b, "[") {
		ct = "application/json"
	}
	w.Header().Set("Content-Type", ct)
	w.WriteHeader(status)
	io.WriteString(w, body)
}

// truncatingWriter passes on only the first left bytes of the body and swallows the rest, so
// the client gets a well-formed HTTP answer whose JSON is cut short.
type truncatingWriter struct {
	http.ResponseWriter
	left int
}

func (w *truncatingWriter) Write(p []byte) (int, error) {
	n := min(len(p), w.left)
	w.left -= n
	if _, err := w.ResponseWriter.Write(p[:n]); err != nil {
		return 0, err
	}
	return len(p), nil
}

func (w *truncatingWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
