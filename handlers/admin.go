package handlers

import (
	"time"

	"github.com/labstack/echo/v4"

	"tally/internal/apperr"
	"tally/internal/ratelimit"
	"tally/models"
)

// adminRule limits /admin/* per IP, across every instance: 10 requests a minute unless
// ADMIN_RATE_LIMIT_PER_MINUTE says otherwise.
func (a *app) adminRule() ratelimit.Rule {
	return ratelimit.Rule{Limit: a.Config.AdminRateLimit, Window: time.Minute}
}

// requireSuperAdmin lets only super admins through. Anyone else, a family admin included,
// gets the answer of a page that does not exist: the admin pages are not theirs to find.
func (a *app) requireSuperAdmin(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if u := currentUser(c); u == nil || u.Role != models.RoleSuperAdmin {
			return apperr.New(apperr.NotFound, "Page not found")
		}
		return next(c)
	}
}

// isHTMX reports whether the request comes from htmx (and is not a history restore).
func isHTMX(c echo.Context) bool {
	h := c.Request().Header
	return h.Get("HX-Request") == "true" && h.Get("HX-History-Restore-Request") != "true"
}
