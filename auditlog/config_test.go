package auditlog_test

import (
	"path/filepath"
	"strings"
	"testing"

	"tally/auditlog"
	"tally/config"
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
			cfg, err := config.Load(func(k string) string { return tc.env[k] })
			if tc.fail != "" {
				if err == nil || !strings.Contains(err.Error(), tc.fail) {
					t.Fatalf("Load error %v, want %q", err, tc.fail)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if cfg.AuditLogRetention != tc.tier || cfg.AuditArchiveURL != tc.url {
				t.Errorf("retention %q, archive %q; want %q, %q", cfg.AuditLogRetention, cfg.AuditArchiveURL, tc.tier, tc.url)
			}
		})
	}
}
