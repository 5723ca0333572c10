package handlers

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"tally/auth"
	"tally/internal/apperr"
	"tally/internal/metrics"
	"tally/internal/ratelimit"
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
			c.Set(ctxAPIScope, scopeFor(u, b.Scope()))
			c.Set(ctxAPICredential, "token:"+models.HashSecret(words[len(words)-1]))
			return a.apiLimit(c, next)
		}
		u, k, err := a.Auth.AuthenticateAPIKey(ctx, c.Request().Header.Get("X-Api-Key"))
		if err != nil {
			return err
		}
		c.Set(ctxUser, u)
		c.Set(ctxAPIScope, scopeFor(u, k.Scope))
		c.Set(ctxAPICredential, "key:"+k.ID.String())
		return a.apiLimit(c, next)
	}
}

// ctxAPICredential names the API key or access token of the request, for its limits.
const ctxAPICredential = "api_credential"

// apiLimit counts the request against its credential's limit (API_RATE_LIMIT_PER_MINUTE),
// shared by every instance through PostgreSQL, and says where it stands in the RateLimit-Limit,
// RateLimit-Remaining and RateLimit-Reset headers of every answer; past the limit it is a 429
// with Retry-After.
func (a *app) apiLimit(c echo.Context, next echo.HandlerFunc) error {
	limit := a.Config.APIRateLimit
	if limit == 0 {
		return next(c)
	}
	cred, _ := c.Get(ctxAPICredential).(string)
	res, err := a.Limiter.Allow(c.Request().Context(), "api:"+cred, ratelimit.Rule{Limit: limit, Window: time.Minute})
	if err != nil {
		return err
	}
	h := c.Response().Header()
	h.Set("RateLimit-Limit", strconv.Itoa(limit))
	h.Set("RateLimit-Remaining", strconv.Itoa(res.Remaining))
	h.Set("RateLimit-Reset", strconv.Itoa(max(1, int(math.Ceil(res.Reset.Seconds())))))
	if !res.Allowed {
		return a.tooMany(c, res, "api")
	}
	return next(c)
}

// limitImports counts the request against its credential's lower limit on creating imports
// (API_IMPORT_RATE_LIMIT_PER_MINUTE): each reads and stores up to 10 MB.
func (a *app) limitImports(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		limit := a.Config.APIImportRateLimit
		if limit == 0 {
			return next(c)
		}
		cred, _ := c.Get(ctxAPICredential).(string)
		res, err := a.Limiter.Allow(c.Request().Context(), "api_imports:"+cred, ratelimit.Rule{Limit: limit, Window: time.Minute})
		if err != nil {
			return err
		}
		if !res.Allowed {
			return a.tooMany(c, res, "api_imports")
		}
		return next(c)
	}
}

// tooMany is the 429 of a request the limit named limit refused, with Retry-After.
func (a *app) tooMany(c echo.Context, res ratelimit.Result, limit string) error {
	metrics.RateLimited.WithLabelValues(limit).Inc()
	secs := res.RetryAfterSeconds()
	c.Response().Header().Set("Retry-After", strconv.Itoa(secs))
	return apperr.Errorf(apperr.RateLimited, "Too many requests. Try again in %d seconds.", secs).WithSlug("rate_limit_exceeded")
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
