package handlers

import (
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"tally/internal/apperr"
	"tally/internal/sessions"
	"tally/models"
	"tally/views"
)

func (a *app) signInPage(form *views.Form) views.SignIn {
	p := a.Auth.Policy
	return views.SignIn{Form: form, FormVisible: p.FormVisible(), AdminOnly: p.AdminOnly(), PasswordResetEnabled: p.PasswordResetEnabled()}
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
	return a.render(c, http.StatusOK, views.SignInPage(a.signInPage(nil)))
}

func (a *app) sessionRedirect(c echo.Context) error { return redirect(c, "/sessions/new") }

// sessionCreate signs in with email and password, as the local-login flags allow.
func (a *app) sessionCreate(c echo.Context) error {
	form := formOf(c, "email")
	res, err := a.Auth.SignIn(c.Request().Context(), c.FormValue("email"), c.FormValue("password"))
	if err != nil {
		if status, ok := withError(form, err); ok {
			return a.render(c, status, views.SignInPage(a.signInPage(form)))
		}
		return err
	}
	if err := a.signIn(c, res.User); err != nil {
		return err
	}
	to := a.Sessions.PopString(c.Request().Context(), sessReturnTo)
	if !strings.HasPrefix(to, "/") || strings.HasPrefix(to, "//") {
		to = "/"
	}
	return redirect(c, to)
}

// sessionDestroy signs out: the user leaves the session, whose token is renewed.
func (a *app) sessionDestroy(c echo.Context) error {
	ctx := c.Request().Context()
	a.Sessions.Remove(ctx, sessions.UserIDKey)
	a.Sessions.Remove(ctx, sessCSRF)
	if err := a.Sessions.RenewToken(ctx); err != nil {
		return err
	}
	a.flash(c, "success", "You have signed out successfully.")
	return redirect(c, "/sessions/new")
}

// asConflict returns err's message when it is a Conflict.
func asConflict(err error) string {
	if apperr.Is(err, apperr.Conflict) {
		return apperr.As(err).Message
	}
	return ""
}
