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

// merchantsIndex is GET /merchants: a page of the family's merchants and the form for a new
// one.
func (a *app) merchantsIndex(c echo.Context) error {
	return a.renderMerchants(c, http.StatusOK, nil)
}

func (a *app) renderMerchants(c echo.Context, status int, form *views.Form) error {
	page := pageNumber(c)
	list, total, err := models.Merchants(c.Request().Context(), a.DB, currentUser(c).FamilyID, models.Page{Number: page, Size: taxonomyPerPage})
	if err != nil {
		return err
	}
	l := views.TaxonomyList{Kind: views.MerchantTaxonomy, Form: form}
	for i := range list {
		l.Items = append(l.Items, merchantItem(&list[i]))
	}
	return a.renderTaxonomy(c, status, l, page, total)
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

// merchantCreate is POST /merchants.
func (a *app) merchantCreate(c echo.Context) error {
	form, in := merchantInput(c)
	m, err := models.CreateMerchant(c.Request().Context(), a.DB, currentUser(c).FamilyID, in)
	if err != nil {
		if status, ok := withError(form, err); ok {
			return a.renderMerchants(c, status, form)
		}
		return err
	}
	a.flash(c, "success", "Merchant “"+m.Name+"” created.")
	return redirect(c, "/merchants")
}

// pathMerchant is the family's merchant of :id; another family's is not found.
func (a *app) pathMerchant(c echo.Context) (*models.Merchant, error) {
	id, err := pathID(c)
	if err != nil {
		return nil, err
	}
	return models.MerchantByID(c.Request().Context(), a.DB, currentUser(c).FamilyID, id)
}

// merchantEdit is GET /merchants/:id/edit.
func (a *app) merchantEdit(c echo.Context) error {
	m, err := a.pathMerchant(c)
	if err != nil {
		return err
	}
	form := &views.Form{Values: map[string]string{"_submitted": "1", "name": m.Name, "color": m.Color, "website_url": m.WebsiteURL}}
	if m.Color != "" {
		form.Values["has_color"] = "1"
	}
	return a.render(c, http.StatusOK, views.TaxonomyEditPage(views.TaxonomyEdit{Kind: views.MerchantTaxonomy, Item: merchantItem(m), Form: form}))
}

// merchantUpdate is POST /merchants/:id: a new name, colour or website.
func (a *app) merchantUpdate(c echo.Context) error {
	m, err := a.pathMerchant(c)
	if err != nil {
		return err
	}
	form, in := merchantInput(c)
	updated, err := models.UpdateMerchant(c.Request().Context(), a.DB, m.FamilyID, m.ID, in)
	if err != nil {
		if status, ok := withError(form, err); ok {
			return a.render(c, status, views.TaxonomyEditPage(views.TaxonomyEdit{Kind: views.MerchantTaxonomy, Item: merchantItem(m), Form: form}))
		}
		return err
	}
	a.flash(c, "success", "Merchant “"+updated.Name+"” saved.")
	return redirect(c, "/merchants")
}

// merchantDelete is POST /merchants/:id/delete: its transactions keep no merchant, unless a
// rule sets it.
func (a *app) merchantDelete(c echo.Context) error {
	m, err := a.pathMerchant(c)
	if err != nil {
		return err
	}
	err = models.DeleteMerchant(c.Request().Context(), a.DB, m.FamilyID, m.ID)
	return a.taxonomyDeleted(c, views.MerchantTaxonomy, err,
		"Merchant “"+m.Name+"” deleted; "+views.Plural(m.TransactionsCount, "transaction now has", "transactions now have")+" no merchant.")
}
