package handlers

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/labstack/echo/v4"
	"github.com/shopspring/decimal"

	"tally/internal/apperr"
	"tally/internal/dates"
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
	ChangedBy    *ChangedByJSON           `json:"changed_by"`
	// Splits are on one transaction's own answer, not in lists.
	Splits *[]SplitJSON `json:"splits,omitempty"`
}

// SplitJSON is TransactionSplit in the OpenAPI document: one part of a split transaction.
type SplitJSON struct {
	ID         string   `json:"id"`
	Amount     string   `json:"amount"`
	Name       string   `json:"name"`
	Notes      string   `json:"notes"`
	CategoryID *string  `json:"category_id"`
	MerchantID *string  `json:"merchant_id"`
	TagIDs     []string `json:"tag_ids"`
	Excluded   bool     `json:"excluded"`
}

// TransactionTransferJSON is the transfer a transaction is a side of.
type TransactionTransferJSON struct {
	ID     string `json:"id"`
	Status string `json:"status"`
	// The other side's ids are null when it is in an account the caller may not see
	// (OtherPrivate): a transfer to (or from) a private account, of which nothing more is said.
	OtherTransactionID *string `json:"other_transaction_id"`
	OtherAccountID     *string `json:"other_account_id"`
	OtherPrivate       bool    `json:"other_private"`
}

// transactionJSON is t as the API shows it, who changed it last named from names (memberNames).
func transactionJSON(t *ledger.Transaction, names map[uuid.UUID]string) TransactionJSON {
	out := TransactionJSON{ID: t.ID.String(), AccountID: t.AccountID.String(), Date: t.Date.Format(time.DateOnly),
		Amount: amountString(t.Amount, t.Currency), Currency: t.Currency, Name: t.Name, OriginalName: t.OriginalName, Notes: t.Notes,
		CategoryID: uuidString(t.CategoryID), MerchantID: uuidString(t.MerchantID), Excluded: t.Excluded,
		Pending: t.Pending, Kind: t.TransactionKind, LockedFields: t.LockedFields, ImportID: uuidString(t.ImportID),
		Source: t.Source, CreatedAt: apiTime(t.CreatedAt), UpdatedAt: apiTime(t.UpdatedAt), ChangedBy: changedByJSON(t.LastChange(), names)}
	out.TagIDs = idStrings(t.TagIDs)
	if out.LockedFields == nil {
		out.LockedFields = []string{}
	}
	if t.Transfer != nil {
		out.Transfer = &TransactionTransferJSON{ID: t.Transfer.ID.String(), Status: t.Transfer.Status, OtherPrivate: t.Transfer.OtherPrivate}
		if !t.Transfer.OtherPrivate {
			out.Transfer.OtherTransactionID, out.Transfer.OtherAccountID = uuidString(&t.Transfer.OtherEntryID), uuidString(&t.Transfer.OtherAccount)
		}
	}
	return out
}

// transactionWithSplits is a transaction as its own answer shows it: with its splits.
func transactionWithSplits(t *ledger.Transaction, names map[uuid.UUID]string) TransactionJSON {
	out := transactionJSON(t, names)
	splits := make([]SplitJSON, len(t.Splits))
	for i, p := range t.Splits {
		splits[i] = SplitJSON{ID: p.ID.String(), Amount: amountString(p.Amount, p.Currency), Name: p.Name, Notes: p.Notes,
			CategoryID: uuidString(p.CategoryID), MerchantID: uuidString(p.MerchantID), TagIDs: idStrings(p.TagIDs), Excluded: p.Excluded}
	}
	out.Splits = &splits
	return out
}

func idStrings(ids []uuid.UUID) []string {
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = id.String()
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
	viewer, err := a.viewer(c)
	if err != nil {
		return err
	}
	var req transactionRequest
	if err := decodeStrict(c, &req, "a transaction"); err != nil {
		return err
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
		d, err := dates.Day("date", req.Date)
		v.Merge(err)
		in.Date = d
	}
	if err := v.Err(); err != nil {
		return err
	}
	ctx := c.Request().Context()
	return a.idempotent(c, req, func() (int, any, error) {
		id, err := ledger.Create(ctx, a.DB, a.Log, viewer, in)
		if err != nil {
			return 0, nil, err
		}
		t, err := ledger.Get(ctx, a.DB, viewer, id)
		if err != nil {
			return 0, nil, err
		}
		names, err := a.memberNames(c)
		if err != nil {
			return 0, nil, err
		}
		return http.StatusCreated, map[string]any{"data": transactionWithSplits(t, names)}, nil
	})
}

// apiTransactionShow is GET /api/v1/transactions/{id}.
func (a *app) apiTransactionShow(c echo.Context) error {
	viewer, err := a.viewer(c)
	if err != nil {
		return err
	}
	id, err := pathID(c)
	if err != nil {
		return err
	}
	t, err := ledger.Get(c.Request().Context(), a.DB, viewer, id)
	if err != nil {
		return err
	}
	return a.transactionAnswer(c, t)
}

// transactionAnswer answers 200 with the transaction t and its splits.
func (a *app) transactionAnswer(c echo.Context, t *ledger.Transaction) error {
	names, err := a.memberNames(c)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string]any{"data": transactionWithSplits(t, names)})
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
	viewer, err := a.viewer(c)
	if err != nil {
		return err
	}
	var f transfers.Filter
	var v apperr.Validation
	switch s := c.QueryParam("status"); s {
	case "", transfers.StatusPending, transfers.StatusConfirmed:
		f.Status = s
	default:
		v.Add("status", "status must be pending or confirmed")
	}
	f.AccountID = queryID(&v, c.QueryParams(), "account_id")
	if err := v.Err(); err != nil {
		return err
	}
	list, err := transfers.List(c.Request().Context(), a.DB, viewer, f)
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
	viewer, err := a.viewer(c)
	if err != nil {
		return err
	}
	id, err := pathID(c)
	if err != nil {
		return err
	}
	t, err := transfers.Get(c.Request().Context(), a.DB, viewer, id)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string]any{"data": transferJSON(t)})
}

// apiTransferCreate is POST /api/v1/transfers: two transactions linked by hand.
func (a *app) apiTransferCreate(c echo.Context) error {
	viewer, err := a.viewer(c)
	if err != nil {
		return err
	}
	var req struct {
		From  *uuid.UUID `json:"from_transaction_id"`
		To    *uuid.UUID `json:"to_transaction_id"`
		Notes string     `json:"notes"`
	}
	if err := decodeStrict(c, &req, "a transfer"); err != nil {
		return err
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
	t, err := transfers.Link(c.Request().Context(), a.DB, viewer, *req.From, *req.To, req.Notes)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusCreated, map[string]any{"data": transferJSON(t)})
}

// apiTransferConfirm is POST /api/v1/transfers/{id}/confirm.
func (a *app) apiTransferConfirm(c echo.Context) error {
	viewer, err := a.viewer(c)
	if err != nil {
		return err
	}
	id, err := pathID(c)
	if err != nil {
		return err
	}
	t, err := transfers.Confirm(c.Request().Context(), a.DB, viewer, id)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string]any{"data": transferJSON(t)})
}

// apiTransferDelete is DELETE /api/v1/transfers/{id}: unlink, and never propose the pair again.
func (a *app) apiTransferDelete(c echo.Context) error {
	viewer, err := a.viewer(c)
	if err != nil {
		return err
	}
	id, err := pathID(c)
	if err != nil {
		return err
	}
	if err := transfers.Unlink(c.Request().Context(), a.DB, viewer, id); err != nil {
		return err
	}
	return c.NoContent(http.StatusNoContent)
}

// apiTransactions is GET /api/v1/transactions: the family's transactions, newest first,
// filtered, a page at a time from meta.next_cursor.
func (a *app) apiTransactions(c echo.Context) error {
	viewer, err := a.viewer(c)
	if err != nil {
		return err
	}
	f, err := transactionFilter(c.QueryParams())
	if err != nil {
		return err
	}
	var v apperr.Validation
	per := 100
	if s := c.QueryParam("per_page"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n > ledger.MaxPage {
			v.Add("per_page", fmt.Sprintf("per_page must be a whole number from 1 to %d", ledger.MaxPage))
		}
		per = n
	}
	var after *ledger.Cursor
	if s := c.QueryParam("cursor"); s != "" {
		cur, err := ledger.ParseCursor(s)
		if err != nil {
			v.Merge(err)
		}
		after = &cur
	}
	if err := v.Err(); err != nil {
		return err
	}
	list, next, err := ledger.List(c.Request().Context(), a.DB, viewer, f, after, per)
	if err != nil {
		return err
	}
	names, err := a.memberNames(c)
	if err != nil {
		return err
	}
	out := make([]TransactionJSON, len(list))
	for i := range list {
		out[i] = transactionJSON(&list[i], names)
	}
	meta := map[string]any{"per_page": per, "next_cursor": nil}
	if next != nil {
		meta["next_cursor"] = next.String()
	}
	return c.JSON(http.StatusOK, map[string]any{"data": out, "meta": meta})
}

// uncategorized is the category_id that selects the transactions without a category.
const uncategorized = "none"

// transactionFilter reads the list's filters from a query, naming each one that is wrong.
func transactionFilter(query url.Values) (ledger.Filter, error) {
	var f ledger.Filter
	var v apperr.Validation
	amount := func(key string) *decimal.Decimal {
		s := query.Get(key)
		if s == "" {
			return nil
		}
		d, err := decimal.NewFromString(s)
		if err != nil {
			v.Add(key, fmt.Sprintf("%s %q is not a number such as 12.50", key, s))
			return nil
		}
		return &d
	}
	for i, s := range query["account_id"] {
		if s == "" {
			continue // a form's "all accounts"
		}
		id, err := uuid.Parse(s)
		if err != nil {
			v.Add("account_id", fmt.Sprintf("account_id[%d] %q is not an id", i, s))
			continue
		}
		f.AccountIDs = append(f.AccountIDs, id)
	}
	f.Start, f.End = queryDate(&v, query, "start_date"), queryDate(&v, query, "end_date")
	if f.Start != nil && f.End != nil && f.End.Before(*f.Start) {
		v.Add("end_date", "end_date is before start_date")
	}
	if f.Uncategorized = query.Get("category_id") == uncategorized; !f.Uncategorized {
		f.CategoryID = queryID(&v, query, "category_id")
	}
	f.TagID = queryID(&v, query, "tag_id")
	f.MerchantID, f.ImportID = queryID(&v, query, "merchant_id"), queryID(&v, query, "import_id")
	f.ChangedBy = queryID(&v, query, "changed_by")
	f.Query = query.Get("q")
	f.MinAmount, f.MaxAmount = amount("min_amount"), amount("max_amount")
	switch s := query.Get("pending"); s {
	case "":
	case "true", "false":
		pending := s == "true"
		f.Pending = &pending
	default:
		v.Add("pending", "pending must be true or false")
	}
	if f.Kind = query.Get("kind"); f.Kind != "" && !slices.Contains(models.TransactionKinds, f.Kind) {
		v.Add("kind", "kind must be one of: "+strings.Join(models.TransactionKinds, ", "))
	}
	return f, v.Err()
}

// apiTransactionUpdate is PATCH /api/v1/transactions/{id}.
func (a *app) apiTransactionUpdate(c echo.Context) error {
	viewer, err := a.viewer(c)
	if err != nil {
		return err
	}
	id, err := pathID(c)
	if err != nil {
		return err
	}
	fields, err := decodeObject(c)
	if err != nil {
		return err
	}
	p, err := transactionPatch(fields, "category_id", "merchant_id", "tag_ids", "notes", "excluded", "date", "amount", "name")
	if err != nil {
		return err
	}
	t, err := ledger.Update(c.Request().Context(), a.DB, viewer, id, p)
	if err != nil {
		return err
	}
	return a.transactionAnswer(c, t)
}

// apiTransactionsUpdate is PATCH /api/v1/transactions: one change to many transactions.
func (a *app) apiTransactionsUpdate(c echo.Context) error {
	viewer, err := a.viewer(c)
	if err != nil {
		return err
	}
	fields, err := decodeObject(c)
	if err != nil {
		return err
	}
	var ids []uuid.UUID
	if raw, ok := fields["ids"]; ok {
		if err := json.Unmarshal(raw, &ids); err != nil {
			var v apperr.Validation
			v.Add("ids", "ids must be a list of transaction ids")
			return v.Err()
		}
		delete(fields, "ids")
	}
	p, err := transactionPatch(fields, "category_id", "merchant_id", "tag_ids", "excluded")
	if err != nil {
		return err
	}
	change, err := ledger.UpdateMany(c.Request().Context(), a.DB, viewer, ids, p)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string]any{"data": map[string]any{"updated_count": change.Changed,
		"change_id": change.ID.String(), "undo_until": apiTime(change.UndoUntil)}})
}

// apiTransactionDelete is DELETE /api/v1/transactions/{id}.
func (a *app) apiTransactionDelete(c echo.Context) error {
	viewer, err := a.viewer(c)
	if err != nil {
		return err
	}
	id, err := pathID(c)
	if err != nil {
		return err
	}
	if err := ledger.Delete(c.Request().Context(), a.DB, viewer, id); err != nil {
		return err
	}
	return c.NoContent(http.StatusNoContent)
}

// decodeObject reads a JSON object body as its raw fields.
func decodeObject(c echo.Context) (map[string]json.RawMessage, error) {
	var fields map[string]json.RawMessage
	if err := json.NewDecoder(c.Request().Body).Decode(&fields); err != nil || fields == nil {
		msg := "The request body must be a JSON object"
		if err != nil {
			msg += ": " + err.Error()
		}
		return nil, apperr.Wrap(apperr.BadRequest, err, msg)
	}
	return fields, nil
}

// transactionPatch reads the fields of a change to transactions, of those allowed; null
// clears a category or merchant, and sets no tags.
func transactionPatch(fields map[string]json.RawMessage, allowed ...string) (ledger.Patch, error) {
	var p ledger.Patch
	var v apperr.Validation
	isNull := func(raw json.RawMessage) bool { return string(raw) == "null" }
	ref := func(key string, raw json.RawMessage) *ledger.Ref {
		if id := nullableID(&v, key, raw); id != nil {
			return &ledger.Ref{ID: *id}
		}
		return nil
	}
	str := func(key string, raw json.RawMessage) *string {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			v.Add(key, key+" must be a string")
			return nil
		}
		return &s
	}
	for key, raw := range fields {
		if !slices.Contains(allowed, key) {
			v.Add(key, fmt.Sprintf("%s cannot be set here; the fields are: %s", key, strings.Join(allowed, ", ")))
			continue
		}
		switch key {
		case "category_id":
			p.Category = ref(key, raw)
		case "merchant_id":
			p.Merchant = ref(key, raw)
		case "tag_ids":
			ids := []uuid.UUID{}
			if !isNull(raw) {
				if err := json.Unmarshal(raw, &ids); err != nil {
					v.Add(key, "tag_ids must be a list of tag ids")
				}
			}
			p.TagIDs = &ids
		case "notes", "name":
			s := str(key, raw)
			if key == "notes" {
				p.Notes = s
			} else {
				p.Name = s
			}
		case "excluded":
			var b bool
			if err := json.Unmarshal(raw, &b); err != nil {
				v.Add(key, "excluded must be true or false")
			} else {
				p.Excluded = &b
			}
		case "date":
			if s := str(key, raw); s != nil {
				d, err := dates.Day(key, *s)
				v.Merge(err)
				p.Date = &d
			}
		case "amount":
			var d decimal.Decimal
			if err := json.Unmarshal(raw, &d); err != nil || isNull(raw) {
				v.Add(key, "amount must be a number such as \"12.50\": positive for money out, negative for money in")
			} else {
				p.Amount = &d
			}
		}
	}
	return p, v.Err()
}
