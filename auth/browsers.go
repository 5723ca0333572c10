package auth

import (
	"crypto/hkdf"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"slices"
	"strings"

	"github.com/google/uuid"
)

// Browsers marks the browsers people signed in from: a cookie holding, for each of the last
// few users, their id signed with a key of SECRET_KEY_BASE. A marked browser has a wrong-
// password count of its own for its users (PasswordRule), which strangers guessing from
// elsewhere cannot use up: they cannot lock the owner out of the browsers they use.
type Browsers struct{ key []byte }

// maxBrowserUsers is how many users one browser is remembered for (a family's shared laptop).
const maxBrowserUsers = 5

// NewBrowsers derives the marks' key from secretKeyBase.
func NewBrowsers(secretKeyBase string) (Browsers, error) {
	key, err := hkdf.Key(sha256.New, []byte(secretKeyBase), nil, "tally known browsers v1", 32)
	return Browsers{key: key}, err
}

// mark is the browser's mark for userID: the id and 16 bytes of its signature, base64url.
func (b Browsers) mark(userID uuid.UUID) string {
	m := hmac.New(sha256.New, b.key)
	m.Write(userID[:])
	return base64.RawURLEncoding.EncodeToString(append(userID[:], m.Sum(nil)[:16]...))
}

// Knows reports whether the cookie marks the browser as one userID signed in from.
func (b Browsers) Knows(cookie string, userID uuid.UUID) bool {
	if len(b.key) == 0 {
		return false
	}
	want := b.mark(userID)
	for _, m := range strings.Split(cookie, ".") {
		if hmac.Equal([]byte(m), []byte(want)) {
			return true
		}
	}
	return false
}

// Add returns the cookie with userID's mark first, keeping the marks of the last few other
// users that still verify.
func (b Browsers) Add(cookie string, userID uuid.UUID) string {
	marks := []string{b.mark(userID)}
	for _, m := range strings.Split(cookie, ".") {
		raw, err := base64.RawURLEncoding.DecodeString(m)
		if err != nil || len(raw) != 32 || slices.Contains(marks, m) {
			continue
		}
		if id, _ := uuid.FromBytes(raw[:16]); b.mark(id) == m && len(marks) < maxBrowserUsers {
			marks = append(marks, m)
		}
	}
	return strings.Join(marks, ".")
}
