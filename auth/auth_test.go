package auth

import (
	"context"
	"io"
	"log/slog"
	"os"
	"strings"
	"testing"

	"github.com/google/uuid"

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

// TestBrowsersKnowOnlyTheirUsers marks a browser for a few users: each is known there, a
// forged or another key's mark is not, and only the last few users are kept.
func TestBrowsersKnowOnlyTheirUsers(t *testing.T) {
	b, err := NewBrowsers("a secret key base of some length, for the test")
	if err != nil {
		t.Fatal(err)
	}
	other, _ := NewBrowsers("another secret key base, of another deployment")
	var users []uuid.UUID
	cookie := ""
	for range maxBrowserUsers + 1 {
		u := uuid.New()
		users = append(users, u)
		cookie = b.Add(cookie, u)
	}
	for i, u := range users {
		if want := i > 0; b.Knows(cookie, u) != want {
			t.Errorf("user %d known %v, want %v", i, !want, want)
		}
	}
	if other.Knows(cookie, users[len(users)-1]) || other.Knows(other.Add("", users[0]), uuid.New()) {
		t.Error("another key's marks, or another user's, are known")
	}
	forged := other.Add("", users[0])
	if b.Knows(forged, users[0]) || strings.Contains(b.Add(forged, users[1]), forged) {
		t.Error("a mark signed with another key is known, or kept")
	}
}
