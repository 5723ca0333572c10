package handlers

import (
	"context"
	"net/http"

	"github.com/google/uuid"
	"github.com/labstack/echo/v4"
	"github.com/uptrace/bun"

	"tally/models"
)

// apiResource is one of the family's lists the API serves the same way (categories, tags,
// merchants, recurring series): a record M, its JSON J and its input In, through the models functions.
type apiResource[M, J, In any] struct {
	list   func(context.Context, bun.IDB, models.Viewer, models.Page) ([]M, int, error)
	byID   func(context.Context, bun.IDB, models.Viewer, uuid.UUID) (*M, error)
	create func(context.Context, bun.IDB, models.Viewer, In) (*M, error)
	update func(context.Context, bun.IDB, models.Viewer, uuid.UUID, In) (*M, error)
	decode func(echo.Context) (In, error)
	json   func(*M) J
}

// index answers a page of the family's records by name, with its meta.
func (r apiResource[M, J, In]) index(a *app, c echo.Context) error {
	viewer, err := a.viewer(c)
	if err != nil {
		return err
	}
	page, per := pageParams(c)
	list, total, err := r.list(c.Request().Context(), a.DB, viewer, models.Page{Number: page, Size: per})
	if err != nil {
		return err
	}
	out := make([]J, len(list))
	for i := range list {
		out[i] = r.json(&list[i])
	}
	return c.JSON(http.StatusOK, map[string]any{"data": out, "meta": pageMeta(page, per, total)})
}

// show answers the family's record of :id; another family's is not found.
func (r apiResource[M, J, In]) show(a *app, c echo.Context) error {
	viewer, err := a.viewer(c)
	if err != nil {
		return err
	}
	id, err := pathID(c)
	if err != nil {
		return err
	}
	m, err := r.byID(c.Request().Context(), a.DB, viewer, id)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string]any{"data": r.json(m)})
}

// add creates a record from the body.
func (r apiResource[M, J, In]) add(a *app, c echo.Context) error {
	in, err := r.decode(c)
	if err != nil {
		return err
	}
	viewer, err := a.viewer(c)
	if err != nil {
		return err
	}
	m, err := r.create(c.Request().Context(), a.DB, viewer, in)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusCreated, map[string]any{"data": r.json(m)})
}

// change changes the record of :id with the fields the body gives.
func (r apiResource[M, J, In]) change(a *app, c echo.Context) error {
	viewer, err := a.viewer(c)
	if err != nil {
		return err
	}
	id, err := pathID(c)
	if err != nil {
		return err
	}
	in, err := r.decode(c)
	if err != nil {
		return err
	}
	m, err := r.update(c.Request().Context(), a.DB, viewer, id, in)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string]any{"data": r.json(m)})
}

// remove deletes the record of :id.
func (r apiResource[M, J, In]) remove(a *app, c echo.Context, del func(context.Context, bun.IDB, models.Viewer, uuid.UUID) error) error {
	viewer, err := a.viewer(c)
	if err != nil {
		return err
	}
	id, err := pathID(c)
	if err != nil {
		return err
	}
	if err := del(c.Request().Context(), a.DB, viewer, id); err != nil {
		return err
	}
	return c.NoContent(http.StatusNoContent)
}
