package handlers

import (
	"net/http"
	"strconv"

	"github.com/google/uuid"
	"github.com/labstack/echo/v4"

	"tally/banksync"
	"tally/internal/apperr"
	"tally/internal/i18n"
	"tally/views"
)

// bankEurope is GET /settings/bank_connections/europe: the country, then its banks.
func (a *app) bankEurope(c echo.Context) error {
	return a.renderEurope(c, http.StatusOK, c.QueryParam("country"), nil)
}

func (a *app) renderEurope(c echo.Context, status int, country string, form *views.Form) error {
	p := views.BankEurope{Country: country, Form: form}
	if !a.Bank.EnableBankingOn() {
		p.Country, p.Off = "", i18n.T(inLanguage(c), "bank.europe_off")
		return a.render(c, status, views.BankEuropePage(p))
	}
	if country != "" {
		banks, err := a.Bank.ASPSPs(c.Request().Context(), country)
		if err != nil {
			return a.refuseTo(c, "/settings/bank_connections/europe", err)
		}
		p.Banks = banks
	}
	return a.render(c, status, views.BankEuropePage(p))
}

// bankEuropeStart is POST /settings/bank_connections/europe: off to the bank, or to the page
// that waits for a bank that approves in its app.
func (a *app) bankEuropeStart(c echo.Context) error {
	form := formOf(c, "aspsp", "days")
	days, err := strconv.Atoi(c.FormValue("days"))
	if err != nil && c.FormValue("days") != "" {
		days = -1 // refused by Start, with the field named
	}
	u := currentUser(c)
	auth, err := a.Bank.Start(c.Request().Context(), u.FamilyID, u.ID, banksync.StartInput{Country: c.FormValue("country"),
		ASPSP: c.FormValue("aspsp"), Days: days})
	if err != nil {
		if status, ok := withError(inLanguage(c), form, err); ok {
			return a.renderEurope(c, status, c.FormValue("country"), form)
		}
		return err
	}
	return a.toBank(c, auth)
}

// toBank sends the browser to the bank's authorisation page, or, for a bank that approves in
// its own app, to the page that waits for it.
func (a *app) toBank(c echo.Context, auth *banksync.Authorization) error {
	if auth.Decoupled {
		return redirect(c, "/settings/bank_connections/authorizations/"+auth.ID.String())
	}
	return c.Redirect(http.StatusSeeOther, auth.AuthorizationURL)
}

// bankRenew is POST /settings/bank_connections/:id/renew: a new consent at the same bank.
func (a *app) bankRenew(c echo.Context) error {
	v, err := a.bankView(c)
	if err != nil {
		return err
	}
	u := currentUser(c)
	auth, err := a.Bank.Renew(c.Request().Context(), u.FamilyID, u.ID, v.ID)
	if err != nil {
		return a.refuseTo(c, "/settings/bank_connections", err)
	}
	return a.toBank(c, auth)
}

// bankAuthorization is GET /settings/bank_connections/authorizations/:id: it waits for a
// bank that approves in its app, polled by htmx, and moves on once the session exists.
func (a *app) bankAuthorization(c echo.Context) error {
	id, err := uuid.Parse(c.Param("id"))
	if err != nil {
		return apperr.New(apperr.NotFound, "Authorisation not found")
	}
	u := currentUser(c)
	auth, err := a.Bank.GetAuthorization(c.Request().Context(), u.FamilyID, id)
	if err != nil {
		return err
	}
	if auth.UserID != nil && *auth.UserID != u.ID {
		// Another member asking their bank: theirs, as the connection it makes will be.
		return apperr.New(apperr.NotFound, "Authorisation not found")
	}
	if auth.Done() && auth.Error == nil {
		return a.bankAuthorizationDone(c, auth)
	}
	if isHTMX(c) {
		if auth.Error != nil {
			return redirect(c, c.Request().URL.Path) // the whole page, to say why
		}
		return c.NoContent(http.StatusNoContent)
	}
	return a.render(c, http.StatusOK, views.BankAuthorizationPage(*auth, c.Request().URL.Path))
}

// bankCallback is GET /bank_connections/enable_banking/callback, where the bank sends the
// person back, in whatever browser finished the approval: a phone or another browser too. It
// reads nothing from the bank: the page names the household that gets the access and who
// started it, and the session is opened only when the person confirms (bankCallbackConfirm),
// so neither a link previewer nor a glance completes it. A bank's refusal is recorded at once,
// since it gives nothing. A browser signed in to another household is refused, and the
// authorisation stays usable by the right one.
func (a *app) bankCallback(c echo.Context) error {
	q := c.QueryParams()
	ctx := c.Request().Context()
	if q.Get("code") == "" {
		auth, err := a.Bank.Complete(ctx, q.Get("state"), "", q.Get("error"), a.completer(c))
		return a.bankCallbackFailed(c, auth, err)
	}
	auth, err := a.Bank.Pending(ctx, q.Get("state"), a.completer(c))
	if err != nil {
		return a.bankCallbackFailed(c, auth, err)
	}
	return a.render(c, http.StatusOK, views.BankConsentPage(*auth, q.Get("state"), q.Get("code")))
}

// bankCallbackConfirm is POST /bank_connections/enable_banking/callback: the person confirmed
// the household the page named, so the session is opened at the bank and the connection made
// (or renewed) in that household. A browser signed in to the person whose connection it is
// (its maker, or a family admin for the family's) goes on to link the accounts; any other is
// told to go back where it started.
func (a *app) bankCallbackConfirm(c echo.Context) error {
	ctx := c.Request().Context()
	auth, err := a.Bank.Complete(ctx, c.FormValue("state"), c.FormValue("code"), "", a.completer(c))
	if err != nil {
		return a.bankCallbackFailed(c, auth, err)
	}
	if auth.Renewal {
		if _, err := a.BankQueue.EnqueueSync(ctx, *auth.ConnectionID); err != nil {
			return err
		}
	}
	if u := currentUser(c); u == nil || u.FamilyID != auth.FamilyID {
		return a.render(c, http.StatusOK, views.BankCallbackPage(auth, ""))
	}
	if _, err := a.theirConnection(c, *auth.ConnectionID); apperr.Is(err, apperr.NotFound) {
		return a.render(c, http.StatusOK, views.BankCallbackPage(auth, ""))
	} else if err != nil {
		return err
	}
	return a.bankAuthorizationDone(c, auth)
}

// completer is the callback's browser, as banksync judges and audits it.
func (a *app) completer(c echo.Context) banksync.Completer {
	return banksync.Completer{User: currentUser(c), Meta: a.meta(c)}
}

// bankCallbackFailed says why the callback did not complete: on the connections page of the
// signed-in person who started it (or, when that is not known, of a signed-in member of the
// household); else on a page of its own, which names the household when the authorisation is
// known.
func (a *app) bankCallbackFailed(c echo.Context, auth *banksync.Authorization, err error) error {
	e := apperr.As(err)
	if e == nil || e.Code == apperr.Internal {
		return err
	}
	if u := currentUser(c); u != nil && (auth == nil || auth.FamilyID == u.FamilyID && (auth.UserID == nil || *auth.UserID == u.ID)) {
		a.flash(c, "error", views.BankMessage(inLanguage(c), e.Message))
		return redirect(c, "/settings/bank_connections")
	}
	return a.render(c, statusOf(e.Code), views.BankCallbackPage(auth, views.BankMessage(inLanguage(c), e.Message)))
}

// bankAuthorizationDone sends a finished authorisation's browser on: to link the accounts,
// or back to the connections after a renewal.
func (a *app) bankAuthorizationDone(c echo.Context, auth *banksync.Authorization) error {
	if auth.Renewal {
		a.flash(c, "success", i18n.T(inLanguage(c), "bank.renewed"))
		return redirect(c, "/settings/bank_connections")
	}
	a.flash(c, "success", i18n.T(inLanguage(c), "bank.connected_flash"))
	return redirect(c, "/settings/bank_connections/"+auth.ConnectionID.String()+"/link")
}
