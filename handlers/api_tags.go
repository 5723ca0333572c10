package handlers

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"tally/models"
)

// TagJSON is Tag in the OpenAPI document.
type TagJSON struct {
	ID                string  `json:"id"`
	Name              string  `json:"name"`
	Color             string  `json:"color"`
	TransactionsCount int     `json:"transactions_count"`
	CreatedAt         apiTime `json:"created_at"`
	UpdatedAt         apiTime `json:"updated_at"`
}

func tagJSON(t *models.Tag) TagJSON {
	return TagJSON{ID: t.ID.String(), Name: t.Name, Color: t.Color, TransactionsCount: t.TransactionsCount,
		CreatedAt: apiTime(t.CreatedAt), UpdatedAt: apiTime(t.UpdatedAt)}
}

func decodeTag(c echo.Context) (models.TagInput, error) {
	var req struct {
		Name  *string `json:"name"`
		Color *string `json:"color"`
	}
	err := decodeStrict(c, &req, "a tag")
	return models.TagInput{Name: req.Name, Color: req.Color}, err
}

// apiTags is GET /api/v1/tags: a page of the family's tags by name.
func (a *app) apiTags(c echo.Context) error {
	page, per := pageParams(c)
	list, total, err := models.Tags(c.Request().Context(), a.DB, currentUser(c).FamilyID, models.Page{Number: page, Size: per})
	if err != nil {
		return err
	}
	out := make([]TagJSON, len(list))
	for i := range list {
		out[i] = tagJSON(&list[i])
	}
	return c.JSON(http.StatusOK, map[string]any{"data": out, "meta": pageMeta(page, per, total)})
}

// apiTagShow is GET /api/v1/tags/{id}.
func (a *app) apiTagShow(c echo.Context) error {
	id, err := pathID(c)
	if err != nil {
		return err
	}
	t, err := models.TagByID(c.Request().Context(), a.DB, currentUser(c).FamilyID, id)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string]any{"data": tagJSON(t)})
}

// apiTagCreate is POST /api/v1/tags.
func (a *app) apiTagCreate(c echo.Context) error {
	in, err := decodeTag(c)
	if err != nil {
		return err
	}
	t, err := models.CreateTag(c.Request().Context(), a.DB, currentUser(c).FamilyID, in)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusCreated, map[string]any{"data": tagJSON(t)})
}

// apiTagUpdate is PATCH /api/v1/tags/{id}.
func (a *app) apiTagUpdate(c echo.Context) error {
	id, err := pathID(c)
	if err != nil {
		return err
	}
	in, err := decodeTag(c)
	if err != nil {
		return err
	}
	t, err := models.UpdateTag(c.Request().Context(), a.DB, currentUser(c).FamilyID, id, in)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string]any{"data": tagJSON(t)})
}

// apiTagDelete is DELETE /api/v1/tags/{id}: the tag comes off every transaction.
func (a *app) apiTagDelete(c echo.Context) error {
	id, err := pathID(c)
	if err != nil {
		return err
	}
	if err := models.DeleteTag(c.Request().Context(), a.DB, currentUser(c).FamilyID, id); err != nil {
		return err
	}
	return c.NoContent(http.StatusNoContent)
}
