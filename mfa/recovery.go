package mfa

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"strings"

	"github.com/google/uuid"
	"github.com/uptrace/bun"
)

// RecoveryCodeCount is how many recovery codes a user holds.
const RecoveryCodeCount = 10

// alphabet is Crockford's base32: no i, l, o or u, so that a code read off paper is typed
// back right.
const alphabet = "0123456789abcdefghjkmnpqrstvwxyz"

// newRecoveryCode is 16 symbols of 5 random bits (80 bits, beyond any search of its hash),
// shown in four groups: "7k2m-q9xd-4hbn-r0ct".
func newRecoveryCode() string {
	b := make([]byte, 16)
	rand.Read(b)
	var s strings.Builder
	for i, c := range b {
		if i > 0 && i%4 == 0 {
			s.WriteByte('-')
		}
		s.WriteByte(alphabet[c&31])
	}
	return s.String()
}

// recoveryHash is the stored form of a code as typed: any case, spaces and dashes, and the
// letters Crockford reads as digits (i and l as 1, o as 0). ok is false when it cannot be a
// recovery code.
func recoveryHash(typed string) (hash []byte, ok bool) {
	var b strings.Builder
	for _, r := range strings.ToLower(typed) {
		switch {
		case r == ' ' || r == '-':
			continue
		case r == 'i' || r == 'l':
			r = '1'
		case r == 'o':
			r = '0'
		}
		if !strings.ContainsRune(alphabet, r) {
			return nil, false
		}
		b.WriteRune(r)
	}
	if b.Len() != 16 {
		return nil, false
	}
	sum := sha256.Sum256([]byte(b.String()))
	return sum[:], true
}

// replaceRecoveryCodes gives the user a new set of codes, in tx, and returns them: the old
// ones stop working.
func replaceRecoveryCodes(ctx context.Context, tx bun.IDB, userID uuid.UUID) ([]string, error) {
	if _, err := tx.NewRaw("DELETE FROM recovery_codes WHERE user_id = ?", userID).Exec(ctx); err != nil {
		return nil, err
	}
	codes := make([]string, RecoveryCodeCount)
	ids, hashes := make([]uuid.UUID, RecoveryCodeCount), make([][]byte, RecoveryCodeCount)
	for i := range codes {
		codes[i] = newRecoveryCode()
		ids[i] = uuid.Must(uuid.NewV7())
		hashes[i], _ = recoveryHash(codes[i])
	}
	for i := range codes {
		if _, err := tx.NewRaw("INSERT INTO recovery_codes (id, user_id, code_hash) VALUES (?, ?, ?)", ids[i], userID, hashes[i]).Exec(ctx); err != nil {
			return nil, err
		}
	}
	return codes, nil
}
