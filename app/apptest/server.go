// Package apptest starts Tally's real web app on a loopback HTTP server for tests.
package apptest

import (
	"context"
	"io"
	"log/slog"
	"net"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pquerna/otp/totp"

	"tally/app"
	"tally/app/web"
	"tally/budgets"
	"tally/mfa"
	"tally/models"

	"tally/config"
	"tally/fx"
	"tally/handlers"
	"tally/imports"
	"tally/internal/db"
	"tally/internal/mail"
	"tally/jobs"
	"tally/testkit"
	"tally/webhooks"
)

// Server is Tally's real router behind a real HTTP server on loopback.
type Server struct {
	URL    string
	DB     *db.DB
	Config config.Config
	Outbox *Outbox
	Logs   *strings.Builder
	// Imports is the server's import service; Jobs its River client.
	Imports *imports.Service
	Jobs    *jobs.Client
	// Webhooks is the server's webhook service.
	Webhooks *webhooks.Service
}

// ServerOptions adjusts a test server.
type ServerOptions struct {
	// DB shares a database with another server; nil means a fresh one.
	DB *db.DB
	// Env is the environment the configuration is read from.
	Env map[string]string
	// NoWorker leaves background jobs queued instead of working them.
	NoWorker bool
	// Now is the clock of the sign-in's time limits; time.Now when nil.
	Now func() time.Time
	// Localhost serves the app as http://localhost:<port> rather than 127.0.0.1: passkeys need
	// a domain for their relying party, and browsers treat localhost as secure.
	Localhost bool
	// WebhookRetry replaces the webhooks' retry schedule (a day), so that a test sees
	// deliveries retried and given up in seconds.
	WebhookRetry *webhooks.RetryPolicy
	// Bills stands in for the recurring series that budgets read; nil: none are known.
	Bills budgets.Bills
}

// StartServer starts Tally's web app for a test, closed when the test ends.
func StartServer(tb testing.TB, opts ServerOptions) *Server {
	tb.Helper()
	// The API's per-key limit is off unless a test sets it: tests poll the API faster than
	// any client would. Exchange rates are fetched only from a fake a test names.
	env := map[string]string{"SECRET_KEY_BASE": strings.Repeat("test-secret-", 6), "API_RATE_LIMIT_PER_MINUTE": "0",
		"API_IMPORT_RATE_LIMIT_PER_MINUTE": "0", "EXCHANGE_RATES_URL": fx.Off}
	for k, v := range opts.Env {
		env[k] = v
	}
	cfg, err := app.LoadConfig(func(k string) string { return env[k] })
	if err != nil {
		tb.Fatalf("load config: %v", err)
	}
	d := opts.DB
	if d == nil {
		d = testkit.MustOpenDB(tb)
	}
	logs := &strings.Builder{}
	log := slog.New(slog.NewTextHandler(&lockedWriter{w: logs}, &slog.HandlerOptions{Level: slog.LevelInfo}))
	outbox := &Outbox{}
	srv := httptest.NewUnstartedServer(nil)
	base := "http://" + srv.Listener.Addr().String()
	if opts.Localhost {
		_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
		base = "http://localhost:" + port
	}
	if cfg.AppURL == "" {
		cfg.AppURL = base
	}
	// The audit retention job is left out: tests write audit entries of any age themselves.
	a, err := app.New(cfg, d, log, app.Options{Mailer: outbox, WebhookRetry: opts.WebhookRetry, NoAuditRetention: true, Bills: opts.Bills})
	if err != nil {
		tb.Fatalf("app: %v", err)
	}
	if !opts.NoWorker {
		ctx, cancel := context.WithCancel(context.Background())
		if err := a.Jobs.Start(ctx); err != nil {
			tb.Fatalf("start jobs: %v", err)
		}
		tb.Cleanup(func() {
			stopCtx, stop := context.WithTimeout(context.Background(), 10*time.Second)
			defer stop()
			_ = a.Jobs.Stop(stopCtx)
			cancel()
		})
	}
	h, err := web.New(a, web.Options{Now: opts.Now})
	if err != nil {
		tb.Fatalf("handlers: %v", err)
	}
	srv.Config.Handler = h
	srv.Start()
	tb.Cleanup(srv.Close)
	return &Server{URL: base, DB: d, Config: cfg, Outbox: outbox, Logs: logs, Imports: a.Imports, Jobs: a.Jobs, Webhooks: a.Webhooks}
}

// apiValidator checks API responses against Tally's OpenAPI document; it is built once per
// test binary because loading the document is the slow part.
var apiValidator = sync.OnceValues(func() (*testkit.APIValidator, error) {
	return testkit.LoadAPIValidator(handlers.OpenAPIDocument())
})

// NewClient returns a client of srv that checks every API response against the OpenAPI
// document the server serves.
func NewClient(tb testing.TB, srv *Server) *testkit.Client {
	tb.Helper()
	v, err := apiValidator()
	if err != nil {
		tb.Fatalf("OpenAPI document: %v", err)
	}
	c := testkit.NewClient(tb, srv.URL)
	c.ValidateAPI(v)
	return c
}

// Outbox keeps the mail a test server sends.
type Outbox struct {
	mu       sync.Mutex
	Messages []mail.Message
	refusal  error
}

// Refuse makes every Send fail with err, as a mail server that will not take the message
// does; nil accepts again.
func (o *Outbox) Refuse(err error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.refusal = err
}

var _ mail.Mailer = (*Outbox)(nil)

// Send keeps m.
func (o *Outbox) Send(_ context.Context, m mail.Message) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.refusal != nil {
		return o.refusal
	}
	o.Messages = append(o.Messages, m)
	return nil
}

// Last returns the last message sent, or false.
func (o *Outbox) Last() (mail.Message, bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if len(o.Messages) == 0 {
		return mail.Message{}, false
	}
	return o.Messages[len(o.Messages)-1], true
}

// Count returns how many messages were sent.
func (o *Outbox) Count() int {
	o.mu.Lock()
	defer o.mu.Unlock()
	return len(o.Messages)
}

type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// MustEnrolTOTP turns on u's authenticator app as of two minutes ago (so that a code of now
// is not a replay of the confirming one) and returns its key, for codes.
func MustEnrolTOTP(tb testing.TB, srv *Server, u *models.User) string {
	tb.Helper()
	secret, _ := MustEnrolTOTPWithCodes(tb, srv, u)
	return secret
}

// MustEnrolTOTPWithCodes is MustEnrolTOTP, and returns the recovery codes too.
func MustEnrolTOTPWithCodes(tb testing.TB, srv *Server, u *models.User) (secret string, recovery []string) {
	tb.Helper()
	keys, err := app.EncryptionKeys(srv.Config)
	if err != nil {
		tb.Fatal(err)
	}
	then := time.Now().Add(-2 * time.Minute)
	svc := &mfa.Service{DB: srv.DB, Keys: keys, Now: func() time.Time { return then }}
	ctx := context.Background()
	en, err := svc.BeginTOTP(ctx, u.ID, u.Email)
	if err != nil {
		tb.Fatal(err)
	}
	code, err := totp.GenerateCode(en.Secret, then)
	if err != nil {
		tb.Fatal(err)
	}
	codes, err := svc.ConfirmTOTP(ctx, u.ID, code)
	if err != nil {
		tb.Fatal(err)
	}
	return en.Secret, codes
}
