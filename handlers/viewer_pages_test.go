package handlers_test

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
	"github.com/labstack/echo/v4"

	"tally/app/apptest"
	"tally/banksync"
	"tally/handlers"
	"tally/models"
	"tally/testkit"
	"tally/webhooks"
)

// A viewer's pages are read-only: no page a viewer may open holds a form, an htmx request or a
// link that a viewer is refused (a change, or a page that is only a form for one). What they
// may still use is what handlers/viewer_rules.go lets them: every read, their own account's
// settings, signing out, and the reads that only compute.
func TestViewerPagesHaveNoWriteControls(t *testing.T) {
	t.Parallel()
	srv := apptest.StartServer(t, apptest.ServerOptions{NoWorker: true})
	admin := testkit.MustCreateUser(t, srv.DB, testkit.UserOpts{})
	viewer := testkit.MustCreateUser(t, srv.DB, testkit.UserOpts{FamilyID: admin.FamilyID, Role: models.RoleViewer})
	ids := familyWithEverything(t, &whoEnv{srv: srv, jana: admin, c: apptest.NewClient(t, srv),
		key: testkit.MustCreateAPIKey(t, srv.DB, admin.ID, models.ScopeReadWrite)})

	c := apptest.NewClient(t, srv)
	c.SignIn(viewer.Email, testkit.Password)
	router := handlers.New(handlers.Deps{SSO: &handlers.SSO{}, Bank: &banksync.Service{}, Webhooks: &webhooks.Service{}})
	param := regexp.MustCompile(`:[a-z_]+`)
	pages := 0
	for _, route := range allRoutes(t) {
		method, path, _ := strings.Cut(route, " ")
		rule, _ := handlers.ViewerRule(route)
		if method != http.MethodGet || strings.HasPrefix(path, "/api/") || strings.Contains(path, "*") || (rule != "reads" && rule != "own_account") {
			continue
		}
		filled := true
		path = param.ReplaceAllStringFunc(path, func(p string) string {
			id, ok := ids[resourceOf(path)+p]
			filled = filled && ok
			return id
		})
		if !filled {
			continue
		}
		r := c.Get(path)
		if r.Status != http.StatusOK || !strings.HasPrefix(r.Header.Get("Content-Type"), "text/html") {
			continue
		}
		pages++
		for _, ctl := range writeControls(r.Doc(t), path) {
			target := routeOf(router, ctl.method, ctl.path)
			if got, ok := handlers.ViewerRule(target); (ok || ctl.method != http.MethodGet) && (!ok || got == "denied") {
				t.Errorf("%s shows a viewer %s %s (%s), which a viewer may not use", path, ctl.method, ctl.path, ctl.what)
			}
		}
	}
	if pages < 20 {
		t.Fatalf("only %d pages rendered for the viewer", pages)
	}
}

// familyWithEverything fills e's family with one of each thing the pages act on, through the
// API, and returns the ids by the route parameter that names them ("accounts:id").
func familyWithEverything(t *testing.T, e *whoEnv) map[string]string {
	t.Helper()
	var acct, savings, tx, cat, tag, merchant, rule, imp struct {
		ID string `json:"id"`
	}
	e.api(t, http.MethodPost, "/api/v1/accounts", map[string]any{"name": "Joint", "accountable_type": "Depository", "balance": "100"}, http.StatusCreated, &acct)
	e.api(t, http.MethodPost, "/api/v1/accounts", map[string]any{"name": "Savings", "accountable_type": "Depository"}, http.StatusCreated, &savings)
	e.api(t, http.MethodPost, "/api/v1/categories", map[string]any{"name": "Groceries"}, http.StatusCreated, &cat)
	e.api(t, http.MethodPost, "/api/v1/tags", map[string]any{"name": "Holiday"}, http.StatusCreated, &tag)
	e.api(t, http.MethodPost, "/api/v1/merchants", map[string]any{"name": "Bakery"}, http.StatusCreated, &merchant)
	e.api(t, http.MethodPost, "/api/v1/transactions", map[string]any{"account_id": acct.ID, "date": "2026-03-01", "amount": "4.50",
		"name": "Bread", "category_id": cat.ID, "merchant_id": merchant.ID, "tag_ids": []string{tag.ID}}, http.StatusCreated, &tx)
	// A transfer proposed between the two accounts, and recurring series to confirm and ignore.
	e.api(t, http.MethodPost, "/api/v1/transactions", map[string]any{"account_id": acct.ID, "date": "2026-03-05", "amount": "50", "name": "To savings"}, http.StatusCreated, nil)
	e.api(t, http.MethodPost, "/api/v1/transactions", map[string]any{"account_id": savings.ID, "date": "2026-03-05", "amount": "-50", "name": "From joint"}, http.StatusCreated, nil)
	testkit.MustCreateSeries(t, e.srv.DB, e.jana.FamilyID, nil, 2, models.RecurringProposed)
	e.api(t, http.MethodPost, "/api/v1/rules", map[string]any{"name": "Bread",
		"conditions": []any{map[string]any{"condition_type": "transaction_name", "operator": "like", "value": "bread"}},
		"actions":    []any{map[string]any{"action_type": "set_transaction_category", "value": cat.ID}}}, http.StatusCreated, &rule)
	e.api(t, http.MethodPatch, "/api/v1/budgets/2026-03/categories/"+cat.ID, map[string]any{"budgeted": "40"}, http.StatusOK, nil)
	e.api(t, http.MethodPost, "/api/v1/imports", map[string]any{"raw_file_content": "date,amount,name\n2026-03-03,-12.50,Coffee\n",
		"date_format": "%Y-%m-%d", "account_id": acct.ID}, http.StatusCreated, &imp)
	return map[string]string{"imports:id": imp.ID,
		"accounts:id": acct.ID, "transactions:id": tx.ID, "categories:id": cat.ID, "tags:id": tag.ID,
		"merchants:id": merchant.ID, "rules:id": rule.ID, "budgets:month": "2026-03",
	}
}

// resourceOf is the collection a route's parameter belongs to: "accounts" for /accounts/:id,
// "rules" for /settings/rules/:id.
func resourceOf(path string) string {
	parts := strings.Split(strings.TrimPrefix(path, "/"), "/")
	for i, p := range parts {
		if strings.HasPrefix(p, ":") && i > 0 {
			return parts[i-1]
		}
	}
	return ""
}

// writeControl is a form, a link or an htmx request of a page, where it goes.
type writeControl struct{ method, path, what string }

// writeControls are the page's forms that post, its links and its elements that send htmx
// requests, with the path each goes to (a form without an action sends to the page's own).
func writeControls(doc *goquery.Document, page string) []writeControl {
	var out []writeControl
	add := func(method, target, what string) {
		u, err := url.Parse(target)
		if err != nil || u.Scheme != "" || u.Host != "" || strings.HasPrefix(target, "#") {
			return // another site's, or a place on the page
		}
		if u.Path == "" {
			u.Path = page
		}
		out = append(out, writeControl{method: method, path: u.Path, what: what})
	}
	doc.Find("form").Each(func(_ int, f *goquery.Selection) {
		if method := strings.ToUpper(f.AttrOr("method", "get")); method != http.MethodGet {
			add(method, f.AttrOr("action", ""), "form "+f.AttrOr("data-testid", f.AttrOr("id", "")))
		}
	})
	doc.Find("a[href], [hx-get]").Each(func(_ int, a *goquery.Selection) {
		add(http.MethodGet, a.AttrOr("hx-get", a.AttrOr("href", "")), "link "+a.AttrOr("data-testid", a.Text()))
	})
	doc.Find("[formaction]").Each(func(_ int, b *goquery.Selection) {
		add(http.MethodPost, b.AttrOr("formaction", ""), "button "+b.AttrOr("data-testid", ""))
	})
	for _, verb := range []string{"post", "put", "patch", "delete"} {
		doc.Find("[hx-" + verb + "]").Each(func(_ int, s *goquery.Selection) {
			add(strings.ToUpper(verb), s.AttrOr("hx-"+verb, ""), "hx-"+verb+" "+s.AttrOr("data-testid", ""))
		})
	}
	return out
}

// routeOf is the router's route ("METHOD /pattern") that answers method on path.
func routeOf(e *echo.Echo, method, path string) string {
	c := e.NewContext(httptest.NewRequest(method, path, nil), httptest.NewRecorder())
	e.Router().Find(method, path, c)
	return method + " " + c.Path()
}
