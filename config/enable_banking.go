package config

import (
	"crypto/rsa"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"strings"
)

// DefaultEnableBankingURL is Enable Banking's production API.
const DefaultEnableBankingURL = "https://api.enablebanking.com"

// PrivateKey is a private key from the environment. However it is printed, logged or
// marshalled, it reads [redacted].
type PrivateKey struct{ Key *rsa.PrivateKey }

func (PrivateKey) String() string               { return "[redacted]" }
func (PrivateKey) GoString() string             { return "[redacted]" }
func (PrivateKey) LogValue() slog.Value         { return slog.StringValue("[redacted]") }
func (PrivateKey) MarshalJSON() ([]byte, error) { return json.Marshal("[redacted]") }
func (PrivateKey) MarshalText() ([]byte, error) { return []byte("[redacted]"), nil }
func (PrivateKey) Format(f fmt.State, _ rune)   { _, _ = f.Write([]byte("[redacted]")) }

// loadEnableBanking reads the Enable Banking settings: the key is read once, here, and kept
// only parsed.
func (c *Config) loadEnableBanking(getenv func(string) string) []error {
	var errs []error
	c.EnableBankingAppID = strings.TrimSpace(getenv("ENABLE_BANKING_APP_ID"))
	if c.EnableBankingAPIURL = strings.TrimRight(strings.TrimSpace(getenv("ENABLE_BANKING_API_URL")), "/"); c.EnableBankingAPIURL == "" {
		c.EnableBankingAPIURL = DefaultEnableBankingURL
	}
	if u, err := url.Parse(c.EnableBankingAPIURL); err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		errs = append(errs, fmt.Errorf("ENABLE_BANKING_API_URL %q must be an absolute http or https URL", c.EnableBankingAPIURL))
	}
	file := strings.TrimSpace(getenv("ENABLE_BANKING_PRIVATE_KEY_FILE"))
	inline := getenv("ENABLE_BANKING_PRIVATE_KEY")
	var raw []byte
	switch {
	case file != "" && strings.TrimSpace(inline) != "":
		errs = append(errs, errors.New("set ENABLE_BANKING_PRIVATE_KEY_FILE or ENABLE_BANKING_PRIVATE_KEY, not both"))
	case file != "":
		b, err := os.ReadFile(file)
		if err != nil {
			// The path, never the content.
			errs = append(errs, fmt.Errorf("ENABLE_BANKING_PRIVATE_KEY_FILE %q cannot be read: %v", file, errors.Unwrap(err)))
		}
		raw = b
	case strings.TrimSpace(inline) != "":
		// An environment variable often carries the PEM's line breaks as \n.
		if !strings.Contains(inline, "\n") {
			inline = strings.ReplaceAll(inline, `\n`, "\n")
		}
		raw = []byte(inline)
	}
	if len(raw) > 0 {
		key, err := parseRSAKey(raw)
		if err != nil {
			errs = append(errs, fmt.Errorf("the Enable Banking private key %v", err))
		}
		c.EnableBankingKey = PrivateKey{Key: key}
	}
	switch {
	case c.EnableBankingAppID != "" && len(raw) == 0:
		errs = append(errs, errors.New("ENABLE_BANKING_APP_ID is set without its key: set ENABLE_BANKING_PRIVATE_KEY_FILE (or ENABLE_BANKING_PRIVATE_KEY)"))
	case c.EnableBankingAppID == "" && len(raw) > 0:
		errs = append(errs, errors.New("an Enable Banking private key is set without ENABLE_BANKING_APP_ID"))
	}
	return errs
}

// parseRSAKey reads an RSA private key in PEM, PKCS#8 or PKCS#1. Its errors never quote the
// key.
func parseRSAKey(raw []byte) (*rsa.PrivateKey, error) {
	block, _ := pem.Decode(raw)
	if block == nil {
		return nil, errors.New("is not PEM (-----BEGIN PRIVATE KEY----- ...)")
	}
	if k, err := x509.ParsePKCS1PrivateKey(block.Bytes); err == nil {
		return k, nil
	}
	k, err := x509.ParsePKCS8PrivateKey(block.Bytes)
	if err != nil {
		return nil, errors.New("is not a PKCS#8 or PKCS#1 private key")
	}
	rk, ok := k.(*rsa.PrivateKey)
	if !ok {
		return nil, errors.New("is not an RSA key (Enable Banking signs with RS256)")
	}
	return rk, nil
}
