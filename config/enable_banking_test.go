package config_test

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"tally/config"
)

func testPEM(t *testing.T) string {
	t.Helper()
	k, err := rsa.GenerateKey(rand.Reader, 1024) // small: only parsing is under test
	if err != nil {
		t.Fatal(err)
	}
	der, _ := x509.MarshalPKCS8PrivateKey(k)
	return string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}))
}

func TestEnableBankingSettings(t *testing.T) {
	t.Parallel()
	key := testPEM(t)
	file := filepath.Join(t.TempDir(), "eb.pem")
	if err := os.WriteFile(file, []byte(key), 0o600); err != nil {
		t.Fatal(err)
	}
	load := func(env map[string]string) (config.Config, error) {
		return config.Load(func(k string) string { return env[k] })
	}
	cfg, err := load(map[string]string{"ENABLE_BANKING_APP_ID": "app", "ENABLE_BANKING_PRIVATE_KEY_FILE": file})
	if err != nil || cfg.EnableBankingKey.Key == nil || cfg.EnableBankingAPIURL != config.DefaultEnableBankingURL {
		t.Fatalf("from a file: %v %v", cfg.EnableBankingAPIURL, err)
	}
	// Inline, with its line breaks written as \n, as an environment often carries them.
	if cfg, err := load(map[string]string{"ENABLE_BANKING_APP_ID": "app", "ENABLE_BANKING_PRIVATE_KEY": strings.ReplaceAll(key, "\n", `\n`)}); err != nil || cfg.EnableBankingKey.Key == nil {
		t.Fatalf("inline: %v", err)
	}
	for name, tc := range map[string]struct {
		env  map[string]string
		want string
	}{
		"an app id without a key": {map[string]string{"ENABLE_BANKING_APP_ID": "app"}, "ENABLE_BANKING_APP_ID is set without its key"},
		"a key without an app id": {map[string]string{"ENABLE_BANKING_PRIVATE_KEY_FILE": file}, "without ENABLE_BANKING_APP_ID"},
		"both kinds of key":       {map[string]string{"ENABLE_BANKING_APP_ID": "a", "ENABLE_BANKING_PRIVATE_KEY_FILE": file, "ENABLE_BANKING_PRIVATE_KEY": key}, "not both"},
		"a missing file":          {map[string]string{"ENABLE_BANKING_APP_ID": "a", "ENABLE_BANKING_PRIVATE_KEY_FILE": file + ".gone"}, "cannot be read"},
		"not a key":               {map[string]string{"ENABLE_BANKING_APP_ID": "a", "ENABLE_BANKING_PRIVATE_KEY": "hunter2"}, "is not PEM"},
		"a bad API URL":           {map[string]string{"ENABLE_BANKING_API_URL": "ftp://x"}, "ENABLE_BANKING_API_URL"},
	} {
		if _, err := load(tc.env); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", name, err, tc.want)
		}
	}
	// The key never prints, logs or marshals.
	var logged strings.Builder
	slog.New(slog.NewTextHandler(&logged, nil)).Info("config", "key", cfg.EnableBankingKey, "cfg", cfg)
	js, _ := json.Marshal(cfg.EnableBankingKey)
	for _, out := range []string{fmt.Sprint(cfg.EnableBankingKey), fmt.Sprintf("%+v %#v", cfg.EnableBankingKey, cfg.EnableBankingKey), fmt.Sprintf("%+v", cfg), logged.String(), string(js)} {
		if strings.Contains(out, cfg.EnableBankingKey.Key.D.String()) || strings.Contains(out, cfg.EnableBankingKey.Key.Primes[0].String()) {
			t.Fatalf("the key's secret shows in %q", out[:min(len(out), 200)])
		}
	}
}
