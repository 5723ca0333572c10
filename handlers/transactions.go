package handlers

import (
	"context"
	"net/http"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/labstack/echo/v4"

	"tally/internal/apperr"
	"tally/internal/dates"
	"tally/internal/i18n"
	"tally/ledger"
	"tally/models"
	"tally/views"
)

var transactionFields = []string{"date", "name", "amount", "direction", "category_id", "notes"}

// transactionNew is GET /accounts/:id/transactions/new: a transaction added by hand.
func (a *app) transactionNew(c echo.Context) error {
	return a.transactionForm(c, http.StatusOK, &views.Form{Values: map[string]string{
		"date": time.Now().Format(time.DateOnly), "direction": "out"}})
}

func (a *app) transactionForm(c echo.Context, status int, form *views.Form) error {
	acct, err := a.pathAccount(c)
	if err != nil {
		return err
	}
	names, err := a.familyNames(c)
	if err != nil {
		return err
	}
	categories := append([]views.SelectOption{{Value: "", Label: i18n.T(inLanguage(c), "tx_form.leave_to_rules")}}, names.lists["categories"]...)
	return a.render(c, status, views.TransactionFormPage(acct, form, categories))
}

// transactionCreate is POST /accounts/:id/transactions. The family's rules run over the new
// transaction (a category chosen here is the person's and stays), and a transfer is proposed
// when its other side is in another account.
func (a *app) transactionCreate(c echo.Context) error {
	viewer, err := a.viewer(c)
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	acct, err := a.pathAccount(c)
	if err != nil {
		return err
	}
	form := formOf(c, transactionFields...)
	in, err := transactionInput(inLanguage(c), form, acct)
	var entryID uuid.UUID
	if err == nil {
		entryID, err = ledger.Create(ctx, a.DB, a.Log, viewer, in)
	}
	if err != nil {
		if status, ok := withError(inLanguage(c), form, err); ok {
			return a.transactionForm(c, status, form)
		}
		return err
	}
	added := "tx_flash.added"
	if t, err := ledger.Get(ctx, a.DB, viewer, entryID); err == nil && t.Transfer != nil {
		added = "tx_flash.added_transfer"
	}
	a.flash(c, "success", i18n.T(inLanguage(c), added, "Name", strings.TrimSpace(in.Name)))
	return redirect(c, "/accounts/"+acct.ID.String())
}

// transactionInput reads the form: a positive amount with its direction (money out is the
// ledger's positive sign), every problem at once, said in the language of ctx.
func transactionInput(ctx context.Context, form *views.Form, acct *models.Account) (ledger.NewTransaction, error) {
	in := ledger.NewTransaction{AccountID: acct.ID, Name: form.Value("name"), Notes: strings.TrimSpace(form.Value("notes"))}
	var v apperr.Validation
	if raw := strings.TrimSpace(form.Value("date")); raw == "" {
		v.Add("date", i18n.T(ctx, "tx_problem.date_required"))
	} else if d, err := dates.Day("date", raw); err != nil {
		v.Add("date", i18n.T(ctx, "tx_problem.date", "Problem", apperr.As(err).Message))
	} else {
		in.Date = d
	}
	switch amount, err := models.ParseAmount(form.Value("amount"), acct.Currency); {
	case strings.TrimSpace(form.Value("amount")) == "":
		v.Add("amount", i18n.T(ctx, "tx_problem.amount_required"))
	case err != nil:
		v.Add("amount", i18n.T(ctx, "tx_problem.amount_number", "Problem", apperr.As(err).Message))
	case !amount.IsPositive():
		v.Add("amount", i18n.T(ctx, "tx_problem.amount_positive"))
	case form.Value("direction") == "in":
		in.Amount = amount.Neg()
	case form.Value("direction") == "out":
		in.Amount = amount
	default:
		v.Add("direction", i18n.T(ctx, "tx_problem.direction"))
	}
	if raw := form.Value("category_id"); raw != "" {
		if cat, err := uuid.Parse(raw); err != nil {
			v.Add("category_id", i18n.T(ctx, "tx_problem.category"))
		} else {
			in.CategoryID = &cat
		}
	}
	if strings.TrimSpace(in.Name) == "" {
		v.Add("name", i18n.T(ctx, "tx_problem.name_required"))
	}
	return in, v.Err()
}
