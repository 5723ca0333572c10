package handlers

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"tally/internal/i18n"
	"tally/models"
	"tally/views"
)

// familyRoutes registers Settings › Family: family admins only (anyone else gets a 404).
func (a *app) familyRoutes(g *echo.Group) {
	f := g.Group("/settings/family", requireFamilyAdmin)
	f.GET("", a.familyShow)
	f.POST("", a.familyUpdate)
	a.memberRoutes(f)
}

func (a *app) familyShow(c echo.Context) error {
	return a.render(c, http.StatusOK, views.FamilySettingsPage(views.FamilySettings{Family: currentUser(c).Family}))
}

// familyUpdate saves the family's settings; a bad field shows the form again with its error.
func (a *app) familyUpdate(c echo.Context) error {
	u := currentUser(c)
	form := formOf(c, "name", "currency", "locale", "date_format", "week_start", "timezone", "language")
	err := models.UpdateFamilySettings(c.Request().Context(), a.DB, u.FamilyID, models.FamilySettings{
		Name: form.Value("name"), Currency: form.Value("currency"), Locale: form.Value("locale"),
		DateFormat: form.Value("date_format"), WeekStart: form.Value("week_start"), Timezone: form.Value("timezone"),
		Language: form.Value("language"),
	})
	if err != nil {
		status, ok := withError(inLanguage(c), form, err)
		if !ok {
			return err
		}
		return a.render(c, status, views.FamilySettingsPage(views.FamilySettings{Family: u.Family, Form: form}))
	}
	// Said in the language the admin reads the next page in: the family's new one, unless
	// they chose their own.
	if l := form.Value("language"); l != "" { // a form from before the field leaves it
		u.Family.Language = l
	}
	a.flash(c, "success", i18n.T(inLanguage(c), "family.saved"))
	return redirect(c, "/settings/family")
}
