package handlers

import (
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"tally/internal/apperr"
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
