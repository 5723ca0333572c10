package handlers

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"tally/models"
	"tally/views"
)

func tagItem(t *models.Tag) views.TaxonomyItem {
	return views.TaxonomyItem{ID: t.ID.String(), Name: t.Name, Color: t.Color, Count: t.TransactionsCount}
}

// tagInput reads the tag form.
func tagInput(c echo.Context) (*views.Form, models.TagInput) {
	form := formOf(c, "name", "color", "color_hex")
	name, color := form.Value("name"), colorOf(form)
	return form, models.TagInput{Name: &name, Color: &color}
}

// tagPages serves the pages of the family's tags.
var tagPages = taxonomyPages[models.Tag, models.TagInput]{kind: views.TagTaxonomy,
	list: models.Tags, byID: models.TagByID, create: models.CreateTag, update: models.UpdateTag, remove: models.DeleteTag,
	item: tagItem, input: tagInput,
	values: func(t *models.Tag) *views.Form {
		return &views.Form{Values: map[string]string{"name": t.Name, "color": t.Color}}
	}}

// tagsIndex is GET /tags: a page of the family's tags and the form for a new one.
func (a *app) tagsIndex(c echo.Context) error { return tagPages.index(a, c, http.StatusOK, nil) }

// tagCreate is POST /tags.
func (a *app) tagCreate(c echo.Context) error { return tagPages.add(a, c) }

// tagEdit is GET /tags/:id/edit.
func (a *app) tagEdit(c echo.Context) error { return tagPages.edit(a, c) }

// tagUpdate is POST /tags/:id: a new name or colour.
func (a *app) tagUpdate(c echo.Context) error { return tagPages.change(a, c) }

// tagDelete is POST /tags/:id/delete: the tag comes off its transactions, unless a rule adds
// it.
func (a *app) tagDelete(c echo.Context) error { return tagPages.delete(a, c) }
