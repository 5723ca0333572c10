package handlers

import (
	"context"
	"net/http"

	"github.com/labstack/echo/v4"

	"tally/internal/i18n"
	"tally/models"
	"tally/recurring"
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

// recurringPerPage is a page of each of the /recurring page's lists.
const recurringPerPage = 50

// recurringPage is GET /recurring: a page of the family's proposed, confirmed and ignored
// series, each list paged on its own (?proposed_page=2); for a pager's htmx request only its
// list.
func (a *app) recurringPage(c echo.Context) error {
	for _, status := range models.RecurringStatuses {
		if isFragment(c, views.RecurringListID(status)) {
			l, err := a.recurringList(c, status)
			if err != nil {
				return err
			}
			return a.render(c, http.StatusOK, views.RecurringListTable(l))
		}
	}
	var p views.RecurringPage
	for _, status := range models.RecurringStatuses {
		l, err := a.recurringList(c, status)
		if err != nil {
			return err
		}
		p.Lists = append(p.Lists, l)
	}
	return a.render(c, http.StatusOK, views.RecurringPageView(p))
}

// recurringList is the page of the family's series of status that the request asks for
// (?<status>_page=N, the last page when past it), with the links to the pages beside it that
// keep the other lists' pages.
func (a *app) recurringList(c echo.Context, status string) (views.RecurringList, error) {
	param := status + "_page"
	v, err := a.viewer(c)
	if err != nil {
		return views.RecurringList{}, err
	}
	read := func(page int) ([]models.Recurring, int, error) {
		return models.RecurringSeriesOf(c.Request().Context(), a.DB, v,
			models.Page{Number: page, Size: recurringPerPage}, status)
	}
	page := queryPage(c, param)
	list, total, err := read(page)
	if last := max(1, (total+recurringPerPage-1)/recurringPerPage); err == nil && page > last {
		page = last
		list, total, err = read(page)
	}
	if err != nil {
		return views.RecurringList{}, err
	}
	if err := recurring.WithPaymentCategories(c.Request().Context(), a.DB, v, list, currentUser(c).Family.Today()); err != nil {
		return views.RecurringList{}, err
	}
	l := views.RecurringList{Status: status, Series: list, Total: total}
	if page > 1 {
		l.PrevURL = pageLink(c, "/recurring", param, page-1)
	}
	if page*recurringPerPage < total {
		l.NextURL = pageLink(c, "/recurring", param, page+1)
	}
	return l, nil
}

// recurringDetect is POST /recurring/detect: look through the whole history, in a job.
func (a *app) recurringDetect(c echo.Context) error {
	if a.RecurringQueue == nil {
		a.flash(c, "error", i18n.T(inLanguage(c), "recurring_page.no_jobs"))
		return redirect(c, "/recurring")
	}
	if err := a.RecurringQueue.EnqueueDetection(c.Request().Context(), currentUser(c).FamilyID); err != nil {
		return err
	}
	a.flash(c, "success", i18n.T(inLanguage(c), "recurring_page.detecting"))
	return redirect(c, "/recurring")
}

// recurringStatusFlashes are the message ids of what a plain (not htmx) change of a series'
// status says, by the status it now has.
var recurringStatusFlashes = map[string]string{
	models.RecurringProposed:  "recurring_page.now_proposed",
	models.RecurringConfirmed: "recurring_page.now_confirmed",
	models.RecurringIgnored:   "recurring_page.now_ignored",
}

// recurringStatus is POST /recurring/:id/status: confirm or ignore a series. htmx swaps its
// row; without it the page is shown again.
func (a *app) recurringStatus(c echo.Context) error {
	id, err := pathID(c)
	if err != nil {
		return err
	}
	status := c.FormValue("status")
	v, err := a.viewer(c)
	if err != nil {
		return err
	}
	r, err := recurring.Update(c.Request().Context(), a.DB, v, id, models.RecurringInput{Status: &status})
	if err != nil {
		return err
	}
	if c.Request().Header.Get("HX-Request") == "true" {
		return a.render(c, http.StatusOK, views.RecurringRow(*r))
	}
	a.flash(c, "success", i18n.T(inLanguage(c), recurringStatusFlashes[r.Status], "Name", r.Name))
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
	v, err := a.viewer(c)
	if err != nil {
		return err
	}
	r, err := models.RecurringByID(ctx, a.DB, v, id)
	if err != nil {
		return err
	}
	// The form offers the category a confirmation would give it, to keep or change.
	shown := []models.Recurring{*r}
	if err := recurring.WithPaymentCategories(ctx, a.DB, v, shown, u.Family.Today()); err != nil {
		return err
	}
	r = &shown[0]
	names, err := a.familyNames(c)
	if err != nil {
		return err
	}
	categories := append([]views.SelectOption{{Value: "", Label: i18n.T(inLanguage(c), "recurring_page.no_category")}}, names.lists["categories"]...)
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
	v, err := a.viewer(c)
	if err != nil {
		return err
	}
	r, err := models.UpdateRecurring(c.Request().Context(), a.DB, v, id, in)
	if err != nil {
		if status, ok := withError(inLanguage(c), form, err); ok {
			recurringProblems(inLanguage(c), form)
			return a.recurringForm(c, status, form)
		}
		return err
	}
	a.flash(c, "success", i18n.T(inLanguage(c), "recurring_page.saved", "Name", r.Name))
	return redirect(c, "/recurring")
}

// recurringProblemIDs are the message ids of what the edit form says of a problem with each
// of its fields. Their English repeats the series' own words, the API's too ({{.Problem}});
// another language says what to do in its own.
var recurringProblemIDs = map[string]string{
	"name": "recurring_problem.name", "amount": "recurring_problem.amount", "interval": "recurring_problem.interval",
	"next_date": "recurring_problem.next_date", "category_id": "recurring_problem.category_id", "status": "recurring_problem.status",
}

// recurringProblems says the problem under each of form's fields in the language of ctx:
// one sentence a field (its first problem, the one the form shows).
func recurringProblems(ctx context.Context, form *views.Form) {
	for field, msgs := range form.Errors {
		if id, ok := recurringProblemIDs[field]; ok {
			form.Errors[field] = []string{i18n.T(ctx, id, "Problem", msgs[0])}
		}
	}
}
