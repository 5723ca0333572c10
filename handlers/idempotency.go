package handlers

import (
	"context"
	"encoding/json"

	"github.com/labstack/echo/v4"

	"tally/internal/apperr"
	"tally/internal/idempotency"
)

// idempotent answers a create request that may carry an Idempotency-Key: without one it runs
// create; with one, the first request runs create and keeps its answer, and a retry of the
// same request within 24 hours gets that answer again (with Idempotent-Replayed: true) and
// creates nothing. request is what the server read of the request, which decides "the same".
// An error is not kept: a retry after one runs again.
func (a *app) idempotent(c echo.Context, request any, create func() (int, any, error)) error {
	key := c.Request().Header.Get("Idempotency-Key")
	if key == "" {
		status, body, err := create()
		if err != nil {
			return err
		}
		return c.JSON(status, body)
	}
	ctx, u := c.Request().Context(), currentUser(c)
	fingerprint, err := idempotency.Fingerprint(c.Request().Method+" "+c.Path(), request)
	if err != nil {
		return err
	}
	kept, err := idempotency.Claim(ctx, a.DB, u.ID, key, fingerprint, a.Now())
	if e := apperr.As(err); e != nil && e.Slug == "idempotency_key_in_use" {
		c.Response().Header().Set("Retry-After", "1")
	}
	if err != nil {
		return err
	}
	if kept != nil {
		c.Response().Header().Set("Idempotent-Replayed", "true")
		return c.JSONBlob(kept.Status, kept.Body)
	}
	// The key's row outlives a client that hangs up: it is settled whatever the request's fate.
	settle := context.WithoutCancel(ctx)
	status, body, err := create()
	var raw []byte
	if err == nil {
		raw, err = json.Marshal(body)
	}
	if err != nil {
		if rerr := idempotency.Release(settle, a.DB, u.ID, key); rerr != nil {
			a.Log.Error("release idempotency key", "error", rerr)
		}
		return err
	}
	if err := idempotency.Store(settle, a.DB, u.ID, key, idempotency.Answer{Status: status, Body: raw}); err != nil {
		// The work is done and the client gets its answer; only a retry would not see it.
		a.Log.Error("keep idempotent answer", "error", err)
	}
	return c.JSONBlob(status, raw)
}
