package handlers

import (
	"context"
	"net/http"
	"strconv"
	"strings"

	"github.com/google/uuid"
	"github.com/labstack/echo/v4"
	"github.com/uptrace/bun"

	"tally/internal/apperr"
	"tally/internal/i18n"
	"tally/models"
	"tally/views"
)

// What the pages of categories, tags and merchants share.

// taxonomyPerPage is a page of /tags and /merchants.
const taxonomyPerPage = 50

// colorOf is the colour a category, tag or merchant form gives: the hex code typed, or else
// the picker's.
func colorOf(form *views.Form) string {
	if hex := strings.TrimSpace(form.Value("color_hex")); hex != "" {
		return hex
	}
	return form.Value("color")
}

// renderTaxonomy renders page of the tags or merchants in l, of total, with its pager; for
// the pager's htmx request only the list.
func (a *app) renderTaxonomy(c echo.Context, status int, l views.TaxonomyList, page, total int) error {
	link := func(p int) string { return l.Kind.Path + "?page=" + strconv.Itoa(p) }
	if page > 1 {
		l.PrevURL = link(page - 1)
	}
	if page*taxonomyPerPage < total {
		l.NextURL = link(page + 1)
	}
	if isFragment(c, l.Kind.Noun+"-list") {
		return a.render(c, status, views.TaxonomyTable(l))
	}
	return a.render(c, status, views.TaxonomyListPage(l))
}

// taxonomyDeleted answers the deletion of a tag or merchant: back to the list, saying done, or
// saying why not when rules still name it (a conflict).
func (a *app) taxonomyDeleted(c echo.Context, kind views.Taxonomy, err error, done string) error {
	if e := apperr.As(err); e != nil && e.Code == apperr.Conflict {
		a.flash(c, "error", e.Message)
		return redirect(c, kind.Path)
	}
	if err != nil {
		return err
	}
	a.flash(c, "success", done)
	return redirect(c, kind.Path)
}

// taxonomyPages serves the pages of the family's tags or merchants, a record M made from the
// form's input In, through the models functions.
type taxonomyPages[M, In any] struct {
	kind   views.Taxonomy
	list   func(context.Context, bun.IDB, models.Viewer, models.Page) ([]M, int, error)
	byID   func(context.Context, bun.IDB, models.Viewer, uuid.UUID) (*M, error)
	create func(context.Context, bun.IDB, models.Viewer, In) (*M, error)
	update func(context.Context, bun.IDB, models.Viewer, uuid.UUID, In) (*M, error)
	remove func(context.Context, bun.IDB, models.Viewer, uuid.UUID) error
	item   func(*M) views.TaxonomyItem
	// input reads the form; values fills it with a record, for its edit page.
	input  func(echo.Context) (*views.Form, In)
	values func(*M) *views.Form
}

// index is GET /<kind>: a page of the family's records and the form for a new one, shown
// again with its errors when form is set.
func (p taxonomyPages[M, In]) index(a *app, c echo.Context, status int, form *views.Form) error {
	viewer, err := a.viewer(c)
	if err != nil {
		return err
	}
	page := pageNumber(c)
	list, total, err := p.list(c.Request().Context(), a.DB, viewer, models.Page{Number: page, Size: taxonomyPerPage})
	if err != nil {
		return err
	}
	l := views.TaxonomyList{Kind: p.kind, Form: form}
	for i := range list {
		l.Items = append(l.Items, p.item(&list[i]))
	}
	return a.renderTaxonomy(c, status, l, page, total)
}

// add is POST /<kind>.
func (p taxonomyPages[M, In]) add(a *app, c echo.Context) error {
	form, in := p.input(c)
	viewer, err := a.viewer(c)
	if err != nil {
		return err
	}
	m, err := p.create(c.Request().Context(), a.DB, viewer, in)
	if err != nil {
		if status, ok := withError(inLanguage(c), form, err); ok {
			return p.index(a, c, status, form)
		}
		return err
	}
	a.flash(c, "success", i18n.T(inLanguage(c), p.kind.Created, "Name", p.item(m).Name))
	return redirect(c, p.kind.Path)
}

// path is the family's record of :id, and the id; another family's is not found.
func (p taxonomyPages[M, In]) path(a *app, c echo.Context) (*M, uuid.UUID, error) {
	id, err := pathID(c)
	if err != nil {
		return nil, id, err
	}
	viewer, err := a.viewer(c)
	if err != nil {
		return nil, id, err
	}
	m, err := p.byID(c.Request().Context(), a.DB, viewer, id)
	return m, id, err
}

// edit is GET /<kind>/:id/edit.
func (p taxonomyPages[M, In]) edit(a *app, c echo.Context) error {
	m, _, err := p.path(a, c)
	if err != nil {
		return err
	}
	return a.render(c, http.StatusOK, views.TaxonomyEditPage(views.TaxonomyEdit{Kind: p.kind, Item: p.item(m), Form: p.values(m)}))
}

// change is POST /<kind>/:id.
func (p taxonomyPages[M, In]) change(a *app, c echo.Context) error {
	viewer, err := a.viewer(c)
	if err != nil {
		return err
	}
	m, id, err := p.path(a, c)
	if err != nil {
		return err
	}
	form, in := p.input(c)
	updated, err := p.update(c.Request().Context(), a.DB, viewer, id, in)
	if err != nil {
		if status, ok := withError(inLanguage(c), form, err); ok {
			return a.render(c, status, views.TaxonomyEditPage(views.TaxonomyEdit{Kind: p.kind, Item: p.item(m), Form: form}))
		}
		return err
	}
	a.flash(c, "success", i18n.T(inLanguage(c), p.kind.Saved, "Name", p.item(updated).Name))
	return redirect(c, p.kind.Path)
}

// delete is POST /<kind>/:id/delete.
func (p taxonomyPages[M, In]) delete(a *app, c echo.Context) error {
	m, id, err := p.path(a, c)
	if err != nil {
		return err
	}
	viewer, err := a.viewer(c)
	if err != nil {
		return err
	}
	err = p.remove(c.Request().Context(), a.DB, viewer, id)
	it := p.item(m)
	return a.taxonomyDeleted(c, p.kind, err, i18n.N(inLanguage(c), p.kind.Deleted, it.Count, "Name", it.Name))
}
