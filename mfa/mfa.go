// Package mfa is the second factor of a password sign-in: a TOTP authenticator app (RFC 6238:
// SHA-1, 6 digits, 30-second steps, one step of drift either way) and one-time recovery
// codes. The codes are computed by github.com/pquerna/otp; what this package adds is the
// enrolment that only turns on after a correct code, the refusal of a code used before, the
// secret encrypted at rest, and the recovery codes stored hashed.
package mfa

import (
	"context"
	"crypto/subtle"
	"encoding/base32"
	"fmt"
	"strings"
	"time"

	"github.com/go-webauthn/webauthn/webauthn"
	"github.com/google/uuid"
	"github.com/pquerna/otp"
	"github.com/pquerna/otp/totp"
	"github.com/uptrace/bun"

	"tally/internal/apperr"
	"tally/internal/db"
	"tally/internal/secrets"
)

// Issuer names Tally in authenticator apps.
const Issuer = "Tally"

// totpSecretColumn holds each user's TOTP secret, encrypted.
var totpSecretColumn = secrets.Column{Table: "user_totp", Key: "user_id", Name: "secret"}

// EncryptedColumns are this package's encrypted columns.
var EncryptedColumns = []secrets.Column{totpSecretColumn}

const (
	period = 30 // seconds a code lives
	skew   = 1  // steps of clock drift accepted either way
)

var codeOpts = totp.ValidateOpts{Period: period, Digits: otp.DigitsSix, Algorithm: otp.AlgorithmSHA1}

// Methods a code was accepted as.
const (
	MethodTOTP     = "totp"
	MethodRecovery = "recovery_code"
)

// Service keeps the users' second factors.
type Service struct {
	DB   *db.DB
	Keys *secrets.Keys
	// WebAuthn is the relying party of passkeys.
	WebAuthn *webauthn.WebAuthn
	// Now is the clock; time.Now when nil.
	Now func() time.Time
}

func (s *Service) now() time.Time {
	if s.Now != nil {
		return s.Now()
	}
	return time.Now()
}

// Status is what a user has turned on.
type Status struct {
	TOTP          bool
	TOTPSince     time.Time
	RecoveryCodes int // unused ones
	Passkeys      int
}

// Any reports whether the user has a second factor.
func (st Status) Any() bool { return st.TOTP || st.Passkeys > 0 }

// StatusOf is the user's second factors.
func (s *Service) StatusOf(ctx context.Context, userID uuid.UUID) (Status, error) {
	var st Status
	var since *time.Time
	err := s.DB.NewRaw(`SELECT (SELECT confirmed_at FROM user_totp WHERE user_id = ? AND confirmed_at IS NOT NULL),
		(SELECT count(*) FROM recovery_codes WHERE user_id = ? AND used_at IS NULL),
		(SELECT count(*) FROM passkeys WHERE user_id = ?)`, userID, userID, userID).Scan(ctx, &since, &st.RecoveryCodes, &st.Passkeys)
	if since != nil {
		st.TOTP, st.TOTPSince = true, *since
	}
	return st, err
}

// Enrolment is a TOTP secret waiting for its first code: what the user's app needs.
type Enrolment struct {
	Secret string // base32, as apps take it typed in
	URI    string // otpauth://totp/..., as the QR code carries it
}

// BeginTOTP starts (or resumes, so that a reloaded page shows the same code) the user's
// enrolment. It is a conflict when TOTP is on already.
func (s *Service) BeginTOTP(ctx context.Context, userID uuid.UUID, email string) (*Enrolment, error) {
	var row struct {
		Secret    string     `bun:"secret"`
		Confirmed *time.Time `bun:"confirmed_at"`
	}
	err := s.DB.NewRaw("SELECT secret, confirmed_at FROM user_totp WHERE user_id = ?", userID).Scan(ctx, &row)
	switch {
	case err == nil && row.Confirmed != nil:
		return nil, apperr.New(apperr.Conflict, "Two-factor sign-in with an authenticator app is already on.")
	case err == nil:
		secret, _, err := s.Keys.Decrypt(row.Secret, totpSecretColumn.Context())
		if err != nil {
			return nil, err
		}
		return enrolment(email, secret)
	case !db.IsNoRows(err):
		return nil, err
	}
	key, err := newKey(email, nil)
	if err != nil {
		return nil, err
	}
	enc, err := s.Keys.Encrypt(key.Secret(), totpSecretColumn.Context())
	if err != nil {
		return nil, err
	}
	if _, err := s.DB.NewRaw(`INSERT INTO user_totp (user_id, secret) VALUES (?, ?)
		ON CONFLICT (user_id) DO NOTHING`, userID, enc).Exec(ctx); err != nil {
		return nil, err
	}
	// Another tab may have started at the same time: the stored secret is the one.
	return s.BeginTOTP(ctx, userID, email)
}

// enrolment is the key of secret (base32) for email: the same secret gives the same URI.
func enrolment(email, secret string) (*Enrolment, error) {
	raw, err := base32.StdEncoding.WithPadding(base32.NoPadding).DecodeString(secret)
	if err != nil {
		return nil, fmt.Errorf("stored TOTP secret: %w", err)
	}
	key, err := newKey(email, raw)
	if err != nil {
		return nil, err
	}
	return &Enrolment{Secret: key.Secret(), URI: key.URL()}, nil
}

// newKey is a TOTP key of Tally's parameters for email: of secret, or a new random one when
// secret is nil.
func newKey(email string, secret []byte) (*otp.Key, error) {
	return totp.Generate(totp.GenerateOpts{Issuer: Issuer, AccountName: email, Period: period, Digits: otp.DigitsSix,
		Algorithm: otp.AlgorithmSHA1, Secret: secret})
}

// ConfirmTOTP turns TOTP on when code is a current code of the enrolment's secret, and
// returns the user's new recovery codes.
func (s *Service) ConfirmTOTP(ctx context.Context, userID uuid.UUID, code string) ([]string, error) {
	var codes []string
	err := s.DB.InTx(ctx, func(ctx context.Context, tx db.Tx) error {
		var stored string
		err := tx.NewRaw("SELECT secret FROM user_totp WHERE user_id = ? AND confirmed_at IS NULL FOR UPDATE", userID).Scan(ctx, &stored)
		if db.IsNoRows(err) {
			return apperr.New(apperr.Conflict, "There is no enrolment to confirm: start again from Settings › Security.")
		}
		if err != nil {
			return err
		}
		step, err := s.matchTOTP(stored, code)
		if err != nil {
			return err
		}
		if _, err := tx.NewRaw("UPDATE user_totp SET confirmed_at = now(), last_step = ? WHERE user_id = ?", step, userID).Exec(ctx); err != nil {
			return err
		}
		codes, err = replaceRecoveryCodes(ctx, tx, userID)
		return err
	})
	return codes, err
}

// matchTOTP returns the time step whose code is code, within the drift allowed.
func (s *Service) matchTOTP(stored, typed string) (int64, error) {
	code, ok := totpCode(typed)
	if !ok {
		return 0, wrongCode()
	}
	secret, _, err := s.Keys.Decrypt(stored, totpSecretColumn.Context())
	if err != nil {
		return 0, err
	}
	now := s.now().Unix() / period
	for step := now - skew; step <= now+skew; step++ {
		want, err := totp.GenerateCodeCustom(secret, time.Unix(step*period, 0), codeOpts)
		if err != nil {
			return 0, err
		}
		if subtle.ConstantTimeCompare([]byte(want), []byte(code)) == 1 {
			return step, nil
		}
	}
	return 0, wrongCode()
}

// totpCode is a code as typed without its spaces and dashes; ok is false unless it is six
// digits, as TOTP codes are.
func totpCode(typed string) (code string, ok bool) {
	code = strings.NewReplacer(" ", "", "-", "").Replace(typed)
	return code, len(code) == 6 && strings.Trim(code, "0123456789") == ""
}

// codeError refuses the code given, under the form's code field.
func codeError(msg string) error {
	var v apperr.Validation
	v.Add("code", msg)
	return v.Err()
}

func wrongCode() error {
	return codeError("That code is not right. Enter the 6-digit code your authenticator app shows now, or one of your recovery codes.")
}

// Verify checks a code given at sign-in (or to confirm who is asking): a current TOTP code
// not used before, or an unused recovery code, which is then spent. It returns the method.
func (s *Service) Verify(ctx context.Context, userID uuid.UUID, code string) (string, error) {
	if c, ok := totpCode(code); ok {
		var stored string
		err := s.DB.NewRaw("SELECT secret FROM user_totp WHERE user_id = ? AND confirmed_at IS NOT NULL", userID).Scan(ctx, &stored)
		if db.IsNoRows(err) {
			return "", wrongCode()
		}
		if err != nil {
			return "", err
		}
		step, err := s.matchTOTP(stored, c)
		if err != nil {
			return "", err
		}
		// Accepting a step retires it and every earlier one, so a code seen over a shoulder
		// or replayed from a log is refused even within its 30 seconds.
		res, err := s.DB.NewRaw("UPDATE user_totp SET last_step = ? WHERE user_id = ? AND last_step < ?", step, userID, step).Exec(ctx)
		if err != nil {
			return "", err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return "", codeError("That code was used already. Wait for your app to show the next one.")
		}
		return MethodTOTP, nil
	}
	hash, ok := recoveryHash(code)
	if !ok {
		return "", wrongCode()
	}
	var id uuid.UUID
	err := s.DB.NewRaw(`UPDATE recovery_codes SET used_at = now() WHERE user_id = ? AND code_hash = ? AND used_at IS NULL
		RETURNING id`, userID, hash).Scan(ctx, &id)
	if db.IsNoRows(err) {
		return "", wrongCode()
	}
	if err != nil {
		return "", err
	}
	return MethodRecovery, nil
}

// RegenerateRecoveryCodes replaces all the user's recovery codes; TOTP must be on.
func (s *Service) RegenerateRecoveryCodes(ctx context.Context, userID uuid.UUID) ([]string, error) {
	var codes []string
	err := s.DB.InTx(ctx, func(ctx context.Context, tx db.Tx) error {
		var on bool
		if err := tx.NewRaw("SELECT EXISTS (SELECT 1 FROM user_totp WHERE user_id = ? AND confirmed_at IS NOT NULL)", userID).Scan(ctx, &on); err != nil {
			return err
		}
		if !on {
			return apperr.New(apperr.Conflict, "Recovery codes come with two-factor sign-in: turn it on first.")
		}
		var err error
		codes, err = replaceRecoveryCodes(ctx, tx, userID)
		return err
	})
	return codes, err
}

// DisableTOTP turns TOTP off and deletes the recovery codes. The caller has checked the
// user's password or a current code.
func (s *Service) DisableTOTP(ctx context.Context, idb bun.IDB, userID uuid.UUID) error {
	if _, err := idb.NewRaw("DELETE FROM user_totp WHERE user_id = ?", userID).Exec(ctx); err != nil {
		return err
	}
	_, err := idb.NewRaw("DELETE FROM recovery_codes WHERE user_id = ?", userID).Exec(ctx)
	return err
}

// ResetAll removes every second factor of the user: the authenticator app, the recovery codes
// and the passkeys. It is an administrator's reset.
func (s *Service) ResetAll(ctx context.Context, idb bun.IDB, userID uuid.UUID) error {
	if err := s.DisableTOTP(ctx, idb, userID); err != nil {
		return err
	}
	_, err := idb.NewRaw("DELETE FROM passkeys WHERE user_id = ?", userID).Exec(ctx)
	return err
}
