// Package auth holds Tally's local sign-in rules: passwords, the local-login flags and their
// admin override, first-run onboarding, password reset and API-key authentication.
package auth

import (
	"context"
	"fmt"
	"log/slog"
	"math"
	"strings"
	"time"

	"github.com/google/uuid"

	"tally/auditlog"
	"tally/internal/apperr"
	"tally/internal/db"
	"tally/internal/mail"
	"tally/internal/password"
	"tally/internal/ratelimit"
	"tally/models"
)

// Messages shown to people and API clients.
const (
	MsgInvalidCredentials = "Invalid email or password."
	MsgLocalLoginDisabled = "Local password login is disabled. Please use single sign-on."
	MsgAdminOnlyNote      = "Local login is restricted to administrators."
	MsgPasswordResetOff   = "Password reset via Tally is disabled. Please reset your password through your identity provider."
	MsgSuspended          = "Your account has been suspended. Contact your administrator."
	MsgAPIKeyInvalid      = "Access token or API key is invalid, expired, or missing"
	MsgAccountDeactivated = "Account has been deactivated"
	MsgAlreadyOnboarded   = "Tally is already set up. Sign in instead."
	MsgInvalidResetToken  = "This password reset link is invalid or has expired. Ask for a new one."
	resetTokenLifetime    = 15 * time.Minute
)

// Policy is the local-login configuration.
type Policy struct {
	LocalLoginEnabled    bool
	AdminOverrideEnabled bool
}

// FormVisible reports whether the email and password form is shown.
func (p Policy) FormVisible() bool { return p.LocalLoginEnabled || p.AdminOverrideEnabled }

// AdminOnly reports whether only super admins may sign in locally.
func (p Policy) AdminOnly() bool { return !p.LocalLoginEnabled && p.AdminOverrideEnabled }

// Admits applies the local-login rules to a user who proved who they are without a password
// (a passkey): nobody while local login is off, only super admins under the admin override,
// which it reports.
func (p Policy) Admits(role models.Role) (override bool, err error) {
	if !p.FormVisible() || (p.AdminOnly() && role != models.RoleSuperAdmin) {
		return false, apperr.New(apperr.Forbidden, MsgLocalLoginDisabled)
	}
	return p.AdminOnly(), nil
}

// PasswordResetEnabled reports whether password reset is offered. The admin override never
// turns it back on.
func (p Policy) PasswordResetEnabled() bool { return p.LocalLoginEnabled }

// checkPassword is password.Check; tests count its calls.
var checkPassword = password.Check

// Service applies the sign-in rules.
type Service struct {
	DB     *db.DB
	Policy Policy
	Mailer mail.Mailer
	// AppURL is the public base URL, for links in mail.
	AppURL string
	Log    *slog.Logger
	// Limiter counts wrong passwords per account (PasswordRule); Browsers marks the browsers
	// users signed in from.
	Limiter  *ratelimit.Limiter
	Browsers Browsers
	// SecondFactor reports whether a user has a second factor (mfa.Service's status).
	SecondFactor func(ctx context.Context, userID uuid.UUID) (bool, error)
}

// SignInResult says how a local sign-in succeeded.
type SignInResult struct {
	User *models.User
	// Override is true when the admin override let a super admin in while local login is off.
	Override bool
	// Held is set when the account is past its wrong-password limit and has a second factor:
	// the sign-in goes on to the second factor whether the password was right or not, so that
	// guessing learns nothing without it, and that step lets in only a right password
	// (PasswordRight) with a right second factor.
	Held          bool
	PasswordRight bool
}

// Attempt is a password sign-in as a browser sends it.
type Attempt struct {
	Email, Password string
	// Browser is the browser's Browsers cookie (its marks), "" when it has none.
	Browser string
	Meta    auditlog.Meta
}

// PasswordRule limits wrong passwords per account, counted in PostgreSQL across every
// instance. Each browser the account's user signed in from has a count of its own, so that
// guesses from anywhere else never hold the owner back there. Past the limit, an account with
// a second factor is Held (a right password and a right second factor still get in, always);
// one without is refused until the window ends, but from the browsers it knows.
var PasswordRule = ratelimit.Rule{Limit: 10, Window: 15 * time.Minute}

// passwordKey is the count of wrong passwords of email from its user's known browser, or,
// with uuid.Nil, from every browser it does not know.
func passwordKey(email string, browser uuid.UUID) string {
	k := "password:" + strings.ToLower(strings.TrimSpace(email))
	if browser != uuid.Nil {
		k += ":browser:" + browser.String()
	}
	return k
}

// SignIn checks an email and password against the local-login rules and the account's
// wrong-password limit. A wrong password and an unknown email fail alike, after the same
// amount of work. Every refusal is audited (login_failed, method password); the caller
// audits the sign-in once the session starts.
func (s *Service) SignIn(ctx context.Context, at Attempt) (SignInResult, error) {
	res, reason, userID, err := s.signIn(ctx, at)
	if reason != "" {
		var extra map[string]any
		if res.Held {
			extra = map[string]any{"held": true}
		}
		if rerr := s.auditRefusal(ctx, at, userID, "", reason, extra); rerr != nil {
			return SignInResult{}, rerr
		}
	}
	return res, err
}

// ConfirmPassword checks the password of the account with at.Email before the account at
// provider that has the same email is connected to it (/sso/link): under the account's
// wrong-password limit, as SignIn, which it shares, and audited as SignIn's refusals are
// (login_failed, with purpose link). It returns the account's user, who is active.
func (s *Service) ConfirmPassword(ctx context.Context, at Attempt, provider string) (*models.User, error) {
	u, reason, userID, err := s.confirmPassword(ctx, at)
	if reason != "" {
		if rerr := s.auditRefusal(ctx, at, userID, provider, reason, map[string]any{"purpose": "link"}); rerr != nil {
			return nil, rerr
		}
	}
	return u, err
}

func (s *Service) confirmPassword(ctx context.Context, at Attempt) (u *models.User, reason string, userID *uuid.UUID, err error) {
	if u, userID, err = s.userByEmail(ctx, at.Email); err != nil {
		return nil, "", nil, err
	}
	right, limit, err := s.checkLimited(ctx, u, at)
	if err != nil {
		return nil, "", nil, err
	}
	switch {
	case !limit.Allowed:
		return nil, "too_many_failures", userID, tooManyPasswords(limit, "Try again in %d minutes, or from a browser you signed in from before.")
	case !right:
		return nil, "invalid_credentials", userID, apperr.New(apperr.Invalid, MsgInvalidCredentials)
	case !u.Active():
		// Told as a wrong password: this page never says more about an account.
		return nil, "user_suspended", userID, apperr.New(apperr.Invalid, MsgInvalidCredentials)
	}
	return u, "", userID, nil
}

// auditRefusal records a refused password as login_failed (method password), whatever
// becomes of the request.
func (s *Service) auditRefusal(ctx context.Context, at Attempt, userID *uuid.UUID, provider, reason string, extra map[string]any) error {
	data := map[string]any{"method": "password", "reason": reason}
	for k, v := range extra {
		data[k] = v
	}
	e := auditlog.Event{Type: auditlog.EventLoginFailed, UserID: userID, Provider: provider, Meta: at.Meta, Data: data}
	if err := auditlog.Record(context.WithoutCancel(ctx), s.DB, e); err != nil {
		return fmt.Errorf("audit a refused password: %w", err)
	}
	return nil
}

// userByEmail returns the user with email and their id, or nil and nil when there is none.
func (s *Service) userByEmail(ctx context.Context, email string) (*models.User, *uuid.UUID, error) {
	u, err := models.UserByEmail(ctx, s.DB, email)
	if apperr.Is(err, apperr.NotFound) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, err
	}
	return u, &u.ID, nil
}

// checkLimited checks at's password against u's (nil: an unknown email, which takes the same
// work) under the account's wrong-password limit, PasswordRule, counted in the browser's own
// count where u signed in before. Each attempt is counted before the password is checked, so
// that many at once cannot slip past, and a right one is taken back.
func (s *Service) checkLimited(ctx context.Context, u *models.User, at Attempt) (right bool, limit ratelimit.Result, err error) {
	var browser uuid.UUID
	if u != nil {
		if browser, _, err = s.Browsers.Known(ctx, at.Browser, u.ID); err != nil {
			return false, limit, err
		}
	}
	key := passwordKey(at.Email, browser)
	if limit, err = s.Limiter.Allow(ctx, key, PasswordRule); err != nil {
		return false, limit, err
	}
	hash := password.Dummy
	if u != nil && u.PasswordHash != nil {
		hash = *u.PasswordHash
	}
	ok, err := checkPassword(hash, at.Password)
	if err != nil {
		return false, limit, fmt.Errorf("check password: %w", err)
	}
	right = ok && u != nil && u.PasswordHash != nil
	if right {
		err = s.Limiter.Undo(ctx, key, PasswordRule)
	}
	return right, limit, err
}

// tooManyPasswords is the refusal of an account past its wrong-password limit; next says
// what to do, with the minutes left.
func tooManyPasswords(limit ratelimit.Result, next string) error {
	return apperr.Errorf(apperr.RateLimited, "Too many wrong passwords for this account. "+next,
		int(math.Ceil(limit.RetryAfter.Minutes()))).WithSlug("password_limit")
}

// signIn is SignIn; a refusal comes with its audit reason and the user it concerns, if any.
// A held sign-in with a wrong password is a refusal too, with a result and no error.
func (s *Service) signIn(ctx context.Context, at Attempt) (res SignInResult, reason string, userID *uuid.UUID, err error) {
	if !s.Policy.FormVisible() {
		return res, "local_login_disabled", nil, apperr.New(apperr.Forbidden, MsgLocalLoginDisabled)
	}
	u, userID, err := s.userByEmail(ctx, at.Email)
	if err != nil {
		return res, "", nil, err
	}
	if s.Policy.AdminOnly() && (u == nil || u.Role != models.RoleSuperAdmin) {
		_, _ = checkPassword(password.Dummy, at.Password)
		return res, "local_login_disabled", userID, apperr.New(apperr.Forbidden, MsgLocalLoginDisabled)
	}
	right, limit, err := s.checkLimited(ctx, u, at)
	if err != nil {
		return res, "", nil, err
	}
	if !limit.Allowed {
		held := false
		if u != nil && u.Active() && s.SecondFactor != nil {
			if held, err = s.SecondFactor(ctx, u.ID); err != nil {
				return res, "", nil, err
			}
		}
		if !held {
			return res, "too_many_failures", userID,
				tooManyPasswords(limit, "Sign in with a passkey, or from a browser you signed in from before, or try again in %d minutes.")
		}
		res = SignInResult{User: u, Override: s.Policy.AdminOnly(), Held: true, PasswordRight: right}
		if !right {
			return res, "invalid_credentials", userID, nil
		}
		return res, "", userID, nil
	}
	if !right {
		return res, "invalid_credentials", userID, apperr.New(apperr.Invalid, MsgInvalidCredentials)
	}
	if !u.Active() {
		return res, "user_suspended", userID, apperr.New(apperr.Forbidden, MsgSuspended)
	}
	if err := models.TouchLastLogin(ctx, s.DB, u.ID); err != nil {
		return res, "", nil, err
	}
	res = SignInResult{User: u, Override: s.Policy.AdminOnly()}
	if res.Override {
		s.Log.InfoContext(ctx, "super admin override login", "user_id", u.ID)
	}
	return res, "", userID, nil
}

// Onboarding is what the first person enters to set Tally up.
type Onboarding struct {
	FamilyName string
	FirstName  string
	LastName   string
	Email      string
	Password   string
	Currency   string
	// Timezone is the time zone the person's browser reports, if any: the family's unless
	// the database does not know it.
	Timezone string
	// Locale is the family's number style, one of models.Locales; its language names the
	// starter categories.
	Locale string
	// DateFormat is how the family writes dates, one of models.DateFormats; the locale's
	// usual when empty.
	DateFormat string
	// StarterCategories gives the family models.StarterCategories to begin with.
	StarterCategories bool
	// Language is the family's language, one of i18n.Languages(); the default when empty.
	Language string
}

// Onboard creates the first user, as super admin of a new family, with the starter categories
// when asked. It fails with Conflict once any user exists; concurrent attempts are serialised,
// so only one can win.
func (s *Service) Onboard(ctx context.Context, in Onboarding) (*models.User, error) {
	var v apperr.Validation
	if id, data := password.Problem(in.Password); id != "" {
		v.AddText("password", id, data...)
	}
	if strings.TrimSpace(in.FamilyName) == "" {
		v.AddText("family_name", "validation.family_name_blank")
	}
	if strings.TrimSpace(in.Email) == "" {
		v.AddText("email", "validation.email_blank")
	}
	if err := v.Err(); err != nil {
		return nil, err
	}
	hash, err := password.Hash(in.Password)
	if err != nil {
		return nil, err
	}
	var u *models.User
	err = s.DB.InTx(ctx, func(ctx context.Context, tx db.Tx) error {
		if _, err := tx.NewRaw("SELECT pg_advisory_xact_lock(hashtext('tally:onboarding'))").Exec(ctx); err != nil {
			return err
		}
		n, err := models.CountUsers(ctx, tx)
		if err != nil {
			return err
		}
		if n > 0 {
			return apperr.New(apperr.Conflict, MsgAlreadyOnboarded)
		}
		f, err := models.CreateFamily(ctx, tx, in.FamilyName, in.Currency, in.Locale, in.Timezone)
		if err != nil {
			return err
		}
		if in.DateFormat != "" && in.DateFormat != f.DateFormat {
			if err := models.SetDateFormat(ctx, tx, f, in.DateFormat); err != nil {
				return err
			}
		}
		if in.Language != "" {
			if err := models.SetFamilyLanguage(ctx, tx, f, in.Language); err != nil {
				return err
			}
		}
		if in.StarterCategories {
			if err := models.CreateStarterCategories(ctx, tx, f.ID, f.Locale); err != nil {
				return err
			}
		}
		u, err = models.CreateUser(ctx, tx, models.NewUser{
			FamilyID: f.ID, Email: in.Email, PasswordHash: &hash, FirstName: in.FirstName, LastName: in.LastName,
			Role: models.RoleSuperAdmin, FamilyCreator: true,
		})
		if err != nil {
			return err
		}
		u.Family = f
		return nil
	})
	return u, err
}

// NewUserInput is a user created by an administrator or the CLI.
type NewUserInput struct {
	Email    string
	Password string
	Role     models.Role
	// FamilyName names the family to join; a missing family is created with the user as its
	// creator. Empty means a new family named after the user.
	FamilyName string
}

// CreateUser creates a user with a password.
func (s *Service) CreateUser(ctx context.Context, in NewUserInput) (*models.User, error) {
	if msg := password.Validate(in.Password); msg != "" {
		return nil, apperr.New(apperr.Invalid, msg)
	}
	hash, err := password.Hash(in.Password)
	if err != nil {
		return nil, err
	}
	if in.FamilyName == "" {
		local, _, _ := strings.Cut(models.NormalizeEmail(in.Email), "@")
		in.FamilyName = local + "'s family"
	}
	var u *models.User
	err = s.DB.InTx(ctx, func(ctx context.Context, tx db.Tx) error {
		f, err := models.FamilyByName(ctx, tx, in.FamilyName)
		creator := false
		if apperr.Is(err, apperr.NotFound) {
			f, err = models.CreateFamily(ctx, tx, in.FamilyName, "", "", "UTC")
			creator = true
		}
		if err != nil {
			return err
		}
		u, err = models.CreateUser(ctx, tx, models.NewUser{
			FamilyID: f.ID, Email: in.Email, PasswordHash: &hash, Role: in.Role, FamilyCreator: creator,
		})
		if err == nil {
			u.Family = f
		}
		return err
	})
	return u, err
}

// AuthenticateAPIKey returns the user and key for an X-Api-Key value. A missing, unknown,
// expired or revoked key, and a suspended user, are Unauthorized.
func (s *Service) AuthenticateAPIKey(ctx context.Context, key string) (*models.User, *models.APIKey, error) {
	if key == "" {
		return nil, nil, apperr.New(apperr.Unauthorized, MsgAPIKeyInvalid)
	}
	k, err := models.APIKeyByKey(ctx, s.DB, key)
	if apperr.Is(err, apperr.NotFound) || (err == nil && !k.Active(time.Now())) {
		return nil, nil, apperr.New(apperr.Unauthorized, MsgAPIKeyInvalid)
	}
	if err != nil {
		return nil, nil, err
	}
	u, err := models.UserByID(ctx, s.DB, k.UserID)
	if err != nil {
		return nil, nil, err
	}
	if !u.Active() {
		return nil, nil, apperr.New(apperr.Unauthorized, MsgAccountDeactivated)
	}
	if err := models.TouchAPIKey(ctx, s.DB, k.ID); err != nil {
		return nil, nil, err
	}
	return u, k, nil
}

// UserForSession returns the active user a session points at. A suspended or deleted user is
// NotFound, so the caller drops the session.
func (s *Service) UserForSession(ctx context.Context, id uuid.UUID) (*models.User, error) {
	u, err := models.UserByID(ctx, s.DB, id)
	if err != nil {
		return nil, err
	}
	if !u.Active() {
		return nil, apperr.New(apperr.NotFound, "user not found")
	}
	return u, nil
}
