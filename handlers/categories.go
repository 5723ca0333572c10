package handlers

import (
	"net/http"

	"github.com/google/uuid"
	"github.com/labstack/echo/v4"

	"tally/internal/apperr"
	"tally/internal/i18n"
	"tally/models"
	"tally/views"
)

// pathCategory is the family's category of :id, with all of the family's categories; another
// family's is not found.
func (a *app) pathCategory(c echo.Context) (*models.Category, []models.Category, error) {
	id, err := pathID(c)
	if err != nil {
		return nil, nil, err
	}
	viewer, err := a.viewer(c)
	if err != nil {
		return nil, nil, err
	}
	all, err := models.AllCategories(c.Request().Context(), a.DB, viewer)
	if err != nil {
		return nil, nil, err
	}
	for i := range all {
		if all[i].ID == id {
			return &all[i], all, nil
		}
	}
	return nil, nil, apperr.New(apperr.NotFound, "category not found")
}

// formID reads the id a select of form sent: nil when none was chosen.
func formID(v *apperr.Validation, form *views.Form, field, problem string) *uuid.UUID {
	s := form.Value(field)
	if s == "" {
		return nil
	}
	id, err := uuid.Parse(s)
	if err != nil {
		v.Add(field, problem)
		return nil
	}
	return &id
}

// categoryInput reads the category form. A subcategory takes its parent's classification, so
// the form's counts only for a top-level category.
func categoryInput(c echo.Context) (*views.Form, models.CategoryInput, error) {
	form := formOf(c, "name", "parent_id", "classification", "color", "color_hex")
	var v apperr.Validation
	parent := formID(&v, form, "parent_id", "Choose a parent from the list.")
	name, color := form.Value("name"), colorOf(form)
	in := models.CategoryInput{Name: &name, Color: &color, ParentID: &parent}
	if parent == nil {
		classification := form.Value("classification")
		in.Classification = &classification
	}
	v.Merge(in.Validate(false))
	return form, in, v.Err()
}

// categoriesIndex is GET /categories: the family's categories as a tree, and the form for a
// new one.
func (a *app) categoriesIndex(c echo.Context) error {
	return a.renderCategories(c, http.StatusOK, nil)
}

func (a *app) renderCategories(c echo.Context, status int, form *views.Form) error {
	viewer, err := a.viewer(c)
	if err != nil {
		return err
	}
	all, err := models.AllCategories(c.Request().Context(), a.DB, viewer)
	if err != nil {
		return err
	}
	list := views.CategoryList{All: all, Form: form}
	if u := currentUser(c); len(all) == 0 && u.Family != nil {
		list.Starter = models.StarterCategories(u.Family.Locale)
	}
	return a.render(c, status, views.CategoriesPage(list))
}

// categoriesStarter is POST /categories/starter: a family without categories takes the starter
// set, as onboarding offers it, in the language of its number style.
func (a *app) categoriesStarter(c echo.Context) error {
	u := currentUser(c)
	locale := ""
	if u.Family != nil {
		locale = u.Family.Locale
	}
	if err := models.CreateStarterCategories(c.Request().Context(), a.DB, u.FamilyID, locale); err != nil {
		return err
	}
	a.flash(c, "success", i18n.T(inLanguage(c), "category_flash.starter"))
	return redirect(c, "/categories")
}

// categoryCreate is POST /categories.
func (a *app) categoryCreate(c echo.Context) error {
	form, in, err := categoryInput(c)
	var cat *models.Category
	if err == nil {
		cat, err = models.CreateCategory(c.Request().Context(), a.DB, currentUser(c).FamilyID, in)
	}
	if err != nil {
		if status, ok := withError(inLanguage(c), form, err); ok {
			return a.renderCategories(c, status, form)
		}
		return err
	}
	a.flash(c, "success", i18n.T(inLanguage(c), "category_flash.created", "Name", cat.Name))
	return redirect(c, "/categories")
}

// categoryEdit is GET /categories/:id/edit.
func (a *app) categoryEdit(c echo.Context) error {
	cat, all, err := a.pathCategory(c)
	if err != nil {
		return err
	}
	form := &views.Form{Values: map[string]string{"name": cat.Name, "classification": cat.Classification, "color": cat.Color}}
	if cat.ParentID != nil {
		form.Values["parent_id"] = cat.ParentID.String()
	}
	return a.render(c, http.StatusOK, views.CategoryEditPage(views.CategoryEdit{Category: cat, All: all, Form: form}))
}

// categoryUpdate is POST /categories/:id: a new name, parent, classification or colour.
func (a *app) categoryUpdate(c echo.Context) error {
	cat, all, err := a.pathCategory(c)
	if err != nil {
		return err
	}
	viewer, err := a.viewer(c)
	if err != nil {
		return err
	}
	form, in, err := categoryInput(c)
	var updated *models.Category
	if err == nil {
		updated, err = models.UpdateCategory(c.Request().Context(), a.DB, viewer, cat.ID, in)
	}
	if err != nil {
		if status, ok := withError(inLanguage(c), form, err); ok {
			return a.render(c, status, views.CategoryEditPage(views.CategoryEdit{Category: cat, All: all, Form: form}))
		}
		return err
	}
	a.flash(c, "success", i18n.T(inLanguage(c), "category_flash.saved", "Name", updated.Name))
	return redirect(c, "/categories")
}

// categoryDeletePage is GET /categories/:id/delete: a confirmation, which for a category in
// use asks for the category that takes over its transactions.
func (a *app) categoryDeletePage(c echo.Context) error {
	cat, all, err := a.pathCategory(c)
	if err != nil {
		return err
	}
	return a.render(c, http.StatusOK, views.CategoryDeletePage(views.CategoryDelete{Category: cat, All: all, Form: &views.Form{}}))
}

// categoryDelete is POST /categories/:id/delete[replacement_id]: models.DeleteCategory's rule,
// the API's too. Refused for want of a replacement, the page asks for one.
func (a *app) categoryDelete(c echo.Context) error {
	cat, all, err := a.pathCategory(c)
	if err != nil {
		return err
	}
	form := formOf(c, "replacement_id")
	var v apperr.Validation
	replacement := formID(&v, form, "replacement_id", i18n.T(inLanguage(c), "category_flash.choose_replacement"))
	viewer, err := a.viewer(c)
	if err != nil {
		return err
	}
	moved := 0
	if err = v.Err(); err == nil {
		moved, err = models.DeleteCategory(c.Request().Context(), a.DB, viewer, cat.ID, replacement)
	}
	if err != nil {
		status, ok := withError(inLanguage(c), form, err)
		if !ok {
			return err
		}
		if form.Value("replacement_id") == "" && form.Error("replacement_id") != "" {
			// The model's words are the API's ("pass replacement_id"); the page has a select.
			form.Errors["replacement_id"] = []string{i18n.T(inLanguage(c), "category_flash.in_use", "Name", cat.Name)}
		}
		return a.render(c, status, views.CategoryDeletePage(views.CategoryDelete{Category: cat, All: all, Form: form}))
	}
	msg := i18n.T(inLanguage(c), "category_flash.deleted", "Name", cat.Name)
	if replacement != nil {
		msg = i18n.N(inLanguage(c), "category_flash.deleted_moved", moved, "Name", cat.Name, "Replacement", categoryName(all, *replacement))
	}
	a.flash(c, "success", msg)
	return redirect(c, "/categories")
}

// categoryName is the name of the category id among all.
func categoryName(all []models.Category, id uuid.UUID) string {
	for _, c := range all {
		if c.ID == id {
			return c.Name
		}
	}
	return "the replacement"
}
