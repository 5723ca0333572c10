package handlers

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"

	"github.com/go-webauthn/webauthn/webauthn"
	"github.com/labstack/echo/v4"

	"tally/auditlog"
	"tally/internal/apperr"
	"tally/internal/db"
	"tally/internal/i18n"
	"tally/mfa"
	"tally/views"
)

// Session keys of the passkey ceremonies in flight: what the browser's answer must match.
const (
	sessPasskeyRegister = "passkey_register"
	sessPasskeyLogin    = "passkey_login"
	sessPasskeyMFA      = "passkey_mfa"
	sessPasskeyStepUp   = "passkey_step_up"
)

// passkeyRoutes registers the passkey pages and the ceremonies' JSON endpoints, which the
// page's script calls with the CSRF token in X-CSRF-Token.
func (a *app) passkeyRoutes(web, signedIn *echo.Group) {
	web.POST("/sessions/passkey/options", a.passkeyLoginOptions)
	web.POST("/sessions/passkey", a.passkeyLogin, a.rateLimit("login", loginRule))
	web.POST("/sessions/mfa/passkey/options", a.passkeyMFAOptions)
	web.POST("/sessions/mfa/passkey", a.passkeyMFA)
	signedIn.GET("/settings/passkeys", a.passkeysPage)
	signedIn.POST("/settings/passkeys/options", a.passkeyRegisterOptions)
	signedIn.POST("/settings/passkeys/register", a.passkeyRegister)
	signedIn.POST("/settings/passkeys/:id/delete", a.passkeyDelete, a.stepUp("step_up_action.remove_passkey", nil))
}

// isPasskeyCeremony reports whether path is one of the JSON steps of a passkey ceremony,
// whose errors are JSON for the page's script.
func isPasskeyCeremony(path string) bool {
	switch path {
	case "/sessions/passkey/options", "/sessions/passkey", "/sessions/mfa/passkey/options", "/sessions/mfa/passkey",
		"/settings/passkeys/options", "/settings/passkeys/register", "/settings/step_up/passkey/options":
		return true
	}
	return false
}

// startCeremony answers the first step of a passkey ceremony begun with err: the options for
// the browser, with the ceremony's state kept in the session under key for its answer.
func (a *app) startCeremony(c echo.Context, key string, opts any, s *webauthn.SessionData, err error) error {
	if err != nil {
		return err
	}
	raw, err := json.Marshal(s)
	if err != nil {
		return err
	}
	a.Sessions.Put(c.Request().Context(), key, string(raw))
	return c.JSON(http.StatusOK, opts)
}

// takeCeremony is the state stored under key, removed: each ceremony is answered once.
func (a *app) takeCeremony(c echo.Context, key string) (webauthn.SessionData, error) {
	var s webauthn.SessionData
	raw := a.Sessions.PopString(c.Request().Context(), key)
	if raw == "" || json.Unmarshal([]byte(raw), &s) != nil {
		return s, apperr.New(apperr.Invalid, "This passkey request has expired or was answered already: try again.").WithSlug("passkey_refused")
	}
	return s, nil
}

func (a *app) passkeyRegisterOptions(c echo.Context) error {
	if currentUser(c).PasswordHash == nil {
		return apperr.New(apperr.Forbidden, "You sign in through single sign-on, and your provider keeps your second factor: passkeys are for password sign-ins.").WithSlug("passkey_refused")
	}
	if _, needed, err := a.stepUpNeeded(c); err != nil {
		return err
	} else if needed {
		return apperr.New(apperr.Forbidden, "Confirm it is you first: use “Confirm it is you” on this page, then add the passkey.").WithSlug("step_up_required")
	}
	opts, s, err := a.MFA.BeginPasskeyRegistration(c.Request().Context(), currentUser(c).ID)
	return a.startCeremony(c, sessPasskeyRegister, opts, s, err)
}

// passkeyRegister is POST /settings/passkeys/register?name=: the browser's new credential.
func (a *app) passkeyRegister(c echo.Context) error {
	ctx, u := c.Request().Context(), currentUser(c)
	s, err := a.takeCeremony(c, sessPasskeyRegister)
	if err != nil {
		return err
	}
	p, err := a.MFA.FinishPasskeyRegistration(ctx, u.ID, s, c.QueryParam("name"), c.Request().Body)
	if err != nil {
		return err
	}
	if err := auditlog.Record(ctx, a.DB, auditlog.Event{Type: auditlog.EventMFAEnabled, UserID: &u.ID, Meta: a.meta(c),
		Data: map[string]any{"method": mfa.MethodPasskey, "name": p.Name}}); err != nil {
		return err
	}
	a.flash(c, "success", i18n.T(inLanguage(c), "passkeys.added_flash", "Name", p.Name))
	return c.JSON(http.StatusOK, map[string]string{"redirect": "/settings/passkeys"})
}

func (a *app) passkeysPage(c echo.Context) error {
	ctx, u := c.Request().Context(), currentUser(c)
	list, err := a.MFA.Passkeys(ctx, u.ID)
	if err != nil {
		return err
	}
	st, err := a.MFA.StatusOf(ctx, u.ID)
	if err != nil {
		return err
	}
	_, confirmFirst, err := a.stepUpNeeded(c)
	if err != nil {
		return err
	}
	p := views.PasskeysPage{Enabled: a.MFA.PasskeysEnabled(), ConfirmFirst: confirmFirst}
	for _, k := range list {
		p.Passkeys = append(p.Passkeys, views.PasskeyRow{ID: k.ID.String(), Name: k.Name, CreatedAt: k.CreatedAt, LastUsedAt: k.LastUsedAt,
			Synced: k.Synced, Remaining: remainingAfter(inLanguage(c), u.PasswordHash != nil, st, len(list)-1)})
	}
	return a.render(c, http.StatusOK, views.Passkeys(p))
}

// remainingAfter names, in the language of ctx, what still signs the user in once a passkey
// is removed, leaving passkeys others.
func remainingAfter(ctx context.Context, password bool, st mfa.Status, passkeys int) string {
	var ways []string
	if password {
		switch {
		case st.TOTP:
			ways = append(ways, i18n.T(ctx, "passkeys.way_password_app"))
		case passkeys == 0:
			ways = append(ways, i18n.T(ctx, "passkeys.way_password_alone"))
		default:
			ways = append(ways, i18n.T(ctx, "passkeys.way_password"))
		}
	}
	if passkeys > 0 {
		ways = append(ways, i18n.N(ctx, "passkeys.way_passkeys", passkeys))
	}
	if len(ways) == 0 {
		return i18n.T(ctx, "passkeys.remaining_sso")
	}
	return i18n.T(ctx, "passkeys.remaining", "Ways", strings.Join(ways, i18n.T(ctx, "passkeys.ways_or")))
}

// passkeyDelete is POST /settings/passkeys/:id/delete.
func (a *app) passkeyDelete(c echo.Context) error {
	ctx, u := c.Request().Context(), currentUser(c)
	id, err := pathID(c)
	if err != nil {
		return err
	}
	var name string
	err = a.DB.InTx(ctx, func(ctx context.Context, tx db.Tx) error {
		if name, err = a.MFA.RemovePasskey(ctx, tx, u.ID, id); err != nil {
			return err
		}
		return auditlog.Record(ctx, tx, auditlog.Event{Type: auditlog.EventMFADisabled, UserID: &u.ID, Meta: a.meta(c),
			Data: map[string]any{"method": mfa.MethodPasskey, "name": name}})
	})
	if err != nil {
		return err
	}
	a.flash(c, "success", i18n.T(inLanguage(c), "passkeys.removed", "Name", name))
	return redirect(c, "/settings/passkeys")
}

// passkeyLoginOptions starts a sign-in by passkey alone.
func (a *app) passkeyLoginOptions(c echo.Context) error {
	opts, s, err := a.MFA.BeginPasskeyLogin(c.Request().Context(), nil)
	return a.startCeremony(c, sessPasskeyLogin, opts, s, err)
}

// passkeyLogin signs in with a passkey: a passkey is a second factor in itself (something
// held, unlocked by something known or a fingerprint), so it asks for no code.
func (a *app) passkeyLogin(c echo.Context) error {
	ctx := c.Request().Context()
	s, err := a.takeCeremony(c, sessPasskeyLogin)
	if err != nil {
		return err
	}
	id, err := a.MFA.FinishPasskeyLogin(ctx, s, nil, c.Request().Body)
	if err != nil {
		return err
	}
	// A passkey alone is a local sign-in: the local-login rules hold for it as for a password.
	u, err := a.Auth.UserForSession(ctx, id)
	if err != nil {
		return err
	}
	override, err := a.Auth.Policy.Admits(u.Role)
	if err != nil {
		return err
	}
	if _, err := a.completeSignIn(c, id); err != nil {
		return err
	}
	if err := auditlog.Record(ctx, a.DB, auditlog.Event{Type: auditlog.EventLogin, UserID: &id, Meta: a.meta(c),
		Data: map[string]any{"method": mfa.MethodPasskey}}); err != nil {
		return err
	}
	if override {
		if err := auditlog.Record(ctx, a.DB, auditlog.Event{Type: auditlog.EventOverrideLogin, UserID: &id, Meta: a.meta(c)}); err != nil {
			return err
		}
	}
	return c.JSON(http.StatusOK, map[string]string{"redirect": a.returnTo(c)})
}

// passkeyMFAOptions starts a passkey as the second factor of a password sign-in.
func (a *app) passkeyMFAOptions(c echo.Context) error {
	id, ok := a.pendingMFA(c)
	if !ok {
		return apperr.New(apperr.Invalid, "The sign-in waited too long: enter your password again.").WithSlug("passkey_refused")
	}
	opts, s, err := a.MFA.BeginPasskeyLogin(c.Request().Context(), &id)
	return a.startCeremony(c, sessPasskeyMFA, opts, s, err)
}

func (a *app) passkeyMFA(c echo.Context) error {
	ctx := c.Request().Context()
	id, ok := a.pendingMFA(c)
	if !ok {
		return apperr.New(apperr.Invalid, "The sign-in waited too long: enter your password again.").WithSlug("passkey_refused")
	}
	held, passwordWrong := a.Sessions.GetBool(ctx, sessMFAHeld), a.Sessions.GetBool(ctx, sessMFAPasswordWrong)
	if err := a.mfaAttempt(c, id, passwordWrong); err != nil {
		return err
	}
	s, err := a.takeCeremony(c, sessPasskeyMFA)
	if err != nil {
		return err
	}
	if passwordWrong {
		// Audited already (login_failed); told as a refused passkey of a held sign-in is.
		return heldPasskeyRefusal()
	}
	got, err := a.MFA.FinishPasskeyLogin(ctx, s, &id, c.Request().Body)
	if err != nil {
		if rerr := auditlog.Record(ctx, a.DB, auditlog.Event{Type: auditlog.EventMFAFailed, UserID: &id, Meta: a.meta(c),
			Data: map[string]any{"method": mfa.MethodPasskey}}); rerr != nil {
			return rerr
		}
		if held && !apperr.Is(err, apperr.Internal) {
			return heldPasskeyRefusal()
		}
		return err
	}
	if err := a.mfaSucceeded(c, id); err != nil {
		return err
	}
	if _, err := a.finishPendingSignIn(c, got, mfa.MethodPasskey); err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string]string{"redirect": a.returnTo(c)})
}

// heldPasskeyRefusal is every refusal of a held sign-in's passkey, after a wrong password or
// not (heldRefusal).
func heldPasskeyRefusal() error {
	return apperr.New(apperr.Invalid, "That password and passkey do not go together. Sign in again from the start if the password may be wrong.").
		WithSlug("passkey_refused")
}
