// Package webhookstest is a webhook receiver for tests: a real HTTP server on loopback that
// checks each delivery's signature the way the README tells receivers to, records it, and
// answers with the statuses the test asks for.
package webhookstest

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"tally/webhooks"
)

// Delivery is one request the receiver got.
type Delivery struct {
	Header  http.Header
	Body    []byte
	Payload webhooks.Payload
	// SignatureErr is nil when Tally-Signature was right for the body and the secret.
	SignatureErr error
	// Status is what the receiver answered.
	Status int
	At     time.Time
}

// EventID is the delivery's Tally-Event-Id header.
func (d Delivery) EventID() string { return d.Header.Get(webhooks.HeaderEventID) }

// Receiver is a webhook endpoint for a test.
type Receiver struct {
	URL string

	mu      sync.Mutex
	secret  string
	answers []int
	always  int
	got     []Delivery
}

// New starts a receiver that answers 200 until told otherwise, closed when the test ends.
func New(tb testing.TB) *Receiver {
	tb.Helper()
	r := &Receiver{always: http.StatusOK}
	srv := httptest.NewServer(http.HandlerFunc(r.serve))
	tb.Cleanup(srv.Close)
	r.URL = srv.URL + "/hooks"
	return r
}

// SetSecret sets the secret signatures are checked with: the one Tally showed at creation.
func (r *Receiver) SetSecret(secret string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.secret = secret
}

// AnswerNext answers the next requests with statuses, in order, then as before.
func (r *Receiver) AnswerNext(statuses ...int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.answers = append(r.answers, statuses...)
}

// AlwaysAnswer answers every later request with status (after those of AnswerNext).
func (r *Receiver) AlwaysAnswer(status int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.always = status
}

// Deliveries returns what the receiver got so far.
func (r *Receiver) Deliveries() []Delivery {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Delivery(nil), r.got...)
}

// WaitFor waits until the receiver has got n requests, and fails the test after timeout.
func (r *Receiver) WaitFor(tb testing.TB, n int, timeout time.Duration) []Delivery {
	tb.Helper()
	deadline := time.Now().Add(timeout)
	for {
		got := r.Deliveries()
		if len(got) >= n {
			return got
		}
		if time.Now().After(deadline) {
			tb.Fatalf("the receiver got %d requests in %s, want %d", len(got), timeout, n)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func (r *Receiver) serve(w http.ResponseWriter, req *http.Request) {
	body, _ := io.ReadAll(req.Body)
	r.mu.Lock()
	status := r.always
	if len(r.answers) > 0 {
		status, r.answers = r.answers[0], r.answers[1:]
	}
	d := Delivery{Header: req.Header.Clone(), Body: body, Status: status, At: time.Now()}
	if !verify(r.secret, req.Header.Get(webhooks.HeaderSignature), body) {
		d.SignatureErr = errors.New("the signature does not match, or is stale")
	}
	_ = json.Unmarshal(body, &d.Payload)
	r.got = append(r.got, d)
	r.mu.Unlock()
	w.WriteHeader(status)
	_, _ = io.WriteString(w, http.StatusText(status))
}

// verify is the README's signature check, word for word, as a receiver writes it without
// Tally's code: the HMAC-SHA256 of "<t>.<body>" under the secret, compared in constant time,
// with t within five minutes.
func verify(secret, header string, body []byte) bool {
	var t, sig string
	for _, part := range strings.Split(header, ",") {
		if k, v, ok := strings.Cut(part, "="); ok && k == "t" {
			t = v
		} else if ok && k == "v1" {
			sig = v
		}
	}
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write([]byte(t + "." + string(body)))
	sent, err := strconv.ParseInt(t, 10, 64)
	return err == nil && time.Since(time.Unix(sent, 0)).Abs() < 5*time.Minute &&
		hmac.Equal([]byte(sig), []byte(hex.EncodeToString(mac.Sum(nil))))
}
