package app_test

import (
	"path/filepath"
	"strings"
	"testing"

	"tally/app"
	"tally/auditlog"
	"tally/fx"
)

// The retention settings are read with the rest of the configuration, and a bad one stops
// Tally at start with a message that names the variable.
func TestAuditConfigReadsTheRetentionSettings(t *testing.T) {
	data := t.TempDir()
	for _, tc := range []struct {
		name      string
		env       map[string]string
		tier      auditlog.Retention
		url, fail string
	}{
		{name: "defaults", env: map[string]string{"TALLY_DATA_DIR": data},
			tier: auditlog.Standard, url: "file://" + filepath.ToSlash(filepath.Join(data, "audit-archive"))},
		{name: "compliance in a directory", env: map[string]string{"AUDIT_LOG_RETENTION": "compliance", "AUDIT_ARCHIVE_URL": "file:///var/lib/tally/audit"},
			tier: auditlog.Compliance, url: "file:///var/lib/tally/audit"},
		{name: "an unknown tier", env: map[string]string{"AUDIT_LOG_RETENTION": "forever"},
			fail: `AUDIT_LOG_RETENTION "forever" must be standard, extended or compliance`},
		{name: "an unsupported archive", env: map[string]string{"AUDIT_LOG_RETENTION": "extended", "AUDIT_ARCHIVE_URL": "ftp://archive/audit"},
			fail: `AUDIT_ARCHIVE_URL "ftp://archive/audit": scheme "ftp" is not supported`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg, err := app.LoadConfig(func(k string) string { return tc.env[k] })
			if tc.fail != "" {
				if err == nil || !strings.Contains(err.Error(), tc.fail) {
					t.Fatalf("Load error %v, want %q", err, tc.fail)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if auditlog.Retention(cfg.AuditLogRetention) != tc.tier || cfg.AuditArchiveURL != tc.url {
				t.Errorf("retention %q, archive %q; want %q, %q", cfg.AuditLogRetention, cfg.AuditArchiveURL, tc.tier, tc.url)
			}
		})
	}
}

// The settings whose values a domain package defines are checked by it and named when bad;
// unset, they take the owner's default.
func TestLoadConfigChecksTheDomainSettings(t *testing.T) {
	cfg, err := app.LoadConfig(func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	if cfg.ExchangeRatesURL != fx.DefaultURL || cfg.JITMode != "" {
		t.Errorf("defaults: rates %q, JIT mode %q", cfg.ExchangeRatesURL, cfg.JITMode)
	}
	for name, env := range map[string]map[string]string{
		"EXCHANGE_RATES_URL": {"EXCHANGE_RATES_URL": "off"},
		"AUTH_JIT_MODE":      {"AUTH_JIT_MODE": "create"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := app.LoadConfig(func(k string) string { return env[k] })
			if err == nil || !strings.Contains(err.Error(), name) {
				t.Fatalf("LoadConfig error %v does not name %s", err, name)
			}
		})
	}
}
