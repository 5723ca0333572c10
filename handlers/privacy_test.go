package handlers_test

import (
	"context"
	"log/slog"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/google/uuid"
	"github.com/shopspring/decimal"

	"tally/app/apptest"
	"tally/handlers"
	"tally/imports"
	"tally/internal/db"
	"tally/ledger"
	"tally/models"
	"tally/testkit"
	"tally/transfers"
	"tally/webhooks"
)

// privacyEnv is a family of four: A, its admin, owns the private account P (with
// transactions of distinctive names, notes and amounts, and a transfer to the shared account
// S) and the private account Q, which A shares with B, a member; C is a viewer, and D another
// admin, who sees neither. One of P's transactions has a merchant and a tag that no other
// transaction has; the family's category, merchant and tag of its other transactions are S's
// too. The family's webhook holds a delivery of an event about P, recorded before P was made
// private.
type privacyEnv struct {
	t          *testing.T
	srv        *apptest.Server
	a, b, c, d *models.User
	p, q, s    *models.Account
	pTx        uuid.UUID // a transaction of P's
	transferID uuid.UUID // P to S
	category   uuid.UUID // the category of P's transactions and S's
	merchant   uuid.UUID // P's alone
	tag        uuid.UUID // P's alone
	webhook    uuid.UUID // the family's endpoint
	delivery   uuid.UUID // of an event about P
	event      uuid.UUID // that event
	// other holds another family's ids, whose answers the ids of P's must equal.
	other struct{ account, tx, transfer, merchant, tag, delivery uuid.UUID }
	// secrets are what P holds: no answer to B, C or D contains any of them.
	secrets []string
}

func newPrivacyEnv(t *testing.T) *privacyEnv {
	t.Helper()
	ctx := context.Background()
	srv := apptest.StartServer(t, apptest.ServerOptions{NoWorker: true, Env: map[string]string{"ADMIN_RATE_LIMIT_PER_MINUTE": "1000",
		"WEBHOOKS_ALLOW_INSECURE": "true"}})
	e := &privacyEnv{t: t, srv: srv}
	e.a = testkit.MustCreateUser(t, srv.DB, testkit.UserOpts{})
	e.b = testkit.MustCreateUser(t, srv.DB, testkit.UserOpts{FamilyID: e.a.FamilyID, Role: models.RoleMember})
	e.c = testkit.MustCreateUser(t, srv.DB, testkit.UserOpts{FamilyID: e.a.FamilyID, Role: models.RoleViewer})
	e.d = testkit.MustCreateUser(t, srv.DB, testkit.UserOpts{FamilyID: e.a.FamilyID, Role: models.RoleAdmin})
	e.s = testkit.MustCreateAccount(t, srv.DB, e.a.FamilyID, "Joint Everyday", "Depository", "1000")
	family := models.FamilyViewer(e.a.FamilyID)

	// A makes P through the API and then private: P is A's because A made it.
	key := testkit.MustCreateAPIKey(t, srv.DB, e.a.ID, models.ScopeReadWrite)
	api := apptest.NewClient(t, srv)
	var made struct{ Data handlers.AccountJSON }
	r := api.API(http.MethodPost, "/api/v1/accounts", key, map[string]any{"name": "Zanzibar Hideaway Fund", "accountable_type": "Depository", "balance": "98765.43"})
	if r.Status != http.StatusCreated {
		t.Fatalf("create P: %d %s", r.Status, r.Body)
	}
	r.JSON(t, &made)
	if made.Data.OwnerID == nil || *made.Data.OwnerID != e.a.ID.String() || made.Data.Private {
		t.Fatalf("a new account is its maker's and shared: %+v", made.Data)
	}
	// The family's webhook hears of P while it is shared, and of S.
	e.webhook, e.delivery = e.hook(e.a, uuid.MustParse(made.Data.ID))
	e.hook(e.a, e.s.ID)
	if r := api.API(http.MethodPatch, "/api/v1/accounts/"+made.Data.ID, key, map[string]any{"private": true}); r.Status != http.StatusOK || !strings.Contains(r.Body, `"private":true`) {
		t.Fatalf("make P private: %d %s", r.Status, r.Body)
	}
	var err error
	if e.p, err = models.AccountByID(ctx, srv.DB, family, uuid.MustParse(made.Data.ID)); err != nil {
		t.Fatal(err)
	}

	// A makes Q on the page and shares it with B from its edit page.
	ac := apptest.NewClient(t, srv)
	ac.SignIn(e.a.Email, testkit.Password)
	ac.Get("/accounts/new")
	r = ac.PostForm("/accounts", url.Values{"name": {"Quokka Rainy Day"}, "accountable_type": {"Depository"}, "currency": {"USD"}, "balance": {"500"}})
	if r.Status != http.StatusSeeOther {
		t.Fatalf("create Q: %d %s", r.Status, r.Body)
	}
	qID := uuid.MustParse(strings.TrimPrefix(r.Location(), "/accounts/"))
	edit := ac.Get("/accounts/" + qID.String() + "/edit")
	if !edit.Has(t, "account-sharing") {
		t.Fatalf("the owner's edit page offers no sharing: %s", edit.Body)
	}
	wantRedirect(t, ac.PostForm("/accounts/"+qID.String(), url.Values{"name": {"Quokka Rainy Day"}, "accountable_type": {"Depository"},
		"sharing": {"1"}, "private": {"1"}, "share_" + e.b.ID.String(): {"1"}}), "/accounts/"+qID.String())
	if e.q, err = models.AccountByID(ctx, srv.DB, family, qID); err != nil || !e.q.Private || e.q.OwnerID == nil || *e.q.OwnerID != e.a.ID {
		t.Fatalf("Q after the form: %+v, %v", e.q, err)
	}

	// P's transactions: a distinctive payee, notes and amount, and a transfer to S. One of
	// them and one of S's share a category, a merchant and a tag.
	today := time.Now().UTC().Truncate(24 * time.Hour)
	cat, err := models.CreateCategory(ctx, srv.DB, e.a.FamilyID, models.CategoryInput{Name: new("Everyday")})
	if err != nil {
		t.Fatal(err)
	}
	merchant, err := models.CreateMerchant(ctx, srv.DB, models.FamilyViewer(e.a.FamilyID), models.MerchantInput{Name: new("Corner Shop")})
	if err != nil {
		t.Fatal(err)
	}
	tag, err := models.CreateTag(ctx, srv.DB, models.FamilyViewer(e.a.FamilyID), models.TagInput{Name: new("household")})
	if err != nil {
		t.Fatal(err)
	}
	e.category = cat.ID
	add := func(acct *models.Account, name, notes, amount string) uuid.UUID {
		id, err := ledger.Create(ctx, srv.DB, slog.Default(), family, ledger.NewTransaction{AccountID: acct.ID, Date: today.AddDate(0, 0, -2),
			Amount: decimal.RequireFromString(amount), Name: name, Notes: notes, CategoryID: &cat.ID, MerchantID: &merchant.ID,
			TagIDs: []uuid.UUID{tag.ID}})
		if err != nil {
			t.Fatalf("add %s: %v", name, err)
		}
		return id
	}
	e.pTx = add(e.p, "Xylophone Payee Secret", "marmalade-note-secret", "7654.32")
	out := add(e.p, "Zephyr transfer out secret", "", "250")
	in := add(e.s, "From the other account", "", "-250")
	pMerchant, err := models.CreateMerchant(ctx, srv.DB, models.FamilyViewer(e.a.FamilyID), models.MerchantInput{Name: new("Yodelay Hidden Grocer")})
	if err != nil {
		t.Fatal(err)
	}
	pTag, err := models.CreateTag(ctx, srv.DB, models.FamilyViewer(e.a.FamilyID), models.TagInput{Name: new("yodelay-hidden-tag")})
	if err != nil {
		t.Fatal(err)
	}
	e.merchant, e.tag = pMerchant.ID, pTag.ID
	own, err := ledger.Create(ctx, srv.DB, slog.Default(), family, ledger.NewTransaction{AccountID: e.p.ID, Date: today.AddDate(0, 0, -2),
		Amount: decimal.RequireFromString("12.34"), Name: "Umber Payee Secret", MerchantID: &pMerchant.ID, TagIDs: []uuid.UUID{pTag.ID}})
	if err != nil {
		t.Fatal(err)
	}
	tr, err := ledger.Get(ctx, srv.DB, family, in)
	if err != nil {
		t.Fatal(err)
	}
	if tr.Transfer == nil {
		linked, err := transfers.Link(ctx, srv.DB, family, out, in, "")
		if err != nil {
			t.Fatal(err)
		}
		e.transferID = linked.ID
	} else {
		e.transferID = tr.Transfer.ID
	}
	if e.p, err = models.AccountByID(ctx, srv.DB, family, e.p.ID); err != nil {
		t.Fatal(err)
	}
	if err := srv.DB.NewRaw("SELECT event_id FROM webhook_deliveries WHERE id = ?", e.delivery).Scan(ctx, &e.event); err != nil {
		t.Fatal(err)
	}
	// P's, and the counts of the category, merchant and tag that P's transactions and S's
	// share, as A reads them: 3 transactions, where B, C and D count S's one.
	e.secrets = []string{e.p.Name, e.p.ID.String(), e.pTx.String(), out.String(), own.String(), "Xylophone Payee Secret", "marmalade-note-secret",
		"Zephyr transfer out secret", "Umber Payee Secret", "7,654.32", "7654.32", "98,765.43", "98765.43", "90,861.11", "90861.11",
		"90,848.77", "90848.77", pMerchant.Name, e.merchant.String(), pTag.Name, e.tag.String(), e.delivery.String(), e.event.String(),
		"3 transactions", `"transactions_count":3,`}

	// Another family's account, transaction and transfer.
	x := testkit.MustCreateUser(t, srv.DB, testkit.UserOpts{})
	xa := testkit.MustCreateAccount(t, srv.DB, x.FamilyID, "Theirs", "Depository", "10")
	xb := testkit.MustCreateAccount(t, srv.DB, x.FamilyID, "Theirs too", "Depository", "10")
	xv := models.FamilyViewer(x.FamilyID)
	e.other.account = xa.ID
	for _, leg := range []struct {
		acct   *models.Account
		amount string
	}{{xa, "40"}, {xb, "-40"}} {
		id, err := ledger.Create(ctx, srv.DB, slog.Default(), xv, ledger.NewTransaction{AccountID: leg.acct.ID, Date: today, Amount: decimal.RequireFromString(leg.amount), Name: "theirs"})
		if err != nil {
			t.Fatal(err)
		}
		e.other.tx = id
	}
	list, err := transfers.List(ctx, srv.DB, xv, transfers.Filter{})
	if err != nil || len(list) != 1 {
		t.Fatalf("the other family's transfer: %v %v", list, err)
	}
	e.other.transfer = list[0].ID
	xm, err := models.CreateMerchant(ctx, srv.DB, models.FamilyViewer(x.FamilyID), models.MerchantInput{Name: new("Their shop")})
	if err != nil {
		t.Fatal(err)
	}
	xt, err := models.CreateTag(ctx, srv.DB, models.FamilyViewer(x.FamilyID), models.TagInput{Name: new("theirs")})
	if err != nil {
		t.Fatal(err)
	}
	e.other.merchant, e.other.tag = xm.ID, xt.ID
	_, e.other.delivery = e.hook(x, xa.ID)
	return e
}

// hook records an import's event about an account of u's family, and its delivery to the
// family's webhook (which u makes the first time): it returns the webhook and the delivery.
func (e *privacyEnv) hook(u *models.User, account uuid.UUID) (webhook, delivery uuid.UUID) {
	e.t.Helper()
	ctx, familyID := context.Background(), u.FamilyID
	if err := e.srv.DB.NewRaw("SELECT id FROM webhook_endpoints WHERE family_id = ?", familyID).Scan(ctx, &webhook); err != nil {
		events, url := []string{imports.EventCompleted}, "http://127.0.0.1:9/hook"
		ep, _, err := e.srv.Webhooks.Create(ctx, familyID, webhooks.Actor{UserID: u.ID}, webhooks.Input{URL: &url, Events: &events})
		if err != nil {
			e.t.Fatal(err)
		}
		webhook = ep.ID
	}
	err := e.srv.DB.InTx(ctx, func(ctx context.Context, tx db.Tx) error {
		return e.srv.Webhooks.Emit(ctx, tx, familyID, imports.EventCompleted, imports.EventData{ImportID: uuid.New(), Status: "complete",
			AccountID: &account, AccountIDs: []uuid.UUID{account}, TransactionsCount: 1})
	})
	if err != nil {
		e.t.Fatal(err)
	}
	if err := e.srv.DB.NewRaw(`SELECT d.id FROM webhook_deliveries d JOIN webhook_events ev ON ev.id = d.event_id
		WHERE d.endpoint_id = ? AND ev.data->>'account_id' = ?::text`, webhook, account).Scan(ctx, &delivery); err != nil {
		e.t.Fatal(err)
	}
	return webhook, delivery
}

// routeParam matches a route's parameters.
var routeParam = regexp.MustCompile(`:[a-z_]+`)

// paths are a route's path with P's ids in its parameters, and with the other family's; hidden
// says the route names one of P's records, its account, a transaction or its transfer (so it
// must answer 404 to a GET). A merchant's or tag's route gets P's merchant or tag, which only
// P's transactions use, and a webhook delivery's the delivery of P's event: they answer as
// the other family's do too. A category's route, and a webhook's, get the family's own, the
// same in both paths: they are everyone's, and the walk looks at what they say of P's. Another
// route's parameter gets P's account's id too, which is no record of its kind: it answers as
// the other family's does.
func (e *privacyEnv) paths(route string) (theirs, others string, hidden bool) {
	_, path, _ := strings.Cut(route, " ")
	type ids struct{ account, tx, transfer, merchant, tag, delivery uuid.UUID }
	sub := func(x ids) string {
		return routeParam.ReplaceAllStringFunc(path, func(p string) string {
			switch {
			case p == ":month":
				return time.Now().UTC().Format("2006-01")
			case p == ":delivery_id":
				return x.delivery.String()
			case strings.Contains(path, "/webhooks/:id"):
				return e.webhook.String()
			case strings.Contains(path, "/categories/:id"):
				return e.category.String()
			case strings.Contains(path, "/merchants/:id"):
				return x.merchant.String()
			case strings.Contains(path, "/tags/:id"):
				return x.tag.String()
			case strings.Contains(path, "/transactions/:id") && !strings.Contains(path, "/changes/"):
				return x.tx.String()
			case strings.Contains(path, "/transfers/:id"):
				return x.transfer.String()
			}
			return x.account.String()
		})
	}
	theirs = sub(ids{e.p.ID, e.pTx, e.transferID, e.merchant, e.tag, e.delivery})
	hidden = regexp.MustCompile(`^(/api/v1)?/(accounts|transactions|transfers|merchants|tags)/:id`).MatchString(path)
	o := e.other
	return theirs, sub(ids{o.account, o.tx, o.transfer, o.merchant, o.tag, o.delivery}), hidden
}

// who is a member reading the family: their browser, and their API key.
type who struct {
	name   string
	viewer bool
	web    *testkit.Client
	key    string
}

func (e *privacyEnv) member(name string, u *models.User, scope string) who {
	c := apptest.NewClient(e.t, e.srv)
	c.SignIn(u.Email, testkit.Password)
	return who{name: name, viewer: u.Role == models.RoleViewer, web: c, key: testkit.MustCreateAPIKey(e.t, e.srv.DB, u.ID, scope)}
}

// refusedByRole says whether r is a viewer's refusal of a page that only changes things: a
// 403 given before any record is looked up, for every id alike, so that it tells nothing of
// P's (the walk also compares it with another family's id).
func (w who) refusedByRole(r *testkit.Response) bool {
	return w.viewer && r.Status == http.StatusForbidden
}

func (w who) do(method, path string, headers map[string]string) *testkit.Response {
	if strings.HasPrefix(path, "/api/") {
		return w.web.API(method, path, w.key, map[string]any{})
	}
	if method == http.MethodGet {
		return w.web.Do(method, path, nil, headers)
	}
	w.web.Get("/accounts")
	return w.web.PostForm(path, url.Values{})
}

// leaks names the secrets of P's found in body, but those the request itself carried.
func (e *privacyEnv) leaks(body, request string) []string {
	var found []string
	for _, s := range e.secrets {
		if strings.Contains(body, s) && !strings.Contains(request, s) {
			found = append(found, s)
		}
	}
	return found
}

// anyID matches an id: the ids each answer was asked about, and its request's id.
var anyID = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)

// sameAnswer says whether two answers are the same but for the ids in them (the ids asked
// about, and each request's own); what P holds is looked for apart (leaks).
func sameAnswer(x, y *testkit.Response) bool {
	return x.Status == y.Status && anyID.ReplaceAllString(x.Body, "ID") == anyID.ReplaceAllString(y.Body, "ID")
}

// Walks every route of the router as B (a member P is not shared with, who sees Q), C (a
// viewer) and D (an admin, who reaches the family's admin pages), in their browsers and with
// their API keys: an id of P's, or of the merchant, tag or webhook event only P has, answers
// as another family's does (a 404 for every read), and no answer, of any route, holds
// anything of P's, nor counts P's transactions.
func TestPrivateAccountsStayHiddenOnEveryRoute(t *testing.T) {
	t.Parallel()
	e := newPrivacyEnv(t)
	owner := e.member("A", e.a, models.ScopeReadWrite)
	// The owner reads P everywhere: the strings the walk looks for are really there.
	for path, want := range map[string]string{"/accounts/" + e.p.ID.String(): e.p.Name, "/transactions": "Xylophone Payee Secret",
		"/api/v1/transactions?account_id=" + e.p.ID.String(): "marmalade-note-secret", "/api/v1/accounts": e.p.ID.String(),
		"/merchants": "Yodelay Hidden Grocer", "/api/v1/tags": "yodelay-hidden-tag", "/transactions?page=1": e.merchant.String(),
		"/categories/" + e.category.String() + "/delete": "3 transactions", "/api/v1/categories": `"transactions_count":3,`,
		"/settings/webhooks/" + e.webhook.String(): e.event.String(), "/api/v1/webhooks/" + e.webhook.String() + "/deliveries": e.delivery.String()} {
		if r := owner.do(http.MethodGet, path, nil); r.Status != http.StatusOK || !strings.Contains(r.Body, want) {
			t.Fatalf("the owner's %s: %d, without %q", path, r.Status, want)
		}
	}

	walked := 0
	for _, w := range []who{e.member("B", e.b, models.ScopeReadWrite), e.member("C", e.c, models.ScopeRead), e.member("D", e.d, models.ScopeReadWrite)} {
		for _, route := range allRoutes(t) {
			method, _, _ := strings.Cut(route, " ")
			theirs, others, hidden := e.paths(route)
			if method != http.MethodGet || strings.Contains(theirs, "*") {
				continue
			}
			r := w.do(method, theirs, nil)
			walked++
			if hidden && r.Status != http.StatusNotFound && !w.refusedByRole(r) {
				t.Errorf("%s as %s: %d for an id of P's, want 404", route, w.name, r.Status)
			}
			if theirs != others {
				if o := w.do(method, others, nil); !sameAnswer(r, o) {
					t.Errorf("%s as %s: P's id answers otherwise than another family's:\n%d %s\n%d %s", route, w.name, r.Status, r.Body, o.Status, o.Body)
				}
			}
			if found := e.leaks(r.Body, theirs); len(found) > 0 {
				t.Errorf("%s as %s shows P's %q", route, w.name, found)
			}
		}
		// Reads that name P's records in their query, htmx's partials, and the transfer seen
		// from S's side.
		for _, req := range []struct {
			path    string
			headers map[string]string
		}{
			{"/transactions?account_id=" + e.p.ID.String(), nil},
			{"/transactions?q=Xylophone", nil},
			{"/transactions?q=7654.32", nil},
			{"/transactions?account_id=" + e.p.ID.String(), map[string]string{"HX-Request": "true", "HX-Target": "tx-more"}},
			{"/transfers", nil},
			{"/transfers/new?from=" + e.pTx.String(), nil},
			{"/settings/rules/new?from=" + e.pTx.String(), nil},
			{"/?range=all", map[string]string{"HX-Request": "true", "HX-Target": "net-worth-history"}},
			{"/?page=1", map[string]string{"HX-Request": "true", "HX-Target": "entries"}},
			{"/accounts/" + e.s.ID.String() + "?range=all", nil},
			{"/api/v1/transactions?account_id=" + e.p.ID.String(), nil},
			{"/api/v1/transactions?q=Xylophone", nil},
			{"/api/v1/transfers?account_id=" + e.p.ID.String(), nil},
			{"/api/v1/net_worth", nil},
		} {
			r := w.do(http.MethodGet, req.path, req.headers)
			if found := e.leaks(r.Body, req.path); len(found) > 0 {
				t.Errorf("%s as %s shows P's %q", req.path, w.name, found)
			}
			if strings.Contains(req.path, "from="+e.pTx.String()) && r.Status != http.StatusNotFound && !w.refusedByRole(r) {
				t.Errorf("%s as %s: %d, want 404", req.path, w.name, r.Status)
			}
		}
		// S's side of the transfer says where the money went without naming it.
		if r := w.do(http.MethodGet, "/accounts/"+e.s.ID.String(), nil); !strings.Contains(r.Body, "Transfer from a private account") {
			t.Errorf("S's page as %s does not show the transfer from a private account: %s", w.name, r.Body)
		}
		var list struct {
			Data []struct {
				Transfer *handlers.TransactionTransferJSON
			}
		}
		w.do(http.MethodGet, "/api/v1/transactions?account_id="+e.s.ID.String(), nil).JSON(t, &list)
		for _, tx := range list.Data {
			if tx.Transfer != nil && (!tx.Transfer.OtherPrivate || tx.Transfer.OtherAccountID != nil || tx.Transfer.OtherTransactionID != nil) {
				t.Errorf("S's transfer in the API as %s: %+v", w.name, *tx.Transfer)
			}
		}
		// Totals say that they leave something out, without naming it.
		for _, page := range []string{"/", "/accounts", "/reports/spending"} {
			if r := w.do(http.MethodGet, page, nil); !r.Has(t, "some-private") {
				t.Errorf("%s as %s does not say that some accounts are private", page, w.name)
			}
		}
		if r := w.do(http.MethodGet, budgetPath(), nil); !strings.Contains(r.Body, `"some_accounts_private":true`) {
			t.Errorf("the budget's month as %s does not say that some accounts are private: %s", w.name, r.Body)
		}
	}
	if walked < 200 {
		t.Fatalf("only %d reads walked", walked)
	}
	for _, page := range []string{"/", "/accounts", "/reports/spending"} {
		if r := owner.do(http.MethodGet, page, nil); r.Has(t, "some-private") {
			t.Errorf("%s of the owner of every private account says some are hidden", page)
		}
	}
	if r := owner.do(http.MethodGet, budgetPath(), nil); !strings.Contains(r.Body, `"some_accounts_private":false`) {
		t.Errorf("the budget's month of the owner of every private account: %s", r.Body)
	}
}

// budgetPath is this month's budget in the API.
func budgetPath() string { return "/api/v1/budgets/" + time.Now().UTC().Format("2006-01") }

// B sees Q, which A shares with B, in the pages and the API; C, whom it is not shared with,
// does not.
func TestSharedPrivateAccountIsSeenByThoseItIsSharedWith(t *testing.T) {
	t.Parallel()
	e := newPrivacyEnv(t)
	b, c := e.member("B", e.b, models.ScopeRead), e.member("C", e.c, models.ScopeRead)
	q := e.q.ID.String()
	for _, path := range []string{"/accounts/" + q, "/accounts", "/api/v1/accounts/" + q, "/api/v1/accounts"} {
		if r := b.do(http.MethodGet, path, nil); r.Status != http.StatusOK || !strings.Contains(r.Body, "Quokka Rainy Day") {
			t.Errorf("B's %s: %d, without Q", path, r.Status)
		}
		r := c.do(http.MethodGet, path, nil)
		if strings.Contains(r.Body, "Quokka Rainy Day") || strings.Contains(r.Body, q) {
			t.Errorf("C's %s shows Q", path)
		}
		if strings.Contains(path, q) && r.Status != http.StatusNotFound {
			t.Errorf("C's %s: %d, want 404", path, r.Status)
		}
	}
	// Only the owner says who sees it: B, who sees it, may not change that.
	if r := b.web.Get("/accounts/" + q + "/edit"); r.Has(t, "account-sharing") {
		t.Error("B's edit page of Q offers its sharing")
	}
	bw := e.member("B", e.b, models.ScopeReadWrite)
	if r := bw.web.API(http.MethodPatch, "/api/v1/accounts/"+q, bw.key, map[string]any{"private": false}); r.Status != http.StatusForbidden {
		t.Errorf("B making Q shared: %d %s", r.Status, r.Body)
	}
}

// B's and D's changes of P's records through any route answer as another family's do, and
// change nothing of P's: its owner reads the same of it before and after, byte for byte.
func TestPrivateAccountsCannotBeChangedByOthers(t *testing.T) {
	t.Parallel()
	e := newPrivacyEnv(t)
	owner := e.member("A", e.a, models.ScopeReadWrite)
	before := e.snapshot(owner)
	walked := 0
	for _, w := range []who{e.member("B", e.b, models.ScopeReadWrite), e.member("D", e.d, models.ScopeReadWrite)} {
		for _, route := range allRoutes(t) {
			method, _, _ := strings.Cut(route, " ")
			theirs, others, _ := e.paths(route)
			if method == http.MethodGet || theirs == others {
				continue
			}
			r, o := w.do(method, theirs, nil), w.do(method, others, nil)
			walked++
			if !sameAnswer(r, o) {
				t.Errorf("%s as %s: P's id answers otherwise than another family's:\n%d %s\n%d %s", route, w.name, r.Status, r.Body, o.Status, o.Body)
			}
			if found := e.leaks(r.Body, theirs); len(found) > 0 {
				t.Errorf("%s as %s shows P's %q", route, w.name, found)
			}
		}
		// The body of a batch names its transactions; and a new transaction names its account.
		for _, req := range []struct {
			method, path string
			body         map[string]any
		}{
			{http.MethodPatch, "/api/v1/transactions", map[string]any{"ids": []string{"ID"}, "excluded": true}},
			{http.MethodPost, "/api/v1/transactions", map[string]any{"account_id": "ACCOUNT", "date": "2026-01-02", "amount": "1", "name": "x", "currency": "USD"}},
			{http.MethodPost, "/api/v1/transfers", map[string]any{"from_transaction_id": "ID", "to_transaction_id": "ID"}},
		} {
			body := func(account, tx uuid.UUID) map[string]any {
				out := map[string]any{}
				for k, v := range req.body {
					switch v := v.(type) {
					case string:
						out[k] = strings.NewReplacer("ACCOUNT", account.String(), "ID", tx.String()).Replace(v)
					case []string:
						out[k] = []string{tx.String()}
					default:
						out[k] = v
					}
				}
				return out
			}
			r := w.web.API(req.method, req.path, w.key, body(e.p.ID, e.pTx))
			o := w.web.API(req.method, req.path, w.key, body(e.other.account, e.other.tx))
			if !sameAnswer(r, o) {
				t.Errorf("%s %s as %s: P's ids answer otherwise than another family's:\n%d %s\n%d %s", req.method, req.path, w.name, r.Status, r.Body, o.Status, o.Body)
			}
		}
	}
	if walked < 60 {
		t.Fatalf("only %d changes walked", walked)
	}
	after := e.snapshot(owner)
	for i := range before {
		if before[i] != after[i] {
			t.Errorf("P's changed:\n%s\nnow\n%s", before[i], after[i])
		}
	}
}

// snapshot is what P holds as its owner reads it through the API, and as the database keeps
// it: the account, its transactions with their splits, its transfer, the merchant and tag of
// its transactions alone, and the deliveries of its webhook event.
func (e *privacyEnv) snapshot(owner who) []string {
	e.t.Helper()
	ctx, p := context.Background(), e.p.ID.String()
	paths := []string{"/api/v1/accounts/" + p, "/api/v1/transactions?per_page=100&account_id=" + p, "/api/v1/transfers?account_id=" + p,
		"/api/v1/merchants/" + e.merchant.String(), "/api/v1/tags/" + e.tag.String(), "/api/v1/webhooks/" + e.webhook.String() + "/deliveries"}
	var txs []string
	if err := e.srv.DB.NewRaw("SELECT id::text FROM entries WHERE account_id = ? AND kind = 'transaction' AND parent_id IS NULL ORDER BY id",
		e.p.ID).Scan(ctx, &txs); err != nil || len(txs) != 3 {
		e.t.Fatalf("P's transactions: %v %v", txs, err)
	}
	for _, id := range txs {
		paths = append(paths, "/api/v1/transactions/"+id)
	}
	var out []string
	for _, path := range paths {
		r := owner.do(http.MethodGet, path, nil)
		if r.Status != http.StatusOK {
			e.t.Fatalf("the owner's %s: %d %s", path, r.Status, r.Body)
		}
		out = append(out, path+" "+r.Body)
	}
	for _, q := range []string{
		"SELECT to_jsonb(x)::text FROM accounts x WHERE id = ?0",
		"SELECT to_jsonb(x)::text FROM entries x WHERE account_id = ?0 ORDER BY id",
		"SELECT to_jsonb(x)::text FROM transfers x JOIN entries s ON s.id IN (x.inflow_entry_id, x.outflow_entry_id) WHERE s.account_id = ?0 ORDER BY x.id",
		"SELECT to_jsonb(x)::text FROM merchants x WHERE id = ?1",
		"SELECT to_jsonb(x)::text FROM tags x WHERE id = ?2",
		"SELECT to_jsonb(x)::text FROM webhook_deliveries x WHERE event_id = (SELECT event_id FROM webhook_deliveries WHERE id = ?3) ORDER BY id",
	} {
		var rows []string
		if err := e.srv.DB.NewRaw(q, e.p.ID, e.merchant, e.tag, e.delivery).Scan(ctx, &rows); err != nil || len(rows) == 0 {
			e.t.Fatalf("%s: %v %v", q, rows, err)
		}
		out = append(out, q+" "+strings.Join(rows, "\n"))
	}
	return out
}

// The counts of transactions of the categories, merchants and tags are of the accounts the
// reader sees: P's transactions are counted for A, not for B.
func TestCountsLeaveOutPrivateAccounts(t *testing.T) {
	t.Parallel()
	e := newPrivacyEnv(t)
	count := func(w who, path, name string) int {
		t.Helper()
		var list struct {
			Data []struct {
				Name              string `json:"name"`
				TransactionsCount int    `json:"transactions_count"`
			}
		}
		r := w.do(http.MethodGet, path, nil)
		r.JSON(t, &list)
		for _, x := range list.Data {
			if x.Name == name {
				return x.TransactionsCount
			}
		}
		t.Fatalf("%s has no %s: %s", path, name, r.Body)
		return 0
	}
	a, b := e.member("A", e.a, models.ScopeRead), e.member("B", e.b, models.ScopeRead)
	for _, list := range []struct{ path, name string }{
		{"/api/v1/categories", "Everyday"}, {"/api/v1/merchants", "Corner Shop"}, {"/api/v1/tags", "household"},
	} {
		// A: P's payment, P's side of the transfer and S's; B: S's alone.
		if got := count(a, list.path, list.name); got != 3 {
			t.Errorf("A's %s counts %d transactions, want 3", list.path, got)
		}
		if got := count(b, list.path, list.name); got != 1 {
			t.Errorf("B's %s counts %d transactions, want 1", list.path, got)
		}
	}
	for _, page := range []string{"/categories", "/merchants", "/tags"} {
		if r := a.do(http.MethodGet, page, nil); !strings.Contains(r.Body, `aria-label="3 transactions"`) {
			t.Errorf("A's %s does not count P's transactions", page)
		}
		if r := b.do(http.MethodGet, page, nil); strings.Contains(r.Body, `aria-label="3 transactions"`) {
			t.Errorf("B's %s counts P's transactions", page)
		}
	}
}

// Only an account's owner makes it private or shared and names whom it is shared with; an
// account without an owner is made private by a family admin only, who then owns it. A family
// admin who is not the owner of a private account cannot even find it.
func TestOnlyTheOwnerSharesAnAccount(t *testing.T) {
	t.Parallel()
	e := newPrivacyEnv(t)
	a, b := e.member("A", e.a, models.ScopeReadWrite), e.member("B", e.b, models.ScopeReadWrite)
	admin2 := e.member("A2", testkit.MustCreateUser(t, e.srv.DB, testkit.UserOpts{FamilyID: e.a.FamilyID}), models.ScopeReadWrite)
	stranger := testkit.MustCreateUser(t, e.srv.DB, testkit.UserOpts{})
	patch := func(w who, acct uuid.UUID, body map[string]any) *testkit.Response {
		return w.web.API(http.MethodPatch, "/api/v1/accounts/"+acct.String(), w.key, body)
	}
	p, s := e.p.ID, e.s.ID // S has no owner: the test made it as an import or a sync does
	for _, tc := range []struct {
		name   string
		w      who
		acct   uuid.UUID
		body   map[string]any
		status int
		has    string
	}{
		{"a member of another family", a, p, map[string]any{"shared_with": []string{stranger.ID.String()}}, http.StatusUnprocessableEntity, `"shared_with[0]"`},
		{"members of a shared account", a, p, map[string]any{"private": false, "shared_with": []string{e.b.ID.String()}}, http.StatusUnprocessableEntity, `"shared_with"`},
		{"another admin, of a private account", admin2, p, map[string]any{"private": false}, http.StatusNotFound, ""},
		{"a member, of an account without owner", b, s, map[string]any{"private": true}, http.StatusForbidden, "admin"},
		{"the owner shares P with B", a, p, map[string]any{"shared_with": []string{e.b.ID.String()}}, http.StatusOK, `"shared_with":["` + e.b.ID.String() + `"]`},
		{"an admin claims the account without owner", admin2, s, map[string]any{"private": true}, http.StatusOK, `"private":true`},
		{"the owner now is that admin", a, s, map[string]any{"private": false}, http.StatusNotFound, ""},
	} {
		r := patch(tc.w, tc.acct, tc.body)
		if r.Status != tc.status || !strings.Contains(r.Body, tc.has) {
			t.Errorf("%s: %d %s, want %d with %s", tc.name, r.Status, r.Body, tc.status, tc.has)
		}
	}
	// P, shared with B now, is B's to read, but only its owner says who sees it.
	if r := b.do(http.MethodGet, "/accounts/"+p.String(), nil); r.Status != http.StatusOK {
		t.Fatalf("B reads P shared with B: %d", r.Status)
	}
	if r := patch(b, p, map[string]any{"shared_with": []string{}}); r.Status != http.StatusForbidden {
		t.Fatalf("B unsharing P: %d %s", r.Status, r.Body)
	}
	// The edit page offers "who sees this account" to the owner and to admins for an account
	// without owner, to nobody else.
	if r := b.web.Get("/accounts/" + p.String() + "/edit"); r.Status != http.StatusOK || r.Has(t, "account-sharing") {
		t.Errorf("B's edit page of P: %d, offers sharing %v", r.Status, r.Has(t, "account-sharing"))
	}
	// Made shared again, P is everyone's to see, and its shares are gone.
	if r := patch(a, p, map[string]any{"private": false}); r.Status != http.StatusOK || !strings.Contains(r.Body, `"shared_with":[]`) {
		t.Fatalf("P made shared: %d %s", r.Status, r.Body)
	}
	c := e.member("C", e.c, models.ScopeRead)
	if r := c.do(http.MethodGet, "/api/v1/accounts/"+p.String(), nil); r.Status != http.StatusOK {
		t.Fatalf("C reads P shared with the family: %d", r.Status)
	}
}

// Deleting a category counts what the deleter sees: B is told that S's one transaction moves
// (or uses it), though P's two move with it, for the category is the family's. A category
// only P's transactions use is unused for B, who deletes it without a replacement: P's
// transaction keeps no category.
func TestDeletingACategoryCountsOnlyWhatTheDeleterSees(t *testing.T) {
	t.Parallel()
	e := newPrivacyEnv(t)
	ctx := context.Background()
	a, b := e.member("A", e.a, models.ScopeReadWrite), e.member("B", e.b, models.ScopeReadWrite)
	everyday := e.category.String()
	if got := b.web.Get("/categories/"+everyday+"/delete").TestID(t, "category-delete-moves"); got != "1 transaction will move to the replacement." {
		t.Errorf("B's confirmation: %q", got)
	}
	if r := b.web.API(http.MethodDelete, "/api/v1/categories/"+everyday, b.key, nil); r.Status != http.StatusUnprocessableEntity ||
		!strings.Contains(r.Body, "1 transaction use") || strings.Contains(r.Body, "3 transactions") {
		t.Errorf("B's deletion without a replacement: %d %s", r.Status, r.Body)
	}
	other, err := models.CreateCategory(ctx, e.srv.DB, e.a.FamilyID, models.CategoryInput{Name: new("Sundries")})
	if err != nil {
		t.Fatal(err)
	}
	wantRedirect(t, b.web.PostForm("/categories/"+everyday+"/delete", url.Values{"replacement_id": {other.ID.String()}}), "/categories")
	if got := b.web.Get("/categories").TestID(t, "flash-success"); got != "Category “Everyday” deleted; 1 transaction moved to “Sundries”." {
		t.Errorf("B's flash: %q", got)
	}
	var n int
	if err := e.srv.DB.NewRaw("SELECT count(*) FROM entries WHERE category_id = ?", other.ID).Scan(ctx, &n); err != nil || n != 3 {
		t.Errorf("%d transactions moved (%v), want P's two and S's", n, err)
	}

	// A category of P's transaction alone.
	solo, err := models.CreateCategory(ctx, e.srv.DB, e.a.FamilyID, models.CategoryInput{Name: new("Solitaire")})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.srv.DB.NewRaw("UPDATE entries SET category_id = ? WHERE id = ?", solo.ID, e.pTx).Exec(ctx); err != nil {
		t.Fatal(err)
	}
	if r := a.web.Get("/categories/" + solo.ID.String() + "/delete"); !r.Has(t, "category-delete-moves") {
		t.Fatal("A is not asked for a replacement of a category P's transaction uses")
	}
	if r := b.web.Get("/categories/" + solo.ID.String() + "/delete"); !r.Has(t, "category-delete-unused") {
		t.Errorf("B is asked for a replacement of a category only P's transaction uses")
	}
	wantRedirect(t, b.web.PostForm("/categories/"+solo.ID.String()+"/delete", url.Values{}), "/categories")
	if got := b.web.Get("/categories").TestID(t, "flash-success"); got != "Category “Solitaire” deleted." {
		t.Errorf("B's flash: %q", got)
	}
	var category *uuid.UUID
	if err := e.srv.DB.NewRaw("SELECT category_id FROM entries WHERE id = ?", e.pTx).Scan(ctx, &category); err != nil || category != nil {
		t.Errorf("P's transaction's category after the deletion: %v %v", category, err)
	}
}

// A merchant or a tag that only P's transactions use is kept from B as P is: not listed nor
// counted, and its id answers as another family's. One nobody uses yet is everyone's.
func TestMerchantsAndTagsOfHiddenTransactionsAreHidden(t *testing.T) {
	t.Parallel()
	e := newPrivacyEnv(t)
	a, b := e.member("A", e.a, models.ScopeRead), e.member("B", e.b, models.ScopeRead)
	if _, err := models.CreateMerchant(context.Background(), e.srv.DB, models.FamilyViewer(e.a.FamilyID), models.MerchantInput{Name: new("Handmade Stall")}); err != nil {
		t.Fatal(err)
	}
	if _, err := models.CreateTag(context.Background(), e.srv.DB, models.FamilyViewer(e.a.FamilyID), models.TagInput{Name: new("handmade")}); err != nil {
		t.Fatal(err)
	}
	type list struct {
		Data []struct{ Name string }
		Meta struct {
			TotalCount int `json:"total_count"`
		}
	}
	names := func(w who, path string) ([]string, int) {
		t.Helper()
		var l list
		w.do(http.MethodGet, path, nil).JSON(t, &l)
		var out []string
		for _, x := range l.Data {
			out = append(out, x.Name)
		}
		return out, l.Meta.TotalCount
	}
	for _, tc := range []struct {
		path             string
		hidden, handmade string
	}{{"/api/v1/merchants", "Yodelay Hidden Grocer", "Handmade Stall"}, {"/api/v1/tags", "yodelay-hidden-tag", "handmade"}} {
		all, total := names(a, tc.path)
		if !slices.Contains(all, tc.hidden) || !slices.Contains(all, tc.handmade) || total != len(all) {
			t.Errorf("A's %s: %v of %d", tc.path, all, total)
		}
		seen, n := names(b, tc.path)
		if slices.Contains(seen, tc.hidden) || !slices.Contains(seen, tc.handmade) || n != len(seen) || n != total-1 {
			t.Errorf("B's %s: %v of %d", tc.path, seen, n)
		}
	}
	// An export says no more: D's, an admin's, holds neither P's merchant nor its tag, and its
	// page counts neither.
	d := e.member("D", e.d, models.ScopeRead)
	if r := d.do(http.MethodGet, "/api/v1/export", nil); r.Status != http.StatusOK || strings.Contains(r.Body, "Yodelay") || !strings.Contains(r.Body, "Handmade Stall") {
		t.Errorf("D's export: %d %s", r.Status, r.Body)
	}
	counts := func(w who) map[string]string {
		out := map[string]string{}
		w.web.Get("/settings/export").Doc(t).Find(`[data-testid="export-counts"] div`).Each(func(_ int, s *goquery.Selection) {
			out[s.Find("dt").Text()] = s.Find("dd").Text()
		})
		return out
	}
	if all, seen := counts(a), counts(d); all["Merchants"] != "3" || all["Tags"] != "3" || seen["Merchants"] != "2" || seen["Tags"] != "2" {
		t.Errorf("the export's counts: A's %v, D's %v", all, seen)
	}
}

// A payment from S to a private credit card in euros is a card payment to its owner, and to
// B and D a transfer to a private account and no more: not its kind (which would say that the
// account is a card), nor its currency or name, in the pages, the API, its filter or the export.
func TestATransferToAPrivateAccountTellsNothingOfItsType(t *testing.T) {
	t.Parallel()
	e := newPrivacyEnv(t)
	ctx, family := context.Background(), models.FamilyViewer(e.a.FamilyID)
	card := testkit.MustCreateAccount(t, e.srv.DB, e.a.FamilyID, "Kestrel Card", "CreditCard", "0")
	if _, err := e.srv.DB.NewRaw("UPDATE accounts SET private = true, owner_id = ?, currency = 'EUR' WHERE id = ?", e.a.ID, card.ID).Exec(ctx); err != nil {
		t.Fatal(err)
	}
	day := time.Now().UTC().Truncate(24*time.Hour).AddDate(0, 0, -1)
	pay := func(acct uuid.UUID, amount string) uuid.UUID {
		id, err := ledger.Create(ctx, e.srv.DB, slog.Default(), family, ledger.NewTransaction{AccountID: acct, Date: day,
			Amount: decimal.RequireFromString(amount), Name: "Settlement"})
		if err != nil {
			t.Fatal(err)
		}
		return id
	}
	out, in := pay(e.s.ID, "100"), pay(card.ID, "-93")
	if _, err := transfers.Link(ctx, e.srv.DB, family, out, in, ""); err != nil {
		t.Fatal(err)
	}
	// A transaction as the API gives it, of which the test reads these.
	type transaction struct {
		ID       string                            `json:"id"`
		Kind     string                            `json:"kind"`
		Transfer *handlers.TransactionTransferJSON `json:"transfer"`
	}
	var tx struct{ Data transaction }
	a := e.member("A", e.a, models.ScopeRead)
	if a.do(http.MethodGet, "/api/v1/transactions/"+out.String(), nil).JSON(t, &tx); tx.Data.Kind != models.KindCCPayment {
		t.Fatalf("the owner's payment is a %s", tx.Data.Kind)
	}
	for _, w := range []who{e.member("B", e.b, models.ScopeRead), e.member("D", e.d, models.ScopeRead)} {
		r := w.do(http.MethodGet, "/api/v1/transactions/"+out.String(), nil)
		r.JSON(t, &tx)
		if tx.Data.Kind != models.KindFundsMovement || tx.Data.Transfer == nil || !tx.Data.Transfer.OtherPrivate || strings.Contains(r.Body, "EUR") {
			t.Errorf("the payment as %s: %s", w.name, r.Body)
		}
		listed := func(kind string) bool {
			var list struct{ Data []transaction }
			w.do(http.MethodGet, "/api/v1/transactions?kind="+kind+"&account_id="+e.s.ID.String(), nil).JSON(t, &list)
			return slices.ContainsFunc(list.Data, func(x transaction) bool { return x.ID == out.String() })
		}
		if listed(models.KindCCPayment) || !listed(models.KindFundsMovement) {
			t.Errorf("as %s, the payment is a card payment by the kind filter", w.name)
		}
		page := w.do(http.MethodGet, "/accounts/"+e.s.ID.String(), nil).Body
		if !strings.Contains(page, "Transfer to a private account") || strings.Contains(page, "Card payment") || strings.Contains(page, "Kestrel") ||
			strings.Contains(page, "€") {
			t.Errorf("S's page as %s tells of the card", w.name)
		}
	}
	export := e.member("D", e.d, models.ScopeRead).do(http.MethodGet, "/api/v1/export", nil).Body
	for line := range strings.SplitSeq(export, "\n") {
		if strings.Contains(line, out.String()) && (!strings.Contains(line, `"kind" : "funds_movement"`) && !strings.Contains(line, `"kind":"funds_movement"`)) {
			t.Errorf("D's export of the payment: %s", line)
		}
	}
}

// B names a new merchant and a new tag exactly as P's kept ones are named, on the API and on
// the page. Told "already exists", B would learn of P's transactions; B gets the record
// instead, as a new one would look to B (no transactions of B's), and sees it from then on.
// A name taken by a record B sees is still refused, and P's transactions stay kept from B.
func TestNamingAKeptMerchantOrTagClaimsIt(t *testing.T) {
	t.Parallel()
	e := newPrivacyEnv(t)
	b := e.member("B", e.b, models.ScopeReadWrite)
	for _, tc := range []struct {
		path, name, seen string
		kept             uuid.UUID
	}{{"/api/v1/merchants", "Yodelay Hidden Grocer", "Corner Shop", e.merchant}, {"/api/v1/tags", "yodelay-hidden-tag", "household", e.tag}} {
		r := b.web.API(http.MethodPost, tc.path, b.key, map[string]any{"name": tc.name})
		var got struct {
			Data struct {
				ID                string
				Name              string
				TransactionsCount int `json:"transactions_count"`
			}
		}
		r.JSON(t, &got)
		if r.Status != http.StatusCreated || got.Data.ID != tc.kept.String() || got.Data.TransactionsCount != 0 {
			t.Errorf("B names %q on %s: %d %s", tc.name, tc.path, r.Status, r.Body)
		}
		if r := b.do(http.MethodGet, tc.path+"/"+tc.kept.String(), nil); r.Status != http.StatusOK {
			t.Errorf("B reads the claimed %s: %d", tc.path, r.Status)
		}
		if r := b.web.API(http.MethodPost, tc.path, b.key, map[string]any{"name": tc.seen}); r.Status != http.StatusUnprocessableEntity ||
			!strings.Contains(r.Body, "already exists") {
			t.Errorf("B names %q, which B sees, on %s: %d %s", tc.seen, tc.path, r.Status, r.Body)
		}
	}
	// On the page, a tag B cannot see yet: P's second one.
	hidden, err := models.CreateTag(context.Background(), e.srv.DB, models.FamilyViewer(e.a.FamilyID), models.TagInput{Name: new("quokka-kept-tag")})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.srv.DB.NewRaw("UPDATE entries SET tag_ids = tag_ids || ?::uuid WHERE id = ?", hidden.ID, e.pTx).Exec(context.Background()); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.web.Get("/tags").Body, "quokka-kept-tag") {
		t.Fatal("P's second tag is shown to B before B names it")
	}
	b.web.Get("/tags")
	if r := b.web.PostForm("/tags", url.Values{"name": {"quokka-kept-tag"}, "color": {"#e99537"}}); r.Status != http.StatusSeeOther {
		t.Fatalf("B names P's second tag on the page: %d %s", r.Status, r.Body)
	}
	if page := b.web.Get("/tags").Body; !strings.Contains(page, "quokka-kept-tag") || strings.Contains(page, "already exists") {
		t.Error("the tag B named is not on B's tags page")
	}
	for _, r := range []*testkit.Response{b.do(http.MethodGet, "/api/v1/transactions/"+e.pTx.String(), nil), b.web.Get("/transactions?q=Xylophone")} {
		if strings.Contains(r.Body, "Xylophone Payee Secret") {
			t.Errorf("P's transaction shows to B after the claim: %s", r.Body)
		}
	}
}
