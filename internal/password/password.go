// Package password hashes and checks passwords with argon2id.
package password

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"

	"golang.org/x/crypto/argon2"

	"tally/internal/i18n"
)

// argon2id parameters: OWASP's recommended minimum (19 MiB, 2 passes, 1 lane).
const (
	argonTime    = 2
	argonMemory  = 19 * 1024
	argonThreads = 1
	argonKeyLen  = 32
)

// MinLength is the shortest password accepted.
const MinLength = 8

// Hash returns an argon2id hash of password in the PHC string format.
func Hash(password string) (string, error) {
	salt := make([]byte, 16)
	if _, err := rand.Read(salt); err != nil {
		return "", err
	}
	key := argon2.IDKey([]byte(password), salt, argonTime, argonMemory, argonThreads, argonKeyLen)
	return fmt.Sprintf("$argon2id$v=%d$m=%d,t=%d,p=%d$%s$%s", argon2.Version, argonMemory, argonTime, argonThreads,
		base64.RawStdEncoding.EncodeToString(salt), base64.RawStdEncoding.EncodeToString(key)), nil
}

// Check reports whether password matches hash, in time that does not depend on where
// they differ.
func Check(hash, password string) (bool, error) {
	parts := strings.Split(hash, "$")
	if len(parts) != 6 || parts[1] != "argon2id" {
		return false, errors.New("unsupported password hash")
	}
	var version int
	var mem, iters uint32
	var threads uint8
	if _, err := fmt.Sscanf(parts[2], "v=%d", &version); err != nil || version != argon2.Version {
		return false, errors.New("unsupported argon2 version")
	}
	if _, err := fmt.Sscanf(parts[3], "m=%d,t=%d,p=%d", &mem, &iters, &threads); err != nil {
		return false, fmt.Errorf("parse argon2 parameters: %w", err)
	}
	salt, err := base64.RawStdEncoding.DecodeString(parts[4])
	if err != nil {
		return false, err
	}
	want, err := base64.RawStdEncoding.DecodeString(parts[5])
	if err != nil {
		return false, err
	}
	got := argon2.IDKey([]byte(password), salt, iters, mem, threads, uint32(len(want)))
	return subtle.ConstantTimeCompare(got, want) == 1, nil
}

// Dummy is a hash to check against when there is no user, so that an unknown email takes as
// long as a wrong password.
var Dummy = func() string {
	h, err := Hash("tally-timing-equaliser")
	if err != nil {
		panic(err)
	}
	return h
}()

// Validate returns what is wrong with a new password, in English, or "".
func Validate(password string) string {
	if id, data := Problem(password); id != "" {
		return i18n.T(context.Background(), id, data...)
	}
	return ""
}

// Problem is what is wrong with a new password, as the id of its message in the catalogues
// (internal/i18n) and its placeholders' values, or "".
func Problem(password string) (id string, data []any) {
	switch {
	case len(password) < MinLength:
		return "validation.password_short", []any{"Min", MinLength}
	case len(password) > 1024:
		return "validation.password_long", []any{"Max", 1024}
	}
	return "", nil
}
