package handlers

import (
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
			a.flash(c, "error", e.Message)
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
