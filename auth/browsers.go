package auth

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"database/sql"
	"encoding/base64"
	"errors"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"tally/auditlog"
	"tally/internal/apperr"
	"tally/internal/db"
)

// Browsers remembers the browsers people signed in from. Each browser gets a random mark of
// its own for each user, kept in its cookie and stored here only as its SHA-256
// (known_browsers). A known browser has its own counts of wrong passwords (PasswordRule) and
// second-factor answers: strangers guessing elsewhere, or from another of the user's
// browsers, cannot use them up, so they cannot lock the owner out of it.
//
// A mark lasts BrowserLifetime after the last sign-in in its browser, and each sign-in there
// replaces it with a new one. Sliding rather than fixed: the browsers a person uses stay known
// however rarely they sign in, while one left behind (a shared laptop, a sold phone) is
// forgotten on its own; and since a sign-in renews the mark, a copy of the cookie stops
// counting the next time the owner signs in in that browser. The user can forget a browser
// at any time (Forget), from their security page.
type Browsers struct{ DB *db.DB }

// BrowserLifetime is how long a browser stays known after its last sign-in.
const BrowserLifetime = 180 * 24 * time.Hour

const (
	// markBytes is the size of a mark: random, so it can be neither guessed nor forged.
	markBytes = 32
	// maxBrowserUsers is how many users one browser is remembered for (a family's shared
	// laptop): the cookie keeps the marks of the last few.
	maxBrowserUsers = 5
	// maxUserBrowsers is how many browsers each user keeps known, the most recently signed
	// in from: it bounds the security page's list.
	maxUserBrowsers = 20
)

// Browser is one of a user's known browsers, as their security page lists it.
type Browser struct {
	ID         uuid.UUID `bun:"id"`
	UserAgent  string    `bun:"user_agent"`
	IP         string    `bun:"ip_address"`
	CreatedAt  time.Time `bun:"created_at"`
	LastUsedAt time.Time `bun:"last_used_at"`
	ExpiresAt  time.Time `bun:"expires_at"`
	// Current is the browser that asks.
	Current bool `bun:"current"`
}

// mark is one mark of a cookie, with its hash.
type mark struct {
	text string
	hash []byte
}

// marksOf returns the marks of a cookie, the first few only (a cookie holds at most
// maxBrowserUsers), skipping anything that cannot be one.
func marksOf(cookie string) []mark {
	var out []mark
	for _, m := range strings.SplitN(cookie, ".", maxBrowserUsers+1) {
		raw, err := base64.RawURLEncoding.DecodeString(m)
		if err != nil || len(raw) != markBytes || len(out) == maxBrowserUsers {
			continue
		}
		out = append(out, mark{text: m, hash: hashOf(raw)})
	}
	return out
}

func hashOf(raw []byte) []byte {
	h := sha256.Sum256(raw)
	return h[:]
}

func hashes(marks []mark) [][]byte {
	out := make([][]byte, 0, len(marks))
	for _, m := range marks {
		out = append(out, m.hash)
	}
	return out
}

// Known returns the browser of userID that the cookie marks, if it is one the user signed in
// from, not forgotten and not expired.
func (b Browsers) Known(ctx context.Context, cookie string, userID uuid.UUID) (id uuid.UUID, ok bool, err error) {
	marks := marksOf(cookie)
	if b.DB == nil || len(marks) == 0 {
		return uuid.Nil, false, nil
	}
	err = b.DB.NewRaw(`SELECT id FROM known_browsers WHERE user_id = ? AND mark_hash IN (?) AND expires_at > now() LIMIT 1`,
		userID, bun.In(hashes(marks))).Scan(ctx, &id)
	if errors.Is(err, sql.ErrNoRows) {
		return uuid.Nil, false, nil
	}
	return id, err == nil, err
}

// liveMark is a browser's mark that is known, and whose it is.
type liveMark struct {
	ID     uuid.UUID `bun:"id"`
	UserID uuid.UUID `bun:"user_id"`
	Hash   []byte    `bun:"mark_hash"`
}

// Remember records a sign-in of userID in the browser with the cookie, seen from from, and
// returns the cookie to set: a new mark for the user first (the browser's old one, if it had
// one, no longer counts), then the marks of the last few other users that are still known.
func (b Browsers) Remember(ctx context.Context, cookie string, userID uuid.UUID, from auditlog.Meta) (string, error) {
	raw := make([]byte, markBytes)
	if _, err := rand.Read(raw); err != nil {
		return "", err
	}
	marks := marksOf(cookie)
	var live []liveMark
	err := b.DB.InTx(ctx, func(ctx context.Context, tx db.Tx) error {
		if len(marks) > 0 {
			if err := tx.NewRaw(`SELECT id, user_id, mark_hash FROM known_browsers WHERE mark_hash IN (?) AND expires_at > now()`,
				bun.In(hashes(marks))).Scan(ctx, &live); err != nil {
				return err
			}
		}
		ua, ip, lifetime := from.UserAgent, from.IP, BrowserLifetime.Seconds()
		if i := slices.IndexFunc(live, func(l liveMark) bool { return l.UserID == userID }); i >= 0 {
			_, err := tx.NewRaw(`UPDATE known_browsers SET mark_hash = ?, user_agent = nullif(?, ''), ip_address = nullif(?, ''),
				last_used_at = now(), expires_at = now() + make_interval(secs => ?) WHERE id = ?`, hashOf(raw), ua, ip, lifetime, live[i].ID).Exec(ctx)
			return err
		}
		if _, err := tx.NewRaw(`INSERT INTO known_browsers (id, user_id, mark_hash, user_agent, ip_address, expires_at)
			VALUES (?, ?, ?, nullif(?, ''), nullif(?, ''), now() + make_interval(secs => ?))`,
			uuid.Must(uuid.NewV7()), userID, hashOf(raw), ua, ip, lifetime).Exec(ctx); err != nil {
			return err
		}
		// The user's expired browsers go, and those past the most recent few.
		_, err := tx.NewRaw(`DELETE FROM known_browsers WHERE user_id = ? AND (expires_at <= now() OR id NOT IN (
			SELECT id FROM known_browsers WHERE user_id = ? ORDER BY last_used_at DESC, id DESC LIMIT ?))`, userID, userID, maxUserBrowsers).Exec(ctx)
		return err
	})
	if err != nil {
		return "", err
	}
	out := []string{base64.RawURLEncoding.EncodeToString(raw)}
	for _, m := range marks {
		for _, l := range live {
			if l.UserID != userID && slices.Equal(l.Hash, m.hash) && len(out) < maxBrowserUsers {
				out = append(out, m.text)
			}
		}
	}
	return strings.Join(out, "."), nil
}

// List returns the user's known browsers, the one of the cookie first, then the most recently
// signed in from.
func (b Browsers) List(ctx context.Context, cookie string, userID uuid.UUID) ([]Browser, error) {
	current := hashes(marksOf(cookie))
	if len(current) == 0 {
		current = [][]byte{{}} // no mark: IN needs a value, and an empty hash is nobody's
	}
	var out []Browser
	err := b.DB.NewRaw(`SELECT id, coalesce(user_agent, '') AS user_agent, coalesce(ip_address, '') AS ip_address, created_at,
			last_used_at, expires_at, mark_hash IN (?) AS current
		FROM known_browsers WHERE user_id = ? AND expires_at > now() ORDER BY current DESC, last_used_at DESC, id DESC`,
		bun.In(current), userID).Scan(ctx, &out)
	return out, err
}

// Forget forgets the user's browser id: its mark no longer counts. Another user's browser, or
// one already forgotten, is NotFound.
func (b Browsers) Forget(ctx context.Context, userID, id uuid.UUID) error {
	res, err := b.DB.NewRaw(`DELETE FROM known_browsers WHERE id = ? AND user_id = ?`, id, userID).Exec(ctx)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return apperr.New(apperr.NotFound, "Tally does not remember this browser for you.")
	}
	return nil
}
