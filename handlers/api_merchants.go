package handlers

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"tally/models"
)

// MerchantJSON is Merchant in the OpenAPI document.
type MerchantJSON struct {
	ID                string  `json:"id"`
	Name              string  `json:"name"`
	Color             string  `json:"color"`
	WebsiteURL        string  `json:"website_url"`
	LogoURL           string  `json:"logo_url"`
	TransactionsCount int     `json:"transactions_count"`
	CreatedAt         apiTime `json:"created_at"`
	UpdatedAt         apiTime `json:"updated_at"`
}

func merchantJSON(m *models.Merchant) MerchantJSON {
	return MerchantJSON{ID: m.ID.String(), Name: m.Name, Color: m.Color, WebsiteURL: m.WebsiteURL, LogoURL: m.LogoURL,
		TransactionsCount: m.TransactionsCount, CreatedAt: apiTime(m.CreatedAt), UpdatedAt: apiTime(m.UpdatedAt)}
}

func decodeMerchant(c echo.Context) (models.MerchantInput, error) {
	var req struct {
		Name       *string `json:"name"`
		Color      *string `json:"color"`
		WebsiteURL *string `json:"website_url"`
		LogoURL    *string `json:"logo_url"`
	}
	err := decodeStrict(c, &req, "a merchant")
	return models.MerchantInput{Name: req.Name, Color: req.Color, WebsiteURL: req.WebsiteURL, LogoURL: req.LogoURL}, err
}

// apiMerchants is GET /api/v1/merchants: a page of the family's merchants by name.
func (a *app) apiMerchants(c echo.Context) error {
	page, per := pageParams(c)
	list, total, err := models.Merchants(c.Request().Context(), a.DB, currentUser(c).FamilyID, models.Page{Number: page, Size: per})
	if err != nil {
		return err
	}
	out := make([]MerchantJSON, len(list))
	for i := range list {
		out[i] = merchantJSON(&list[i])
	}
	return c.JSON(http.StatusOK, map[string]any{"data": out, "meta": pageMeta(page, per, total)})
}

// apiMerchantShow is GET /api/v1/merchants/{id}.
func (a *app) apiMerchantShow(c echo.Context) error {
	id, err := pathID(c)
	if err != nil {
		return err
	}
	m, err := models.MerchantByID(c.Request().Context(), a.DB, currentUser(c).FamilyID, id)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string]any{"data": merchantJSON(m)})
}

// apiMerchantCreate is POST /api/v1/merchants.
func (a *app) apiMerchantCreate(c echo.Context) error {
	in, err := decodeMerchant(c)
	if err != nil {
		return err
	}
	m, err := models.CreateMerchant(c.Request().Context(), a.DB, currentUser(c).FamilyID, in)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusCreated, map[string]any{"data": merchantJSON(m)})
}

// apiMerchantUpdate is PATCH /api/v1/merchants/{id}.
func (a *app) apiMerchantUpdate(c echo.Context) error {
	id, err := pathID(c)
	if err != nil {
		return err
	}
	in, err := decodeMerchant(c)
	if err != nil {
		return err
	}
	m, err := models.UpdateMerchant(c.Request().Context(), a.DB, currentUser(c).FamilyID, id, in)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string]any{"data": merchantJSON(m)})
}

// apiMerchantDelete is DELETE /api/v1/merchants/{id}: its transactions keep no merchant.
func (a *app) apiMerchantDelete(c echo.Context) error {
	id, err := pathID(c)
	if err != nil {
		return err
	}
	if err := models.DeleteMerchant(c.Request().Context(), a.DB, currentUser(c).FamilyID, id); err != nil {
		return err
	}
	return c.NoContent(http.StatusNoContent)
}
