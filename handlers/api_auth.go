package handlers

import (
	"fmt"
	"strings"

	"github.com/labstack/echo/v4"

	"tally/auth"
	"tally/internal/apperr"
	"tally/models"
)

// Messages for a bearer token the API refuses.
const (
	msgBearerInvalid      = "Access token is invalid, expired, or missing required scope"
	msgBearerUserNotFound = "Access token is invalid - user not found"
)

// apiAuth authenticates API requests: an OAuth bearer token when the request has an
// Authorization header (and then only it: a bad token is final), else the X-Api-Key header.
// Either way the request gets its user and its scope.
func (a *app) apiAuth(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		ctx := c.Request().Context()
		if h := c.Request().Header.Get("Authorization"); h != "" {
			words := strings.Fields(h)
			if len(words) == 0 {
				return apperr.New(apperr.Unauthorized, msgBearerInvalid)
			}
			b, err := a.OAuth.AuthenticateBearer(ctx, words[len(words)-1])
			if err != nil {
				return apperr.New(apperr.Unauthorized, msgBearerInvalid)
			}
			u, err := models.UserByID(ctx, a.DB, b.UserID)
			if apperr.Is(err, apperr.NotFound) {
				return apperr.New(apperr.Unauthorized, msgBearerUserNotFound)
			}
			if err != nil {
				return err
			}
			if !u.Active() {
				return apperr.New(apperr.Unauthorized, auth.MsgAccountDeactivated)
			}
			c.Set(ctxUser, u)
			c.Set(ctxAPIScope, b.Scope())
			return next(c)
		}
		u, k, err := a.Auth.AuthenticateAPIKey(ctx, c.Request().Header.Get("X-Api-Key"))
		if err != nil {
			return err
		}
		c.Set(ctxUser, u)
		c.Set(ctxAPIScope, k.Scope)
		return next(c)
	}
}

// requireScope refuses credentials whose scope does not cover scope (read or read_write).
func requireScope(scope string) echo.MiddlewareFunc {
	name := "read"
	if scope == models.ScopeReadWrite {
		name = "write"
	}
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			have, _ := c.Get(ctxAPIScope).(string)
			if !models.ScopeCovers(have, scope) {
				return apperr.New(apperr.Forbidden, fmt.Sprintf("This action requires the '%s' scope", name)).
					WithSlug("insufficient_scope")
			}
			return next(c)
		}
	}
}
