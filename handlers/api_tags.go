package handlers

import (
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

// tagsAPI is how the API serves the family's tags.
var tagsAPI = apiResource[models.Tag, TagJSON, models.TagInput]{list: models.Tags, byID: models.TagByID, create: models.CreateTag,
	update: models.UpdateTag, decode: decodeTag, json: tagJSON}

// apiTags is GET /api/v1/tags: a page of the family's tags by name.
func (a *app) apiTags(c echo.Context) error { return tagsAPI.index(a, c) }

// apiTagShow is GET /api/v1/tags/{id}.
func (a *app) apiTagShow(c echo.Context) error { return tagsAPI.show(a, c) }

// apiTagCreate is POST /api/v1/tags.
func (a *app) apiTagCreate(c echo.Context) error { return tagsAPI.add(a, c) }

// apiTagUpdate is PATCH /api/v1/tags/{id}.
func (a *app) apiTagUpdate(c echo.Context) error { return tagsAPI.change(a, c) }

// apiTagDelete is DELETE /api/v1/tags/{id}: the tag comes off every transaction.
func (a *app) apiTagDelete(c echo.Context) error { return tagsAPI.remove(a, c, models.DeleteTag) }
