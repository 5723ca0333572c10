package handlers

import (
	"net/http"

	"github.com/a-h/templ"
	"github.com/labstack/echo/v4"

	"tally/auth"
	"tally/internal/i18n"
	"tally/models"
	"tally/views"
)

var onboardingFields = []string{"family_name", "first_name", "last_name", "email", "password", "currency", "timezone", "locale", "date_format", "language", "starter_categories", "_submitted"}

// onboardingNew shows the first-run form, only while no user exists: the family's language and
// number style are the browser's language's, the currency and date format its people's usual ones, and the starter
// categories are ticked. For htmx, a changed number style answers the starter categories'
// preview in its language, and its usual currency and date format out of band.
func (a *app) onboardingNew(c echo.Context) error {
	n, err := models.CountUsers(c.Request().Context(), a.DB)
	if err != nil {
		return err
	}
	if n > 0 {
		return redirect(c, "/sessions/new")
	}
	locale := models.LocaleOf(c.QueryParam("locale"))
	if c.QueryParam("locale") == "" {
		locale = models.LocaleFor(c.Request().Header.Get("Accept-Language"))
	}
	starter := models.StarterCategories(locale.Code)
	form := &views.Form{Values: map[string]string{"locale": locale.Code, "currency": locale.Currency,
		"date_format": locale.DateFormat, "starter_categories": "1"}}
	if isFragment(c, "starter-categories") {
		return a.render(c, http.StatusOK, templ.Join(views.StarterCategoriesPreview(starter), views.OnboardingUsual(form, true)))
	}
	return a.render(c, http.StatusOK, views.OnboardingPage(form, starter))
}

// onboardingCreate creates the first family and its super admin, with the starter categories
// when ticked, and signs them in.
func (a *app) onboardingCreate(c echo.Context) error {
	form := formOf(c, onboardingFields...)
	u, err := a.Auth.Onboard(c.Request().Context(), auth.Onboarding{
		FamilyName: form.Value("family_name"), FirstName: form.Value("first_name"), LastName: form.Value("last_name"),
		Email: form.Value("email"), Password: form.Value("password"), Currency: form.Value("currency"),
		Timezone: form.Value("timezone"), Locale: form.Value("locale"), DateFormat: form.Value("date_format"), StarterCategories: form.Value("starter_categories") != "",
		Language: form.Value("language"),
	})
	if err != nil {
		if e := asConflict(err); e != "" {
			a.flash(c, "error", e)
			return redirect(c, "/sessions/new")
		}
		if status, ok := withError(inLanguage(c), form, err); ok {
			return a.render(c, status, views.OnboardingPage(form, models.StarterCategories(form.Value("locale"))))
		}
		return err
	}
	if err := a.signIn(c, u); err != nil {
		return err
	}
	if a.Config.RequireMFA.Covers(true) { // the first user is a super admin
		a.Sessions.Put(c.Request().Context(), sessMFAEnrol, true)
	}
	a.flash(c, "success", i18n.T(i18n.WithLanguage(c.Request().Context(), u.Lang()), "onboarding.welcome"))
	return redirect(c, "/")
}
