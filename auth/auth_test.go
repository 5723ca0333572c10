package auth

import (
	"context"
	"encoding/base64"
	"io"
	"log/slog"
	"os"
	"testing"

	"github.com/google/uuid"

	"tally/auditlog"
	"tally/internal/apperr"
	"tally/internal/ratelimit"
	"tally/testkit"
)

func TestMain(m *testing.M) { os.Exit(testkit.Main(m)) }

// An unknown email costs the same password check as a wrong password, so that response times
// do not tell which emails have accounts.
func TestSignInDoesTheSameWorkForUnknownEmails(t *testing.T) {
	d := testkit.MustOpenDB(t)
	u := testkit.MustCreateUser(t, d, testkit.UserOpts{})
	s := &Service{DB: d, Policy: Policy{LocalLoginEnabled: true}, Log: slog.New(slog.NewTextHandler(io.Discard, nil)), Limiter: ratelimit.New(d)}

	for name, email := range map[string]string{"wrong password": u.Email, "unknown email": "nobody@example.com"} {
		t.Run(name, func(t *testing.T) {
			calls := 0
			orig := checkPassword
			checkPassword = func(hash, pw string) (bool, error) { calls++; return orig(hash, pw) }
			t.Cleanup(func() { checkPassword = orig })
			_, err := s.SignIn(context.Background(), Attempt{Email: email, Password: "not the password"})
			if !apperr.Is(err, apperr.Invalid) || apperr.As(err).Message != MsgInvalidCredentials {
				t.Fatalf("error %v", err)
			}
			if calls != 1 {
				t.Fatalf("%d password checks, want exactly 1", calls)
			}
		})
	}
}

// TestBrowsersHaveMarksOfTheirOwn remembers sign-ins in a few browsers: each browser's mark is
// its own and random, stored only as its hash; a forged mark, another user's, a replaced one
// (the browser signed in again), a forgotten one and an expired one are not known; and one
// browser keeps the marks of its last few users only.
func TestBrowsersHaveMarksOfTheirOwn(t *testing.T) {
	ctx := context.Background()
	d := testkit.MustOpenDB(t)
	b := Browsers{DB: d}
	u := testkit.MustCreateUser(t, d, testkit.UserOpts{})
	known := func(cookie string, userID uuid.UUID) (uuid.UUID, bool) {
		t.Helper()
		id, ok, err := b.Known(ctx, cookie, userID)
		if err != nil {
			t.Fatal(err)
		}
		return id, ok
	}
	remember := func(cookie string, userID uuid.UUID) string {
		t.Helper()
		c, err := b.Remember(ctx, cookie, userID, auditlog.Meta{IP: "192.0.2.1", UserAgent: "test"})
		if err != nil {
			t.Fatal(err)
		}
		return c
	}

	laptop, phone := remember("", u.ID), remember("", u.ID)
	laptopID, okLaptop := known(laptop, u.ID)
	phoneID, okPhone := known(phone, u.ID)
	if laptop == phone || !okLaptop || !okPhone || laptopID == phoneID {
		t.Fatalf("two browsers: marks %q and %q, known %v %v, ids %s %s", laptop, phone, okLaptop, okPhone, laptopID, phoneID)
	}
	raw, _ := base64.RawURLEncoding.DecodeString(laptop)
	var stored int
	if err := d.NewRaw("SELECT count(*) FROM known_browsers WHERE mark_hash = ? OR mark_hash = ?", hashOf(raw), raw).Scan(ctx, &stored); err != nil || stored != 1 {
		t.Fatalf("the mark is stored as its SHA-256 only: %d rows match (%v)", stored, err)
	}

	forged := base64.RawURLEncoding.EncodeToString(make([]byte, markBytes))
	other := testkit.MustCreateUser(t, d, testkit.UserOpts{})
	if _, ok := known(forged, u.ID); ok {
		t.Error("a forged mark is known")
	}
	if _, ok := known(laptop, other.ID); ok {
		t.Error("a mark is known for another user")
	}

	// Signing in again in the laptop gives it a new mark: a copy of the old one no longer
	// counts, and the laptop stays one browser, with its count.
	again := remember(laptop, u.ID)
	if id, ok := known(again, u.ID); !ok || id != laptopID {
		t.Fatalf("the laptop after a new sign-in: %s %v, want %s", id, ok, laptopID)
	}
	if _, ok := known(laptop, u.ID); ok {
		t.Error("the laptop's old mark, copied before its new sign-in, is still known")
	}

	if err := b.Forget(ctx, other.ID, phoneID); !apperr.Is(err, apperr.NotFound) {
		t.Fatalf("another user forgets the phone: %v, want NotFound", err)
	}
	if err := b.Forget(ctx, u.ID, phoneID); err != nil {
		t.Fatal(err)
	}
	if _, ok := known(phone, u.ID); ok {
		t.Error("a forgotten browser is known")
	}
	if _, err := d.NewRaw("UPDATE known_browsers SET expires_at = now() - interval '1 second' WHERE id = ?", laptopID).Exec(ctx); err != nil {
		t.Fatal(err)
	}
	if _, ok := known(again, u.ID); ok {
		t.Error("an expired browser is known")
	}
	if l, err := b.List(ctx, again, u.ID); err != nil || len(l) != 0 {
		t.Errorf("the list after forgetting one browser and the other expiring: %v (%v)", l, err)
	}

	// A shared laptop keeps the marks of its last few users.
	var users []uuid.UUID
	shared := ""
	for range maxBrowserUsers + 1 {
		id := testkit.MustCreateUser(t, d, testkit.UserOpts{}).ID
		users = append(users, id)
		shared = remember(shared, id)
	}
	for i, id := range users {
		if _, ok := known(shared, id); ok != (i > 0) {
			t.Errorf("user %d of the shared laptop known %v, want %v", i, ok, i > 0)
		}
	}
	if l, err := b.List(ctx, shared, users[1]); err != nil || len(l) != 1 || !l[0].Current {
		t.Errorf("the list of a user of the shared laptop: %+v (%v)", l, err)
	}
}
