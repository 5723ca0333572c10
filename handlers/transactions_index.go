package handlers

import (
	"context"
	"maps"
	"net/http"
	"net/url"
	"slices"
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

// transactionsPerPage is a page of /transactions.
const transactionsPerPage = 50

// transactionsIndex is GET /transactions: every transaction of the family, found by a search
// and filters that live in the URL, 50 at a time. "Show older" asks htmx for the next rows
// only; without JavaScript it is a link to the next page.
func (a *app) transactionsIndex(c echo.Context) error {
	viewer, err := a.viewer(c)
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	query := url.Values{}
	form := &views.Form{Values: map[string]string{}}
	blanks := false
	for key, vals := range c.QueryParams() {
		for _, v := range vals {
			if v == "" {
				blanks = true
			} else if key != "cursor" && key != "changed" {
				query.Add(key, v)
			}
		}
		if len(vals) > 0 {
			form.Values[key] = vals[0]
		}
	}
	if blanks {
		// The filter form sends every field; the view's URL keeps only those in use, so that
		// it reads well as a bookmark or a shared link.
		return c.Redirect(http.StatusSeeOther, views.TransactionsURL(query))
	}
	l := views.TransactionsList{Filter: form, Query: query, Here: views.TransactionsURL(query),
		Bulk: &views.Form{Prefix: "bulk-", Values: map[string]string{}}}
	if id, err := uuid.Parse(c.QueryParam("changed")); err == nil {
		change, err := models.OpenChange(ctx, a.DB, viewer, id)
		if err != nil {
			return err
		}
		if change != nil && change.RuleID == nil {
			l.Changed = &views.BulkChange{ID: change.ID.String(), Changed: change.Changed}
		}
	}
	f, err := personsFilter(c.QueryParams(), currentUser(c).NumberLocale())
	var after *ledger.Cursor
	if s := c.QueryParam("cursor"); s != "" && err == nil {
		cur, cerr := ledger.ParseCursor(s)
		if cerr == nil {
			after, l.Deep = &cur, true
		}
	}
	switch e := apperr.As(err); {
	case e != nil && e.Code == apperr.Invalid:
		form.Errors = e.Fields
	case err != nil:
		return err
	default:
		rows, next, err := ledger.Rows(ctx, a.DB, viewer, f, after, transactionsPerPage)
		if err != nil {
			return err
		}
		l.Rows = rows
		if next != nil {
			more := maps.Clone(query)
			more.Set("cursor", next.String())
			l.MoreURL = views.TransactionsURL(more)
		}
	}
	if isFragment(c, "tx-more") {
		return a.render(c, http.StatusOK, views.TransactionRows(l))
	}
	if form.Errors == nil && !l.Deep {
		if l.Totals, err = ledger.Totals(ctx, a.DB, viewer, f); err != nil {
			return err
		}
	}
	names, err := a.familyNames(c)
	if err != nil {
		return err
	}
	all := func(label, table string) []views.SelectOption {
		return append([]views.SelectOption{{Value: "", Label: label}}, names.lists[table]...)
	}
	in := inPersonsStyle(c)
	l.Accounts, l.Categories, l.Tags = all(i18n.T(in, "tx.all_accounts"), "accounts"), all(i18n.T(in, "tx.all_categories"), "categories"), all(i18n.T(in, "tx.all_tags"), "tags")
	l.Merchants = names.lists["merchants"]
	if l.Members, err = a.memberOptions(c, "Anyone"); err != nil {
		return err
	}
	if f.ImportID != nil {
		l.ImportName = f.ImportID.String()
		if im, err := a.visibleImport(c, *f.ImportID); err == nil && im.Filename != nil {
			l.ImportName = *im.Filename
		}
		rest := maps.Clone(query)
		rest.Del("import_id")
		l.ClearImportURL = "/transactions"
		if len(rest) > 0 {
			l.ClearImportURL += "?" + rest.Encode()
		}
	}
	status := http.StatusOK
	if form.Errors != nil {
		status = http.StatusUnprocessableEntity
	}
	return a.render(c, status, views.TransactionsPage(l))
}

// returnTo is where the transaction form goes back to: the list the person came from, with
// its filters, and never another site.
func returnTo(raw string) string {
	if strings.HasPrefix(raw, "/transactions") && !strings.HasPrefix(raw, "//") {
		return raw
	}
	return "/transactions"
}

// transactionEdit is GET /transactions/:id: the form that fixes one transaction, as the panel
// of /transactions for htmx, or as a page.
func (a *app) transactionEdit(c echo.Context) error {
	viewer, err := a.viewer(c)
	if err != nil {
		return err
	}
	id, err := pathID(c)
	if err != nil {
		return err
	}
	t, err := ledger.Get(c.Request().Context(), a.DB, viewer, id)
	if err != nil {
		return err
	}
	return a.transactionEditForm(c, http.StatusOK, t, transactionEditValues(t, currentUser(c).NumberLocale()), returnTo(c.QueryParam("return")))
}

// transactionEditValues is the form filled with the transaction as it is, its amount in the
// person's number style l.
func transactionEditValues(t *ledger.Transaction, l models.Locale) *views.Form {
	f := &views.Form{Values: map[string]string{"name": t.Name, "date": t.Date.Format(time.DateOnly), "notes": t.Notes,
		"amount": l.EditNumber(t.Amount.Abs(), int32(models.CurrencyDecimals(t.Currency))), "direction": "out"}}
	if t.Amount.IsNegative() {
		f.Values["direction"] = "in"
	}
	if t.CategoryID != nil {
		f.Values["category_id"] = t.CategoryID.String()
	}
	if t.MerchantID != nil {
		f.Values["merchant_id"] = t.MerchantID.String()
	}
	for _, id := range t.TagIDs {
		f.Values["tag:"+id.String()] = "on"
	}
	if t.Excluded {
		f.Values["excluded"] = "on"
	}
	return f
}

func (a *app) transactionEditForm(c echo.Context, status int, t *ledger.Transaction, form *views.Form, back string) error {
	form.Prefix = "tx-" // the list's filters above have fields of the same names
	names, err := a.familyNames(c)
	if err != nil {
		return err
	}
	row, err := a.entryRow(c, t.ID)
	if err != nil {
		return err
	}
	members, err := a.memberNames(c)
	if err != nil {
		return err
	}
	none := func(table, label string) []views.SelectOption {
		return append([]views.SelectOption{{Value: "", Label: i18n.T(inLanguage(c), label)}}, names.lists[table]...)
	}
	e := views.TransactionEdit{Form: form, Entry: row, Manual: t.Manual(), ChangedBy: row.LastChange().Named(members),
		Categories: none("categories", "tx_form.no_category"), Merchants: none("merchants", "tx_form.no_merchant"), Tags: names.lists["tags"], Return: back}
	if isFragment(c, "tx-panel") {
		return a.render(c, status, views.TransactionEditPanel(e))
	}
	return a.render(c, status, views.TransactionEditPage(e))
}

// entryRow is one of the family's transactions as lists show it.
func (a *app) entryRow(c echo.Context, id uuid.UUID) (models.EntryRow, error) {
	viewer, err := a.viewer(c)
	if err != nil {
		return models.EntryRow{}, err
	}
	rows, _, err := models.Entries(c.Request().Context(), a.DB, models.EntryFilter{Viewer: viewer, ID: &id}, models.Page{Number: 1, Size: 1})
	if err != nil {
		return models.EntryRow{}, err
	}
	if len(rows) == 0 {
		return models.EntryRow{}, apperr.New(apperr.NotFound, "Transaction not found")
	}
	return rows[0], nil
}

// transactionUpdate is POST /transactions/:id: what the person changed on the form, and only
// that, is saved (and locked against rules); an error shows on its field and nothing is saved.
func (a *app) transactionUpdate(c echo.Context) error {
	viewer, err := a.viewer(c)
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	id, err := pathID(c)
	if err != nil {
		return err
	}
	t, err := ledger.Get(ctx, a.DB, viewer, id)
	if err != nil {
		return err
	}
	form := formOf(c, "name", "date", "amount", "direction", "category_id", "merchant_id", "notes", "excluded")
	params, _ := c.FormParams()
	for _, tag := range params["tag_ids"] {
		form.Values["tag:"+tag] = "on"
	}
	back := returnTo(c.FormValue("return"))
	p, err := transactionFormPatch(inLanguage(c), form, params["tag_ids"], t)
	if err == nil && !p.Empty() {
		_, err = ledger.Update(ctx, a.DB, viewer, id, p)
	}
	if err != nil {
		if status, ok := withError(inLanguage(c), form, err); ok {
			for field := range form.Errors {
				if strings.HasPrefix(field, "tag_ids[") {
					form.Errors["tag_ids"] = append(form.Errors["tag_ids"], form.Errors[field]...)
				}
			}
			return a.transactionEditForm(c, status, t, form, back)
		}
		return err
	}
	if isHTMX(c) {
		row, err := a.entryRow(c, id)
		if err != nil {
			return err
		}
		return a.render(c, http.StatusOK, views.TransactionSaved(row, back))
	}
	a.flash(c, "success", i18n.T(inPersonsStyle(c), "tx.saved", "Name", t.Name))
	return redirect(c, back)
}

// transactionFormPatch is the change the form makes to t: the fields whose value differs from
// the transaction's, so that saving the form locks only what the person changed. Its problems
// are said in the language of ctx.
func transactionFormPatch(ctx context.Context, form *views.Form, tags []string, t *ledger.Transaction) (ledger.Patch, error) {
	var p ledger.Patch
	var v apperr.Validation
	ref := func(field string, current *uuid.UUID) *ledger.Ref {
		raw := form.Value(field)
		if raw == "" {
			if current == nil {
				return nil
			}
			return &ledger.Ref{}
		}
		id, err := uuid.Parse(raw)
		if err != nil {
			v.Add(field, i18n.T(ctx, "tx_problem.from_list"))
			return nil
		}
		if current != nil && *current == id {
			return nil
		}
		return &ledger.Ref{ID: &id}
	}
	p.Category, p.Merchant = ref("category_id", t.CategoryID), ref("merchant_id", t.MerchantID)
	var tagIDs []uuid.UUID
	for _, raw := range tags {
		id, err := uuid.Parse(raw)
		if err != nil {
			v.Add("tag_ids", i18n.T(ctx, "tx_problem.tags_from_list"))
			continue
		}
		tagIDs = append(tagIDs, id)
	}
	if !sameIDs(tagIDs, t.TagIDs) {
		p.TagIDs = &tagIDs
	}
	if notes := strings.TrimSpace(form.Value("notes")); notes != t.Notes {
		p.Notes = &notes
	}
	if excluded := form.Value("excluded") != ""; excluded != t.Excluded { // a ticked box sends its value, whatever it is
		p.Excluded = &excluded
	}
	if name := strings.TrimSpace(form.Value("name")); name != t.Name {
		p.Name = &name
	}
	if t.Manual() {
		switch d, err := dates.Day("date", form.Value("date")); {
		case err != nil:
			v.Add("date", i18n.T(ctx, "tx_problem.date", "Problem", apperr.As(err).Message))
		case !d.Equal(t.Date):
			p.Date = &d
		}
		switch amount, err := models.ParseAmount(form.Value("amount"), t.Currency); {
		case err != nil:
			v.Add("amount", i18n.T(ctx, "tx_problem.amount_number", "Problem", apperr.As(err).Message))
		case !amount.IsPositive():
			v.Add("amount", i18n.T(ctx, "tx_problem.amount_positive"))
		default:
			if form.Value("direction") == "in" {
				amount = amount.Neg()
			}
			if !amount.Equal(t.Amount) {
				p.Amount = &amount
			}
		}
	}
	return p, v.Err()
}

// sameIDs reports whether a and b hold the same ids, in any order.
func sameIDs(a, b []uuid.UUID) bool {
	if len(a) != len(b) {
		return false
	}
	for _, id := range a {
		if !slices.Contains(b, id) {
			return false
		}
	}
	return true
}

// transactionsBulk is POST /transactions/bulk: a category, a merchant or a tag set on the
// ticked transactions, or on all that the list's filters select, at once; the list then
// offers to undo it for models.UndoWindow.
// formIDs are the transaction ids of the form's field, those that read as ids.
func formIDs(c echo.Context, field string) []uuid.UUID {
	params, _ := c.FormParams()
	var ids []uuid.UUID
	for _, raw := range params[field] {
		if id, err := uuid.Parse(raw); err == nil {
			ids = append(ids, id)
		}
	}
	return ids
}

// untickedRows are the rows shown (field "shown", one per row) that a person who ticked some
// left unticked: with "all that match", ticking all then unticking a few leaves those out.
// Ticking none leaves none out, so "all that match" alone still means all.
func untickedRows(c echo.Context) ([]uuid.UUID, error) {
	shown, ticked := formIDs(c, "shown"), formIDs(c, "ids")
	if len(ticked) == 0 {
		return nil, nil
	}
	if len(shown) > ledger.MaxMatching {
		return nil, apperr.New(apperr.Invalid, i18n.T(inLanguage(c), "tx_problem.too_many_unticked", "N", ledger.MaxMatching))
	}
	isTicked := make(map[uuid.UUID]bool, len(ticked))
	for _, id := range ticked {
		isTicked[id] = true
	}
	return slices.DeleteFunc(shown, func(id uuid.UUID) bool { return isTicked[id] }), nil
}

func (a *app) transactionsBulk(c echo.Context) error {
	viewer, err := a.viewer(c)
	if err != nil {
		return err
	}
	ctx, u := c.Request().Context(), currentUser(c)
	back := returnTo(c.FormValue("return"))
	var p ledger.Patch
	var v apperr.Validation
	ref := func(field string) *ledger.Ref {
		switch raw := c.FormValue(field); raw {
		case "":
			return nil
		case "none":
			return &ledger.Ref{}
		default:
			id, err := uuid.Parse(raw)
			if err != nil {
				v.Add(field, i18n.T(inLanguage(c), "tx_problem.from_list"))
				return nil
			}
			return &ledger.Ref{ID: &id}
		}
	}
	p.Category, p.Merchant = ref("category_id"), ref("merchant_id")
	if raw := c.FormValue("add_tag_id"); raw != "" {
		if id, err := uuid.Parse(raw); err == nil {
			p.AddTagIDs = []uuid.UUID{id}
		} else {
			v.Add("add_tag_id", i18n.T(inLanguage(c), "tx_problem.tag_from_list"))
		}
	}
	var change *models.Change
	err = v.Err()
	switch {
	case err != nil:
	case p.Empty():
		err = apperr.New(apperr.Invalid, i18n.T(inLanguage(c), "tx_problem.bulk_nothing"))
	case c.FormValue("all") == "1":
		var f ledger.Filter
		var except []uuid.UUID
		if except, err = untickedRows(c); err == nil {
			if f, err = filterOf(inLanguage(c), c.FormValue("filter"), u.NumberLocale()); err == nil {
				change, err = ledger.UpdateMatching(ctx, a.DB, viewer, f, p, except...)
			}
		}
	default:
		ids := formIDs(c, "ids")
		if len(ids) == 0 {
			err = apperr.New(apperr.Invalid, i18n.T(inLanguage(c), "tx_problem.bulk_none_ticked"))
		} else {
			change, err = ledger.UpdateMany(ctx, a.DB, viewer, ids, p)
		}
	}
	if err != nil {
		e := apperr.As(err)
		if e == nil || e.Code == apperr.Internal {
			return err
		}
		msg := e.Message
		if len(e.Fields) > 0 {
			// The first field's problem, the same one every time.
			msg = e.Fields[slices.Sorted(maps.Keys(e.Fields))[0]][0]
		}
		a.flash(c, "error", i18n.T(inPersonsStyle(c), "tx.nothing_changed", "Reason", msg))
		return redirect(c, back)
	}
	sep := "?"
	if strings.Contains(back, "?") {
		sep = "&"
	}
	return redirect(c, back+sep+"changed="+change.ID.String())
}

// filterOf reads a list's filters from its query string, as the list itself does; a query
// it cannot read is said in the language of ctx.
func filterOf(ctx context.Context, raw string, l models.Locale) (ledger.Filter, error) {
	q, err := url.ParseQuery(raw)
	if err != nil {
		return ledger.Filter{}, apperr.New(apperr.Invalid, i18n.T(ctx, "tx_problem.filters_unreadable"))
	}
	return personsFilter(q, l)
}

// personsFilter is the list's filters as a person typed them, their amounts in their number
// style l ("10,50" in de-DE), read as the API reads its plain ones.
func personsFilter(query url.Values, l models.Locale) (ledger.Filter, error) {
	plain := maps.Clone(query)
	for _, key := range []string{"min_amount", "max_amount"} {
		if v := plain.Get(key); v != "" {
			plain.Set(key, l.PlainNumber(v))
		}
	}
	return transactionFilter(plain)
}

// transactionsUndo is POST /transactions/changes/:id/undo: a bulk edit taken back.
func (a *app) transactionsUndo(c echo.Context) error {
	return a.undoChange(c, returnTo(c.FormValue("return")))
}

// undoChange takes back the change of many transactions in the path (a bulk edit, a rule
// applied to the history), says what it put back and what it left, and goes back.
func (a *app) undoChange(c echo.Context, back string) error {
	id, err := pathID(c)
	if err != nil {
		return err
	}
	v, err := a.viewer(c)
	if err != nil {
		return err
	}
	done, err := models.UndoChange(c.Request().Context(), a.DB, v, id)
	if e := apperr.As(err); e != nil && e.Code == apperr.Conflict {
		a.flash(c, "error", e.Message)
		return redirect(c, back)
	} else if err != nil {
		return err
	}
	in := inPersonsStyle(c)
	msg := i18n.T(in, "tx.undone")
	if done.Kept > 0 {
		msg = i18n.T(in, "tx.undone_some", "Restored", i18n.N(in, "tx.undone_restored", done.Restored),
			"Kept", i18n.N(in, "tx.undone_kept", done.Kept))
	}
	a.flash(c, "success", msg)
	return redirect(c, back)
}
