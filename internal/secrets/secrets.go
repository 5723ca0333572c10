// Package secrets encrypts individual database fields at rest (OAuth client
// secrets, SAML private keys, bank access URLs, ...) with AES-256-GCM.
//
// A stored value is text, safe for any text column:
//
//	enc:v1:<base64url, unpadded: 12-byte nonce | ciphertext | 16-byte tag>
//
// The nonce is random for every call, so encrypting the same plaintext twice
// gives different values; nothing can be looked up by its encrypted form. The
// caller's context string (conventionally "table.column") is the GCM
// associated data, so a value copied into another column does not decrypt.
//
// # Keys
//
// FromEnv takes the key from, in order of preference:
//
//  1. ACTIVE_RECORD_ENCRYPTION_PRIMARY_KEY, ACTIVE_RECORD_ENCRYPTION_DETERMINISTIC_KEY
//     and ACTIVE_RECORD_ENCRYPTION_KEY_DERIVATION_SALT, all three set: the AES
//     key is HKDF-SHA256(PRIMARY_KEY, salt=KEY_DERIVATION_SALT). Setting only
//     some of them is a configuration error.
//  2. SECRET_KEY_BASE (required otherwise, at least 32 characters): the AES key
//     is HKDF-SHA256(SECRET_KEY_BASE, salt="tally-secrets").
//
// Both use the HKDF info string "tally field encryption v1". The two sources
// give different keys: switching from one to the other makes existing values
// unreadable unless they are re-encrypted first.
//
// # Rotation
//
// ACTIVE_RECORD_ENCRYPTION_PREVIOUS_PRIMARY_KEYS is an optional comma-separated
// list of former primary keys (derived with the same salt). Encrypt always uses
// the current key; Decrypt tries the current key, then the previous ones in the
// listed order. Reencrypt rewrites a value under the current key, so a backfill
// can rotate every row and then drop the old keys from the list. Previous keys
// are only accepted together with the three ACTIVE_RECORD_ENCRYPTION_* variables.
package secrets

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/hkdf"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
)

// Prefix marks an encrypted value; the version lets the format change later.
const Prefix = "enc:v1:"

// hkdfInfo separates these keys from anything else derived from the same secret.
const hkdfInfo = "tally field encryption v1"

// secretKeyBaseSalt is the HKDF salt when the key comes from SECRET_KEY_BASE.
const secretKeyBaseSalt = "tally-secrets"

// MinSecretKeyBaseLength is the shortest SECRET_KEY_BASE accepted.
const MinSecretKeyBaseLength = 32

// Environment variable names read by FromEnv.
const (
	EnvPrimaryKey         = "ACTIVE_RECORD_ENCRYPTION_PRIMARY_KEY"
	EnvDeterministicKey   = "ACTIVE_RECORD_ENCRYPTION_DETERMINISTIC_KEY"
	EnvKeyDerivationSalt  = "ACTIVE_RECORD_ENCRYPTION_KEY_DERIVATION_SALT"
	EnvPreviousPrimaryKey = "ACTIVE_RECORD_ENCRYPTION_PREVIOUS_PRIMARY_KEYS"
	EnvSecretKeyBase      = "SECRET_KEY_BASE"
)

// ErrDecrypt is returned (wrapped) when a value is malformed, was tampered
// with, belongs to another context or was encrypted under an unknown key.
var ErrDecrypt = errors.New("cannot decrypt value")

// Keys holds the derived key(s); safe for concurrent use (it is never
// modified after construction, and a GCM AEAD is stateless).
type Keys struct {
	// aeads[0] is the current key: it encrypts and is tried first on decrypt.
	// The rest are previous keys, tried in order after it.
	aeads []cipher.AEAD
}

// FromEnv reads the variables above through getenv (like os.Getenv) and
// derives the keys. An empty variable counts as unset.
func FromEnv(getenv func(string) string) (*Keys, error) {
	ar := []string{EnvPrimaryKey, EnvDeterministicKey, EnvKeyDerivationSalt}
	var missing []string
	for _, name := range ar {
		if getenv(name) == "" {
			missing = append(missing, name)
		}
	}
	previous := splitList(getenv(EnvPreviousPrimaryKey))

	switch {
	case len(missing) == 0:
		// The deterministic key is accepted (and required) so that a Rails-style
		// configuration carries over unchanged, but it is deliberately not used:
		// every value here is encrypted with a random nonce, never deterministically.
		salt := []byte(getenv(EnvKeyDerivationSalt))
		return newKeys(append([]string{getenv(EnvPrimaryKey)}, previous...), salt)
	case len(missing) < len(ar):
		return nil, fmt.Errorf("ACTIVE_RECORD_ENCRYPTION_* variables are partially configured. Missing: %s",
			strings.Join(missing, ", "))
	case len(previous) > 0:
		return nil, fmt.Errorf("%s needs %s, %s and %s to be set",
			EnvPreviousPrimaryKey, EnvPrimaryKey, EnvDeterministicKey, EnvKeyDerivationSalt)
	}
	return New(getenv(EnvSecretKeyBase))
}

// New derives keys from a SECRET_KEY_BASE directly (tests, tools).
func New(secretKeyBase string) (*Keys, error) {
	if secretKeyBase == "" {
		return nil, errors.New("SECRET_KEY_BASE is required: generate one with `openssl rand -hex 64`")
	}
	if len(secretKeyBase) < MinSecretKeyBaseLength {
		return nil, fmt.Errorf("SECRET_KEY_BASE must be at least %d characters long", MinSecretKeyBaseLength)
	}
	return newKeys([]string{secretKeyBase}, []byte(secretKeyBaseSalt))
}

// newKeys derives one AEAD per secret; the first is the current key.
func newKeys(secrets []string, salt []byte) (*Keys, error) {
	aeads := make([]cipher.AEAD, len(secrets))
	for i, s := range secrets {
		key, err := hkdf.Key(sha256.New, []byte(s), salt, hkdfInfo, 32) // 32 bytes: AES-256
		if err != nil {
			return nil, fmt.Errorf("derive encryption key: %w", err)
		}
		block, err := aes.NewCipher(key)
		if err != nil {
			return nil, fmt.Errorf("derive encryption key: %w", err)
		}
		// Seal prepends a fresh random 12-byte nonce; Open reads it back.
		if aeads[i], err = cipher.NewGCMWithRandomNonce(block); err != nil {
			return nil, fmt.Errorf("derive encryption key: %w", err)
		}
	}
	return &Keys{aeads: aeads}, nil
}

// splitList splits a comma-separated list, dropping blanks around and between items.
func splitList(s string) []string {
	var out []string
	for item := range strings.SplitSeq(s, ",") {
		if item = strings.TrimSpace(item); item != "" {
			out = append(out, item)
		}
	}
	return out
}

// Column is a table column whose values are stored encrypted, and the key of its rows. Its
// name is the encryption context of its values (Context), so that a value copied to another
// column does not decrypt. The packages that own such columns list them, for the task that
// re-encrypts every stored secret under the current key.
type Column struct{ Table, Key, Name string }

// Context is the column's encryption context: "table.column".
func (c Column) Context() string { return c.Table + "." + c.Name }

// Encrypt returns a self-describing text value safe for a text column:
// "enc:v1:" + base64url(nonce|ciphertext|tag), with a random 12-byte nonce
// each time (non-deterministic). Associated data binds the ciphertext to its
// column: pass e.g. "sso_providers.client_secret" so that a value copied to
// another column does not decrypt.
func (k *Keys) Encrypt(plaintext, context string) (string, error) {
	sealed := k.aeads[0].Seal(nil, nil, []byte(plaintext), []byte(context))
	return Prefix + base64.RawURLEncoding.EncodeToString(sealed), nil
}

// Decrypt reverses Encrypt. A value without the "enc:v1:" prefix is returned
// as-is with plain=true (legacy plaintext rows, so that a backfill can find
// and rewrite them). A malformed or tampered value, a wrong context or an
// unknown key gives an error wrapping ErrDecrypt; errors never include the
// plaintext, the stored value or any key.
func (k *Keys) Decrypt(stored, context string) (plaintext string, plain bool, err error) {
	pt, _, plain, err := k.open(stored, context)
	return pt, plain, err
}

// Reencrypt returns stored encrypted under the current key, with
// changed=true, if it is legacy plaintext or was encrypted under a previous
// key; a value already under the current key is returned unchanged. It is the
// step a backfill or key rotation runs on every row.
func (k *Keys) Reencrypt(stored, context string) (newStored string, changed bool, err error) {
	pt, keyIndex, plain, err := k.open(stored, context)
	if err != nil || (!plain && keyIndex == 0) {
		return stored, false, err
	}
	newStored, err = k.Encrypt(pt, context)
	return newStored, err == nil, err
}

// open decrypts stored and reports which key opened it (0 = current).
func (k *Keys) open(stored, context string) (plaintext string, keyIndex int, plain bool, err error) {
	if !IsEncrypted(stored) {
		return stored, 0, true, nil
	}
	sealed, err := base64.RawURLEncoding.DecodeString(stored[len(Prefix):])
	if err != nil {
		// The decoder's error is dropped to keep the message fixed.
		return "", 0, false, fmt.Errorf("%w for %q: malformed encoding", ErrDecrypt, context)
	}
	for i, aead := range k.aeads {
		if pt, err := aead.Open(nil, nil, sealed, []byte(context)); err == nil {
			return string(pt), i, false, nil
		}
	}
	return "", 0, false, fmt.Errorf("%w for %q: wrong key or context, or tampered data", ErrDecrypt, context)
}

// IsEncrypted reports whether a stored value has the "enc:v1:" prefix.
func IsEncrypted(stored string) bool {
	return strings.HasPrefix(stored, Prefix)
}
