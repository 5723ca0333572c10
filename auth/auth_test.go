package auth

import (
	"context"
	"io"
	"log/slog"
	"os"
	"testing"

	"tally/internal/apperr"
	"tally/internal/testkit"
)

func TestMain(m *testing.M) { os.Exit(testkit.Main(m)) }

// An unknown email costs the same password check as a wrong password, so that response times
// do not tell which emails have accounts.
func TestSignInDoesTheSameWorkForUnknownEmails(t *testing.T) {
	d := testkit.MustOpenDB(t)
	u := testkit.MustCreateUser(t, d, testkit.UserOpts{})
	s := &Service{DB: d, Policy: Policy{LocalLoginEnabled: true}, Log: slog.New(slog.NewTextHandler(io.Discard, nil))}

	for name, email := range map[string]string{"wrong password": u.Email, "unknown email": "nobody@example.com"} {
		t.Run(name, func(t *testing.T) {
			calls := 0
			orig := checkPassword
			checkPassword = func(hash, pw string) (bool, error) { calls++; return orig(hash, pw) }
			t.Cleanup(func() { checkPassword = orig })
			_, err := s.SignIn(context.Background(), email, "not the password")
			if !apperr.Is(err, apperr.Invalid) || apperr.As(err).Message != MsgInvalidCredentials {
				t.Fatalf("error %v", err)
			}
			if calls != 1 {
				t.Fatalf("%d password checks, want exactly 1", calls)
			}
		})
	}
}
