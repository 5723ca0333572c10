package handlers

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"tally/models"
	"tally/views"
)

func merchantItem(m *models.Merchant) views.TaxonomyItem {
	return views.TaxonomyItem{ID: m.ID.String(), Name: m.Name, Color: m.Color, Website: m.WebsiteURL, Count: m.TransactionsCount}
}

// merchantInput reads the merchant form: without "Give it a colour" ticked, it has none.
func merchantInput(c echo.Context) (*views.Form, models.MerchantInput) {
	form := formOf(c, "name", "has_color", "color", "color_hex", "website_url")
	form.Values["_submitted"] = "1"
	name, website, color := form.Value("name"), form.Value("website_url"), ""
	if form.Value("has_color") != "" {
		color = colorOf(form)
	}
	return form, models.MerchantInput{Name: &name, Color: &color, WebsiteURL: &website}
}

// merchantPages serves the pages of the family's merchants.
var merchantPages = taxonomyPages[models.Merchant, models.MerchantInput]{kind: views.MerchantTaxonomy,
	list: models.Merchants, byID: models.MerchantByID, create: models.CreateMerchant, update: models.UpdateMerchant,
	remove: models.DeleteMerchant, item: merchantItem, input: merchantInput,
	values: func(m *models.Merchant) *views.Form {
		form := &views.Form{Values: map[string]string{"_submitted": "1", "name": m.Name, "color": m.Color, "website_url": m.WebsiteURL}}
		if m.Color != "" {
			form.Values["has_color"] = "1"
		}
		return form
	}}

// merchantsIndex is GET /merchants: a page of the family's merchants and the form for a new
// one.
func (a *app) merchantsIndex(c echo.Context) error {
	return merchantPages.index(a, c, http.StatusOK, nil)
}

// merchantCreate is POST /merchants.
func (a *app) merchantCreate(c echo.Context) error { return merchantPages.add(a, c) }

// merchantEdit is GET /merchants/:id/edit.
func (a *app) merchantEdit(c echo.Context) error { return merchantPages.edit(a, c) }

// merchantUpdate is POST /merchants/:id: a new name, colour or website.
func (a *app) merchantUpdate(c echo.Context) error { return merchantPages.change(a, c) }

// merchantDelete is POST /merchants/:id/delete: its transactions keep no merchant, unless a
// rule sets it.
func (a *app) merchantDelete(c echo.Context) error { return merchantPages.delete(a, c) }
