package handlers

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strings"

	"github.com/google/uuid"
	"github.com/labstack/echo/v4"

	"tally/internal/apperr"
	"tally/internal/i18n"
	"tally/models"
	"tally/transfers"
	"tally/views"
)

// transfersRoutes are the transfers page and what its buttons post.
func (a *app) transfersRoutes(g *echo.Group) {
	g.GET("/transfers", a.transfersPage)
	g.GET("/transfers/new", a.transferLinkPage)
	g.POST("/transfers", a.transferLink)
	g.POST("/transfers/:id/confirm", a.transferConfirm)
	g.POST("/transfers/:id/unlink", a.transferUnlink)
}

func (a *app) transfersPage(c echo.Context) error {
	viewer, err := a.viewer(c)
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	var p views.TransfersPage
	if p.Proposed, err = transfers.List(ctx, a.DB, viewer, transfers.Filter{Status: transfers.StatusPending}); err != nil {
		return err
	}
	if p.Confirmed, err = transfers.List(ctx, a.DB, viewer, transfers.Filter{Status: transfers.StatusConfirmed, Limit: 100}); err != nil {
		return err
	}
	return a.render(c, http.StatusOK, views.TransfersPageView(p))
}

// transferLinkPage offers the transactions that could be the other side of ?from=<id>.
func (a *app) transferLinkPage(c echo.Context) error {
	viewer, err := a.viewer(c)
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	id, err := uuid.Parse(c.QueryParam("from"))
	if err != nil {
		return apperr.New(apperr.NotFound, "Transaction not found")
	}
	from, candidates, err := models.TransferCandidates(ctx, a.DB, viewer, id, transfers.ManualDays, 50)
	if err != nil {
		return err
	}
	return a.render(c, http.StatusOK, views.TransferLinkPageView(views.TransferLinkPage{From: *from, Candidates: candidates}))
}

func (a *app) transferLink(c echo.Context) error {
	viewer, err := a.viewer(c)
	if err != nil {
		return err
	}
	from, err1 := uuid.Parse(c.FormValue("from_transaction_id"))
	to, err2 := uuid.Parse(c.FormValue("to_transaction_id"))
	if err1 != nil || err2 != nil {
		return apperr.New(apperr.BadRequest, i18n.T(inLanguage(c), "transfers_page.choose_two"))
	}
	t, err := transfers.Link(c.Request().Context(), a.DB, viewer, from, to, "")
	if err != nil {
		if e := apperr.As(err); e != nil && e.Code == apperr.Invalid {
			a.flash(c, "error", transferRefused(inLanguage(c), e))
			return redirect(c, "/transfers/new?from="+url.QueryEscape(from.String()))
		}
		return err
	}
	a.flash(c, "success", i18n.T(inLanguage(c), "transfers_page.linked", "From", t.Outflow.AccountName, "To", t.Inflow.AccountName))
	return redirect(c, "/accounts/"+t.Outflow.AccountID.String())
}

func (a *app) transferConfirm(c echo.Context) error {
	viewer, err := a.viewer(c)
	if err != nil {
		return err
	}
	id, err := pathID(c)
	if err != nil {
		return err
	}
	if _, err := transfers.Confirm(c.Request().Context(), a.DB, viewer, id); err != nil {
		return err
	}
	a.flash(c, "success", i18n.T(inLanguage(c), "transfers_page.confirmed_flash"))
	return redirect(c, back(c, "/transfers"))
}

func (a *app) transferUnlink(c echo.Context) error {
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
	a.flash(c, "success", i18n.T(inLanguage(c), "transfers_page.unlinked"))
	return redirect(c, back(c, "/transfers"))
}

// back is the page the request came from on this site, else fallback.
func back(c echo.Context, fallback string) string {
	ref, err := url.Parse(c.Request().Referer())
	if err != nil || ref.Host != c.Request().Host || !strings.HasPrefix(ref.Path, "/") || strings.HasPrefix(ref.Path, "//") {
		return fallback
	}
	return ref.RequestURI()
}

// transferProblems are the message ids of what the link page says of each reason
// transfers.Link refuses a pair for: of the side it started from, and of the side chosen.
// Their English is the API's ({{.Problem}}); another language says what to do in its own.
var transferProblems = map[transfers.Reason][2]string{
	transfers.NotFound:        {"transfer_problem.from_not_found", "transfer_problem.to_not_found"},
	transfers.NotATransaction: {"transfer_problem.from_not_transaction", "transfer_problem.to_not_transaction"},
	transfers.Split:           {"transfer_problem.from_split", "transfer_problem.to_split"},
	transfers.Linked:          {"transfer_problem.from_linked", "transfer_problem.to_linked"},
	transfers.Same:            {"transfer_problem.same", "transfer_problem.same"},
	transfers.SameAccount:     {"transfer_problem.same_account", "transfer_problem.same_account"},
	transfers.SameDirection:   {"transfer_problem.same_direction", "transfer_problem.same_direction"},
	transfers.Amounts:         {"transfer_problem.amounts", "transfer_problem.amounts"},
	transfers.TooFarApart:     {"transfer_problem.too_far_apart", "transfer_problem.too_far_apart"},
}

// transferRefused is what the link page says of e, a link transfers.Link refused, in the
// language of ctx: a sentence for each problem; e's own words when it says no Refusal.
func transferRefused(ctx context.Context, e *apperr.Error) string {
	var r *transfers.Refusal
	if _, notes := e.Fields["notes"]; notes || !errors.As(e, &r) || len(r.Problems) == 0 {
		return e.Message
	}
	said := make([]string, 0, len(r.Problems))
	for _, p := range r.Problems {
		ids, ok := transferProblems[p.Reason]
		if !ok {
			return e.Message
		}
		id := ids[0]
		if p.Field == "to_transaction_id" {
			id = ids[1]
		}
		said = append(said, i18n.T(ctx, id, "Problem", p.Message, "Days", p.Days, "Max", transfers.ManualDays))
	}
	return strings.Join(said, i18n.T(ctx, "transfer_problem.separator"))
}
