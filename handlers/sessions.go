package handlers

import (
	"net/http"

	"github.com/google/uuid"
	"github.com/labstack/echo/v4"

	"tally/auditlog"
	"tally/auth"
	"tally/internal/apperr"
	"tally/models"
	"tally/views"
)

func (a *app) signInPage(form *views.Form) views.SignIn {
	p := a.Auth.Policy
	return views.SignIn{Form: form, FormVisible: p.FormVisible(), AdminOnly: p.AdminOnly(), PasswordResetEnabled: p.PasswordResetEnabled(),
		Passkeys: a.MFA.PasskeysEnabled()}
}

func (a *app) signInView(c echo.Context, form *views.Form) views.SignIn {
	v := a.signInPage(form)
	v.Providers = a.ssoButtons(c)
	return v
}

// sessionNew shows the sign-in page, or onboarding on a new instance.
func (a *app) sessionNew(c echo.Context) error {
	if currentUser(c) != nil {
		return redirect(c, "/")
	}
	n, err := models.CountUsers(c.Request().Context(), a.DB)
	if err != nil {
		return err
	}
	if n == 0 {
		return redirect(c, "/onboarding")
	}
	return a.render(c, http.StatusOK, views.SignInPage(a.signInView(c, nil)))
}

func (a *app) sessionRedirect(c echo.Context) error { return redirect(c, "/sessions/new") }

// sessionCreate signs in with email and password, as the local-login flags and the
// account's wrong-password limit allow.
func (a *app) sessionCreate(c echo.Context) error {
	ctx := c.Request().Context()
	form := formOf(c, "email")
	res, err := a.Auth.SignIn(ctx, auth.Attempt{Email: c.FormValue("email"), Password: c.FormValue("password"),
		Browser: a.browserMarks(c), Meta: a.meta(c)})
	if err != nil {
		if status, ok := withError(inLanguage(c), form, err); ok {
			return a.render(c, status, views.SignInPage(a.signInView(c, form)))
		}
		return err
	}
	if res.Held {
		return a.beginMFA(c, res.User, pendingSignIn{Override: res.Override, Via: viaPassword, PasswordWrong: !res.PasswordRight, Held: true})
	}
	st, err := a.MFA.StatusOf(ctx, res.User.ID)
	if err != nil {
		return err
	}
	if st.Any() {
		return a.beginMFA(c, res.User, pendingSignIn{Override: res.Override, Via: viaPassword})
	}
	if err := a.signIn(c, res.User); err != nil {
		return err
	}
	if a.Config.RequireMFA.Covers(res.User.Role.Rank() >= models.RoleAdmin.Rank()) {
		a.Sessions.Put(ctx, sessMFAEnrol, true)
	}
	if err := a.recordPasswordSignIn(c, res.User.ID, res.Override, ""); err != nil {
		return err
	}
	return redirect(c, a.returnTo(c))
}

// viaPassword is the first step of a password sign-in (pendingSignIn.Via).
const viaPassword = "password"

// recordPasswordSignIn audits the start of a password sign-in's session (login, method
// password, with the second factor given if any) and, for the admin override of local login,
// override_login too.
func (a *app) recordPasswordSignIn(c echo.Context, userID uuid.UUID, override bool, secondFactor string) error {
	ctx := c.Request().Context()
	data := map[string]any{"method": viaPassword}
	if secondFactor != "" {
		data["second_factor"] = secondFactor
	}
	if err := auditlog.Record(ctx, a.DB, auditlog.Event{Type: auditlog.EventLogin, UserID: &userID, Meta: a.meta(c), Data: data}); err != nil {
		return err
	}
	if override {
		// A password sign-in while local login is off: the admin override, always audited.
		return auditlog.Record(ctx, a.DB, auditlog.Event{Type: auditlog.EventOverrideLogin, UserID: &userID, Meta: a.meta(c)})
	}
	return nil
}

// sessionDestroy signs out: the user leaves the session, whose token is renewed; a session
// that signed in through an OIDC provider is signed out there too, when it allows.
func (a *app) sessionDestroy(c echo.Context) error { return a.signOut(c, true) }

// asConflict returns err's message when it is a Conflict.
func asConflict(err error) string {
	if apperr.Is(err, apperr.Conflict) {
		return apperr.As(err).Message
	}
	return ""
}
