package handlers

import (
	"bytes"
	"encoding/json"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"tally/banksync"
	"tally/internal/apperr"
)

// BankConnectionJSON is BankConnection in the OpenAPI document: never its access URL or
// session id.
type BankConnectionJSON struct {
	ID               string            `json:"id"`
	Provider         string            `json:"provider"`
	Name             string            `json:"name"`
	Status           string            `json:"status"`
	Bank             *string           `json:"bank"`
	Country          *string           `json:"country"`
	ConsentExpiresAt *apiTime          `json:"consent_expires_at"`
	ConsentState     *string           `json:"consent_state"`
	LastSyncedAt     *apiTime          `json:"last_synced_at"`
	LastAttemptAt    *apiTime          `json:"last_attempt_at"`
	NextSyncAt       apiTime           `json:"next_sync_at"`
	PausedUntil      *apiTime          `json:"paused_until"`
	LastError        *string           `json:"last_error"`
	LastStats        banksync.Stats    `json:"last_stats"`
	DailyLimit       int               `json:"daily_limit"`
	UsedToday        int               `json:"used_today"`
	HistoryDays      int               `json:"history_days"`
	IncludePending   bool              `json:"include_pending"`
	Accounts         []BankAccountJSON `json:"accounts"`
	CreatedAt        apiTime           `json:"created_at"`
}

// BankAccountJSON is BankConnectionAccount in the OpenAPI document.
type BankAccountJSON struct {
	UID       string  `json:"uid"`
	Name      string  `json:"name"`
	Currency  string  `json:"currency"`
	IBAN      *string `json:"iban"`
	Balance   *string `json:"balance"`
	AccountID *string `json:"account_id"`
	Skipped   bool    `json:"skipped"`
	Error     *string `json:"error"`
}

func bankConnectionJSON(v *banksync.View) BankConnectionJSON {
	out := BankConnectionJSON{ID: v.ID.String(), Provider: v.Provider, Name: v.Name, Status: v.Status, Bank: optional(v.ASPSPName),
		Country: optional(v.ASPSPCountry), ConsentExpiresAt: (*apiTime)(v.ConsentExpiresAt), LastSyncedAt: (*apiTime)(v.LastSyncedAt),
		LastAttemptAt: (*apiTime)(v.LastAttemptAt), NextSyncAt: apiTime(v.NextSyncAt), PausedUntil: (*apiTime)(v.PausedUntil),
		ConsentState: optional(v.ConsentState(time.Now())), LastError: v.LastError, LastStats: v.LastStats, DailyLimit: v.Budget(), UsedToday: v.UsedToday(time.Now()),
		HistoryDays: v.HistoryDays, IncludePending: v.IncludePending, Accounts: []BankAccountJSON{}, CreatedAt: apiTime(v.CreatedAt)}
	for _, ba := range v.Accounts {
		a := BankAccountJSON{UID: ba.ProviderAccountID, Name: ba.Name, Currency: ba.Currency, IBAN: optional(ba.IBAN), AccountID: uuidString(ba.AccountID), Skipped: ba.Skipped, Error: ba.Error}
		if ba.Balance != nil {
			a.Balance = optional(amountString(*ba.Balance, ba.Currency))
		}
		out.Accounts = append(out.Accounts, a)
	}
	return out
}

// apiBankView is the connection of :id if it is the key's user's (theirConnection): another
// member's, as another family's, is not found.
func (a *app) apiBankView(c echo.Context) (*banksync.View, error) {
	id, err := pathID(c)
	if err != nil {
		return nil, err
	}
	return a.theirConnection(c, id)
}

// apiBankConnections is GET /api/v1/bank_connections: SimpleFIN's and Enable Banking's, those
// that are the key's user's (theirConnections).
func (a *app) apiBankConnections(c echo.Context) error {
	list, err := a.Bank.List(c.Request().Context(), currentUser(c).FamilyID)
	if err != nil {
		return err
	}
	list = theirConnections(list, currentUser(c))
	out := make([]BankConnectionJSON, len(list))
	for i := range list {
		out[i] = bankConnectionJSON(&list[i])
	}
	return c.JSON(http.StatusOK, map[string]any{"data": out})
}

// apiBankConnectionShow is GET /api/v1/bank_connections/{id}.
func (a *app) apiBankConnectionShow(c echo.Context) error {
	v, err := a.apiBankView(c)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string]any{"data": bankConnectionJSON(v)})
}

// BankAuthorizationJSON is BankAuthorization in the OpenAPI document.
type BankAuthorizationJSON struct {
	ID               string  `json:"id"`
	AuthorizationURL string  `json:"authorization_url"`
	Decoupled        bool    `json:"decoupled"`
	ExpiresAt        apiTime `json:"expires_at"`
	ConnectionID     *string `json:"connection_id"`
}

func bankAuthorizationJSON(auth *banksync.Authorization) BankAuthorizationJSON {
	return BankAuthorizationJSON{ID: auth.ID.String(), AuthorizationURL: auth.AuthorizationURL, Decoupled: auth.Decoupled,
		ExpiresAt: apiTime(auth.ExpiresAt), ConnectionID: uuidString(auth.ConnectionID)}
}

// apiBankConnectionCreate is POST /api/v1/bank_connections: the bank's authorisation URL, to
// send the person to. The bank sends them back to Tally's callback, which makes the
// connection (its id then in GET /bank_connections).
func (a *app) apiBankConnectionCreate(c echo.Context) error {
	var req struct {
		Provider string `json:"provider"`
		Country  string `json:"country"`
		ASPSP    string `json:"aspsp"`
		Days     int    `json:"days"`
	}
	if err := decodeStrict(c, &req, "a bank connection"); err != nil {
		return err
	}
	if req.Provider != banksync.ProviderEnableBanking {
		return apperr.New(apperr.Invalid, "Choose the provider").WithFields(map[string][]string{"provider": {
			"provider must be enable_banking: a SimpleFIN connection is made from a setup token at Settings › Bank connections"}})
	}
	u := currentUser(c)
	auth, err := a.Bank.Start(c.Request().Context(), u.FamilyID, u.ID, banksync.StartInput{Country: req.Country, ASPSP: req.ASPSP, Days: req.Days})
	if err != nil {
		return err
	}
	return c.JSON(http.StatusCreated, map[string]any{"data": bankAuthorizationJSON(auth)})
}

// apiBankConnectionRenew is POST /api/v1/bank_connections/{id}/renew: a new authorisation
// at the connection's bank, which keeps its accounts and their history.
func (a *app) apiBankConnectionRenew(c echo.Context) error {
	v, err := a.apiBankView(c)
	if err != nil {
		return err
	}
	u := currentUser(c)
	auth, err := a.Bank.Renew(c.Request().Context(), u.FamilyID, u.ID, v.ID)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusCreated, map[string]any{"data": bankAuthorizationJSON(auth)})
}

// apiBankAccountLink is PATCH /api/v1/bank_connections/{id}/accounts/{uid}: {"link": "new"}
// makes a new Tally account (of the suggested type), {"account_id": …} links an existing one,
// {"link": null} leaves the account out.
func (a *app) apiBankAccountLink(c echo.Context) error {
	v, err := a.apiBankView(c)
	if err != nil {
		return err
	}
	var req struct {
		Link      json.RawMessage `json:"link"`
		AccountID json.RawMessage `json:"account_id"`
	}
	if err := decodeStrict(c, &req, `{"link": "new"}, {"account_id": "…"} or {"link": null}`); err != nil {
		return err
	}
	var ba *banksync.BankAccount
	for i := range v.Accounts {
		if v.Accounts[i].ProviderAccountID == c.Param("uid") {
			ba = &v.Accounts[i]
		}
	}
	if ba == nil {
		return apperr.New(apperr.NotFound, "Bank account not found")
	}
	ch := banksync.Choice{BankAccountID: ba.ID}
	var val apperr.Validation
	switch {
	case len(req.AccountID) > 0 && len(req.Link) > 0:
		val.Add("link", "Give link or account_id, not both")
	case len(req.AccountID) > 0:
		if id := nullableID(&val, "account_id", req.AccountID); id != nil && *id != nil {
			if err := a.visibleAccountOr404(c, **id); err != nil {
				return err
			}
			ch.Action, ch.AccountID = "existing", **id
		} else if id != nil {
			ch.Action = "skip"
		}
	case bytes.Equal(req.Link, []byte("null")):
		ch.Action = "skip"
	case bytes.Equal(req.Link, []byte(`"new"`)):
		ch.Action = "new"
		ch.Type, _ = banksync.Suggest(ba)
		if ch.Type == "CreditCard" {
			ch.Subtype = "credit_card"
		}
	default:
		val.Add("link", `link must be "new" or null, or give account_id`)
	}
	if err := val.Err(); err != nil {
		return err
	}
	if err := a.Bank.Link(c.Request().Context(), v.FamilyID, v.ID, []banksync.Choice{ch}); err != nil {
		return err
	}
	if v, err = a.Bank.Get(c.Request().Context(), v.FamilyID, v.ID); err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string]any{"data": bankConnectionJSON(v)})
}

// apiBankConnectionSync is POST /api/v1/bank_connections/{id}/sync: queues a sync (202),
// or says the day's budget is spent (429).
func (a *app) apiBankConnectionSync(c echo.Context) error {
	v, err := a.apiBankView(c)
	if err != nil {
		return err
	}
	if v.RequestsLeft(time.Now()) == 0 {
		return apperr.New(apperr.RateLimited, overBudgetMessage(&v.Connection))
	}
	queued, err := a.BankQueue.EnqueueSync(c.Request().Context(), v.ID)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusAccepted, map[string]any{"data": map[string]any{"queued": queued}})
}

// apiBankConnectionDelete is DELETE /api/v1/bank_connections/{id}: the linked accounts stay,
// as manual accounts; an Enable Banking session is closed at the provider.
func (a *app) apiBankConnectionDelete(c echo.Context) error {
	v, err := a.apiBankView(c)
	if err != nil {
		return err
	}
	if err := a.Bank.Delete(c.Request().Context(), v.FamilyID, v.ID); err != nil {
		return err
	}
	return c.NoContent(http.StatusNoContent)
}
