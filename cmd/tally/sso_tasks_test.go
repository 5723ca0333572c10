package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"tally/internal/db"
	"tally/internal/secrets"
	"tally/testkit"
)

const seedFile = `default: &default
  providers:
    - id: corp
      strategy: openid_connect
      name: corp
      label: Sign in with Corp
      issuer: https://idp.example
      client_id: tally
      client_secret: ${CORP_SECRET}
      settings:
        scopes: openid email profile groups
    - id: saml_idp
      strategy: saml
      name: okta
      label: Okta
      idp_sso_url: https://okta.example/sso
      idp_entity_id: https://okta.example
      idp_certificate: dummy-pem
    - name: broken
      strategy: openid_connect
      label: Broken
production:
  <<: *default
`

func TestSSOProvidersSeedAndList(t *testing.T) {
	url := testkit.DatabaseURL(t)
	// The provider's issuer: seeding checks its discovery document.
	idp := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		base := "http://" + r.Host
		fmt.Fprintf(w, `{"issuer":%q,"authorization_endpoint":"%s/a","token_endpoint":"%s/t"}`, base, base, base)
	}))
	t.Cleanup(idp.Close)
	file := strings.ReplaceAll(seedFile, "https://idp.example", idp.URL)
	path := filepath.Join(t.TempDir(), "auth.yml")
	// The broken provider has no issuer: the file does not load.
	if err := os.WriteFile(path, []byte(file), 0o600); err != nil {
		t.Fatal(err)
	}
	secret := strings.Repeat("k", 64)
	envOf := func(extra map[string]string) func(string) string {
		env := map[string]string{"DATABASE_URL": url, "SECRET_KEY_BASE": secret, "AUTH_CONFIG_FILE": path, "CORP_SECRET": "s3cret-value"}
		for k, v := range extra {
			env[k] = v
		}
		return func(k string) string { return env[k] }
	}
	seed := func(extra map[string]string) string {
		t.Helper()
		var out bytes.Buffer
		if err := run(context.Background(), []string{"tally", "sso_providers:seed"}, envOf(extra), &out, io.Discard); err != nil {
			t.Fatalf("seed: %v\n%s", err, out.String())
		}
		return out.String()
	}
	d, err := db.Open(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(d.Close)
	count := func() int {
		var n int
		d.NewRaw("SELECT count(*) FROM sso_providers").Scan(context.Background(), &n)
		return n
	}

	// The file fails validation as a whole (the broken provider): nothing can be seeded.
	var out bytes.Buffer
	if err := run(context.Background(), []string{"tally", "sso_providers:seed"}, envOf(nil), &out, io.Discard); err == nil ||
		!strings.Contains(out.String(), "Issuer is required for OpenID Connect providers") {
		t.Fatalf("a file with an invalid provider: %v\n%s", err, out.String())
	}
	if err := os.WriteFile(path, []byte(strings.Replace(file, "    - name: broken\n      strategy: openid_connect\n      label: Broken\n", "", 1)), 0o600); err != nil {
		t.Fatal(err)
	}

	dry := seed(map[string]string{"DRY_RUN": "true"})
	for _, want := range []string{"Mode: DRY RUN", "CREATE (dry-run): corp (openid_connect)", "CREATE (dry-run): okta (saml)", "DRY RUN: No changes were saved"} {
		if !strings.Contains(dry, want) {
			t.Fatalf("dry run output lacks %q:\n%s", want, dry)
		}
	}
	if n := count(); n != 0 {
		t.Fatalf("a dry run saved %d providers", n)
	}

	live := seed(nil)
	if !strings.Contains(live, "CREATE: corp (openid_connect)") || !strings.Contains(live, "Created: 2") {
		t.Fatalf("live output:\n%s", live)
	}
	var stored string
	d.NewRaw("SELECT client_secret FROM sso_providers WHERE name = 'corp'").Scan(context.Background(), &stored)
	if !secrets.IsEncrypted(stored) || strings.Contains(stored, "s3cret-value") {
		t.Fatalf("client secret stored as %q", stored)
	}
	if again := seed(nil); !strings.Contains(again, "SKIP: corp (no changes)") || !strings.Contains(again, "Skipped: 2") {
		t.Fatalf("a second seed is not idempotent:\n%s", again)
	}

	var list bytes.Buffer
	if err := run(context.Background(), []string{"tally", "sso_providers:list"}, envOf(nil), &list, io.Discard); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(list.String(), "SSO Providers (2):") || !strings.Contains(list.String(), "corp                 | openid_connect       | ✓ enabled") {
		t.Fatalf("list:\n%s", list.String())
	}

	// A secret written in plaintext (by hand, or before encryption) is encrypted by the backfill.
	if _, err := d.NewRaw("UPDATE sso_providers SET client_secret = 'plain-secret' WHERE name = 'corp'").Exec(context.Background()); err != nil {
		t.Fatal(err)
	}
	// Every package's encrypted columns are covered: a user's TOTP secret too.
	totpUser := testkit.MustCreateUser(t, d, testkit.UserOpts{})
	if _, err := d.NewRaw("INSERT INTO user_totp (user_id, secret) VALUES (?, 'JBSWY3DPEHPK3PXP')", totpUser.ID).Exec(context.Background()); err != nil {
		t.Fatal(err)
	}
	var bf bytes.Buffer
	if err := run(context.Background(), []string{"tally", "security:backfill_encryption"}, envOf(nil), &bf, io.Discard); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(bf.String()), "\n")
	var report struct {
		OK      bool
		Results map[string]struct{ Processed, Updated int }
	}
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &report); err != nil || !report.OK || report.Results["sso_providers.client_secret"].Updated != 1 ||
		report.Results["user_totp.secret"].Updated != 1 {
		t.Fatalf("backfill report %s (%v)", bf.String(), err)
	}
	if _, ok := report.Results["bank_connections.access_url"]; !ok {
		t.Errorf("the backfill skips the bank connections: %s", bf.String())
	}
	if _, ok := report.Results["webhook_endpoints.secret"]; !ok {
		t.Errorf("the backfill skips the webhook secrets: %s", bf.String())
	}
	var totpStored string
	d.NewRaw("SELECT secret FROM user_totp WHERE user_id = ?", totpUser.ID).Scan(context.Background(), &totpStored)
	if plain, wasPlain, err := keysOf(t, secret).Decrypt(totpStored, "user_totp.secret"); err != nil || wasPlain || plain != "JBSWY3DPEHPK3PXP" {
		t.Errorf("TOTP secret after backfill: %q (%v, plain %v)", totpStored, err, wasPlain)
	}
	d.NewRaw("SELECT client_secret FROM sso_providers WHERE name = 'corp'").Scan(context.Background(), &stored)
	if plain, wasPlain, err := keysOf(t, secret).Decrypt(stored, "sso_providers.client_secret"); err != nil || wasPlain || plain != "plain-secret" {
		t.Fatalf("after backfill: %q (%v, plain %v)", stored, err, wasPlain)
	}
}

func keysOf(t *testing.T, secret string) *secrets.Keys {
	t.Helper()
	keys, err := secrets.New(secret)
	if err != nil {
		t.Fatal(err)
	}
	return keys
}
