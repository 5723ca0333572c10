package handlers

import (
	"cmp"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/labstack/echo/v4"
	"github.com/shopspring/decimal"

	"tally/internal/apperr"
	"tally/models"
	"tally/reports"
)

// AccountJSON is an account in the API.
type AccountJSON struct {
	ID              string `json:"id"`
	Name            string `json:"name"`
	AccountableType string `json:"accountable_type"`
	Subtype         string `json:"subtype"`
	Classification  string `json:"classification"`
	Currency        string `json:"currency"`
	Balance         string `json:"balance"`
	Status          string `json:"status"`
	// Private, OwnerID and SharedWith are who sees the account (models.Sharing).
	Private    bool      `json:"private"`
	OwnerID    *string   `json:"owner_id"`
	SharedWith []string  `json:"shared_with"`
	CreatedAt  time.Time `json:"created_at"`
	UpdatedAt  time.Time `json:"updated_at"`

	ChangedBy *ChangedByJSON `json:"changed_by"`
}

// accountJSON is a as the API shows it: with whom it is shared, and who changed it last named
// from names (memberNames).
func accountJSON(a *models.Account, sharedWith []uuid.UUID, names map[uuid.UUID]string) AccountJSON {
	return AccountJSON{
		ID: a.ID.String(), Name: a.Name, AccountableType: a.AccountableType, Subtype: a.Subtype,
		Classification: a.Classification(), Currency: a.Currency, Balance: a.Balance.StringFixed(2),
		Status: a.Status, Private: a.Private, OwnerID: uuidString(a.OwnerID), SharedWith: idStrings(sharedWith),
		CreatedAt: a.CreatedAt.UTC(), UpdatedAt: a.UpdatedAt.UTC(), ChangedBy: changedByJSON(a.LastChange(), names),
	}
}

// accountsJSON are the accounts as the API shows them, with whom each is shared (one query)
// and who changed each last.
func (a *app) accountsJSON(c echo.Context, accts ...models.Account) ([]AccountJSON, error) {
	ids := make([]uuid.UUID, len(accts))
	for i := range accts {
		ids[i] = accts[i].ID
	}
	shares, err := models.AccountShares(c.Request().Context(), a.DB, ids)
	if err != nil {
		return nil, err
	}
	names, err := a.memberNames(c)
	if err != nil {
		return nil, err
	}
	out := make([]AccountJSON, len(accts))
	for i := range accts {
		out[i] = accountJSON(&accts[i], shares[accts[i].ID], names)
	}
	return out, nil
}

// apiAccount answers one account as the API shows it, with status.
func (a *app) apiAccount(c echo.Context, status int, acct *models.Account) error {
	out, err := a.accountsJSON(c, *acct)
	if err != nil {
		return err
	}
	return c.JSON(status, map[string]any{"data": out[0]})
}

// apiAccountsIndex lists the family's accounts the caller may see.
func (a *app) apiAccountsIndex(c echo.Context) error {
	v, err := a.viewer(c)
	if err != nil {
		return err
	}
	accts, err := models.AccountsForFamily(c.Request().Context(), a.DB, v)
	if err != nil {
		return err
	}
	out, err := a.accountsJSON(c, accts...)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string]any{"data": out})
}

// apiAccountShow returns one account of the family; another family's, or one kept from the
// caller, is not found.
func (a *app) apiAccountShow(c echo.Context) error {
	acct, err := a.pathAccount(c)
	if err != nil {
		return err
	}
	return a.apiAccount(c, http.StatusOK, acct)
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
		Currency: req.Currency, Balance: req.Balance, BalanceDate: u.Family.Today(), OwnerID: &u.ID,
	})
	if err != nil {
		return err
	}
	return a.apiAccount(c, http.StatusCreated, acct)
}

// apiAccountUpdate is PATCH /api/v1/accounts/{id}: name, subtype, status (active or disabled)
// and balance (the account's new anchor), each only when given, checked as the account's form
// checks them; and, for its owner, private and shared_with (models.Sharing).
func (a *app) apiAccountUpdate(c echo.Context) error {
	id, err := pathID(c)
	if err != nil {
		return err
	}
	var req struct {
		Name       *string          `json:"name"`
		Subtype    *string          `json:"subtype"`
		Status     *string          `json:"status"`
		Balance    *decimal.Decimal `json:"balance"`
		Private    *bool            `json:"private"`
		SharedWith *[]uuid.UUID     `json:"shared_with"`
	}
	if err := decodeStrict(c, &req, "the account's fields to change"); err != nil {
		return err
	}
	u := currentUser(c)
	v, err := a.viewer(c)
	if err != nil {
		return err
	}
	acct, err := models.ChangeAccount(c.Request().Context(), a.DB, v, id,
		models.AccountChanges{Name: req.Name, Subtype: req.Subtype, Status: req.Status, Balance: req.Balance, Today: u.Family.Today(),
			Private: req.Private, SharedWith: req.SharedWith, By: u})
	if err != nil {
		return err
	}
	return a.apiAccount(c, http.StatusOK, acct)
}

// apiAccountDelete is DELETE /api/v1/accounts/{id}?confirm=<the account's name>: the account
// and its whole history. Without the name, the 422 on confirm says what would go.
func (a *app) apiAccountDelete(c echo.Context) error {
	id, err := pathID(c)
	if err != nil {
		return err
	}
	v, err := a.viewer(c)
	if err != nil {
		return err
	}
	if _, err := models.DeleteAccount(c.Request().Context(), a.DB, currentUser(c), v, id, c.QueryParam("confirm")); err != nil {
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
	ctx, u := c.Request().Context(), currentUser(c)
	acct, err := a.pathAccount(c)
	if err != nil {
		return err
	}
	viewer, err := a.viewer(c)
	if err != nil {
		return err
	}
	var v apperr.Validation
	start, end := queryDate(&v, c.QueryParams(), "start_date"), queryDate(&v, c.QueryParams(), "end_date")
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
	series, err := models.DailyBalances(ctx, a.DB, viewer, acct.ID, *start, *end)
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

// CheckpointJSON is a checkpoint in the OpenAPI document: amounts in the account's terms.
type CheckpointJSON struct {
	ID           string  `json:"id"`
	Date         string  `json:"date"`
	Source       string  `json:"source"`
	Name         string  `json:"name"`
	ImportID     *string `json:"import_id"`
	BankBalance  string  `json:"bank_balance"`
	TallyBalance string  `json:"tally_balance"`
	Difference   string  `json:"difference"`
	Status       string  `json:"status"`
	// The days whose entries explain a difference: after gap_after, through gap_through;
	// null where the gap reaches the start of the history or today.
	GapAfter   *string `json:"gap_after"`
	GapThrough *string `json:"gap_through"`
}

// apiAccountReconciliation is GET /api/v1/accounts/{id}/reconciliation: the account's anchor
// and the balances its bank stated, newest first, each set against Tally's.
func (a *app) apiAccountReconciliation(c echo.Context) error {
	acct, err := a.pathAccount(c)
	if err != nil {
		return err
	}
	r, err := models.ReconcileAccount(c.Request().Context(), a.DB, acct.FamilyID, acct.ID)
	if err != nil {
		return err
	}
	ccy := r.Account.Currency
	day := func(t time.Time) *string {
		if t.IsZero() {
			return nil
		}
		s := t.Format(time.DateOnly)
		return &s
	}
	out := make([]CheckpointJSON, len(r.Checkpoints))
	for i, cp := range r.Checkpoints {
		out[i] = CheckpointJSON{ID: cp.EntryID.String(), Date: cp.Date.Format(time.DateOnly), Source: cp.Source, Name: cp.Name,
			BankBalance: amountString(cp.Bank, ccy), TallyBalance: amountString(cp.Tally, ccy), Difference: amountString(cp.Difference, ccy),
			Status: cp.Status, GapAfter: day(cp.GapAfter), GapThrough: day(cp.GapThrough)}
		if cp.ImportID != nil {
			s := cp.ImportID.String()
			out[i].ImportID = &s
		}
	}
	var anchor any
	if r.Anchor != nil {
		anchor = map[string]any{"id": r.Anchor.EntryID.String(), "date": r.Anchor.Date.Format(time.DateOnly),
			"balance": amountString(r.Anchor.Amount, ccy), "source": r.Anchor.Source, "name": r.Anchor.Name}
	}
	return c.JSON(http.StatusOK, map[string]any{"data": out, "meta": map[string]any{
		"account_id": r.Account.ID.String(), "currency": ccy, "anchor": anchor, "balance_known": r.BalanceKnown(),
		"differences": r.Differences()}})
}

// NetWorthPartJSON is one currency's part of a net worth in the OpenAPI document.
type NetWorthPartJSON struct {
	Currency  string `json:"currency"`
	Balance   string `json:"balance"`
	Converted string `json:"converted"`
	Rate      string `json:"rate"`
	// RateDate is the date of the rate used, and RateAgeDays how many days before date it is
	// (negative for a rate dated after it, the first there was).
	RateDate    string `json:"rate_date"`
	RateAgeDays int    `json:"rate_age_days"`
	RateSource  string `json:"rate_source"`
}

// apiNetWorth is GET /api/v1/net_worth?currency=XXX&date=YYYY-MM-DD: the family's net worth on
// the day (today by default) in the currency (the family's by default), each currency's part
// with the rate that converted it; currencies no rate converts apart, in their own money.
func (a *app) apiNetWorth(c echo.Context) error {
	u := currentUser(c)
	var v apperr.Validation
	currency := strings.ToUpper(strings.TrimSpace(c.QueryParam("currency")))
	if currency == "" {
		currency = u.Family.Currency
	} else if !models.ValidCurrency(currency) {
		v.Add("currency", fmt.Sprintf("currency %q is not a three-letter ISO code such as EUR", c.QueryParam("currency")))
	}
	day := u.Family.Today()
	if d := queryDate(&v, c.QueryParams(), "date"); d != nil {
		day = *d
	}
	if err := v.Err(); err != nil {
		return err
	}
	viewer, err := a.viewer(c)
	if err != nil {
		return err
	}
	nw, err := reports.FamilyNetWorth(c.Request().Context(), a.DB, viewer, currency, day, day)
	if err != nil {
		return err
	}
	parts := []NetWorthPartJSON{}
	for _, p := range nw.Parts {
		parts = append(parts, NetWorthPartJSON{Currency: p.Currency, Balance: amountString(p.Amount, p.Currency),
			Converted: amountString(p.Converted, currency), Rate: p.Rate.Rate.String(), RateDate: p.Rate.Date.Format(time.DateOnly),
			RateAgeDays: int(day.Sub(p.Rate.Date).Hours() / 24), RateSource: cmp.Or(p.Rate.Source, "identity")})
	}
	unconverted := []map[string]string{}
	for _, s := range nw.Unconverted {
		unconverted = append(unconverted, map[string]string{"currency": s.Currency, "balance": amountString(s.Points[len(s.Points)-1].Balance, s.Currency)})
	}
	return c.JSON(http.StatusOK, map[string]any{"data": map[string]any{
		"date": day.Format(time.DateOnly), "currency": currency, "net_worth": amountString(nw.Last(), currency),
		"parts": parts, "unconverted": unconverted}})
}
