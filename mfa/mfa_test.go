package mfa

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/pquerna/otp/totp"

	"tally/internal/apperr"
	"tally/internal/secrets"
	"tally/testkit"
)

func newService(t *testing.T, clock *time.Time) *Service {
	t.Helper()
	keys, err := secrets.New(strings.Repeat("k", 64))
	if err != nil {
		t.Fatal(err)
	}
	return &Service{DB: testkit.MustOpenDB(t), Keys: keys, Now: func() time.Time { return *clock }}
}

func codeAt(t *testing.T, secret string, at time.Time) string {
	t.Helper()
	c, err := totp.GenerateCodeCustom(secret, at, codeOpts)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// wantCodeError fails t unless err is the user's mistake, named on the code field.
func wantCodeError(t *testing.T, err error, contains string) {
	t.Helper()
	e := apperr.As(err)
	if e == nil || e.Code != apperr.Invalid || len(e.Fields["code"]) == 0 || !strings.Contains(e.Fields["code"][0], contains) {
		t.Fatalf("got %v, want a refusal of the code saying %q", err, contains)
	}
}

func TestTOTPEnrolVerifyAndReplay(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2026, 11, 25, 12, 0, 10, 0, time.UTC)
	s := newService(t, &now)
	u := testkit.MustCreateUser(t, s.DB, testkit.UserOpts{})

	en, err := s.BeginTOTP(ctx, u.ID, u.Email)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(en.URI, "otpauth://totp/Tally:") || !strings.Contains(en.URI, "issuer=Tally") || !strings.Contains(en.URI, "secret="+en.Secret) {
		t.Errorf("URI %q", en.URI)
	}
	again, err := s.BeginTOTP(ctx, u.ID, u.Email)
	if err != nil || again.Secret != en.Secret || again.URI != en.URI {
		t.Errorf("a reloaded enrolment shows another secret: %v %v", again, err)
	}
	var stored string
	if err := s.DB.NewRaw("SELECT secret FROM user_totp WHERE user_id = ?", u.ID).Scan(ctx, &stored); err != nil || strings.Contains(stored, en.Secret) || !secrets.IsEncrypted(stored) {
		t.Errorf("the secret is stored as %q (%v), want it encrypted", stored, err)
	}
	if st, _ := s.StatusOf(ctx, u.ID); st.Any() {
		t.Error("TOTP is on before its first code")
	}

	_, err = s.ConfirmTOTP(ctx, u.ID, "000000")
	if codeAt(t, en.Secret, now) != "000000" {
		wantCodeError(t, err, "not right")
	}
	codes, err := s.ConfirmTOTP(ctx, u.ID, codeAt(t, en.Secret, now))
	if err != nil {
		t.Fatal(err)
	}
	if len(codes) != RecoveryCodeCount {
		t.Fatalf("%d recovery codes", len(codes))
	}
	if st, _ := s.StatusOf(ctx, u.ID); !st.TOTP || st.RecoveryCodes != RecoveryCodeCount {
		t.Errorf("status after confirming: %+v", st)
	}
	if _, err := s.BeginTOTP(ctx, u.ID, u.Email); !apperr.Is(err, apperr.Conflict) {
		t.Errorf("a second enrolment: %v, want a conflict", err)
	}

	// The confirming code's step is spent: the same code at sign-in is a replay.
	_, err = s.Verify(ctx, u.ID, codeAt(t, en.Secret, now))
	wantCodeError(t, err, "used already")

	now = now.Add(30 * time.Second)
	code := codeAt(t, en.Secret, now)
	if m, err := s.Verify(ctx, u.ID, code[:3]+" "+code[3:]); err != nil || m != MethodTOTP {
		t.Fatalf("the next step's code, with a space: %q, %v", m, err)
	}
	_, err = s.Verify(ctx, u.ID, code)
	wantCodeError(t, err, "used already")

	// One step of drift is accepted either way; an older step than the last used is not.
	now = now.Add(2 * time.Minute)
	if _, err := s.Verify(ctx, u.ID, codeAt(t, en.Secret, now.Add(30*time.Second))); err != nil {
		t.Errorf("a code one step ahead: %v", err)
	}
	_, err = s.Verify(ctx, u.ID, codeAt(t, en.Secret, now.Add(-30*time.Second)))
	if err == nil {
		t.Error("a code older than the last accepted one was accepted")
	}
	now = now.Add(5 * time.Minute)
	_, err = s.Verify(ctx, u.ID, codeAt(t, en.Secret, now.Add(-90*time.Second)))
	wantCodeError(t, err, "not right")

	// Another user's codes are not this one's.
	other := testkit.MustCreateUser(t, s.DB, testkit.UserOpts{})
	_, err = s.Verify(ctx, other.ID, codeAt(t, en.Secret, now))
	wantCodeError(t, err, "not right")
}

func TestRecoveryCodes(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2026, 11, 25, 12, 0, 10, 0, time.UTC)
	s := newService(t, &now)
	u := testkit.MustCreateUser(t, s.DB, testkit.UserOpts{})
	if _, err := s.RegenerateRecoveryCodes(ctx, u.ID); !apperr.Is(err, apperr.Conflict) {
		t.Errorf("recovery codes without TOTP: %v", err)
	}
	en, err := s.BeginTOTP(ctx, u.ID, u.Email)
	if err != nil {
		t.Fatal(err)
	}
	codes, err := s.ConfirmTOTP(ctx, u.ID, codeAt(t, en.Secret, now))
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, c := range codes {
		if len(c) != 19 || strings.Count(c, "-") != 3 || seen[c] {
			t.Errorf("code %q: want four groups of four, each code different", c)
		}
		seen[c] = true
	}
	var hashes int
	if err := s.DB.NewRaw("SELECT count(*) FROM recovery_codes WHERE user_id = ? AND position(convert_to(?, 'UTF8') IN code_hash) = 0", u.ID, codes[0]).Scan(ctx, &hashes); err != nil || hashes != RecoveryCodeCount {
		t.Errorf("%d stored codes that are not the code itself (%v)", hashes, err)
	}

	// Typed in capitals without dashes, with o for 0: accepted once.
	typed := strings.ToUpper(strings.ReplaceAll(codes[0], "-", " "))
	typed = strings.ReplaceAll(typed, "0", "O")
	if m, err := s.Verify(ctx, u.ID, typed); err != nil || m != MethodRecovery {
		t.Fatalf("recovery code %q typed as %q: %q, %v", codes[0], typed, m, err)
	}
	_, err = s.Verify(ctx, u.ID, codes[0])
	wantCodeError(t, err, "not right")
	if st, _ := s.StatusOf(ctx, u.ID); st.RecoveryCodes != RecoveryCodeCount-1 {
		t.Errorf("%d codes left after using one", st.RecoveryCodes)
	}

	fresh, err := s.RegenerateRecoveryCodes(ctx, u.ID)
	if err != nil {
		t.Fatal(err)
	}
	_, err = s.Verify(ctx, u.ID, codes[1])
	wantCodeError(t, err, "not right")
	if _, err := s.Verify(ctx, u.ID, fresh[1]); err != nil {
		t.Errorf("a regenerated code: %v", err)
	}

	if err := s.DisableTOTP(ctx, s.DB, u.ID); err != nil {
		t.Fatal(err)
	}
	if st, _ := s.StatusOf(ctx, u.ID); st.Any() || st.RecoveryCodes != 0 {
		t.Errorf("after turning it off: %+v", st)
	}
}

func TestQRCodeSVG(t *testing.T) {
	svg, err := QRCodeSVG("otpauth://totp/Tally:a@example.com?secret=JBSWY3DPEHPK3PXP&issuer=Tally")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(svg, "<svg ") || strings.Count(svg, "h1v1h-1z") < 200 {
		t.Errorf("not a QR code: %.200s", svg)
	}
}
