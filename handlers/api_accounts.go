package handlers

import (
	"encoding/json"
	"net/http"
	"strconv"
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
	Name            string `json:"name"`
	AccountableType string `json:"accountable_type"`
	Subtype         string `json:"subtype"`
	Currency        string `json:"currency"`
	// Balance is what the account holds (or owes) now, its anchor; absent when not known.
	Balance *decimal.Decimal `json:"balance"`
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
	if req.Balance != nil {
		if err := models.CheckDecimals(*req.Balance, strings.ToUpper(strings.TrimSpace(req.Currency))); err != nil {
			var v apperr.Validation
			v.Add("balance", "Balance: "+err.Error()+"; it is never rounded")
			return v.Err()
		}
	}
	acct, err := models.CreateAccount(c.Request().Context(), a.DB, u.FamilyID, models.AccountInput{
		Name: req.Name, AccountableType: req.AccountableType, Subtype: req.Subtype,
		Currency: req.Currency, Balance: req.Balance, BalanceDate: u.Family.Today(),
	})
	if err != nil {
		return err
	}
	return c.JSON(http.StatusCreated, map[string]any{"data": accountJSON(acct)})
}

// apiAccountUpdate is PATCH /api/v1/accounts/{id}: name, subtype and status (active or
// disabled), each only when given, checked as the account's form checks them.
func (a *app) apiAccountUpdate(c echo.Context) error {
	id, err := pathID(c)
	if err != nil {
		return err
	}
	var req struct {
		Name    *string `json:"name"`
		Subtype *string `json:"subtype"`
		Status  *string `json:"status"`
	}
	if err := decodeStrict(c, &req, "the account's fields to change"); err != nil {
		return err
	}
	acct, err := models.ChangeAccount(c.Request().Context(), a.DB, currentUser(c).FamilyID, id,
		models.AccountChanges{Name: req.Name, Subtype: req.Subtype, Status: req.Status})
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string]any{"data": accountJSON(acct)})
}

// apiAccountDelete is DELETE /api/v1/accounts/{id}?confirm=<the account's name>: the account
// and its whole history. Without the name, the 422 on confirm says what would go.
func (a *app) apiAccountDelete(c echo.Context) error {
	id, err := pathID(c)
	if err != nil {
		return err
	}
	if _, err := models.DeleteAccount(c.Request().Context(), a.DB, currentUser(c).FamilyID, id, c.QueryParam("confirm")); err != nil {
		return err
	}
	return c.NoContent(http.StatusNoContent)
}

// DailyBalanceJSON is DailyBalance in the OpenAPI document.
type DailyBalanceJSON struct {
	Date    string `json:"date"`
	Balance string `json:"balance"`
}

// defaultBalanceDays is how many days GET /accounts/{id}/balances covers without a start.
const defaultBalanceDays = 90

// apiAccountBalances is GET /api/v1/accounts/{id}/balances: the account's balance at the end
// of each day from start_date to end_date (by default the 90 days up to today, in the
// family's time zone).
func (a *app) apiAccountBalances(c echo.Context) error {
	id, err := pathID(c)
	if err != nil {
		return err
	}
	ctx, u := c.Request().Context(), currentUser(c)
	acct, err := models.AccountByID(ctx, a.DB, u.FamilyID, id)
	if err != nil {
		return err
	}
	var v apperr.Validation
	date := func(name string) *time.Time {
		s := c.QueryParam(name)
		if s == "" {
			return nil
		}
		d, err := time.Parse(time.DateOnly, s)
		if err != nil {
			v.Add(name, name+" "+strconv.Quote(s)+" is not a date (YYYY-MM-DD)")
			return nil
		}
		return &d
	}
	start, end := date("start_date"), date("end_date")
	if err := v.Err(); err != nil {
		return err
	}
	if end == nil {
		today := u.Family.Today()
		end = &today
	}
	if start == nil {
		s := end.AddDate(0, 0, 1-defaultBalanceDays)
		start = &s
	}
	series, err := models.DailyBalances(ctx, a.DB, u.FamilyID, acct.ID, *start, *end)
	if err != nil {
		return err
	}
	out := make([]DailyBalanceJSON, len(series))
	for i, p := range series {
		out[i] = DailyBalanceJSON{Date: p.Date.Format(time.DateOnly), Balance: amountString(p.Balance, acct.Currency)}
	}
	return c.JSON(http.StatusOK, map[string]any{"data": out, "meta": map[string]any{
		"account_id": acct.ID.String(), "currency": acct.Currency,
		"start_date": start.Format(time.DateOnly), "end_date": end.Format(time.DateOnly)}})
}
