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

// tagsIndex is GET /tags: a page of the family's tags and the form for a new one.
func (a *app) tagsIndex(c echo.Context) error {
	return a.renderTags(c, http.StatusOK, nil)
}

func (a *app) renderTags(c echo.Context, status int, form *views.Form) error {
	page := pageNumber(c)
	list, total, err := models.Tags(c.Request().Context(), a.DB, currentUser(c).FamilyID, models.Page{Number: page, Size: taxonomyPerPage})
	if err != nil {
		return err
	}
	l := views.TaxonomyList{Kind: views.TagTaxonomy, Form: form}
	for i := range list {
		l.Items = append(l.Items, tagItem(&list[i]))
	}
	return a.renderTaxonomy(c, status, l, page, total)
}

// tagInput reads the tag form.
func tagInput(c echo.Context) (*views.Form, models.TagInput) {
	form := formOf(c, "name", "color", "color_hex")
	name, color := form.Value("name"), colorOf(form)
	return form, models.TagInput{Name: &name, Color: &color}
}

// tagCreate is POST /tags.
func (a *app) tagCreate(c echo.Context) error {
	form, in := tagInput(c)
	t, err := models.CreateTag(c.Request().Context(), a.DB, currentUser(c).FamilyID, in)
	if err != nil {
		if status, ok := withError(form, err); ok {
			return a.renderTags(c, status, form)
		}
		return err
	}
	a.flash(c, "success", "Tag “"+t.Name+"” created.")
	return redirect(c, "/tags")
}

// pathTag is the family's tag of :id; another family's is not found.
func (a *app) pathTag(c echo.Context) (*models.Tag, error) {
	id, err := pathID(c)
	if err != nil {
		return nil, err
	}
	return models.TagByID(c.Request().Context(), a.DB, currentUser(c).FamilyID, id)
}

// tagEdit is GET /tags/:id/edit.
func (a *app) tagEdit(c echo.Context) error {
	t, err := a.pathTag(c)
	if err != nil {
		return err
	}
	form := &views.Form{Values: map[string]string{"name": t.Name, "color": t.Color}}
	return a.render(c, http.StatusOK, views.TaxonomyEditPage(views.TaxonomyEdit{Kind: views.TagTaxonomy, Item: tagItem(t), Form: form}))
}

// tagUpdate is POST /tags/:id: a new name or colour.
func (a *app) tagUpdate(c echo.Context) error {
	t, err := a.pathTag(c)
	if err != nil {
		return err
	}
	form, in := tagInput(c)
	updated, err := models.UpdateTag(c.Request().Context(), a.DB, t.FamilyID, t.ID, in)
	if err != nil {
		if status, ok := withError(form, err); ok {
			return a.render(c, status, views.TaxonomyEditPage(views.TaxonomyEdit{Kind: views.TagTaxonomy, Item: tagItem(t), Form: form}))
		}
		return err
	}
	a.flash(c, "success", "Tag “"+updated.Name+"” saved.")
	return redirect(c, "/tags")
}

// tagDelete is POST /tags/:id/delete: the tag comes off its transactions, unless a rule adds
// it.
func (a *app) tagDelete(c echo.Context) error {
	t, err := a.pathTag(c)
	if err != nil {
		return err
	}
	err = models.DeleteTag(c.Request().Context(), a.DB, t.FamilyID, t.ID)
	return a.taxonomyDeleted(c, views.TagTaxonomy, err,
		"Tag “"+t.Name+"” deleted; it came off "+views.Plural(t.TransactionsCount, "transaction", "transactions")+".")
}
