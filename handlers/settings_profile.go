package handlers

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"tally/auth"
	"tally/internal/i18n"
	"tally/models"
	"tally/views"
)

// profileRoutes are the signed-in person's own profile: details, number style, date format
// and password. The forms that check the current password are limited as sign-in is.
func (a *app) profileRoutes(g *echo.Group) {
	g.GET("/settings/profile", a.profileShow)
	g.POST("/settings/profile", a.profileUpdate, a.rateLimit("profile", loginRule))
	g.POST("/settings/profile/password", a.profilePassword, a.rateLimit("profile", loginRule))
}

func (a *app) profileShow(c echo.Context) error {
	return a.render(c, http.StatusOK, views.SettingsProfilePage(views.ProfilePage{User: currentUser(c)}))
}

// profileUpdate saves the details form; a new email needs the current password.
func (a *app) profileUpdate(c echo.Context) error {
	u := currentUser(c)
	form := formOf(c, "first_name", "last_name", "email", "locale", "date_format", "language")
	err := a.Auth.UpdateProfile(c.Request().Context(), u, auth.ProfileChange{
		ProfileInput: models.ProfileInput{FirstName: form.Value("first_name"), LastName: form.Value("last_name"),
			Email: form.Value("email"), Locale: form.Value("locale"), DateFormat: form.Value("date_format"),
			Language: form.Value("language")},
		CurrentPassword: c.FormValue("email_password"),
	})
	if err != nil {
		status, ok := withError(inLanguage(c), form, err)
		if !ok {
			return err
		}
		// The details form names its password field apart from the password form's.
		if msgs, ok := form.Errors["current_password"]; ok {
			form.Errors["email_password"] = msgs
			delete(form.Errors, "current_password")
		}
		return a.render(c, status, views.SettingsProfilePage(views.ProfilePage{User: u, Details: form}))
	}
	// Said in the language just chosen, which the next page is in.
	saved := *u
	saved.Language = form.Value("language")
	a.flash(c, "success", i18n.T(i18n.WithLanguage(c.Request().Context(), saved.Lang()), "profile.saved"))
	return redirect(c, "/settings/profile")
}

// profilePassword changes the password and signs out the person's other sessions.
func (a *app) profilePassword(c echo.Context) error {
	ctx, u := c.Request().Context(), currentUser(c)
	form := formOf(c)
	n, err := a.Auth.ChangePassword(ctx, u, c.FormValue("current_password"), c.FormValue("password"),
		c.FormValue("password_confirmation"), a.Sessions.Token(ctx))
	if err != nil {
		status, ok := withError(inLanguage(c), form, err)
		if !ok {
			return err
		}
		return a.render(c, status, views.SettingsProfilePage(views.ProfilePage{User: u, Password: form}))
	}
	msg := i18n.T(inLanguage(c), "profile.password_changed")
	if n > 0 {
		msg = i18n.N(inLanguage(c), "profile.password_changed_signed_out", int(n))
	}
	a.flash(c, "success", msg)
	return redirect(c, "/settings/profile")
}
