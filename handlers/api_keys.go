package handlers

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"tally/internal/i18n"
	"tally/models"
	"tally/views"
)

func (a *app) apiKeysPage(c echo.Context, status int, p views.APIKeys) error {
	keys, err := models.APIKeysForUser(c.Request().Context(), a.DB, currentUser(c).ID)
	if err != nil {
		return err
	}
	p.Keys = keys
	return a.render(c, status, views.APIKeysPage(p))
}

func (a *app) apiKeysIndex(c echo.Context) error {
	return a.apiKeysPage(c, http.StatusOK, views.APIKeys{})
}

// apiKeyCreate creates a key and shows it once. The page is rendered in answer to the POST
// rather than after a redirect, so that the key is never stored anywhere, not even in the
// session.
func (a *app) apiKeyCreate(c echo.Context) error {
	form := formOf(c, "name", "scope")
	if u := currentUser(c); u.Role.ReadOnly() && form.Value("scope") != models.ScopeRead {
		// A viewer's keys read: apiAuth caps them anyway, and the form says so.
		form.Errors = map[string][]string{"scope": {"A viewer's keys can only read: choose the read scope"}}
		return a.apiKeysPage(c, http.StatusUnprocessableEntity, views.APIKeys{Form: form})
	}
	k, key, err := models.CreateAPIKey(c.Request().Context(), a.DB, currentUser(c).ID, form.Value("name"), form.Value("scope"))
	if err != nil {
		if status, ok := withError(inLanguage(c), form, err); ok {
			return a.apiKeysPage(c, status, views.APIKeys{Form: form})
		}
		return err
	}
	return a.apiKeysPage(c, http.StatusCreated, views.APIKeys{NewKey: key, NewName: k.Name})
}

func (a *app) apiKeyRevoke(c echo.Context) error {
	id, err := pathID(c)
	if err != nil {
		return err
	}
	if err := models.RevokeAPIKey(c.Request().Context(), a.DB, currentUser(c).ID, id); err != nil {
		return err
	}
	a.flash(c, "success", i18n.T(inLanguage(c), "api_keys.revoked_flash"))
	return redirect(c, "/settings/api_keys")
}
