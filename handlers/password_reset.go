package handlers

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"tally/auth"
	"tally/internal/apperr"
	"tally/internal/i18n"
	"tally/views"
)

// passwordResetOff sends people back to sign-in when password reset is off, and says so.
func (a *app) passwordResetOff(c echo.Context) (bool, error) {
	if a.Auth.Policy.PasswordResetEnabled() {
		return false, nil
	}
	a.flash(c, "error", auth.MsgPasswordResetOff)
	return true, redirect(c, "/sessions/new")
}

func (a *app) passwordResetNew(c echo.Context) error {
	if off, err := a.passwordResetOff(c); off {
		return err
	}
	return a.render(c, http.StatusOK, views.PasswordResetRequestPage(nil, c.QueryParam("sent") == "1"))
}

// passwordResetCreate mails a reset link; the answer is the same whether the email is known.
func (a *app) passwordResetCreate(c echo.Context) error {
	if off, err := a.passwordResetOff(c); off {
		return err
	}
	form := formOf(c, "email")
	if form.Value("email") == "" {
		form.Errors = map[string][]string{"email": {"Email can't be blank"}}
		return a.render(c, http.StatusUnprocessableEntity, views.PasswordResetRequestPage(form, false))
	}
	if err := a.Auth.RequestPasswordReset(c.Request().Context(), form.Value("email")); err != nil {
		return err
	}
	return redirect(c, "/password_reset/new?sent=1")
}

func (a *app) passwordResetEdit(c echo.Context) error {
	if off, err := a.passwordResetOff(c); off {
		return err
	}
	token := c.QueryParam("token")
	if err := a.Auth.CheckResetToken(c.Request().Context(), token); err != nil {
		if apperr.Is(err, apperr.Invalid) {
			a.flash(c, "error", auth.MsgInvalidResetToken)
			return redirect(c, "/password_reset/new")
		}
		return err
	}
	return a.render(c, http.StatusOK, views.PasswordResetEditPage(nil, token))
}

func (a *app) passwordResetUpdate(c echo.Context) error {
	if off, err := a.passwordResetOff(c); off {
		return err
	}
	token := c.FormValue("token")
	_, err := a.Auth.ResetPassword(c.Request().Context(), token, c.FormValue("password"))
	if err != nil {
		e := apperr.As(err)
		if e != nil && e.Code == apperr.Invalid && len(e.Fields) == 0 {
			a.flash(c, "error", e.Message)
			return redirect(c, "/password_reset/new")
		}
		form := &views.Form{}
		if status, ok := withError(inLanguage(c), form, err); ok {
			return a.render(c, status, views.PasswordResetEditPage(form, token))
		}
		return err
	}
	a.flash(c, "success", i18n.T(inLanguage(c), "sign_in_flash.password_reset"))
	return redirect(c, "/sessions/new")
}
