package handlers

import (
	"fmt"

	"github.com/labstack/echo/v4"

	"tally/internal/apperr"
	"tally/models"
)

// apiAuth authenticates API requests by their X-Api-Key header.
func (a *app) apiAuth(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		u, k, err := a.Auth.AuthenticateAPIKey(c.Request().Context(), c.Request().Header.Get("X-Api-Key"))
		if err != nil {
			return err
		}
		c.Set(ctxUser, u)
		c.Set(ctxAPIKey, k)
		return next(c)
	}
}

// requireScope refuses keys whose scope does not cover scope (read or read_write).
func requireScope(scope string) echo.MiddlewareFunc {
	name := "read"
	if scope == models.ScopeReadWrite {
		name = "write"
	}
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			k, _ := c.Get(ctxAPIKey).(*models.APIKey)
			if k == nil || !k.Allows(scope) {
				return apperr.New(apperr.Forbidden, fmt.Sprintf("This action requires the '%s' scope", name)).
					WithSlug("insufficient_scope")
			}
			return next(c)
		}
	}
}
