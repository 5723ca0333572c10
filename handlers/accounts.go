package handlers

import (
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/labstack/echo/v4"

	"tally/imports"
	"tally/internal/apperr"
	"tally/internal/i18n"
	"tally/models"
	"tally/recurring"
	"tally/reports"
	"tally/views"
)

var accountFields = []string{"name", "accountable_type", "subtype", "currency", "balance"}

func (a *app) accountsIndex(c echo.Context) error {
	ctx, u := c.Request().Context(), currentUser(c)
	v, err := a.viewer(c)
	if err != nil {
		return err
	}
	accts, err := models.AccountsForFamily(ctx, a.DB, v)
	if err != nil {
		return err
	}
	today := u.Family.Today()
	nw, err := reports.FamilyNetWorth(ctx, a.DB, v, u.Family.Currency, today, today)
	if err != nil {
		return err
	}
	return a.render(c, http.StatusOK, views.AccountsPage(groupAccounts(accts, u.Family.Currency, todayRates(nw), today), v.HidesAny()))
}

// pathAccount is the family's account of :id; another family's, or one kept from the
// viewer, is not found.
func (a *app) pathAccount(c echo.Context) (*models.Account, error) {
	id, err := pathID(c)
	if err != nil {
		return nil, err
	}
	v, err := a.viewer(c)
	if err != nil {
		return nil, err
	}
	return models.AccountByID(c.Request().Context(), a.DB, v, id)
}

// forecastDays is how far ahead a current account's page forecasts its balance.
const forecastDays = 30

// accountRecentEntries is how many of its latest entries an account's page shows.
const accountRecentEntries = 10

func (a *app) accountShow(c echo.Context) error {
	u := currentUser(c)
	acct, err := a.pathAccount(c)
	if err != nil {
		return err
	}
	v, err := a.viewer(c)
	if err != nil {
		return err
	}
	// The account's latest entries, valuations among them; the whole list, searched and
	// filtered, is /transactions?account_id=…, which the page links to.
	rows, _, err := models.Entries(c.Request().Context(), a.DB, models.EntryFilter{Viewer: v, AccountID: &acct.ID},
		models.Page{Number: 1, Size: accountRecentEntries})
	if err != nil {
		return err
	}
	list := views.EntryList{Rows: rows}
	rec, err := models.ReconcileAccount(c.Request().Context(), a.DB, u.FamilyID, acct.ID)
	if err != nil {
		return err
	}
	history, err := a.accountHistory(c, acct, rec)
	if err != nil {
		return err
	}
	if isFragment(c, history.ID) {
		return a.render(c, http.StatusOK, views.BalanceHistoryCard(history))
	}
	profiles, err := imports.Profiles(c.Request().Context(), a.DB, u.FamilyID, &acct.ID)
	if err != nil {
		return err
	}
	var forecast *recurring.Forecast
	if acct.AccountableType == "Depository" && acct.Status != models.AccountDisabled {
		if forecast, err = a.Recurring.Forecast(c.Request().Context(), a.DB, v, acct.ID, u.Family.Today(), forecastDays); err != nil {
			return err
		}
	}
	troubles, err := a.bankTroubles(c.Request().Context(), u, &acct.ID)
	if err != nil {
		return err
	}
	return a.render(c, http.StatusOK, views.AccountPage(acct, history, views.ReconciliationView{R: rec, Return: accountURL(acct.ID)}, list, profiles, forecast, troubles))
}

// accountURL is an account's page, at its reconciliation.
func accountURL(id uuid.UUID) string { return "/accounts/" + id.String() + "#reconciliation" }

// checkpointFix is POST /accounts/:id/checkpoints/:checkpoint/fix, from a reconciliation card:
// fix is adjust or trust (models.FixCheckpoint), return the page to go back to.
func (a *app) checkpointFix(c echo.Context) error {
	acct, err := a.pathAccount(c)
	if err != nil {
		return err
	}
	cp, err := uuid.Parse(c.Param("checkpoint"))
	if err != nil {
		return echo.ErrNotFound
	}
	form := formOf(c, "fix", "return")
	e, err := models.FixCheckpoint(c.Request().Context(), a.DB, acct.FamilyID, acct.ID, cp, form.Value("fix"))
	if err != nil {
		return err
	}
	styled, lang := inPersonsStyle(c), inLanguage(c)
	msg := i18n.T(lang, "account_flash.adjusted", "Amount", views.UserMoney(styled, e.Amount.Abs(), e.Currency), "Date", views.UserDate(styled, e.Date))
	if e.Kind == models.EntryValuation {
		msg = i18n.T(lang, "account_flash.trusted", "Date", views.UserDate(styled, e.Date))
	}
	a.flash(c, "success", msg)
	back := form.Value("return")
	if !strings.HasPrefix(back, "/accounts/") && !strings.HasPrefix(back, "/imports/") {
		back = accountURL(acct.ID) // never another site
	}
	return redirect(c, back)
}

// reconciliationFixUndo is POST /accounts/:id/reconciliation_fixes/:entry/undo.
func (a *app) reconciliationFixUndo(c echo.Context) error {
	acct, err := a.pathAccount(c)
	if err != nil {
		return err
	}
	entry, err := uuid.Parse(c.Param("entry"))
	if err != nil {
		return echo.ErrNotFound
	}
	if err := models.UndoReconciliationFix(c.Request().Context(), a.DB, acct.FamilyID, acct.ID, entry); err != nil {
		return err
	}
	a.flash(c, "success", i18n.T(inLanguage(c), "account_flash.fix_undone"))
	return redirect(c, accountURL(acct.ID))
}

// importProfileDelete is POST /import_profiles/:id/delete, from the account page.
func (a *app) importProfileDelete(c echo.Context) error {
	id, err := pathID(c)
	if err != nil {
		return err
	}
	p, err := imports.ProfileByID(c.Request().Context(), a.DB, currentUser(c).FamilyID, id)
	if err != nil {
		return err
	}
	if err := a.Imports.DeleteProfile(c.Request().Context(), p.FamilyID, p.ID); err != nil {
		return err
	}
	a.flash(c, "success", i18n.T(inLanguage(c), "account_flash.profile_deleted", "Name", p.Name))
	return redirect(c, "/accounts/"+p.AccountID.String())
}

func (a *app) accountNew(c echo.Context) error {
	return a.render(c, http.StatusOK, views.AccountFormPage(views.AccountForm{}))
}

// accountInput reads the account form. Every problem, the balance's included, is reported at
// once. A blank balance is not known; currency is the account's own when editing.
func accountInput(form *views.Form, currency string, today time.Time) (models.AccountInput, error) {
	creating := currency == ""
	in := models.AccountInput{
		Name: form.Value("name"), AccountableType: form.Value("accountable_type"),
		Subtype: strings.TrimSpace(form.Value("subtype")), Currency: form.Value("currency"), BalanceDate: today,
	}
	if !creating {
		in.Currency = currency
	}
	var v apperr.Validation
	if raw := strings.TrimSpace(form.Value("balance")); raw != "" {
		d, err := models.ParseAmount(raw, strings.ToUpper(strings.TrimSpace(in.Currency)))
		if err != nil {
			v.Add("balance", "Current balance: "+apperr.As(err).Message)
		}
		in.Balance = &d
	}
	v.Merge(in.Validate(creating))
	return in, v.Err()
}

func (a *app) accountCreate(c echo.Context) error {
	form := formOf(c, accountFields...)
	u := currentUser(c)
	in, err := accountInput(form, "", u.Family.Today())
	in.OwnerID = &u.ID // the member who creates it owns it
	var acct *models.Account
	if err == nil {
		acct, err = models.CreateAccount(c.Request().Context(), a.DB, currentUser(c).FamilyID, in)
	}
	if err != nil {
		if status, ok := withError(inLanguage(c), form, err); ok {
			return a.render(c, status, views.AccountFormPage(views.AccountForm{Form: form}))
		}
		return err
	}
	a.flash(c, "success", i18n.T(inLanguage(c), "account_flash.created", "Name", acct.Name))
	return redirect(c, "/accounts/"+acct.ID.String())
}

func (a *app) accountEdit(c echo.Context) error {
	acct, err := a.pathAccount(c)
	if err != nil {
		return err
	}
	sharing, err := a.accountSharing(c, acct)
	if err != nil {
		return err
	}
	return a.render(c, http.StatusOK, views.AccountFormPage(views.AccountForm{Account: acct, MayDelete: currentUser(c).MayDeleteAccounts(), Sharing: sharing}))
}

// accountSharing is the edit form's "who sees this account" of acct, for the person who may
// change it (models.MayShare); nil for anyone else.
func (a *app) accountSharing(c echo.Context, acct *models.Account) (*views.AccountSharing, error) {
	ctx, u := c.Request().Context(), currentUser(c)
	if !models.MayShare(u, acct) {
		return nil, nil
	}
	members, err := models.FamilyMembers(ctx, a.DB, u.FamilyID)
	if err != nil {
		return nil, err
	}
	shares, err := models.AccountShares(ctx, a.DB, []uuid.UUID{acct.ID})
	if err != nil {
		return nil, err
	}
	members = slices.DeleteFunc(members, func(m models.Member) bool { return m.ID == u.ID })
	return &views.AccountSharing{Private: acct.Private, Members: members, SharedWith: shares[acct.ID], Claim: acct.OwnerID == nil}, nil
}

// formSharing reads the edit form's "who sees this account": nil when the form did not offer
// it. Members are ticked as share_<id>, among the family's (s.Members).
func formSharing(c echo.Context, s *views.AccountSharing) *models.Sharing {
	if s == nil || c.FormValue("sharing") == "" {
		return nil
	}
	out := &models.Sharing{Private: c.FormValue("private") != ""}
	if out.Private {
		for _, m := range s.Members {
			if c.FormValue("share_"+m.ID.String()) != "" {
				out.SharedWith = append(out.SharedWith, m.ID)
			}
		}
	}
	return out
}

func (a *app) accountUpdate(c echo.Context) error {
	acct, err := a.pathAccount(c)
	if err != nil {
		return err
	}
	ctx, u, id := c.Request().Context(), currentUser(c), acct.ID
	v, err := a.viewer(c)
	if err != nil {
		return err
	}
	sharing, err := a.accountSharing(c, acct)
	if err != nil {
		return err
	}
	fields := []string{"name", "accountable_type", "subtype", "balance", "private"}
	if sharing != nil {
		for _, m := range sharing.Members {
			fields = append(fields, "share_"+m.ID.String())
		}
	}
	form := formOf(c, fields...)
	in, err := accountInput(form, acct.Currency, u.Family.Today())
	var updated *models.Account
	if err == nil {
		// One change, in one transaction: the name and type, a balance typed anew (which moves
		// the anchor, or for a valued account is its value from today) and who sees it.
		ch := models.AccountChanges{Name: &in.Name, AccountableType: &in.AccountableType, Subtype: &in.Subtype,
			Today: in.BalanceDate, By: u}
		if acct.Source == nil {
			ch.Balance = in.Balance // a synced account's balance is the bank's
		}
		if s := formSharing(c, sharing); s != nil {
			ch.Private, ch.SharedWith = &s.Private, &s.SharedWith
		}
		updated, err = models.ChangeAccount(ctx, a.DB, v, id, ch)
	}
	if err != nil {
		if status, ok := withError(inLanguage(c), form, err); ok {
			return a.render(c, status, views.AccountFormPage(views.AccountForm{Form: form, Account: acct, MayDelete: u.MayDeleteAccounts(), Sharing: sharing}))
		}
		return err
	}
	a.flash(c, "success", i18n.T(inLanguage(c), "account_flash.saved", "Name", updated.Name))
	return redirect(c, "/accounts/"+id.String())
}

func (a *app) accountClose(c echo.Context) error {
	return a.setAccountStatus(c, models.AccountDisabled, "account_flash.closed")
}

func (a *app) accountReopen(c echo.Context) error {
	return a.setAccountStatus(c, models.AccountActive, "account_flash.reopened")
}

// setAccountStatus sets the account's status and says so with the message msgID.
func (a *app) setAccountStatus(c echo.Context, status, msgID string) error {
	id, err := pathID(c)
	if err != nil {
		return err
	}
	v, err := a.viewer(c)
	if err != nil {
		return err
	}
	if err := models.SetAccountStatus(c.Request().Context(), a.DB, v, id, status); err != nil {
		return err
	}
	a.flash(c, "success", i18n.T(inLanguage(c), msgID))
	return redirect(c, "/accounts/"+id.String())
}

// accountDelete is POST /accounts/:id/delete, from the edit page: the account goes, with its
// history, once its name is typed into confirm (models.DeleteAccount's rule, the API's too).
func (a *app) accountDelete(c echo.Context) error {
	acct, err := a.pathAccount(c)
	if err != nil {
		return err
	}
	v, err := a.viewer(c)
	if err != nil {
		return err
	}
	form := formOf(c, "confirm")
	del, err := models.DeleteAccount(c.Request().Context(), a.DB, currentUser(c), v, acct.ID, form.Value("confirm"))
	if err != nil {
		if status, ok := withError(inLanguage(c), form, err); ok {
			return a.render(c, status, views.AccountFormPage(views.AccountForm{Account: acct, Delete: form, MayDelete: true}))
		}
		return err
	}
	a.flash(c, "success", i18n.N(inLanguage(c), "account_flash.deleted", del.Transactions, "Name", acct.Name))
	return redirect(c, "/accounts")
}
