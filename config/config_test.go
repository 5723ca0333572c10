package config

import (
	"log/slog"
	"strings"
	"testing"
	"time"
)

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestLoadDefaults(t *testing.T) {
	c, err := Load(env(nil))
	if err != nil {
		t.Fatal(err)
	}
	if c.ListenAddr != "127.0.0.1:3000" || !c.LocalLoginEnabled || c.LocalAdminOverrideEnabled || c.LogLevel != slog.LevelInfo ||
		c.MoveInReadTimeout != 20*time.Second {
		t.Fatalf("defaults wrong: %+v", c)
	}
}

func TestLoadNamesTheBadVariable(t *testing.T) {
	cases := map[string]map[string]string{
		"AUTH_LOCAL_LOGIN_ENABLED":          {"AUTH_LOCAL_LOGIN_ENABLED": "maybe"},
		"AUTH_LOCAL_ADMIN_OVERRIDE_ENABLED": {"AUTH_LOCAL_ADMIN_OVERRIDE_ENABLED": "yes please"},
		"LISTEN_ADDR":                       {"LISTEN_ADDR": "3000"},
		"APP_URL":                           {"APP_URL": "example.com"},
		"LOG_LEVEL":                         {"LOG_LEVEL": "loud"},
		"DATABASE_URL":                      {"DATABASE_URL": "mysql://x"},
		"SMTP_URL":                          {"SMTP_URL": "mail.example.com"},
		"LOG_FORMAT":                        {"LOG_FORMAT": "xml"},
		"TRUSTED_PROXIES":                   {"TRUSTED_PROXIES": "10.0.0.0/8, proxy.local"},
		"AUTH_REQUIRE_MFA":                  {"AUTH_REQUIRE_MFA": "everyone"},
		"REQUEST_TIMEOUT":                   {"REQUEST_TIMEOUT": "10ms"},
		"REQUEST_BODY_TIMEOUT":              {"REQUEST_BODY_TIMEOUT": "soon"},
		"MOVE_IN_READ_TIMEOUT":              {"MOVE_IN_READ_TIMEOUT": "500ms"},
		"SHUTDOWN_TIMEOUT":                  {"SHUTDOWN_TIMEOUT": "0s"},
	}
	for name, vars := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := Load(env(vars))
			if err == nil || !strings.Contains(err.Error(), name) {
				t.Fatalf("Load error %v does not name %s", err, name)
			}
		})
	}
}

func TestLoadFlags(t *testing.T) {
	c, err := Load(env(map[string]string{"AUTH_LOCAL_LOGIN_ENABLED": "false", "AUTH_LOCAL_ADMIN_OVERRIDE_ENABLED": "true", "APP_URL": "https://tally.example.com/"}))
	if err != nil {
		t.Fatal(err)
	}
	if c.LocalLoginEnabled || !c.LocalAdminOverrideEnabled || c.AppURL != "https://tally.example.com" || !c.SecureCookies {
		t.Fatalf("flags wrong: %+v", c)
	}
}

func TestSecretKeyBase(t *testing.T) {
	if (Config{}).CheckSecretKeyBase() == nil {
		t.Fatal("empty SECRET_KEY_BASE accepted")
	}
	if (Config{SecretKeyBase: "short"}).CheckSecretKeyBase() == nil {
		t.Fatal("short SECRET_KEY_BASE accepted")
	}
	if err := (Config{SecretKeyBase: strings.Repeat("a", 64)}).CheckSecretKeyBase(); err != nil {
		t.Fatal(err)
	}
}

func TestRequireMFA(t *testing.T) {
	for v, want := range map[string][2]bool{"": {false, false}, "false": {false, false}, "admins": {true, false}, "ALL": {true, true}} {
		c, err := Load(env(map[string]string{"AUTH_REQUIRE_MFA": v}))
		if err != nil {
			t.Fatal(err)
		}
		if got := [2]bool{c.RequireMFA.Covers(true), c.RequireMFA.Covers(false)}; got != want {
			t.Errorf("AUTH_REQUIRE_MFA=%q covers admin, member: %v, want %v", v, got, want)
		}
	}
}
