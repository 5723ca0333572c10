package handlers

import (
	"context"
	"encoding/json"
	"net/http"

	"github.com/labstack/echo/v4"
	"github.com/uptrace/bun"

	"tally/internal/apperr"
	"tally/models"
)

// CategoryJSON is Category in the OpenAPI document.
type CategoryJSON struct {
	ID                string  `json:"id"`
	Name              string  `json:"name"`
	Classification    string  `json:"classification"`
	Color             string  `json:"color"`
	Icon              string  `json:"icon"`
	ParentID          *string `json:"parent_id"`
	TransactionsCount int     `json:"transactions_count"`
	CreatedAt         apiTime `json:"created_at"`
	UpdatedAt         apiTime `json:"updated_at"`
}

func categoryJSON(c *models.Category) CategoryJSON {
	return CategoryJSON{ID: c.ID.String(), Name: c.Name, Classification: c.Classification, Color: c.Color, Icon: c.Icon,
		ParentID: uuidString(c.ParentID), TransactionsCount: c.TransactionsCount, CreatedAt: apiTime(c.CreatedAt), UpdatedAt: apiTime(c.UpdatedAt)}
}

// categoryRequest is the body of POST and PATCH /api/v1/categories: every field optional on
// PATCH, where parent_id null makes the category a top-level one.
type categoryRequest struct {
	Name           *string         `json:"name"`
	Classification *string         `json:"classification"`
	Color          *string         `json:"color"`
	Icon           *string         `json:"icon"`
	ParentID       json.RawMessage `json:"parent_id"`
}

func decodeCategory(c echo.Context) (models.CategoryInput, error) {
	var req categoryRequest
	if err := decodeStrict(c, &req, "a category"); err != nil {
		return models.CategoryInput{}, err
	}
	var v apperr.Validation
	in := models.CategoryInput{Name: req.Name, Classification: req.Classification, Color: req.Color, Icon: req.Icon,
		ParentID: nullableID(&v, "parent_id", req.ParentID)}
	return in, v.Err()
}

// categoriesAPI is how the API serves the family's categories.
var categoriesAPI = apiResource[models.Category, CategoryJSON, models.CategoryInput]{list: models.Categories, byID: models.CategoryByID, create: createCategory,
	update: models.UpdateCategory, decode: decodeCategory, json: categoryJSON}

// apiCategories is GET /api/v1/categories: a page of the family's categories by name.
func (a *app) apiCategories(c echo.Context) error { return categoriesAPI.index(a, c) }

// apiCategoryShow is GET /api/v1/categories/{id}.
func (a *app) apiCategoryShow(c echo.Context) error { return categoriesAPI.show(a, c) }

// apiCategoryCreate is POST /api/v1/categories.
func (a *app) apiCategoryCreate(c echo.Context) error { return categoriesAPI.add(a, c) }

// apiCategoryUpdate is PATCH /api/v1/categories/{id}.
func (a *app) apiCategoryUpdate(c echo.Context) error { return categoriesAPI.change(a, c) }

// apiCategoryDelete is DELETE /api/v1/categories/{id}[?replacement_id=]: a category in use
// needs the category that takes over its transactions and rules.
func (a *app) apiCategoryDelete(c echo.Context) error {
	id, err := pathID(c)
	if err != nil {
		return err
	}
	var v apperr.Validation
	replacement := queryID(&v, c.QueryParams(), "replacement_id")
	if err := v.Err(); err != nil {
		return err
	}
	viewer, err := a.viewer(c)
	if err != nil {
		return err
	}
	if _, err := models.DeleteCategory(c.Request().Context(), a.DB, viewer, id, replacement); err != nil {
		return err
	}
	return c.NoContent(http.StatusNoContent)
}

// createCategory creates a category in the viewer's family: categories are the family's
// whoever uses them, so no viewer hides one.
func createCategory(ctx context.Context, db bun.IDB, v models.Viewer, in models.CategoryInput) (*models.Category, error) {
	return models.CreateCategory(ctx, db, v.FamilyID, in)
}
