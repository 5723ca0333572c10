package handlers

import (
	"context"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/go-webauthn/webauthn/webauthn"
	"github.com/google/uuid"
	"github.com/labstack/echo/v4"

	"tally/auditlog"
	"tally/internal/apperr"
	"tally/internal/db"
	"tally/internal/i18n"
	"tally/internal/password"
	"tally/internal/ratelimit"
	"tally/mfa"
	"tally/models"
	"tally/views"
)

// Session keys of a sign-in waiting for its second factor.
const (
	sessMFAUser     = "mfa_user"     // whose first step passed (or, for a held sign-in, seemed to)
	sessMFAStarted  = "mfa_started"  // when, in Unix seconds
	sessMFAOverride = "mfa_override" // whether it was the admin override of local login
	sessMFAVia      = "mfa_via"      // how the first step was passed: viaPassword, or the provider's name
	// sessMFAHeld marks a password sign-in held at its account's wrong-password limit
	// (auth.SignInResult.Held), and sessMFAPasswordWrong one whose password was wrong: no
	// second factor completes it, and it is told only as a wrong code would be.
	sessMFAHeld          = "mfa_held"
	sessMFAPasswordWrong = "mfa_password_wrong"
	// sessMFAEnrol marks a session whose user AUTH_REQUIRE_MFA covers and who has no second
	// factor yet: it reaches only the enrolment until there is one.
	sessMFAEnrol = "mfa_enrol"
	// sessMFAVerifiedAt is when the session's user last gave their second factor (Unix).
	sessMFAVerifiedAt = "mfa_verified_at"
)

// pendingSignInKeys are a password sign-in waiting for its second factor.
var pendingSignInKeys = []string{sessMFAUser, sessMFAStarted, sessMFAOverride, sessMFAVia, sessMFAHeld, sessMFAPasswordWrong}

// secondFactorKeys are every second-factor key of a session: a new user of the session (or
// none, at sign-out) inherits none of them.
var secondFactorKeys = append(slices.Clone(pendingSignInKeys), sessMFAEnrol, sessMFAVerifiedAt,
	sessPasskeyRegister, sessPasskeyLogin, sessPasskeyMFA, sessPasskeyStepUp)

// stepUpAfter is how long a second factor given vouches for a sensitive action.
const stepUpAfter = 10 * time.Minute

// mfaWindow is how long a correct password waits for its second factor.
const mfaWindow = 5 * time.Minute

// mfaDisableRule limits attempts to turn TOTP off, per signed-in user.
var mfaDisableRule = ratelimit.Rule{Limit: 5, Window: 15 * time.Minute}

// Second-factor answers (codes and passkeys, at sign-in and at a step-up) are limited by their
// failures only, across every instance, so that nobody is held back by their own right answers
// or by their family's behind one address. Each answer is counted before it is checked, so
// that many sent at once cannot slip past, and a right one is taken back (mfaSucceeded).
var (
	// mfaUserAddrRule: someone who knows the password, guessing from their own address, does
	// not hold the owner back at another.
	mfaUserAddrRule = ratelimit.Rule{Limit: 5, Window: 15 * time.Minute}
	// mfaUserRule bounds guessing one user's codes spread over many addresses.
	mfaUserRule = ratelimit.Rule{Limit: 20, Window: 15 * time.Minute}
	// mfaAddrRule bounds one address guessing many users' codes.
	mfaAddrRule = ratelimit.Rule{Limit: 50, Window: 15 * time.Minute}
	// mfaBrowserRule is the count of a browser the user signed in from (auth.Browsers), which
	// stands there for the user's two counts above, as it does for wrong passwords: someone
	// who knows the password, guessing codes from anywhere else, cannot hold the owner back in
	// their own browser.
	mfaBrowserRule = ratelimit.Rule{Limit: 5, Window: 15 * time.Minute}
)

// mfaLimit is one count a second-factor answer is held to.
type mfaLimit struct {
	key  string
	rule ratelimit.Rule
	user bool // the user's own count, forgotten at a right answer
	// anywhere is the user's count from every address, which only answers after a right
	// password may use up.
	anywhere bool
}

// mfaLimits are the counts a second-factor answer of the user is held to: the browser's own
// in a browser the user signed in from, else the user's from this address and from anywhere;
// and the address's, always.
func (a *app) mfaLimits(c echo.Context, userID uuid.UUID) ([]mfaLimit, error) {
	ip := c.RealIP()
	addr := mfaLimit{key: "mfa_addr:" + ip, rule: mfaAddrRule}
	browser, known, err := a.Auth.Browsers.Known(c.Request().Context(), a.browserMarks(c), userID)
	if err != nil {
		return nil, err
	}
	if known {
		return []mfaLimit{{key: "mfa_browser:" + browser.String(), rule: mfaBrowserRule, user: true}, addr}, nil
	}
	return []mfaLimit{
		{key: "mfa_user_addr:" + userID.String() + ":" + ip, rule: mfaUserAddrRule, user: true},
		{key: "mfa_user:" + userID.String(), rule: mfaUserRule, user: true, anywhere: true},
		addr,
	}, nil
}

// mfaAttempt counts a second-factor answer of the user before it is checked, and refuses it
// (429, Retry-After) when the user (from here or from anywhere, or in this known browser) or
// this address has had too many wrong ones. An answer after a wrong password (a held sign-in)
// never counts from anywhere: a stranger who does not know the password must not use up the
// owner's count.
func (a *app) mfaAttempt(c echo.Context, userID uuid.UUID, passwordWrong bool) error {
	limits, err := a.mfaLimits(c, userID)
	if err != nil {
		return err
	}
	for _, l := range limits {
		if passwordWrong && l.anywhere {
			continue
		}
		res, err := a.Limiter.Allow(c.Request().Context(), l.key, l.rule)
		if err != nil {
			return err
		}
		if !res.Allowed {
			return a.tooMany(c, res, "mfa")
		}
	}
	return nil
}

// mfaSucceeded takes back a right answer: the user's counts it was held to start again, and
// the address's forgets this one.
func (a *app) mfaSucceeded(c echo.Context, userID uuid.UUID) error {
	ctx := c.Request().Context()
	limits, err := a.mfaLimits(c, userID)
	if err != nil {
		return err
	}
	for _, l := range limits {
		var err error
		if l.user {
			err = a.Limiter.Reset(ctx, l.key)
		} else {
			err = a.Limiter.Undo(ctx, l.key, l.rule)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// mfaRoutes registers the second factor's pages: the sign-in step on web, the settings on
// signedIn.
func (a *app) mfaRoutes(web, signedIn *echo.Group) {
	web.GET("/sessions/mfa", a.mfaChallenge)
	web.POST("/sessions/mfa", a.mfaVerify)
	// Changing the second factors takes the second factor (when there is one): a stolen
	// session must not add its own, renew the codes, or take them away.
	signedIn.GET("/settings/mfa/totp/new", a.totpNew)
	signedIn.POST("/settings/mfa/totp", a.totpConfirm, a.stepUp("step_up_action.set_up_totp", nil))
	signedIn.POST("/settings/mfa/totp/disable", a.totpDisable, a.rateLimitUser("mfa_disable", mfaDisableRule), a.stepUp("step_up_action.turn_off_mfa", nil))
	signedIn.POST("/settings/mfa/recovery_codes", a.recoveryCodesRenew, a.stepUp("step_up_action.new_recovery_codes", nil))
	signedIn.POST("/settings/mfa/confirm", a.mfaConfirmed, a.stepUp("step_up_action.change_passkeys", nil))
	signedIn.POST("/settings/step_up/passkey/options", a.stepUpPasskeyOptions)
}

// requireEnrolment keeps a session that must set up a second factor on the enrolment pages
// (and sign-out).
func (a *app) requireEnrolment(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		ctx := c.Request().Context()
		if !a.Sessions.GetBool(ctx, sessMFAEnrol) {
			return next(c)
		}
		p := c.Request().URL.Path
		if strings.HasPrefix(p, "/settings/mfa/") || p == "/sign_out" {
			return next(c)
		}
		a.flash(c, "error", i18n.T(inLanguage(c), "mfa.required"))
		return redirect(c, "/settings/mfa/totp/new")
	}
}

// pendingSignIn is how a sign-in waiting for its second factor began.
type pendingSignIn struct {
	// Override is the admin override of local login.
	Override bool
	// Via is viaPassword, or the provider's name.
	Via string
	// Held is a password sign-in held at its account's wrong-password limit, and
	// PasswordWrong one whose password was wrong (auth.SignInResult).
	Held, PasswordWrong bool
}

// beginMFA holds a sign-in whose first step passed (or, held, seemed to) until its second
// factor: no session user yet, a new token, and five minutes. The session is the server's:
// the browser learns nothing of p.
func (a *app) beginMFA(c echo.Context, u *models.User, p pendingSignIn) error {
	ctx := c.Request().Context()
	if err := a.Sessions.RenewToken(ctx); err != nil {
		return err
	}
	a.Sessions.Put(ctx, sessMFAUser, u.ID.String())
	a.Sessions.Put(ctx, sessMFAStarted, a.Now().Unix())
	a.Sessions.Put(ctx, sessMFAOverride, p.Override)
	a.Sessions.Put(ctx, sessMFAVia, p.Via)
	a.Sessions.Put(ctx, sessMFAHeld, p.Held)
	a.Sessions.Put(ctx, sessMFAPasswordWrong, p.PasswordWrong)
	return redirect(c, "/sessions/mfa")
}

// heldRefusal is every refusal of a held sign-in's second step, a wrong password or a wrong
// code alike: which one was wrong is what guessing would learn.
func heldRefusal() error {
	var v apperr.Validation
	v.Add("code", "That password and code do not go together. Check the code, or sign in again from the start if the password may be wrong.")
	return v.Err()
}

// pendingMFA is the user waiting for their second factor; ok is false when there is none, or
// it waited too long (and is then forgotten, with a word on the sign-in page).
func (a *app) pendingMFA(c echo.Context) (id uuid.UUID, ok bool) {
	ctx := c.Request().Context()
	id, err := uuid.Parse(a.Sessions.GetString(ctx, sessMFAUser))
	if err != nil {
		return uuid.Nil, false
	}
	if a.Now().Sub(time.Unix(a.Sessions.GetInt64(ctx, sessMFAStarted), 0)) > mfaWindow {
		for _, k := range pendingSignInKeys {
			a.Sessions.Remove(ctx, k)
		}
		a.flash(c, "error", i18n.T(inLanguage(c), "mfa.code_waited"))
		return uuid.Nil, false
	}
	return id, true
}

func (a *app) mfaChallenge(c echo.Context) error {
	if currentUser(c) != nil {
		return redirect(c, "/")
	}
	id, ok := a.pendingMFA(c)
	if !ok {
		return redirect(c, "/sessions/new")
	}
	return a.challengePage(c, http.StatusOK, id, nil)
}

// challengePage asks the user id waiting at the second factor for it; a passkey button too
// when they have one.
func (a *app) challengePage(c echo.Context, status int, id uuid.UUID, form *views.Form) error {
	st, err := a.MFA.StatusOf(c.Request().Context(), id)
	if err != nil {
		return err
	}
	return a.render(c, status, views.MFAChallengePage(form, st.Passkeys > 0 && a.MFA.PasskeysEnabled()))
}

// mfaVerify completes a password sign-in with a TOTP or recovery code.
func (a *app) mfaVerify(c echo.Context) error {
	ctx := c.Request().Context()
	id, ok := a.pendingMFA(c)
	if !ok {
		return redirect(c, "/sessions/new")
	}
	held, passwordWrong := a.Sessions.GetBool(ctx, sessMFAHeld), a.Sessions.GetBool(ctx, sessMFAPasswordWrong)
	if err := a.mfaAttempt(c, id, passwordWrong); err != nil {
		return err
	}
	form := formOf(c)
	var method string
	var err error
	if passwordWrong {
		err = heldRefusal()
	} else if method, err = a.MFA.Verify(ctx, id, c.FormValue("code")); held && apperr.Is(err, apperr.Invalid) {
		err = heldRefusal()
	}
	if err == nil {
		err = a.mfaSucceeded(c, id)
	}
	if err != nil {
		if status, ok := withError(inLanguage(c), form, err); ok {
			// The wrong password of a held sign-in is audited already (login_failed).
			if !passwordWrong {
				if rerr := auditlog.Record(ctx, a.DB, auditlog.Event{Type: auditlog.EventMFAFailed, UserID: &id, Meta: a.meta(c)}); rerr != nil {
					return rerr
				}
			}
			return a.challengePage(c, status, id, form)
		}
		return err
	}
	u, err := a.finishPendingSignIn(c, id, method)
	if err != nil {
		return err
	}
	if method == mfa.MethodRecovery {
		st, err := a.MFA.StatusOf(ctx, u.ID)
		if err != nil {
			return err
		}
		if err := auditlog.Record(ctx, a.DB, auditlog.Event{Type: auditlog.EventMFARecoveryUsed, UserID: &u.ID, Meta: a.meta(c),
			Data: map[string]any{"left": st.RecoveryCodes}}); err != nil {
			return err
		}
		a.flash(c, "error", recoveryLeft(inLanguage(c), st.RecoveryCodes))
	}
	return redirect(c, a.returnTo(c))
}

// completeSignIn starts the session of a user who gave their second factor (or a passkey):
// the session remembers when.
func (a *app) completeSignIn(c echo.Context, id uuid.UUID) (*models.User, error) {
	ctx := c.Request().Context()
	u, err := a.Auth.UserForSession(ctx, id)
	if err != nil {
		return nil, err
	}
	if err := a.signIn(c, u); err != nil {
		return nil, err
	}
	a.Sessions.Put(ctx, sessMFAVerifiedAt, a.Now().Unix())
	return u, nil
}

// finishPendingSignIn completes the sign-in waiting at its second factor, which the user gave
// by method; a password sign-in is audited now (a provider's was at its callback).
func (a *app) finishPendingSignIn(c echo.Context, id uuid.UUID, method string) (*models.User, error) {
	ctx := c.Request().Context()
	via, override := a.Sessions.GetString(ctx, sessMFAVia), a.Sessions.GetBool(ctx, sessMFAOverride)
	u, err := a.completeSignIn(c, id)
	if err != nil {
		return nil, err
	}
	if via == viaPassword {
		if err := a.recordPasswordSignIn(c, u.ID, override, method); err != nil {
			return nil, err
		}
	}
	return u, nil
}

func recoveryLeft(ctx context.Context, n int) string {
	if n == 0 {
		return i18n.T(ctx, "mfa.recovery_last")
	}
	return i18n.N(ctx, "mfa.recovery_used", n)
}

// totpNew is the enrolment page: the QR code, the secret and its URI as text, and the form
// for the first code.
func (a *app) totpNew(c echo.Context) error {
	return a.totpPage(c, http.StatusOK, nil)
}

func (a *app) totpPage(c echo.Context, status int, form *views.Form) error {
	ctx, u := c.Request().Context(), currentUser(c)
	en, err := a.MFA.BeginTOTP(ctx, u.ID, u.Email)
	if apperr.Is(err, apperr.Conflict) {
		a.flash(c, "success", apperr.As(err).Message)
		return redirect(c, "/settings/security")
	}
	if err != nil {
		return err
	}
	svg, err := mfa.QRCodeSVG(en.URI)
	if err != nil {
		return err
	}
	return a.render(c, status, views.TOTPEnrolPage(views.TOTPEnrol{Secret: groupsOf4(en.Secret), URI: en.URI, QR: svg, Form: form}))
}

func groupsOf4(s string) string {
	var parts []string
	for len(s) > 4 {
		parts, s = append(parts, s[:4]), s[4:]
	}
	return strings.Join(append(parts, s), " ")
}

// totpConfirm turns TOTP on with its first code, and shows the recovery codes once.
func (a *app) totpConfirm(c echo.Context) error {
	ctx, u := c.Request().Context(), currentUser(c)
	form := formOf(c)
	codes, err := a.MFA.ConfirmTOTP(ctx, u.ID, c.FormValue("code"))
	if apperr.Is(err, apperr.Invalid) {
		withError(inLanguage(c), form, err)
		return a.totpPage(c, http.StatusUnprocessableEntity, form)
	}
	if err != nil {
		return err
	}
	if err := auditlog.Record(ctx, a.DB, auditlog.Event{Type: auditlog.EventMFAEnabled, UserID: &u.ID, Meta: a.meta(c),
		Data: map[string]any{"method": mfa.MethodTOTP}}); err != nil {
		return err
	}
	a.Sessions.Remove(ctx, sessMFAEnrol)
	a.Sessions.Put(ctx, sessMFAVerifiedAt, a.Now().Unix())
	return a.render(c, http.StatusOK, views.RecoveryCodesPage(codes, true))
}

// recoveryCodesRenew replaces the recovery codes and shows the new ones once.
func (a *app) recoveryCodesRenew(c echo.Context) error {
	ctx, u := c.Request().Context(), currentUser(c)
	codes, err := a.MFA.RegenerateRecoveryCodes(ctx, u.ID)
	if err != nil {
		return err
	}
	if err := auditlog.Record(ctx, a.DB, auditlog.Event{Type: auditlog.EventMFARecoveryRenewed, UserID: &u.ID, Meta: a.meta(c)}); err != nil {
		return err
	}
	return a.render(c, http.StatusOK, views.RecoveryCodesPage(codes, false))
}

// totpDisable turns TOTP off, given the user's password or a current code; a code given at
// this request's step-up is one.
func (a *app) totpDisable(c echo.Context) error {
	ctx, u := c.Request().Context(), currentUser(c)
	pw, code := c.FormValue("password"), strings.TrimSpace(c.FormValue("code"))
	proven := false
	switch {
	case steppedUp(c):
		proven = true
	case pw != "" && u.PasswordHash != nil:
		ok, err := password.Check(*u.PasswordHash, pw)
		if err != nil {
			return err
		}
		proven = ok
	case code != "":
		_, err := a.MFA.Verify(ctx, u.ID, code)
		if err != nil && !apperr.Is(err, apperr.Invalid) {
			return err
		}
		proven = err == nil
	}
	if !proven {
		if err := auditlog.Record(ctx, a.DB, auditlog.Event{Type: auditlog.EventMFAFailed, UserID: &u.ID, Meta: a.meta(c),
			Data: map[string]any{"action": "disable"}}); err != nil {
			return err
		}
		return a.securityPage(c, http.StatusUnprocessableEntity,
			"Two-factor sign-in is still on: enter your password, or a current code from your app, to turn it off.")
	}
	err := a.DB.InTx(ctx, func(ctx context.Context, tx db.Tx) error {
		if err := a.MFA.DisableTOTP(ctx, tx, u.ID); err != nil {
			return err
		}
		return auditlog.Record(ctx, tx, auditlog.Event{Type: auditlog.EventMFADisabled, UserID: &u.ID, Meta: a.meta(c), Data: map[string]any{"method": mfa.MethodTOTP}})
	})
	if err != nil {
		return err
	}
	a.flash(c, "success", i18n.T(inLanguage(c), "mfa.off"))
	return redirect(c, "/settings/security")
}

// stepUp asks a user with a second factor for it again before a sensitive action (what, the
// id of its name in the catalogues: "step_up_action.create_api_key", "create an API key")
// when they last gave it more than stepUpAfter ago. The page names the action in the user's
// language, the audit log in English. The question is
// a page whose form posts the action again, with the values of the original form (but no
// password: withheld) and the code: a right code lets the action through at once, and tells
// it so (steppedUp). applies, when not nil, narrows the check to some requests (an approval,
// not a refusal).
func (a *app) stepUp(what string, applies func(echo.Context) bool) echo.MiddlewareFunc {
	audited := i18n.T(context.Background(), what)
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			ctx, u := c.Request().Context(), currentUser(c)
			if applies != nil && !applies(c) {
				return next(c)
			}
			st, needed, err := a.stepUpNeeded(c)
			if err != nil {
				return err
			}
			if !needed {
				return next(c)
			}
			form := formOf(c)
			code, assertion := c.FormValue("step_up_code"), c.FormValue("step_up_passkey")
			if code != "" || assertion != "" {
				if err := a.mfaAttempt(c, u.ID, false); err != nil {
					return err
				}
				var method string
				var err error
				if assertion != "" {
					method = mfa.MethodPasskey
					var s webauthn.SessionData
					if s, err = a.takeCeremony(c, sessPasskeyStepUp); err == nil {
						_, err = a.MFA.FinishPasskeyLogin(ctx, s, &u.ID, strings.NewReader(assertion))
					}
				} else {
					method, err = a.MFA.Verify(ctx, u.ID, code)
				}
				if err == nil {
					if err := a.mfaSucceeded(c, u.ID); err != nil {
						return err
					}
					a.Sessions.Put(ctx, sessMFAVerifiedAt, a.Now().Unix())
					c.Set(ctxSteppedUp, true)
					if method == mfa.MethodRecovery {
						if err := auditlog.Record(ctx, a.DB, auditlog.Event{Type: auditlog.EventMFARecoveryUsed, UserID: &u.ID, Meta: a.meta(c),
							Data: map[string]any{"step_up": audited}}); err != nil {
							return err
						}
					}
					return next(c)
				}
				if _, ok := withError(inLanguage(c), form, err); !ok {
					return err
				}
				if msgs := form.Errors["code"]; msgs != nil {
					form.Errors = map[string][]string{"step_up_code": msgs}
				}
				if err := auditlog.Record(ctx, a.DB, auditlog.Event{Type: auditlog.EventMFAFailed, UserID: &u.ID, Meta: a.meta(c),
					Data: map[string]any{"step_up": audited, "method": method}}); err != nil {
					return err
				}
			}
			p := views.StepUp{What: i18n.T(inLanguage(c), what), Action: c.Request().URL.RequestURI(), Form: form,
				Code: st.TOTP, Passkey: st.Passkeys > 0 && a.MFA.PasskeysEnabled()}
			p.Fields, p.Again = carried(c.Request().PostForm)
			status := http.StatusOK
			if form.Errors != nil || form.Message != "" {
				status = http.StatusUnprocessableEntity
			}
			if isHTMX(c) {
				// The question is a page of its own, not a fragment for the element that asked
				// (a provider's row): htmx shows it whole.
				c.Response().Header().Set("HX-Retarget", "body")
				c.Response().Header().Set("HX-Reswap", "innerHTML")
			}
			return a.render(c, status, views.StepUpPage(p))
		}
	}
}

// ctxSteppedUp marks a request whose step-up was answered right in the request itself.
const ctxSteppedUp = "stepped_up"

// steppedUp reports whether the user gave their second factor in this very request, at a
// step-up: an action that asks for the password may take that in its place, as the step-up
// page never carries the password back (withheld).
func steppedUp(c echo.Context) bool {
	ok, _ := c.Get(ctxSteppedUp).(bool)
	return ok
}

// carried splits the values of the form that asked for a step-up into those its page posts
// again (fields) and the secrets it asks to be typed again (again): no password or secret is
// written back into the page.
func carried(posted url.Values) (fields []views.Hidden, again []views.Secret) {
	for name, values := range posted {
		if s, ok := retyped[name]; ok {
			if slices.ContainsFunc(values, func(v string) bool { return strings.TrimSpace(v) != "" }) {
				again = append(again, s)
			}
			continue
		}
		if name == "_csrf" || name == "step_up_code" || name == "step_up_passkey" || withheld(name) {
			continue
		}
		for _, v := range values {
			fields = append(fields, views.Hidden{Name: name, Value: v})
		}
	}
	slices.SortFunc(fields, func(x, y views.Hidden) int { return strings.Compare(x.Name, y.Name) })
	slices.SortFunc(again, func(x, y views.Secret) int { return strings.Compare(x.Name, y.Name) })
	return fields, again
}

// withheld reports whether a form value must not be written back into the step-up page: a
// password would sit in the page's HTML, in the browser's cache and within reach of its
// extensions. The right second factor stands in for it (steppedUp).
func withheld(name string) bool { return strings.Contains(strings.ToLower(name), "password") }

// retyped are the secrets of the forms behind a step-up (an SSO provider's): kept out of the
// step-up page as a password is, for the same reasons, but asked for again there, as no second
// factor stands in for them. A secret left behind would save the provider without it, or with
// the old one.
var retyped = map[string]views.Secret{
	"client_secret":  {Name: "client_secret", Label: "Client secret"},
	"sp_private_key": {Name: "sp_private_key", Label: "Tally's private key (PEM)", Multiline: true},
}

// stepUpPasskeyOptions starts a passkey assertion of the signed-in user, for a step-up.
func (a *app) stepUpPasskeyOptions(c echo.Context) error {
	id := currentUser(c).ID
	opts, s, err := a.MFA.BeginPasskeyLogin(c.Request().Context(), &id)
	return a.startCeremony(c, sessPasskeyStepUp, opts, s, err)
}

// rateLimitUser allows rule's number of requests per window and signed-in user for the route
// group called name, across every instance.
func (a *app) rateLimitUser(name string, rule ratelimit.Rule) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			if err := a.allowUser(c, name, currentUser(c).ID, rule); err != nil {
				return err
			}
			return next(c)
		}
	}
}

// allowUser counts one request of the user against rule for the limit called name, and
// refuses it (429, Retry-After) over the limit.
func (a *app) allowUser(c echo.Context, name string, userID uuid.UUID, rule ratelimit.Rule) error {
	res, err := a.Limiter.Allow(c.Request().Context(), name+"_user:"+userID.String(), rule)
	if err != nil {
		return err
	}
	if !res.Allowed {
		return a.tooMany(c, res, name)
	}
	return nil
}

// mfaConfirmed is POST /settings/mfa/confirm: its step-up is the point, and it goes back to
// the page that asked (a path of this site only).
func (a *app) mfaConfirmed(c echo.Context) error {
	back := c.FormValue("return_to")
	if !strings.HasPrefix(back, "/settings/") || strings.HasPrefix(back, "//") {
		back = "/settings/security"
	}
	return redirect(c, back)
}

// stepUpNeeded reports whether the session's user must give their second factor again: they
// have one, and last gave it more than stepUpAfter ago. st is their factors, when asked.
func (a *app) stepUpNeeded(c echo.Context) (st mfa.Status, needed bool, err error) {
	ctx := c.Request().Context()
	if a.Now().Sub(time.Unix(a.Sessions.GetInt64(ctx, sessMFAVerifiedAt), 0)) <= stepUpAfter {
		return st, false, nil
	}
	st, err = a.MFA.StatusOf(ctx, currentUser(c).ID)
	return st, st.Any(), err
}
