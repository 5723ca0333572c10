package handlers

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"tally/models"
	"tally/views"
)

// recurringRoutes are the recurring series' page and what its buttons and form post.
func (a *app) recurringRoutes(g *echo.Group) {
	g.GET("/recurring", a.recurringPage)
	g.POST("/recurring/detect", a.recurringDetect)
	g.POST("/recurring/:id/status", a.recurringStatus)
	g.GET("/recurring/:id/edit", a.recurringEdit)
	g.POST("/recurring/:id", a.recurringUpdate)
}

// recurringPage is GET /recurring: the family's series, proposed, confirmed and ignored.
func (a *app) recurringPage(c echo.Context) error {
	all, err := models.RecurringByStatus(c.Request().Context(), a.DB, currentUser(c).FamilyID, models.RecurringStatuses...)
	if err != nil {
		return err
	}
	var p views.RecurringPage
	for _, r := range all {
		switch r.Status {
		case models.RecurringProposed:
			p.Proposed = append(p.Proposed, r)
		case models.RecurringConfirmed:
			p.Confirmed = append(p.Confirmed, r)
		default:
			p.Ignored = append(p.Ignored, r)
		}
	}
	return a.render(c, http.StatusOK, views.RecurringPageView(p))
}

// recurringDetect is POST /recurring/detect: look through the whole history, in a job.
func (a *app) recurringDetect(c echo.Context) error {
	if a.RecurringQueue == nil {
		a.flash(c, "error", "This server does not run background jobs: Tally looks for recurring payments after your next import.")
		return redirect(c, "/recurring")
	}
	if err := a.RecurringQueue.EnqueueDetection(c.Request().Context(), currentUser(c).FamilyID); err != nil {
		return err
	}
	a.flash(c, "success", "Tally is looking through your history; new series appear here in a few seconds. Reload the page to see them.")
	return redirect(c, "/recurring")
}

// recurringStatus is POST /recurring/:id/status: confirm or ignore a series. htmx swaps its
// row; without it the page is shown again.
func (a *app) recurringStatus(c echo.Context) error {
	id, err := pathID(c)
	if err != nil {
		return err
	}
	status := c.FormValue("status")
	r, err := models.UpdateRecurring(c.Request().Context(), a.DB, currentUser(c).FamilyID, id, models.RecurringInput{Status: &status})
	if err != nil {
		return err
	}
	if c.Request().Header.Get("HX-Request") == "true" {
		return a.render(c, http.StatusOK, views.RecurringRow(*r))
	}
	a.flash(c, "success", "“"+r.Name+"” is "+r.Status+".")
	return redirect(c, "/recurring")
}

// recurringEdit is GET /recurring/:id/edit.
func (a *app) recurringEdit(c echo.Context) error {
	return a.recurringForm(c, http.StatusOK, nil)
}

func (a *app) recurringForm(c echo.Context, status int, form *views.Form) error {
	ctx, u := c.Request().Context(), currentUser(c)
	id, err := pathID(c)
	if err != nil {
		return err
	}
	r, err := models.RecurringByID(ctx, a.DB, u.FamilyID, id)
	if err != nil {
		return err
	}
	names, err := a.familyNames(ctx, u.FamilyID)
	if err != nil {
		return err
	}
	categories := append([]views.SelectOption{{Value: "", Label: "— none"}}, names.lists["categories"]...)
	return a.render(c, status, views.RecurringEditPage(r, form, categories))
}

// recurringUpdate is POST /recurring/:id: the edit form. A problem shows the form again with
// it under its field.
func (a *app) recurringUpdate(c echo.Context) error {
	id, err := pathID(c)
	if err != nil {
		return err
	}
	form := formOf(c, "name", "amount", "interval", "next_date", "category_id", "status")
	in := models.RecurringInput{}
	for field, dst := range map[string]**string{"name": &in.Name, "amount": &in.Amount, "interval": &in.Interval,
		"next_date": &in.NextDate, "category_id": &in.CategoryID, "status": &in.Status} {
		v := form.Values[field]
		*dst = &v
	}
	r, err := models.UpdateRecurring(c.Request().Context(), a.DB, currentUser(c).FamilyID, id, in)
	if err != nil {
		if status, ok := withError(form, err); ok {
			return a.recurringForm(c, status, form)
		}
		return err
	}
	a.flash(c, "success", "“"+r.Name+"” saved.")
	return redirect(c, "/recurring")
}
