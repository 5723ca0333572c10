package handlers

import (
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

// merchantsAPI is how the API serves the family's merchants.
var merchantsAPI = apiResource[models.Merchant, MerchantJSON, models.MerchantInput]{list: models.Merchants, byID: models.MerchantByID, create: models.CreateMerchant,
	update: models.UpdateMerchant, decode: decodeMerchant, json: merchantJSON}

// apiMerchants is GET /api/v1/merchants: a page of the family's merchants by name.
func (a *app) apiMerchants(c echo.Context) error { return merchantsAPI.index(a, c) }

// apiMerchantShow is GET /api/v1/merchants/{id}.
func (a *app) apiMerchantShow(c echo.Context) error { return merchantsAPI.show(a, c) }

// apiMerchantCreate is POST /api/v1/merchants.
func (a *app) apiMerchantCreate(c echo.Context) error { return merchantsAPI.add(a, c) }

// apiMerchantUpdate is PATCH /api/v1/merchants/{id}.
func (a *app) apiMerchantUpdate(c echo.Context) error { return merchantsAPI.change(a, c) }

// apiMerchantDelete is DELETE /api/v1/merchants/{id}: its transactions keep no merchant.
func (a *app) apiMerchantDelete(c echo.Context) error {
	return merchantsAPI.remove(a, c, models.DeleteMerchant)
}
