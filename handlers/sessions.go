package handlers

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"tally/internal/apperr"
	"tally/models"
	"tally/sso"
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

// sessionCreate signs in with email and password, as the local-login flags allow.
func (a *app) sessionCreate(c echo.Context) error {
	form := formOf(c, "email")
	res, err := a.Auth.SignIn(c.Request().Context(), c.FormValue("email"), c.FormValue("password"))
	if err != nil {
		if status, ok := withError(form, err); ok {
			return a.render(c, status, views.SignInPage(a.signInView(c, form)))
		}
		return err
	}
	st, err := a.MFA.StatusOf(c.Request().Context(), res.User.ID)
	if err != nil {
		return err
	}
	if st.Any() {
		return a.beginMFA(c, res.User, res.Override)
	}
	if err := a.signIn(c, res.User); err != nil {
		return err
	}
	if a.Config.RequireMFA.Covers(res.User.Role.Rank() >= models.RoleAdmin.Rank()) {
		a.Sessions.Put(c.Request().Context(), sessMFAEnrol, true)
	}
	if res.Override {
		// A password sign-in while local login is off: the admin override, always audited.
		if err := sso.Record(c.Request().Context(), a.DB, sso.Event{Type: sso.EventOverrideLogin, UserID: &res.User.ID, Meta: a.meta(c)}); err != nil {
			return err
		}
	}
	return redirect(c, a.returnTo(c))
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
