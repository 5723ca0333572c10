package handlers

import (
	"encoding/json"
	"net/http"
	"time"

	"github.com/google/uuid"
	"github.com/labstack/echo/v4"
	"github.com/shopspring/decimal"

	"tally/internal/apperr"
	"tally/ledger"
	"tally/models"
	"tally/transfers"
)

// TransactionJSON is Transaction in the OpenAPI document.
type TransactionJSON struct {
	ID           string                   `json:"id"`
	AccountID    string                   `json:"account_id"`
	Date         string                   `json:"date"`
	Amount       string                   `json:"amount"`
	Currency     string                   `json:"currency"`
	Name         string                   `json:"name"`
	OriginalName *string                  `json:"original_name"`
	Notes        string                   `json:"notes"`
	CategoryID   *string                  `json:"category_id"`
	MerchantID   *string                  `json:"merchant_id"`
	TagIDs       []string                 `json:"tag_ids"`
	Excluded     bool                     `json:"excluded"`
	Pending      bool                     `json:"pending"`
	Kind         string                   `json:"kind"`
	Transfer     *TransactionTransferJSON `json:"transfer"`
	LockedFields []string                 `json:"locked_fields"`
	ImportID     *string                  `json:"import_id"`
	Source       *string                  `json:"source"`
	CreatedAt    apiTime                  `json:"created_at"`
	UpdatedAt    apiTime                  `json:"updated_at"`
}

// TransactionTransferJSON is the transfer a transaction is a side of.
type TransactionTransferJSON struct {
	ID                 string `json:"id"`
	Status             string `json:"status"`
	OtherTransactionID string `json:"other_transaction_id"`
	OtherAccountID     string `json:"other_account_id"`
}

func optString(id *uuid.UUID) *string {
	if id == nil {
		return nil
	}
	s := id.String()
	return &s
}

func transactionJSON(t *ledger.Transaction) TransactionJSON {
	out := TransactionJSON{ID: t.ID.String(), AccountID: t.AccountID.String(), Date: t.Date.Format(time.DateOnly),
		Amount: amountString(t.Amount, t.Currency), Currency: t.Currency, Name: t.Name, OriginalName: t.OriginalName, Notes: t.Notes,
		CategoryID: optString(t.CategoryID), MerchantID: optString(t.MerchantID), TagIDs: []string{}, Excluded: t.Excluded,
		Pending: t.Pending, Kind: t.TransactionKind, LockedFields: t.LockedFields, ImportID: optString(t.ImportID),
		Source: t.Source, CreatedAt: apiTime(t.CreatedAt), UpdatedAt: apiTime(t.UpdatedAt)}
	for _, id := range t.TagIDs {
		out.TagIDs = append(out.TagIDs, id.String())
	}
	if out.LockedFields == nil {
		out.LockedFields = []string{}
	}
	if t.Transfer != nil {
		out.Transfer = &TransactionTransferJSON{ID: t.Transfer.ID.String(), Status: t.Transfer.Status,
			OtherTransactionID: t.Transfer.OtherEntryID.String(), OtherAccountID: t.Transfer.OtherAccount.String()}
	}
	return out
}

// transactionRequest is the body of POST /api/v1/transactions.
type transactionRequest struct {
	AccountID  *uuid.UUID       `json:"account_id"`
	Date       string           `json:"date"`
	Amount     *decimal.Decimal `json:"amount"`
	Currency   string           `json:"currency"`
	Name       string           `json:"name"`
	Notes      string           `json:"notes"`
	CategoryID *uuid.UUID       `json:"category_id"`
	MerchantID *uuid.UUID       `json:"merchant_id"`
	TagIDs     []uuid.UUID      `json:"tag_ids"`
	Excluded   *bool            `json:"excluded"`
}

// amountString is an amount with its currency's decimals: "12.50" USD, "1500" JPY.
func amountString(d decimal.Decimal, currency string) string {
	return d.StringFixed(int32(models.CurrencyDecimals(currency)))
}

// apiTransactionCreate is POST /api/v1/transactions: a transaction added by hand, which the
// family's rules and transfer matching see as they see an imported one.
func (a *app) apiTransactionCreate(c echo.Context) error {
	var req transactionRequest
	dec := json.NewDecoder(c.Request().Body)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); err != nil {
		return apperr.Wrap(apperr.BadRequest, err, "The request body must be a transaction as a JSON object: "+err.Error())
	}
	var v apperr.Validation
	in := ledger.NewTransaction{Currency: req.Currency, Name: req.Name, Notes: req.Notes, CategoryID: req.CategoryID,
		MerchantID: req.MerchantID, TagIDs: req.TagIDs, Excluded: req.Excluded}
	if req.AccountID == nil {
		v.Add("account_id", "account_id is required")
	} else {
		in.AccountID = *req.AccountID
	}
	if req.Amount != nil {
		in.Amount = *req.Amount
	}
	if req.Date != "" {
		d, err := time.Parse(time.DateOnly, req.Date)
		if err != nil {
			v.Add("date", "date "+req.Date+" is not a date (YYYY-MM-DD)")
		}
		in.Date = d
	}
	if err := v.Err(); err != nil {
		return err
	}
	ctx, u := c.Request().Context(), currentUser(c)
	id, err := ledger.Create(ctx, a.DB, a.Log, u.FamilyID, in)
	if err != nil {
		return err
	}
	t, err := ledger.Get(ctx, a.DB, u.FamilyID, id)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusCreated, map[string]any{"data": transactionJSON(t)})
}

// apiTransactionShow is GET /api/v1/transactions/{id}.
func (a *app) apiTransactionShow(c echo.Context) error {
	id, err := pathID(c)
	if err != nil {
		return err
	}
	t, err := ledger.Get(c.Request().Context(), a.DB, currentUser(c).FamilyID, id)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string]any{"data": transactionJSON(t)})
}

// TransferJSON is Transfer in the OpenAPI document.
type TransferJSON struct {
	ID        string           `json:"id"`
	Status    string           `json:"status"`
	Notes     string           `json:"notes"`
	Outflow   TransferSideJSON `json:"outflow"`
	Inflow    TransferSideJSON `json:"inflow"`
	CreatedAt apiTime          `json:"created_at"`
}

// TransferSideJSON is one transaction of a transfer.
type TransferSideJSON struct {
	TransactionID string `json:"transaction_id"`
	AccountID     string `json:"account_id"`
	AccountName   string `json:"account_name"`
	Date          string `json:"date"`
	Amount        string `json:"amount"`
	Currency      string `json:"currency"`
	Name          string `json:"name"`
	Kind          string `json:"kind"`
}

func transferJSON(t *transfers.Transfer) TransferJSON {
	side := func(s transfers.Side) TransferSideJSON {
		return TransferSideJSON{TransactionID: s.EntryID.String(), AccountID: s.AccountID.String(), AccountName: s.AccountName,
			Date: s.Date.Format(time.DateOnly), Amount: amountString(s.Amount, s.Currency), Currency: s.Currency, Name: s.Name, Kind: s.Kind}
	}
	return TransferJSON{ID: t.ID.String(), Status: t.Status, Notes: t.Notes, Outflow: side(t.Outflow), Inflow: side(t.Inflow),
		CreatedAt: apiTime(t.CreatedAt)}
}

// apiTransfers is GET /api/v1/transfers: the family's transfers, newest first, by status or
// account.
func (a *app) apiTransfers(c echo.Context) error {
	var f transfers.Filter
	var v apperr.Validation
	switch s := c.QueryParam("status"); s {
	case "", transfers.StatusPending, transfers.StatusConfirmed:
		f.Status = s
	default:
		v.Add("status", "status must be pending or confirmed")
	}
	if s := c.QueryParam("account_id"); s != "" {
		id, err := uuid.Parse(s)
		if err != nil {
			v.Add("account_id", "account_id is not an id")
		}
		f.AccountID = &id
	}
	if err := v.Err(); err != nil {
		return err
	}
	list, err := transfers.List(c.Request().Context(), a.DB, currentUser(c).FamilyID, f)
	if err != nil {
		return err
	}
	out := make([]TransferJSON, len(list))
	for i := range list {
		out[i] = transferJSON(&list[i])
	}
	return c.JSON(http.StatusOK, map[string]any{"data": out})
}

// apiTransferShow is GET /api/v1/transfers/{id}.
func (a *app) apiTransferShow(c echo.Context) error {
	id, err := pathID(c)
	if err != nil {
		return err
	}
	t, err := transfers.Get(c.Request().Context(), a.DB, currentUser(c).FamilyID, id)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string]any{"data": transferJSON(t)})
}

// apiTransferCreate is POST /api/v1/transfers: two transactions linked by hand.
func (a *app) apiTransferCreate(c echo.Context) error {
	var req struct {
		From  *uuid.UUID `json:"from_transaction_id"`
		To    *uuid.UUID `json:"to_transaction_id"`
		Notes string     `json:"notes"`
	}
	dec := json.NewDecoder(c.Request().Body)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); err != nil {
		return apperr.Wrap(apperr.BadRequest, err, "The request body must be a JSON object: "+err.Error())
	}
	var v apperr.Validation
	if req.From == nil {
		v.Add("from_transaction_id", "from_transaction_id is required")
	}
	if req.To == nil {
		v.Add("to_transaction_id", "to_transaction_id is required")
	}
	if err := v.Err(); err != nil {
		return err
	}
	t, err := transfers.Link(c.Request().Context(), a.DB, currentUser(c).FamilyID, *req.From, *req.To, req.Notes)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusCreated, map[string]any{"data": transferJSON(t)})
}

// apiTransferConfirm is POST /api/v1/transfers/{id}/confirm.
func (a *app) apiTransferConfirm(c echo.Context) error {
	id, err := pathID(c)
	if err != nil {
		return err
	}
	t, err := transfers.Confirm(c.Request().Context(), a.DB, currentUser(c).FamilyID, id)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string]any{"data": transferJSON(t)})
}

// apiTransferDelete is DELETE /api/v1/transfers/{id}: unlink, and never propose the pair again.
func (a *app) apiTransferDelete(c echo.Context) error {
	id, err := pathID(c)
	if err != nil {
		return err
	}
	if err := transfers.Unlink(c.Request().Context(), a.DB, currentUser(c).FamilyID, id); err != nil {
		return err
	}
	return c.NoContent(http.StatusNoContent)
}
