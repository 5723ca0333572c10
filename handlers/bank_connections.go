package handlers

import (
	"context"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/labstack/echo/v4"

	"tally/banksync"
	"tally/internal/apperr"
	"tally/internal/i18n"
	"tally/models"
	"tally/views"
)

// bankRoutes registers /settings/bank_connections: every member of the family makes and
// manages their own connections there, and a family admin the family's too
// (banksync.Connection.Theirs); a viewer reads their own and changes nothing
// (readOnlyForViewers).
func (a *app) bankRoutes(g *echo.Group) {
	if a.Bank == nil {
		return
	}
	b := g.Group("/settings/bank_connections")
	b.GET("", a.banksIndex)
	b.POST("", a.bankConnect)
	b.GET("/:id/link", a.bankLinkPage)
	b.POST("/:id/link", a.bankLink)
	b.GET("/:id/status", a.bankStatus)
	b.POST("/:id/sync", a.bankSyncNow)
	b.POST("/:id/settings", a.bankSettings)
	b.POST("/:id/reconnect", a.bankReconnect)
	b.POST("/:id/delete", a.bankDelete)
	b.GET("/europe", a.bankEurope)
	b.POST("/europe", a.bankEuropeStart)
	b.GET("/authorizations/:id", a.bankAuthorization)
	b.POST("/:id/renew", a.bankRenew)
}

func (a *app) banksIndex(c echo.Context) error { return a.renderBanks(c, http.StatusOK, nil) }

func (a *app) renderBanks(c echo.Context, status int, form *views.Form) error {
	viewer, err := a.viewer(c)
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	u := currentUser(c)
	list, err := a.Bank.List(ctx, u.FamilyID)
	if err != nil {
		return err
	}
	list = theirConnections(list, u)
	names := map[string]string{}
	accts, err := models.AccountsForFamily(ctx, a.DB, viewer)
	if err != nil {
		return err
	}
	for _, acct := range accts {
		names[acct.ID.String()] = acct.Name
	}
	return a.render(c, status, views.BankConnectionsPage(views.BankConnections{Connections: list, Form: form, AccountNames: names}))
}

// bankTroubles are the bank connections of u's family that need someone, of those that are u's (of accountID's, when
// set), for the pages outside Settings; none on a server without bank sync.
func (a *app) bankTroubles(ctx context.Context, u *models.User, accountID *uuid.UUID) ([]banksync.Connection, error) {
	if a.Bank == nil {
		return nil, nil
	}
	return a.Bank.Troubles(ctx, u.FamilyID, u.ID, accountID)
}

// bankConnect is POST /settings/bank_connections: claim the pasted setup token, then choose
// what each account becomes.
func (a *app) bankConnect(c echo.Context) error {
	form := formOf(c, "setup_token")
	u := currentUser(c)
	conn, err := a.Bank.Connect(c.Request().Context(), u.FamilyID, banksync.MakerOf(u.ID, u.Role), c.FormValue("setup_token"))
	if err != nil {
		if status, ok := withError(inLanguage(c), form, err); ok {
			return a.renderBanks(c, status, form)
		}
		return err
	}
	a.flash(c, "success", i18n.T(inLanguage(c), "bank.connected_flash"))
	return redirect(c, "/settings/bank_connections/"+conn.ID.String()+"/link")
}

// refuseTo shows a refusal (an error that is the user's, not Tally's) as an error flash on
// the page at to; any other error goes on to the error page.
func (a *app) refuseTo(c echo.Context, to string, err error) error {
	if e := apperr.As(err); e != nil && e.Code != apperr.Internal {
		a.flash(c, "error", e.Message)
		return redirect(c, to)
	}
	return err
}

func (a *app) bankView(c echo.Context) (*banksync.View, error) {
	id, err := uuid.Parse(c.Param("id"))
	if err != nil {
		return nil, apperr.New(apperr.NotFound, "Bank connection not found")
	}
	return a.theirConnection(c, id)
}

// theirConnection is the family's connection id, if it is the signed-in person's: their own,
// or the family's for a family admin. Another member's is not found, as another family's
// (banksync.Connection.Theirs).
func (a *app) theirConnection(c echo.Context, id uuid.UUID) (*banksync.View, error) {
	u := currentUser(c)
	v, err := a.Bank.Get(c.Request().Context(), u.FamilyID, id)
	if err != nil {
		return nil, err
	}
	if !v.Theirs(u) {
		return nil, apperr.New(apperr.NotFound, "Bank connection not found")
	}
	return v, nil
}

// theirConnections keeps of list the connections that are u's (theirConnection).
func theirConnections(list []banksync.View, u *models.User) []banksync.View {
	return slices.DeleteFunc(list, func(v banksync.View) bool { return !v.Theirs(u) })
}

// bankLinkPage is GET /settings/bank_connections/:id/link.
func (a *app) bankLinkPage(c echo.Context) error {
	viewer, err := a.viewer(c)
	if err != nil {
		return err
	}
	v, err := a.bankView(c)
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	accts, err := models.AccountsForFamily(ctx, a.DB, viewer)
	if err != nil {
		return err
	}
	linked := map[uuid.UUID]bool{}
	var choices []views.BankChoice
	for _, ba := range v.Accounts {
		if ba.AccountID != nil {
			linked[*ba.AccountID] = true
			continue
		}
		typ, _ := banksync.Suggest(&ba)
		choices = append(choices, views.BankChoice{Account: ba, Suggested: typ})
	}
	var free []models.Account
	for _, acct := range accts {
		if !linked[acct.ID] && acct.Source == nil {
			free = append(free, acct)
		}
	}
	// An IBAN a statement import already knows preselects its account.
	for i, ch := range choices {
		known, err := a.Bank.KnownAccount(ctx, v.FamilyID, ch.Account.IBAN)
		if err != nil {
			return err
		}
		if known != nil && slices.ContainsFunc(free, func(acct models.Account) bool { return acct.ID == *known }) {
			choices[i].Known = known.String()
		}
	}
	return a.render(c, http.StatusOK, views.BankLinkPage(views.BankLink{Connection: *v, Choices: choices, Accounts: free}))
}

// bankLink is POST /settings/bank_connections/:id/link: apply the choices, then sync.
func (a *app) bankLink(c echo.Context) error {
	v, err := a.bankView(c)
	if err != nil {
		return err
	}
	var choices []banksync.Choice
	for _, ba := range v.Accounts {
		raw := c.FormValue("choice_" + ba.ID.String())
		if raw == "" || ba.AccountID != nil {
			continue
		}
		ch := banksync.Choice{BankAccountID: ba.ID}
		kind, arg, _ := strings.Cut(raw, ":")
		switch kind {
		case "new":
			ch.Action, ch.Type = "new", arg
			if ch.Type == "CreditCard" {
				ch.Subtype = "credit_card"
			}
		case "existing":
			id, err := uuid.Parse(arg)
			if err != nil {
				return apperr.New(apperr.Invalid, i18n.T(inLanguage(c), "bank.choose_account"))
			}
			if err := a.visibleAccountOr404(c, id); err != nil {
				return err
			}
			ch.Action, ch.AccountID = "existing", id
		default:
			ch.Action = "skip"
		}
		choices = append(choices, ch)
	}
	ctx := c.Request().Context()
	if err := a.Bank.Link(ctx, v.FamilyID, v.ID, choices); err != nil {
		return a.refuseTo(c, "/settings/bank_connections/"+v.ID.String()+"/link", err)
	}
	if _, err := a.BankQueue.EnqueueSync(ctx, v.ID); err != nil {
		return err
	}
	a.flash(c, "success", i18n.T(inLanguage(c), "bank.linked_flash"))
	return redirect(c, "/settings/bank_connections")
}

// bankStatus is GET /settings/bank_connections/:id/status, polled by the page.
func (a *app) bankStatus(c echo.Context) error {
	v, err := a.bankView(c)
	if err != nil {
		return err
	}
	return a.render(c, http.StatusOK, views.BankStatus(*v))
}

// bankSyncNow is POST /settings/bank_connections/:id/sync.
func (a *app) bankSyncNow(c echo.Context) error {
	v, err := a.bankView(c)
	if err != nil {
		return err
	}
	if v.RequestsLeft(time.Now()) == 0 {
		a.flash(c, "error", views.BankMessage(inLanguage(c), overBudgetMessage(&v.Connection)))
		return redirect(c, "/settings/bank_connections")
	}
	queued, err := a.BankQueue.EnqueueSync(c.Request().Context(), v.ID)
	if err != nil {
		return err
	}
	if queued {
		a.flash(c, "success", i18n.T(inLanguage(c), "bank.sync_started"))
	} else {
		a.flash(c, "success", i18n.T(inLanguage(c), "bank.sync_running"))
	}
	return redirect(c, "/settings/bank_connections")
}

// overBudgetMessage says that the connection's budget for the day is spent.
func overBudgetMessage(c *banksync.Connection) string {
	if c.Provider == banksync.ProviderEnableBanking {
		return banksync.MsgOverReadLimit
	}
	return banksync.MsgOverBudget
}

// bankSettings is POST /settings/bank_connections/:id/settings.
func (a *app) bankSettings(c echo.Context) error {
	v, err := a.bankView(c)
	if err != nil {
		return err
	}
	set := banksync.Settings{IncludePending: c.FormValue("include_pending") != "", SyncMinute: banksync.ParseSyncTime(c.FormValue("sync_time"))}
	set.HistoryDays, _ = strconv.Atoi(c.FormValue("history_days"))
	if err := a.Bank.UpdateSettings(c.Request().Context(), v.FamilyID, v.ID, set); err != nil {
		return a.refuseTo(c, "/settings/bank_connections", err)
	}
	a.flash(c, "success", i18n.T(inLanguage(c), "bank.settings_saved"))
	return redirect(c, "/settings/bank_connections")
}

// bankReconnect is POST /settings/bank_connections/:id/reconnect: a new setup token for a
// connection the provider stopped accepting; the linked accounts stay linked.
func (a *app) bankReconnect(c echo.Context) error {
	v, err := a.bankView(c)
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	if err := a.Bank.Reconnect(ctx, v.FamilyID, v.ID, c.FormValue("new_setup_token")); err != nil {
		return a.refuseTo(c, "/settings/bank_connections", err)
	}
	if _, err := a.BankQueue.EnqueueSync(ctx, v.ID); err != nil {
		return err
	}
	a.flash(c, "success", i18n.T(inLanguage(c), "bank.reconnected"))
	return redirect(c, "/settings/bank_connections")
}

// bankDelete is POST /settings/bank_connections/:id/delete.
func (a *app) bankDelete(c echo.Context) error {
	v, err := a.bankView(c)
	if err != nil {
		return err
	}
	if err := a.Bank.Delete(c.Request().Context(), v.FamilyID, v.ID); err != nil {
		return err
	}
	a.flash(c, "success", i18n.T(inLanguage(c), "bank.disconnected"))
	return redirect(c, "/settings/bank_connections")
}
