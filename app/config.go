// Package app is Tally's core composition: it turns a config.Config into the application (the
// database's services, the job client and the probes), without the web layer, which app/web
// composes on top. The serve, worker and operator commands and the test server all build
// Tally here, so a new service is wired in one place.
package app

import (
	"errors"
	"fmt"

	"tally/auditlog"
	"tally/config"
	"tally/fx"
	"tally/sso"
)

// LoadConfig reads the configuration from getenv (config.Load) and checks the settings whose
// values a domain package defines with that package, filling in its defaults. A bad value
// fails with a message that names the variable, as config.Load's own do.
func LoadConfig(getenv func(string) string) (config.Config, error) {
	cfg, err := config.Load(getenv)
	errs := []error{err}
	if err := sso.CheckJITMode(cfg.JITMode); err != nil {
		errs = append(errs, fmt.Errorf("AUTH_JIT_MODE %v", err))
	}
	tier, err := auditlog.ParseRetention(cfg.AuditLogRetention)
	if err != nil {
		errs = append(errs, fmt.Errorf("AUDIT_LOG_RETENTION %v", err))
	}
	cfg.AuditLogRetention = string(tier)
	if _, err := auditlog.Open(cfg.AuditArchiveURL); err != nil {
		errs = append(errs, fmt.Errorf("AUDIT_ARCHIVE_URL %q: %v", cfg.AuditArchiveURL, err))
	}
	if cfg.ExchangeRatesURL == "" {
		cfg.ExchangeRatesURL = fx.DefaultURL
	}
	if err := fx.CheckURL(cfg.ExchangeRatesURL); err != nil {
		errs = append(errs, fmt.Errorf("EXCHANGE_RATES_URL %q %v", cfg.ExchangeRatesURL, err))
	}
	return cfg, errors.Join(errs...)
}
