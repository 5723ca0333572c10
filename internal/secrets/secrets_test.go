package secrets

import (
	"encoding/base64"
	"errors"
	"strings"
	"sync"
	"testing"
)

var (
	skb      = strings.Repeat("k", 64)
	otherSKB = strings.Repeat("o", 64)
)

const (
	ctx    = "sso_providers.client_secret"
	secret = "correct horse battery staple"
)

// env returns a getenv backed by a map.
func env(vars map[string]string) func(string) string {
	return func(name string) string { return vars[name] }
}

// arEnv is a complete ACTIVE_RECORD_ENCRYPTION_* configuration plus a SECRET_KEY_BASE.
func arEnv(primary string) map[string]string {
	return map[string]string{
		EnvPrimaryKey:        primary,
		EnvDeterministicKey:  "deterministic-key-0123456789abcdef",
		EnvKeyDerivationSalt: "derivation-salt-0123456789abcdef",
		EnvSecretKeyBase:     skb,
	}
}

func mustNew(t *testing.T, secretKeyBase string) *Keys {
	t.Helper()
	k, err := New(secretKeyBase)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func mustFromEnv(t *testing.T, vars map[string]string) *Keys {
	t.Helper()
	k, err := FromEnv(env(vars))
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func mustEncrypt(t *testing.T, k *Keys, plaintext, context string) string {
	t.Helper()
	v, err := k.Encrypt(plaintext, context)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// checkDecryptFails asserts that stored does not decrypt and that the error
// gives nothing away.
func checkDecryptFails(t *testing.T, k *Keys, stored, context, what string) {
	t.Helper()
	pt, plain, err := k.Decrypt(stored, context)
	if err == nil {
		t.Fatalf("%s: decrypted to %q", what, pt)
	}
	if !errors.Is(err, ErrDecrypt) || pt != "" || plain {
		t.Fatalf("%s: got (%q, %v, %v), want (\"\", false, ErrDecrypt)", what, pt, plain, err)
	}
	checkNoLeak(t, err)
}

// checkNoLeak asserts that an error message holds no plaintext or key material.
func checkNoLeak(t *testing.T, err error) {
	t.Helper()
	for _, s := range []string{secret, skb, otherSKB, "primary-key-0123", "old-primary", "new-primary", "deterministic-key", "derivation-salt"} {
		if strings.Contains(err.Error(), s) {
			t.Fatalf("error %q leaks %q", err, s)
		}
	}
}

func TestRoundTrip(t *testing.T) {
	k := mustNew(t, skb)
	for _, pt := range []string{secret, "", "ünïcødé ✓", strings.Repeat("-----BEGIN PRIVATE KEY-----\n", 200)} {
		stored := mustEncrypt(t, k, pt, ctx)
		if !IsEncrypted(stored) || !strings.HasPrefix(stored, "enc:v1:") {
			t.Fatalf("stored value %q lacks the prefix", stored)
		}
		raw, err := base64.RawURLEncoding.DecodeString(strings.TrimPrefix(stored, "enc:v1:"))
		if err != nil {
			t.Fatalf("stored value is not unpadded base64url: %v", err)
		}
		if want := 12 + len(pt) + 16; len(raw) != want {
			t.Fatalf("sealed length %d, want nonce+ciphertext+tag = %d", len(raw), want)
		}
		if len(pt) > 0 && strings.Contains(stored, pt) {
			t.Fatal("plaintext visible in stored value")
		}
		got, plain, err := k.Decrypt(stored, ctx)
		if err != nil || plain || got != pt {
			t.Fatalf("Decrypt = (%q, %v, %v), want (%q, false, nil)", got, plain, err, pt)
		}
	}
}

// TestGolden pins the format and the key derivation: values already stored in
// databases must stay readable. Both were checked against an independent
// implementation (Python: HMAC-based HKDF-SHA256 + cryptography's AESGCM).
func TestGolden(t *testing.T) {
	for _, c := range []struct {
		keys   *Keys
		stored string
	}{
		{mustNew(t, skb), "enc:v1:ep-O18tfK9U7f2p3c-gdOY6RUjdR7iPwQrX9K7qnLPV639hL-_uKCSHLu7Y_Tz_koVZ0R-PdG1A"},
		{mustFromEnv(t, arEnv("primary-key-0123456789abcdef")), "enc:v1:ukbYfONHDHokUoIhhJ9MnjJ0cITY8Ik8_oQt71rR77buBQBBoLJQW0nUmBWyRUI6ftIuDeWms4M"},
	} {
		got, plain, err := c.keys.Decrypt(c.stored, ctx)
		if err != nil || plain || got != secret {
			t.Fatalf("golden value: (%q, %v, %v), want %q", got, plain, err, secret)
		}
	}
}

func TestNonDeterministic(t *testing.T) {
	k := mustNew(t, skb)
	a, b := mustEncrypt(t, k, secret, ctx), mustEncrypt(t, k, secret, ctx)
	if a == b {
		t.Fatal("two encryptions of the same plaintext are equal")
	}
	// The nonces themselves must differ, not just the encodings.
	ra, _ := base64.RawURLEncoding.DecodeString(a[len(Prefix):])
	rb, _ := base64.RawURLEncoding.DecodeString(b[len(Prefix):])
	if string(ra[:12]) == string(rb[:12]) {
		t.Fatal("nonce reused")
	}
}

func TestWrongContext(t *testing.T) {
	k := mustNew(t, skb)
	stored := mustEncrypt(t, k, secret, ctx)
	checkDecryptFails(t, k, stored, "sso_providers.private_key", "other column")
	checkDecryptFails(t, k, stored, "", "empty context")
}

func TestTampering(t *testing.T) {
	k := mustNew(t, skb)
	stored := mustEncrypt(t, k, secret, ctx)
	raw, err := base64.RawURLEncoding.DecodeString(stored[len(Prefix):])
	if err != nil {
		t.Fatal(err)
	}
	encode := func(b []byte) string { return Prefix + base64.RawURLEncoding.EncodeToString(b) }

	// Flip each bit position of every byte: nonce, ciphertext and tag.
	for i := range raw {
		for _, mask := range []byte{0x01, 0x80} {
			b := append([]byte(nil), raw...)
			b[i] ^= mask
			checkDecryptFails(t, k, encode(b), ctx, "flipped byte")
		}
	}
	// Truncated, extended, and garbled values.
	checkDecryptFails(t, k, encode(raw[:len(raw)-1]), ctx, "truncated")
	checkDecryptFails(t, k, encode(append(append([]byte(nil), raw...), 0)), ctx, "extended")
	checkDecryptFails(t, k, encode(raw[:5]), ctx, "shorter than a nonce")
	checkDecryptFails(t, k, Prefix, ctx, "empty payload")
	checkDecryptFails(t, k, Prefix+"not base64!", ctx, "bad base64")
}

func TestOtherSecretKeyBaseCannotDecrypt(t *testing.T) {
	stored := mustEncrypt(t, mustNew(t, skb), secret, ctx)
	checkDecryptFails(t, mustNew(t, otherSKB), stored, ctx, "other SECRET_KEY_BASE")
}

func TestLegacyPlaintext(t *testing.T) {
	k := mustNew(t, skb)
	for _, v := range []string{"", "legacy-client-secret", "enc:v2:future", "ENC:V1:upper"} {
		got, plain, err := k.Decrypt(v, ctx)
		if err != nil || !plain || got != v {
			t.Fatalf("Decrypt(%q) = (%q, %v, %v), want it back with plain=true", v, got, plain, err)
		}
		if IsEncrypted(v) {
			t.Fatalf("IsEncrypted(%q) = true", v)
		}
	}
}

func TestPartialActiveRecordConfig(t *testing.T) {
	full := arEnv("primary-key-0123456789abcdef")
	names := []string{EnvPrimaryKey, EnvDeterministicKey, EnvKeyDerivationSalt}
	// Every non-empty proper subset of the three variables, by bit mask.
	for mask := 1; mask < 7; mask++ {
		vars := map[string]string{EnvSecretKeyBase: skb}
		var missing []string
		for i, name := range names {
			if mask&(1<<i) != 0 {
				vars[name] = full[name]
			} else {
				missing = append(missing, name)
			}
		}
		_, err := FromEnv(env(vars))
		want := "ACTIVE_RECORD_ENCRYPTION_* variables are partially configured. Missing: " + strings.Join(missing, ", ")
		if err == nil || err.Error() != want {
			t.Fatalf("set %v: error %v, want %q", vars, err, want)
		}
		checkNoLeak(t, err)
	}
	// One concrete case spelled out, so the format cannot drift with the code above.
	_, err := FromEnv(env(map[string]string{EnvPrimaryKey: "x", EnvSecretKeyBase: skb}))
	want := "ACTIVE_RECORD_ENCRYPTION_* variables are partially configured. Missing: " +
		"ACTIVE_RECORD_ENCRYPTION_DETERMINISTIC_KEY, ACTIVE_RECORD_ENCRYPTION_KEY_DERIVATION_SALT"
	if err == nil || err.Error() != want {
		t.Fatalf("error %v, want %q", err, want)
	}
}

func TestActiveRecordKeysTakePrecedence(t *testing.T) {
	ar := mustFromEnv(t, arEnv("primary-key-0123456789abcdef"))
	fromSKB := mustNew(t, skb)

	// Round trip under AR keys.
	stored := mustEncrypt(t, ar, secret, ctx)
	if got, _, err := ar.Decrypt(stored, ctx); err != nil || got != secret {
		t.Fatalf("AR round trip: (%q, %v)", got, err)
	}
	// SECRET_KEY_BASE is set too, but not used: the keys are unrelated both ways.
	checkDecryptFails(t, ar, mustEncrypt(t, fromSKB, secret, ctx), ctx, "SECRET_KEY_BASE value under AR keys")
	checkDecryptFails(t, fromSKB, stored, ctx, "AR value under SECRET_KEY_BASE keys")

	// The salt takes part in the derivation.
	other := arEnv("primary-key-0123456789abcdef")
	other[EnvKeyDerivationSalt] = "another-salt"
	checkDecryptFails(t, mustFromEnv(t, other), stored, ctx, "other salt")

	// The deterministic key does not: changing it keeps values readable.
	other = arEnv("primary-key-0123456789abcdef")
	other[EnvDeterministicKey] = "another-deterministic-key"
	if _, _, err := mustFromEnv(t, other).Decrypt(stored, ctx); err != nil {
		t.Fatalf("deterministic key affected field encryption: %v", err)
	}

	// Without the AR variables, FromEnv falls back to SECRET_KEY_BASE.
	fallback := mustFromEnv(t, map[string]string{EnvSecretKeyBase: skb})
	if _, _, err := fallback.Decrypt(mustEncrypt(t, fromSKB, secret, ctx), ctx); err != nil {
		t.Fatalf("FromEnv with SECRET_KEY_BASE differs from New: %v", err)
	}
}

func TestKeyRotation(t *testing.T) {
	oldKeys := mustFromEnv(t, arEnv("old-primary"))
	oldValue := mustEncrypt(t, oldKeys, secret, ctx)

	newOnly := mustFromEnv(t, arEnv("new-primary"))
	checkDecryptFails(t, newOnly, oldValue, ctx, "old value without previous keys")

	vars := arEnv("new-primary")
	vars[EnvPreviousPrimaryKey] = " unrelated-primary , old-primary ,"
	rotated := mustFromEnv(t, vars)
	if got, plain, err := rotated.Decrypt(oldValue, ctx); err != nil || plain || got != secret {
		t.Fatalf("previous key not tried: (%q, %v, %v)", got, plain, err)
	}
	checkDecryptFails(t, rotated, oldValue, "other.column", "previous key, wrong context")

	// Encryption uses the current key only.
	fresh := mustEncrypt(t, rotated, secret, ctx)
	checkDecryptFails(t, oldKeys, fresh, ctx, "new value under old key")
	if _, _, err := newOnly.Decrypt(fresh, ctx); err != nil {
		t.Fatalf("new value not under the current key: %v", err)
	}

	// Reencrypt moves old and plaintext values to the current key, leaves current ones alone.
	for _, in := range []string{oldValue, "legacy plaintext"} {
		out, changed, err := rotated.Reencrypt(in, ctx)
		if err != nil || !changed || out == in {
			t.Fatalf("Reencrypt(%q) = (%q, %v, %v), want a new value", in, out, changed, err)
		}
		want := secret
		if in == "legacy plaintext" {
			want = in
		}
		if got, _, err := newOnly.Decrypt(out, ctx); err != nil || got != want {
			t.Fatalf("re-encrypted value under current key: (%q, %v)", got, err)
		}
	}
	if out, changed, err := rotated.Reencrypt(fresh, ctx); err != nil || changed || out != fresh {
		t.Fatalf("Reencrypt of a current value = (%q, %v, %v), want it unchanged", out, changed, err)
	}
	if out, changed, err := rotated.Reencrypt(fresh, "other.column"); err == nil || changed || out != fresh {
		t.Fatalf("Reencrypt with wrong context = (%q, %v, %v), want an error", out, changed, err)
	}

	// Previous keys without a complete AR configuration are refused, not ignored.
	_, err := FromEnv(env(map[string]string{EnvSecretKeyBase: skb, EnvPreviousPrimaryKey: "old-primary"}))
	if err == nil || !strings.Contains(err.Error(), EnvPreviousPrimaryKey) {
		t.Fatalf("previous keys without AR config: error %v", err)
	}
	checkNoLeak(t, err)
}

func TestSecretKeyBaseValidation(t *testing.T) {
	for _, v := range []string{"", "short", strings.Repeat("s", 31)} {
		if _, err := New(v); err == nil {
			t.Fatalf("New accepted a %d-character SECRET_KEY_BASE", len(v))
		} else if v != "" && strings.Contains(err.Error(), v) {
			t.Fatalf("error %q leaks the secret", err)
		}
		if _, err := FromEnv(env(map[string]string{EnvSecretKeyBase: v})); err == nil {
			t.Fatalf("FromEnv accepted a %d-character SECRET_KEY_BASE", len(v))
		}
	}
	mustNew(t, strings.Repeat("s", 32))
}

func TestErrorsDoNotLeak(t *testing.T) {
	k := mustNew(t, skb)
	stored := mustEncrypt(t, k, secret, ctx)
	var errs []error
	for _, try := range []struct {
		keys           *Keys
		value, context string
	}{
		{k, stored, "wrong.context"},
		{mustNew(t, otherSKB), stored, ctx},
		{k, stored[:len(stored)-4], ctx},
		{k, stored + "!", ctx},
	} {
		_, _, err := try.keys.Decrypt(try.value, try.context)
		_, _, rerr := try.keys.Reencrypt(try.value, try.context)
		errs = append(errs, err, rerr)
	}
	for _, err := range errs {
		if err == nil {
			t.Fatal("expected an error")
		}
		checkNoLeak(t, err)
		if strings.Contains(err.Error(), stored[len(Prefix):len(Prefix)+16]) {
			t.Fatalf("error %q quotes the stored value", err)
		}
	}
}

func TestConcurrentUse(t *testing.T) {
	k := mustNew(t, skb)
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 100 {
				v, err := k.Encrypt(secret, ctx)
				if err != nil {
					t.Error(err)
					return
				}
				if got, _, err := k.Decrypt(v, ctx); err != nil || got != secret {
					t.Errorf("concurrent round trip: (%q, %v)", got, err)
					return
				}
			}
		})
	}
	wg.Wait()
}
