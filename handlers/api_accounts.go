package handlers

import (
	"encoding/json"
	"net/http"
	"strings"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/shopspring/decimal"

	"tally/internal/apperr"
	"tally/models"
)

// AccountJSON is an account in the API.
type AccountJSON struct {
	ID              string    `json:"id"`
	Name            string    `json:"name"`
	AccountableType string    `json:"accountable_type"`
	Subtype         string    `json:"subtype"`
	Classification  string    `json:"classification"`
	Currency        string    `json:"currency"`
	Balance         string    `json:"balance"`
	Status          string    `json:"status"`
	CreatedAt       time.Time `json:"created_at"`
	UpdatedAt       time.Time `json:"updated_at"`
}

func accountJSON(a *models.Account) AccountJSON {
	return AccountJSON{
		ID: a.ID.String(), Name: a.Name, AccountableType: a.AccountableType, Subtype: a.Subtype,
		Classification: a.Classification(), Currency: a.Currency, Balance: a.Balance.StringFixed(2),
		Status: a.Status, CreatedAt: a.CreatedAt.UTC(), UpdatedAt: a.UpdatedAt.UTC(),
	}
}

// apiAccountsIndex lists the family's accounts.
func (a *app) apiAccountsIndex(c echo.Context) error {
	accts, err := models.AccountsForFamily(c.Request().Context(), a.DB, currentUser(c).FamilyID)
	if err != nil {
		return err
	}
	out := make([]AccountJSON, len(accts))
	for i := range accts {
		out[i] = accountJSON(&accts[i])
	}
	return c.JSON(http.StatusOK, map[string]any{"data": out})
}

// apiAccountShow returns one account of the family; another family's is not found.
func (a *app) apiAccountShow(c echo.Context) error {
	id, err := pathID(c)
	if err != nil {
		return err
	}
	acct, err := models.AccountByID(c.Request().Context(), a.DB, currentUser(c).FamilyID, id)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string]any{"data": accountJSON(acct)})
}

// accountCreateRequest is the body of POST /api/v1/accounts.
type accountCreateRequest struct {
	Name            string          `json:"name"`
	AccountableType string          `json:"accountable_type"`
	Subtype         string          `json:"subtype"`
	Currency        string          `json:"currency"`
	Balance         decimal.Decimal `json:"balance"`
}

// apiAccountCreate creates a manual account in the family.
func (a *app) apiAccountCreate(c echo.Context) error {
	var req accountCreateRequest
	if err := json.NewDecoder(c.Request().Body).Decode(&req); err != nil {
		return apperr.Wrap(apperr.BadRequest, err, "The request body must be a JSON object: "+err.Error())
	}
	u := currentUser(c)
	if req.Currency == "" {
		req.Currency = u.Family.Currency
	}
	if err := models.CheckDecimals(req.Balance, strings.ToUpper(strings.TrimSpace(req.Currency))); err != nil {
		var v apperr.Validation
		v.Add("balance", "Balance: "+err.Error()+"; it is never rounded")
		return v.Err()
	}
	acct, err := models.CreateAccount(c.Request().Context(), a.DB, u.FamilyID, models.AccountInput{
		Name: req.Name, AccountableType: req.AccountableType, Subtype: req.Subtype,
		Currency: req.Currency, OpeningBalance: req.Balance,
	})
	if err != nil {
		return err
	}
	return c.JSON(http.StatusCreated, map[string]any{"data": accountJSON(acct)})
}
