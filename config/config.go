// Package config reads Tally's configuration from the environment. A bad value fails at start
// with a message that names the variable.
//
// It parses settings only and imports no domain package: a setting whose values a domain
// package defines (the JIT mode, the audit tier and archive, the exchange-rates feed) is read
// here as text and checked by its owner in app.LoadConfig, which every command calls.
package config

import (
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Config is everything Tally reads from the environment.
type Config struct {
	// DatabaseURL is the PostgreSQL URL. Empty in `tally dev`, which starts a private cluster.
	DatabaseURL string
	// SecretKeyBase signs and encrypts: session cookies, CSRF tokens and secrets at rest.
	SecretKeyBase string
	// AppURL is the public base URL, used in links sent by mail and in SSO callback URLs.
	AppURL string
	// ListenAddr is where the web server listens.
	ListenAddr string
	LogLevel   slog.Level
	// LogFormat is "json" (the default for serve) or "text" (the default for dev).
	LogFormat string

	LocalLoginEnabled         bool
	LocalAdminOverrideEnabled bool
	// RequireMFA is who must have a second factor to sign in with a password
	// (AUTH_REQUIRE_MFA).
	RequireMFA MFAPolicy
	SMTPURL    string
	MailFrom   string
	// LLMBaseURL, LLMAPIKey and LLMModel name an OpenAI-compatible endpoint that PdfImport
	// may use as a second extractor (LLM_BASE_URL, LLM_API_KEY, LLM_MODEL). All three or none.
	LLMBaseURL, LLMAPIKey, LLMModel string
	DataDir                         string
	SecureCookies                   bool
	// TrustedProxies are the networks whose X-Forwarded-For header names the client. Without
	// them the connection's address is the client's, so rate limits cannot be dodged.
	TrustedProxies []*net.IPNet
	// MetricsAddr is where /metrics is served (METRICS_ADDR, for example 127.0.0.1:9090); ""
	// serves none. It is a listener of its own so that metrics are never public by accident.
	MetricsAddr string
	// APIRateLimit is how many API requests one API key or OAuth access token may make a
	// minute (API_RATE_LIMIT_PER_MINUTE, 600 by default); APIImportRateLimit how many of them
	// may create imports or import sessions (API_IMPORT_RATE_LIMIT_PER_MINUTE, 30). 0 turns a
	// limit off.
	APIRateLimit       int
	APIImportRateLimit int
	// ImportMaxRows is the most rows one import may publish (IMPORT_MAX_ROWS); 0 is the imports
	// package's default, as many rows as a 10 MB file holds.
	ImportMaxRows int
	// ImportMaxRecords is the most records one NativeImport (a file or a session) may
	// publish (IMPORT_MAX_RECORDS); 0 is the imports package's default.
	ImportMaxRecords int
	// MaxConcurrentUploads is how many uploaded files one process reads at once
	// (MAX_CONCURRENT_UPLOADS); 0 is the imports package's default. Past it an upload waits a
	// moment, then gets 429 with Retry-After.
	MaxConcurrentUploads int

	// AuthProvidersSource is "db" (SSO providers in the database, managed in the admin pages)
	// or "yaml" (AUTH_CONFIG_FILE, read at start): AUTH_PROVIDERS_SOURCE.
	AuthProvidersSource string
	// AuthConfigFile is the legacy provider file (AUTH_CONFIG_FILE, default config/auth.yml).
	AuthConfigFile string
	// AppEnv picks the section of AuthConfigFile (TALLY_ENV, default production).
	AppEnv string
	// JITMode is create_and_link or link_only (AUTH_JIT_MODE, sso's names, checked by
	// app.LoadConfig); "" when unset, so that the auth file may set it.
	JITMode string
	// AllowedOIDCDomains limits just-in-time account creation to these email domains
	// (ALLOWED_OIDC_DOMAINS, comma-separated); "" allows any.
	AllowedOIDCDomains string
	// Set records which variables were given, for settings a file may also hold.
	Set map[string]bool
	// BanksyncAllowInsecure lets bank connections use plain http and private or loopback
	// hosts (BANKSYNC_ALLOW_INSECURE): for tests and a local fake provider only.
	BanksyncAllowInsecure bool
	// EnableBankingAppID is the Enable Banking application's id (ENABLE_BANKING_APP_ID); ""
	// leaves European bank sync out.
	EnableBankingAppID string
	// EnableBankingKey is the application's private key, read once at start from
	// ENABLE_BANKING_PRIVATE_KEY_FILE or ENABLE_BANKING_PRIVATE_KEY. It prints as [redacted].
	EnableBankingKey PrivateKey
	// EnableBankingAPIURL is the provider's API (ENABLE_BANKING_API_URL, default production).
	EnableBankingAPIURL string
	// WebhooksAllowInsecure lets webhook endpoints be on a loopback address, over plain http
	// too (WEBHOOKS_ALLOW_INSECURE): for development and tests only. Private and link-local
	// addresses stay refused.
	WebhooksAllowInsecure bool
	// AdminRateLimit is how many /admin requests a minute one IP may make
	// (ADMIN_RATE_LIMIT_PER_MINUTE, default 10).
	AdminRateLimit int
	// AuditLogRetention is how long the SSO audit log is kept (AUDIT_LOG_RETENTION: standard,
	// the default, extended or compliance; auditlog.Retention's names, which app.LoadConfig
	// checks and sets).
	AuditLogRetention string
	// AuditArchiveURL is where archived audit days are stored (AUDIT_ARCHIVE_URL, default
	// file://<TALLY_DATA_DIR or .data, absolute>/audit-archive; auditlog.Open's schemes,
	// checked by app.LoadConfig).
	AuditArchiveURL string
	// OAuthAccessTokenTTL and OAuthRefreshTokenTTL are the lifetimes of the tokens Tally
	// issues to API clients (OAUTH_ACCESS_TOKEN_TTL, default 1h; OAUTH_REFRESH_TOKEN_TTL,
	// default 2160h, 90 days).
	OAuthAccessTokenTTL, OAuthRefreshTokenTTL time.Duration
	// RequestTimeout bounds the work of one web or API request (REQUEST_TIMEOUT, default
	// 30s): its database statements are cancelled past it, nothing is written, and it answers
	// 503. Streams (the export) are left out.
	RequestTimeout time.Duration
	// MoveInReadTimeout bounds the reading of a move-in's export, its conversion and storing
	// (MOVE_IN_READ_TIMEOUT, default 20s); past it the upload is refused naming the limit.
	// Keep it under RequestTimeout, or the request's 503 comes first.
	MoveInReadTimeout time.Duration
	// BodyTimeout is how long a request body may go without a byte arriving before the
	// connection is cut (REQUEST_BODY_TIMEOUT, default 60s); a slow upload that keeps coming
	// is never cut.
	BodyTimeout time.Duration
	// ShutdownTimeout is how long, after SIGTERM, requests and then running jobs each have to
	// finish (SHUTDOWN_TIMEOUT, default 20s); jobs still running then are handed back to the
	// queue at once.
	ShutdownTimeout time.Duration
	// ExchangeRatesURL is the ECB's daily feed of reference rates, fetched once a day with
	// its history beside it (EXCHANGE_RATES_URL); fx.Off ("none") fetches none. Empty here
	// when unset: app.LoadConfig sets fx.DefaultURL and checks it with fx.CheckURL.
	ExchangeRatesURL string
	// Getenv is the environment the configuration was read from, for what reads more of it
	// (the auth file's ${NAME} references, the encryption keys).
	Getenv func(string) string
}

// Load reads the configuration through getenv.
func Load(getenv func(string) string) (Config, error) {
	c := Config{
		DatabaseURL:   strings.TrimSpace(getenv("DATABASE_URL")),
		SecretKeyBase: getenv("SECRET_KEY_BASE"),
		AppURL:        strings.TrimRight(strings.TrimSpace(getenv("APP_URL")), "/"),
		ListenAddr:    strings.TrimSpace(getenv("LISTEN_ADDR")),
		MetricsAddr:   strings.TrimSpace(getenv("METRICS_ADDR")),
		LogFormat:     strings.TrimSpace(getenv("LOG_FORMAT")),
		SMTPURL:       strings.TrimSpace(getenv("SMTP_URL")),
		MailFrom:      strings.TrimSpace(getenv("MAIL_FROM")),
		LLMBaseURL:    strings.TrimSpace(getenv("LLM_BASE_URL")),
		LLMAPIKey:     strings.TrimSpace(getenv("LLM_API_KEY")),
		LLMModel:      strings.TrimSpace(getenv("LLM_MODEL")),
		DataDir:       strings.TrimSpace(getenv("TALLY_DATA_DIR")),

		AuthProvidersSource: strings.ToLower(strings.TrimSpace(getenv("AUTH_PROVIDERS_SOURCE"))),
		AuthConfigFile:      strings.TrimSpace(getenv("AUTH_CONFIG_FILE")),
		AppEnv:              strings.TrimSpace(getenv("TALLY_ENV")),
		JITMode:             strings.TrimSpace(getenv("AUTH_JIT_MODE")),
		AllowedOIDCDomains:  strings.TrimSpace(getenv("ALLOWED_OIDC_DOMAINS")),
		Set:                 map[string]bool{},
		Getenv:              getenv,
	}
	for _, k := range []string{"AUTH_LOCAL_LOGIN_ENABLED", "AUTH_LOCAL_ADMIN_OVERRIDE_ENABLED", "AUTH_JIT_MODE", "ALLOWED_OIDC_DOMAINS"} {
		c.Set[k] = strings.TrimSpace(getenv(k)) != ""
	}
	var errs []error
	switch c.AuthProvidersSource {
	case "":
		c.AuthProvidersSource = "yaml"
	case "db", "yaml":
	default:
		errs = append(errs, fmt.Errorf("AUTH_PROVIDERS_SOURCE %q must be db or yaml", c.AuthProvidersSource))
	}
	if c.AuthConfigFile == "" {
		c.AuthConfigFile = "config/auth.yml"
	}
	if c.AppEnv == "" {
		c.AppEnv = "production"
	}
	if c.ListenAddr == "" {
		c.ListenAddr = "127.0.0.1:3000"
	}
	if _, _, err := net.SplitHostPort(c.ListenAddr); err != nil {
		errs = append(errs, fmt.Errorf("LISTEN_ADDR %q is not host:port: %v", c.ListenAddr, err))
	}
	if c.AppURL != "" {
		if u, err := url.Parse(c.AppURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			errs = append(errs, fmt.Errorf("APP_URL %q must be an absolute http or https URL", c.AppURL))
		} else {
			c.SecureCookies = u.Scheme == "https"
		}
	}
	if c.DatabaseURL != "" {
		if u, err := url.Parse(c.DatabaseURL); err != nil || (u.Scheme != "postgres" && u.Scheme != "postgresql") {
			errs = append(errs, errors.New("DATABASE_URL must be a postgres:// URL"))
		}
	}
	if c.SMTPURL != "" {
		if u, err := url.Parse(c.SMTPURL); err != nil || (u.Scheme != "smtp" && u.Scheme != "smtps") || u.Host == "" {
			errs = append(errs, errors.New("SMTP_URL must look like smtp://user:password@host:587 or smtps://user:password@host:465"))
		}
	}
	if set := btoi(c.LLMBaseURL != "") + btoi(c.LLMAPIKey != "") + btoi(c.LLMModel != ""); set != 0 && set != 3 {
		errs = append(errs, fmt.Errorf("LLM_BASE_URL, LLM_API_KEY and LLM_MODEL must be set together, or not at all"))
	}
	if c.MailFrom == "" {
		c.MailFrom = "Tally <no-reply@localhost>"
	}
	switch lvl := strings.ToLower(strings.TrimSpace(getenv("LOG_LEVEL"))); lvl {
	case "", "info":
		c.LogLevel = slog.LevelInfo
	case "debug":
		c.LogLevel = slog.LevelDebug
	case "warn", "warning":
		c.LogLevel = slog.LevelWarn
	case "error":
		c.LogLevel = slog.LevelError
	default:
		errs = append(errs, fmt.Errorf("LOG_LEVEL %q must be debug, info, warn or error", lvl))
	}
	if c.LogFormat != "" && c.LogFormat != "json" && c.LogFormat != "text" {
		errs = append(errs, fmt.Errorf("LOG_FORMAT %q must be json or text", c.LogFormat))
	}
	for _, cidr := range strings.Split(getenv("TRUSTED_PROXIES"), ",") {
		if cidr = strings.TrimSpace(cidr); cidr == "" {
			continue
		}
		if !strings.Contains(cidr, "/") {
			if strings.Contains(cidr, ":") {
				cidr += "/128"
			} else {
				cidr += "/32"
			}
		}
		_, n, err := net.ParseCIDR(cidr)
		if err != nil {
			errs = append(errs, fmt.Errorf("TRUSTED_PROXIES entry %q is not an IP address or CIDR range", cidr))
			continue
		}
		c.TrustedProxies = append(c.TrustedProxies, n)
	}
	for _, l := range []struct {
		name string
		dst  *int
		def  int
	}{{"IMPORT_MAX_ROWS", &c.ImportMaxRows, 0}, {"IMPORT_MAX_RECORDS", &c.ImportMaxRecords, 0},
		{"MAX_CONCURRENT_UPLOADS", &c.MaxConcurrentUploads, 0},
		{"ADMIN_RATE_LIMIT_PER_MINUTE", &c.AdminRateLimit, 10}} {
		*l.dst = l.def
		if v := strings.TrimSpace(getenv(l.name)); v != "" {
			n, err := strconv.Atoi(v)
			if err != nil || n < 1 {
				errs = append(errs, fmt.Errorf("%s %q must be a positive whole number", l.name, v))
			} else {
				*l.dst = n
			}
		}
	}
	for _, l := range []struct {
		name string
		dst  *int
		def  int
	}{{"API_RATE_LIMIT_PER_MINUTE", &c.APIRateLimit, 600}, {"API_IMPORT_RATE_LIMIT_PER_MINUTE", &c.APIImportRateLimit, 30}} {
		*l.dst = l.def
		if v := strings.TrimSpace(getenv(l.name)); v != "" {
			n, err := strconv.Atoi(v)
			if err != nil || n < 0 {
				errs = append(errs, fmt.Errorf("%s %q must be a whole number, 0 to turn the limit off", l.name, v))
			} else {
				*l.dst = n
			}
		}
	}
	for _, d := range []struct {
		name     string
		dst      *time.Duration
		def, min time.Duration
		least    string // the minimum and examples, as the error says them
	}{
		{"OAUTH_ACCESS_TOKEN_TTL", &c.OAuthAccessTokenTTL, time.Hour, time.Minute, "at least a minute, such as 1h or 2160h"},
		{"OAUTH_REFRESH_TOKEN_TTL", &c.OAuthRefreshTokenTTL, 90 * 24 * time.Hour, time.Minute, "at least a minute, such as 1h or 2160h"},
		{"REQUEST_TIMEOUT", &c.RequestTimeout, 30 * time.Second, time.Second, "at least a second, such as 30s or 2m"},
		{"MOVE_IN_READ_TIMEOUT", &c.MoveInReadTimeout, 20 * time.Second, time.Second, "at least a second, such as 20s or 1m"},
		{"REQUEST_BODY_TIMEOUT", &c.BodyTimeout, time.Minute, time.Second, "at least a second, such as 60s"},
		{"SHUTDOWN_TIMEOUT", &c.ShutdownTimeout, 20 * time.Second, time.Second, "at least a second, such as 20s or 2m"},
	} {
		*d.dst = d.def
		if v := strings.TrimSpace(getenv(d.name)); v != "" {
			t, err := time.ParseDuration(v)
			if err != nil || t < d.min {
				errs = append(errs, fmt.Errorf("%s %q must be a duration of %s", d.name, v, d.least))
			} else {
				*d.dst = t
			}
		}
	}
	var err error
	if c.LocalLoginEnabled, err = boolVar(getenv, "AUTH_LOCAL_LOGIN_ENABLED", true); err != nil {
		errs = append(errs, err)
	}
	if c.LocalAdminOverrideEnabled, err = boolVar(getenv, "AUTH_LOCAL_ADMIN_OVERRIDE_ENABLED", false); err != nil {
		errs = append(errs, err)
	}
	switch v := MFAPolicy(strings.ToLower(strings.TrimSpace(getenv("AUTH_REQUIRE_MFA")))); v {
	case "", "false":
		c.RequireMFA = MFANobody
	case MFAAdmins, MFAAll:
		c.RequireMFA = v
	default:
		errs = append(errs, fmt.Errorf("AUTH_REQUIRE_MFA is %q: use false, admins or all", v))
	}
	if c.BanksyncAllowInsecure, err = boolVar(getenv, "BANKSYNC_ALLOW_INSECURE", false); err != nil {
		errs = append(errs, err)
	}
	if c.WebhooksAllowInsecure, err = boolVar(getenv, "WEBHOOKS_ALLOW_INSECURE", false); err != nil {
		errs = append(errs, err)
	}
	c.AuditLogRetention = getenv("AUDIT_LOG_RETENTION")
	if c.AuditArchiveURL = strings.TrimSpace(getenv("AUDIT_ARCHIVE_URL")); c.AuditArchiveURL == "" {
		dir := c.DataDir
		if dir == "" {
			dir = ".data"
		}
		if abs, err := filepath.Abs(filepath.Join(dir, "audit-archive")); err == nil {
			c.AuditArchiveURL = (&url.URL{Scheme: "file", Path: filepath.ToSlash(abs)}).String()
		}
	}
	errs = append(errs, c.loadEnableBanking(getenv)...)
	c.ExchangeRatesURL = strings.TrimSpace(getenv("EXCHANGE_RATES_URL"))
	return c, errors.Join(errs...)
}

// CheckSecretKeyBase reports whether SECRET_KEY_BASE is present and long enough.
func (c Config) CheckSecretKeyBase() error {
	if c.SecretKeyBase == "" {
		return errors.New("SECRET_KEY_BASE is required: generate one with `openssl rand -hex 64`")
	}
	if len(c.SecretKeyBase) < 32 {
		return errors.New("SECRET_KEY_BASE must be at least 32 characters long")
	}
	return nil
}

func boolVar(getenv func(string) string, name string, def bool) (bool, error) {
	switch v := strings.ToLower(strings.TrimSpace(getenv(name))); v {
	case "":
		return def, nil
	case "true", "1", "yes":
		return true, nil
	case "false", "0", "no":
		return false, nil
	default:
		return false, fmt.Errorf("%s %q must be true or false", name, v)
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// MFAPolicy is who must have a second factor to sign in with a password.
type MFAPolicy string

// The values of AUTH_REQUIRE_MFA.
const (
	MFANobody MFAPolicy = "false"
	MFAAdmins MFAPolicy = "admins" // admins and super admins
	MFAAll    MFAPolicy = "all"
)

// Covers reports whether a user who is an admin (or not) must have a second factor.
func (p MFAPolicy) Covers(admin bool) bool { return p == MFAAll || (p == MFAAdmins && admin) }
