package handlers

import (
	"context"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/google/uuid"
	"github.com/labstack/echo/v4"

	"tally/imports"
	"tally/internal/apperr"
	"tally/internal/i18n"
	"tally/models"
	"tally/views"
)

const (
	importsPerPage    = 25
	importRowsPerPage = 50
)

// importsIndex is GET /imports: the family's imports, newest first, filtered by ?status= and
// ?type=. An htmx request from the filters or the pager gets only the table.
func (a *app) importsIndex(c echo.Context) error {
	l := views.ImportList{Status: c.QueryParam("status"), Type: c.QueryParam("type")}
	// A hand-edited URL with an unknown value shows every import rather than an error page.
	if !contains(imports.Statuses, l.Status) {
		l.Status = ""
	}
	if !imports.Type(l.Type).Valid() {
		l.Type = ""
	}
	page := pageNumber(c)
	v, err := a.viewer(c)
	if err != nil {
		return err
	}
	list, total, err := imports.List(c.Request().Context(), a.DB, imports.ListFilter{
		Viewer: v, Status: l.Status, Type: l.Type, Page: page, PerPage: importsPerPage,
	})
	if err != nil {
		return err
	}
	l.Imports = list
	link := func(p int) string {
		q := url.Values{}
		if l.Status != "" {
			q.Set("status", l.Status)
		}
		if l.Type != "" {
			q.Set("type", l.Type)
		}
		q.Set("page", strconv.Itoa(p))
		return "/imports?" + q.Encode()
	}
	if page > 1 {
		l.PrevURL = link(page - 1)
	}
	if page*importsPerPage < total {
		l.NextURL = link(page + 1)
	}
	if isFragment(c, "imports") {
		return a.render(c, http.StatusOK, views.ImportsTable(l))
	}
	return a.render(c, http.StatusOK, views.ImportsPage(l))
}

// importShow is GET /imports/:id: the import, its mappings and a page of its rows (?only=
// invalid|duplicate, ?page=). An htmx request from the row filter or pager gets only the rows.
func (a *app) importShow(c echo.Context) error {
	viewer, err := a.viewer(c)
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	im, err := a.familyImport(c)
	if err != nil {
		return err
	}
	d, err := imports.Describe(ctx, a.DB, im)
	if err != nil {
		return err
	}
	only := c.QueryParam("only")
	if only != "invalid" && only != "duplicate" {
		only = ""
	}
	page := pageNumber(c)
	rows, total, err := imports.Rows(ctx, a.DB, imports.RowFilter{ImportID: im.ID, Only: only, Page: page, PerPage: importRowsPerPage})
	if err != nil {
		return err
	}
	var acct *models.Account
	if im.AccountID != nil {
		switch acct, err = models.AccountByID(ctx, a.DB, viewer, *im.AccountID); {
		case apperr.Is(err, apperr.NotFound):
			acct = nil
		case err != nil:
			return err
		}
	}
	pending, err := imports.AlreadyThere(ctx, a.DB, d, rows)
	if err != nil {
		return err
	}
	r := views.ImportRows{ImportID: im.ID.String(), Type: im.Type, Rows: rows, Only: only, Page: page, Total: total, Stats: d.Stats,
		Keepable: im.Unpublished() && !im.KeepLikelyDuplicates}
	if acct != nil {
		r.Currency = acct.Currency
	}
	if page > 1 {
		r.PrevURL = views.RowsURL(r.ImportID, only, page-1)
	}
	if page*importRowsPerPage < total {
		r.NextURL = views.RowsURL(r.ImportID, only, page+1)
	}
	if isFragment(c, "import-rows") {
		return a.render(c, http.StatusOK, views.ImportRowsTable(r))
	}
	v := views.ImportView{Detail: d, Rows: r, RowLimit: a.Imports.Limits.MaxRows, Pending: pending}
	if v.Mappings, err = imports.Mappings(ctx, a.DB, im.ID); err != nil {
		return err
	}
	if im.Statements != nil {
		if v.Accounts, err = models.AccountsForFamily(ctx, a.DB, viewer); err != nil {
			return err
		}
		if v.Reconciliations, err = a.importReconciliations(c, im); err != nil {
			return err
		}
	}
	if im.Session {
		if v.Chunks, err = imports.Chunks(ctx, a.DB, im.ID); err != nil {
			return err
		}
	}
	if acct != nil {
		v.AccountName = acct.Name
	}
	if im.Type == imports.TransactionImport {
		if v.Profiles, err = imports.Profiles(ctx, a.DB, im.FamilyID, nil); err != nil {
			return err
		}
		for i := range v.Profiles {
			if im.ProfileID != nil && v.Profiles[i].ID == *im.ProfileID {
				v.Profile = &v.Profiles[i]
			}
		}
	}
	return a.render(c, http.StatusOK, views.ImportPage(v))
}

// importKeep is POST /imports/:id/keep: the review's choice of which likely duplicates the
// publish keeps, all of them (all=1, or all=0 to skip them again) or one row (row with keep=1
// or 0). It goes back to the page of rows it came from.
func (a *app) importKeep(c echo.Context) error {
	im, err := a.familyImport(c)
	if err != nil {
		return err
	}
	var k imports.KeepChoice
	ctx := inLanguage(c)
	msg := i18n.T(ctx, "import_flash.skip_unkept")
	if all := c.FormValue("all"); all != "" {
		keep := all == "1"
		k.All = &keep
		if keep {
			msg = i18n.T(ctx, "import_flash.keep_all")
		}
	}
	if raw := c.FormValue("row"); raw != "" {
		n, err := strconv.Atoi(raw)
		if err != nil {
			n = 0 // refused by the service, which names the row
		}
		k.Rows = map[int]bool{n: c.FormValue("keep") == "1"}
		msg = i18n.T(ctx, "import_flash.skip_row", "Row", n)
		if k.Rows[n] {
			msg = i18n.T(ctx, "import_flash.keep_row", "Row", n)
		}
	}
	page, _ := strconv.Atoi(c.FormValue("page"))
	if err := a.Imports.Keep(c.Request().Context(), im.FamilyID, im.ID, k); err != nil {
		return a.backToImport(c, im, err, "")
	}
	a.flash(c, "success", msg)
	return redirect(c, views.RowsURL(im.ID.String(), "", max(page, 1)))
}

// importProgress is GET /imports/:id/progress, polled by the import page every second while a
// publish or revert runs. Once it has ended the answer tells htmx to reload the page, which
// then shows the final state (and stops polling, as it no longer has the progress section).
func (a *app) importProgress(c echo.Context) error {
	im, err := a.familyImport(c)
	if err != nil {
		return err
	}
	d, err := imports.Describe(c.Request().Context(), a.DB, im)
	if err != nil {
		return err
	}
	if !im.Running() {
		c.Response().Header().Set("HX-Refresh", "true")
	}
	return a.render(c, http.StatusOK, views.ImportProgress(d))
}

// importPublish is POST /imports/:id/publish.
func (a *app) importPublish(c echo.Context) error {
	return a.importAction(c, a.Imports.Publish, i18n.T(inLanguage(c), "import_flash.publishing"), false)
}

// importMapping is POST /imports/:id/mappings: the statement file's account with key goes
// into the chosen account (target = its id) or a new one of a type (target = new:<type>).
func (a *app) importMapping(c echo.Context) error {
	im, err := a.familyImport(c)
	if err != nil {
		return err
	}
	var choice imports.AccountChoice
	target := c.FormValue("target")
	if t, ok := strings.CutPrefix(target, "new:"); ok {
		choice.NewType = t
	} else if id, err := uuid.Parse(target); err == nil {
		choice.AccountID = &id
	} else {
		choice.NewType = target // refused by the service with the list of types
	}
	viewer, err := a.viewer(c)
	if err != nil {
		return err
	}
	err = a.Imports.SetAccountMapping(c.Request().Context(), viewer, im.ID, c.FormValue("key"), choice)
	return a.backToImport(c, im, err, i18n.T(inLanguage(c), "import_flash.mapping_saved"))
}

// backToImport ends a form on the import's page: back to it, with success said, or with the
// client's mistake (its fields named) as the error; anything else is the error page's.
func (a *app) backToImport(c echo.Context, im *imports.Import, err error, success string) error {
	back := "/imports/" + im.ID.String()
	if err != nil {
		e := apperr.As(err)
		if e == nil || e.Code == apperr.Internal {
			return err
		}
		msg := e.Message
		for _, msgs := range e.Fields {
			msg += ": " + strings.Join(msgs, "; ")
		}
		a.flash(c, "error", msg)
		return redirect(c, back)
	}
	a.flash(c, "success", success)
	return redirect(c, back)
}

// importConfigure is POST /imports/:id/configure: the import page's form to read a pending
// file again with other columns or formats.
func (a *app) importConfigure(c echo.Context) error {
	im, err := a.familyImport(c)
	if err != nil {
		return err
	}
	form, err := c.FormParams()
	if err != nil {
		return apperr.Wrap(apperr.BadRequest, err, "The form could not be read")
	}
	field := func(key string) *string {
		if vs, ok := form[key]; ok && len(vs) > 0 {
			return &vs[0]
		}
		return nil
	}
	req := imports.Request{Labels: map[string]*string{}}
	if now, was := form.Get("mapping"), form.Get("mapping_was"); now != was {
		// Another preset or profile: the file is read afresh with it, whatever the other
		// selects said for the old one.
		kind, id, _ := strings.Cut(now, ":")
		switch kind {
		case "profile":
			req.ProfileID = &id
		case "preset":
			req.Preset = &id
		default:
			none := ""
			req.Preset = &none
		}
		_, err = a.Imports.Reconfigure(c.Request().Context(), im.FamilyID, im.ID, req)
		return a.backToImport(c, im, err, i18n.T(inLanguage(c), "import_flash.read_again"))
	}
	for _, key := range []string{"date", "amount", "debit", "credit", "fee", "balance", "name", "notes", "category", "tags", "currency"} {
		if l := field(key + "_col_label"); l != nil {
			req.Labels[key] = l
		}
	}
	req.DateFormat, req.NumberFormat = field("date_format"), field("number_format")
	if other := strings.TrimSpace(form.Get("date_format_other")); other != "" {
		req.DateFormat = &other // "other": a strftime pattern typed in
	}
	req.ColSep, req.SignageConvention, req.QuoteChar = field("col_sep"), field("signage_convention"), field("quote_char")
	if s := field("rows_to_skip"); s != nil && strings.TrimSpace(*s) != "" {
		n, err := strconv.Atoi(strings.TrimSpace(*s))
		if err != nil || n < 0 {
			n = -1 // refused by the service, which names the field
		}
		req.RowsToSkip = &n
	}
	_, err = a.Imports.Reconfigure(c.Request().Context(), im.FamilyID, im.ID, req)
	return a.backToImport(c, im, err, i18n.T(inLanguage(c), "import_flash.read_again"))
}

// importSaveProfile is POST /imports/:id/profile: the import's mapping kept for its account.
func (a *app) importSaveProfile(c echo.Context) error {
	im, err := a.familyImport(c)
	if err != nil {
		return err
	}
	p, err := a.Imports.SaveProfile(c.Request().Context(), im.FamilyID, im.ID, c.FormValue("name"))
	if err != nil {
		e := apperr.As(err)
		if e == nil || e.Code != apperr.Invalid {
			return err
		}
		msg := e.Message
		for _, m := range e.Fields["name"] {
			msg += ": " + m
		}
		a.flash(c, "error", msg)
		return redirect(c, "/imports/"+im.ID.String())
	}
	a.flash(c, "success", i18n.T(inLanguage(c), "import_flash.profile_saved", "Name", p.Name))
	return redirect(c, "/imports/"+im.ID.String())
}

// importRevert is POST /imports/:id/revert.
func (a *app) importRevert(c echo.Context) error {
	return a.importAction(c, a.Imports.Revert, i18n.T(inLanguage(c), "import_flash.reverting"), false)
}

// importDelete is POST /imports/:id/delete.
func (a *app) importDelete(c echo.Context) error {
	return a.importAction(c, a.Imports.Delete, i18n.T(inLanguage(c), "import_flash.deleted"), true)
}

// importAction runs one of the service's actions on the family's import and goes back to its
// page (the list after a delete). An action the import's state rejects is the person's to
// fix, not a broken page: its message is flashed on the import page instead.
func (a *app) importAction(c echo.Context, do func(ctx context.Context, familyID, id uuid.UUID) error, done string, toList bool) error {
	im, err := a.familyImport(c)
	if err != nil {
		return err
	}
	back := "/imports/" + im.ID.String()
	if err := do(c.Request().Context(), im.FamilyID, im.ID); err != nil {
		e := apperr.As(err)
		if e == nil || (e.Code != apperr.Conflict && e.Code != apperr.Invalid) {
			return err
		}
		a.flash(c, "error", actionMessage(e))
		return redirect(c, back)
	}
	a.flash(c, "success", done)
	if toList {
		return redirect(c, "/imports")
	}
	return redirect(c, back)
}

// actionMessage is a rejection with the import's problems: "cannot be published" alone would
// not say what to fix. The rows' own problems are on the page, under each row.
func actionMessage(e *apperr.Error) string {
	parts := append([]string{e.Message}, e.Fields["import"]...)
	return strings.Join(parts, " ")
}

// pageNumber reads ?page=, from 1.
func pageNumber(c echo.Context) int { return queryPage(c, "page") }

// queryPage is the page number the query parameter name asks for: 1 unless it is a whole
// number from 1.
func queryPage(c echo.Context, name string) int {
	n, err := strconv.Atoi(c.QueryParam(name))
	if err != nil || n < 1 {
		return 1
	}
	return n
}

// importNewFields are the upload form's fields, kept when it is shown again with errors.
var importNewFields = []string{"type", "account_id", "extractor", "preset", "date_format", "number_format", "signage_convention",
	"col_sep", "rows_to_skip", "date_col_label", "amount_col_label", "name_col_label", "category_col_label",
	"tags_col_label", "notes_col_label", "account_col_label", "currency_col_label", "ticker_col_label",
	"qty_col_label", "price_col_label"}

// importNew is GET /imports/new: the upload form.
func (a *app) importNew(c echo.Context) error {
	return a.renderNewImport(c, http.StatusOK, &views.Form{Values: map[string]string{"type": c.QueryParam("type")}}, "")
}

// renderNewImport shows the upload form; chosen is the name of the file a refused upload sent.
func (a *app) renderNewImport(c echo.Context, status int, form *views.Form, chosen string) error {
	viewer, err := a.viewer(c)
	if err != nil {
		return err
	}
	accts, err := models.AccountsForFamily(c.Request().Context(), a.DB, viewer)
	if err != nil {
		return err
	}
	opts := []views.SelectOption{{Value: "", Label: "None: use the account names in the file"}}
	for _, acct := range accts {
		opts = append(opts, views.SelectOption{Value: acct.ID.String(), Label: acct.Name})
	}
	return a.render(c, status, views.NewImportPage(views.NewImport{Form: form, Accounts: opts, LLM: a.Imports.LLM != nil,
		// htmx posts the form and swaps it back in around the file input, which keeps the file;
		// a browser posting the form itself forgets it.
		Chosen: chosen, FileKept: c.Request().Header.Get("HX-Request") == "true"}))
}

// importCreate is POST /imports: the upload, stored as a pending import whose page then shows
// what was found. A rejected upload shows the form again with the reasons.
func (a *app) importCreate(c echo.Context) error {
	form := formOf(c, importNewFields...)
	req, err := a.importRequest(c)
	if err == nil {
		req.Publish = false
		// The form's "read it off the file" choices are blank: not sent, so Tally guesses.
		for _, f := range []**string{&req.ColSep, &req.NumberFormat, &req.DateFormat, &req.Preset} {
			if *f != nil && strings.TrimSpace(**f) == "" {
				*f = nil
			}
		}
		var d *imports.Detail
		if d, err = a.Imports.Create(c.Request().Context(), handover(&req)); err == nil {
			a.flash(c, "success", i18n.T(inLanguage(c), "import_flash.uploaded"))
			return redirect(c, "/imports/"+d.ID.String())
		}
	}
	e := apperr.As(err)
	if e == nil || e.Code == apperr.Internal {
		return err
	}
	// Field problems go under their fields; the rest (the file's own) above the form.
	form.Errors = map[string][]string{}
	var other []string
	for field, msgs := range e.Fields {
		switch {
		case field == "raw_file_content" || field == "content":
			form.Errors["file"] = append(form.Errors["file"], msgs...)
		case slices.Contains(importNewFields, field) || field == "file":
			form.Errors[field] = msgs
		default:
			other = append(other, msgs...)
		}
	}
	if len(e.Fields) == 0 || len(other) > 0 {
		form.Message = strings.TrimSpace(e.Message + " " + strings.Join(other, " "))
	}
	if msg := fileProblem(inLanguage(c), e); msg != "" {
		form.Errors["file"] = []string{msg}
		form.Message = ""
	}
	return a.renderNewImport(c, statusOf(e.Code), form, req.Upload.Filename)
}

// fileProblem says to a person what is wrong with the file they chose, where the API's
// message tells a client which parameter to send; "" for the other problems.
func fileProblem(ctx context.Context, e *apperr.Error) string {
	switch e.Slug {
	case "missing_content":
		return i18n.T(ctx, "import_flash.choose_file")
	case "unrecognized_format":
		return i18n.T(ctx, "import_flash.unrecognized")
	case "invalid_file_type":
		if d, ok := e.Details.(map[string]any); ok {
			if t, ok := d["detected_type"].(imports.Type); ok {
				return i18n.T(ctx, "import_flash.wrong_type", "Type", views.ImportTypeLabel(ctx, t))
			}
		}
	}
	return ""
}

// importReconciliations are the reconciliations of the accounts a statement file's balances
// went into, each keeping the checkpoints the import wrote.
func (a *app) importReconciliations(c echo.Context, im *imports.Import) ([]views.ReconciliationView, error) {
	recs, err := models.ImportReconciliations(c.Request().Context(), a.DB, im.FamilyID, im.ID)
	if err != nil {
		return nil, err
	}
	out := make([]views.ReconciliationView, 0, len(recs))
	for i := range recs {
		v := views.ReconciliationView{R: &recs[i], ImportID: im.ID.String(), Return: "/imports/" + im.ID.String()}
		if len(v.Checkpoints()) > 0 {
			out = append(out, v)
		}
	}
	return out, nil
}
