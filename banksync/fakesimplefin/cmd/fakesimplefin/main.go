// Command fakesimplefin runs a fake SimpleFIN Bridge (package fakesimplefin) to try Tally's
// bank sync by hand:
//
//	go run ./banksync/fakesimplefin/cmd/fakesimplefin [-addr 127.0.0.1:8787] [-fail-every N] [-fail-with 503]
//
// It serves the protocol under http://ADDR/simplefin with a demo dataset dated from today:
// First Example Bank (Everyday Checking, Rewards Visa) and Example Brokerage (Individual
// Brokerage, with VTI and money-market holdings), 90 days of transactions, three of them
// pending. It prints one setup token to paste into Tally (it claims once; restart for another,
// which also resets the data), and logs every request to stderr.
//
// -fail-every N makes every Nth GET /accounts fail, the way -fail-with says: an HTTP status
// (503, 429 with Retry-After, 524, ...), "reset" (connection reset), "timeout" (no answer
// until the client gives up) or "malformed" (a 200 that is not JSON).
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"sync/atomic"
	"time"

	"tally/banksync/fakesimplefin"
	"tally/banksync/internal/fakecmd"
)

func main() { fakecmd.Main("fakesimplefin", run) }

// run is the whole program, with its environment passed in, so that tests run it as main does.
// It serves until ctx ends.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	flags := flag.NewFlagSet("fakesimplefin", flag.ContinueOnError)
	addr := flags.String("addr", "127.0.0.1:8787", "`address` to listen on")
	failEvery := flags.Int("fail-every", 0, "fail every `N`th GET /accounts (0: never)")
	failWith := flags.String("fail-with", "503", "how to fail: an HTTP `status`, reset, timeout or malformed")
	if done, err := fakecmd.Parse(flags, args, stderr); done {
		return err
	}
	fault, err := parseFault(*failWith)
	if err != nil {
		return err
	}

	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return err
	}
	s := fakesimplefin.New()
	s.URL = "http://" + dialable(ln.Addr().(*net.TCPAddr))
	seedDemo(s, time.Now())

	log := slog.New(slog.NewTextHandler(stderr, nil))
	srv := &http.Server{
		Handler:           logRequests(log, failingEvery(*failEvery, fault, s)),
		ReadHeaderTimeout: 10 * time.Second,
	}
	fmt.Fprintf(stdout, "fake SimpleFIN Bridge on %s/simplefin\n", s.URL)
	fmt.Fprintf(stdout, "setup token: %s\n", s.NewSetupToken())

	// Closing s answers the requests a timeout fault holds, so that Shutdown need not wait.
	return fakecmd.Serve(ctx, srv, ln, s.Close)
}

// dialable is addr with an unspecified IP (":8787") replaced by localhost, so that the
// URLs the fake hands out can be fetched.
func dialable(addr *net.TCPAddr) string {
	host := addr.IP.String()
	if addr.IP.IsUnspecified() {
		host = "localhost"
	}
	return net.JoinHostPort(host, strconv.Itoa(addr.Port))
}

// parseFault reads -fail-with.
func parseFault(how string) (fakesimplefin.Fault, error) {
	switch how {
	case "reset":
		return fakesimplefin.Fault{Reset: true}, nil
	case "timeout":
		return fakesimplefin.Fault{Delay: time.Hour}, nil // longer than any client waits
	case "malformed":
		return fakesimplefin.Fault{Body: `{"errors":[],"accounts":[{"id":`}, nil
	}
	status, err := strconv.Atoi(how)
	if err != nil || status < 400 || status > 599 {
		return fakesimplefin.Fault{}, fmt.Errorf("-fail-with %q: want an HTTP error status, reset, timeout or malformed", how)
	}
	f := fakesimplefin.Fault{Status: status}
	if status == http.StatusTooManyRequests {
		f.RetryAfter = time.Hour
	}
	return f, nil
}

// failingEvery queues f for every nth GET /accounts before s answers it. Two requests at the
// same moment may swap who gets it, which is fine for trying a client by hand.
func failingEvery(n int, f fakesimplefin.Fault, s *fakesimplefin.Server) http.Handler {
	if n <= 0 {
		return s
	}
	f.Times = 1
	var count atomic.Int64
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/simplefin/accounts" && count.Add(1)%int64(n) == 0 {
			s.Inject(f)
		}
		s.ServeHTTP(w, r)
	})
}

// logRequests logs each request once answered. It never logs the password.
func logRequests(log *slog.Logger, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		rec := &statusRecorder{ResponseWriter: w}
		user, _, _ := r.BasicAuth()
		defer func() { // deferred: an aborted request (a timeout fault at shutdown) panics out
			log.Info("request", "method", r.Method, "path", r.URL.Path, "query", r.URL.RawQuery,
				"user", user, "status", rec.status, "duration", time.Since(start).Round(time.Millisecond))
		}()
		next.ServeHTTP(rec, r)
	})
}

// statusRecorder notes the status written through it; 0 means no answer (a reset or a client
// that gave up). Unwrap lets the fake hijack the connection through it.
type statusRecorder struct {
	http.ResponseWriter
	status int
}

func (w *statusRecorder) WriteHeader(status int) {
	if w.status == 0 {
		w.status = status
	}
	w.ResponseWriter.WriteHeader(status)
}

func (w *statusRecorder) Write(p []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.ResponseWriter.Write(p)
}

func (w *statusRecorder) Unwrap() http.ResponseWriter { return w.ResponseWriter }
