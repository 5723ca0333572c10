package handlers_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/google/uuid"
	"github.com/shopspring/decimal"
	"github.com/uptrace/bun"

	"tally/app/apptest"
	"tally/ledger"
	"tally/models"
	"tally/testkit"
)

// rulesEnv is the family of privacyEnv with a transaction named "… rule target" in each of
// P (A's, hidden from B and C), S (everyone's) and Q (shared with B, hidden from C), none of
// whose category or merchant was set by hand, so that rules may set them; and the owner A,
// the member B and the viewer C, each in a browser and with an API key.
type rulesEnv struct {
	*privacyEnv
	owner, member, viewer who
	// targets are the transactions' ids by account: "P", "S" and "Q".
	targets map[string]uuid.UUID
}

func newRulesEnv(t *testing.T) *rulesEnv {
	t.Helper()
	e := &rulesEnv{privacyEnv: newPrivacyEnv(t), targets: map[string]uuid.UUID{}}
	family := models.FamilyViewer(e.a.FamilyID)
	for name, acct := range map[string]*models.Account{"P": e.p, "S": e.s, "Q": e.q} {
		label := map[string]string{"P": "Pelican rule target", "S": "Sparrow rule target", "Q": "Quokka rule target"}[name]
		id, err := ledger.Create(context.Background(), e.srv.DB, slog.Default(), family, ledger.NewTransaction{AccountID: acct.ID,
			Date: time.Now().UTC().AddDate(0, 0, -1), Amount: decimal.RequireFromString("31.41"), Name: label})
		if err != nil {
			t.Fatal(err)
		}
		e.targets[name] = id
	}
	e.secrets = append(e.secrets, "Pelican rule target", e.targets["P"].String())
	e.owner = e.privacyEnv.member("A", e.a, models.ScopeReadWrite)
	e.member = e.privacyEnv.member("B", e.b, models.ScopeReadWrite)
	e.viewer = e.privacyEnv.member("C", e.c, models.ScopeRead)
	return e
}

// rule creates a rule as w through the API and returns its id.
func (e *rulesEnv) rule(w who, body map[string]any) string {
	e.t.Helper()
	r := w.web.API(http.MethodPost, "/api/v1/rules", w.key, body)
	if r.Status != http.StatusCreated {
		e.t.Fatalf("create rule %v as %s: %d %s", body, w.name, r.Status, r.Body)
	}
	var made ruleBody
	r.JSON(e.t, &made)
	return made.Data.ID
}

// targetRule is a rule over the three targets, off so that it runs only when applied, that
// does what action says.
func targetRule(name string, action map[string]any) map[string]any {
	return map[string]any{"name": name, "active": false,
		"conditions": []any{map[string]any{"condition_type": "transaction_name", "operator": "like", "value": "rule target"}},
		"actions":    []any{action}}
}

// named makes a record of the family's list (categories, merchants) and returns its id.
func (e *rulesEnv) named(table, name string) string {
	e.t.Helper()
	id := uuid.Must(uuid.NewV7()).String()
	if _, err := e.srv.DB.NewRaw("INSERT INTO ? (id, family_id, name) VALUES (?, ?, ?)", bun.Ident(table), id, e.a.FamilyID, name).Exec(context.Background()); err != nil {
		e.t.Fatal(err)
	}
	return id
}

// field is a column of the targets, by account, as the database holds it now ("" for NULL).
func (e *rulesEnv) field(column string) map[string]string {
	e.t.Helper()
	out := map[string]string{}
	for name, id := range e.targets {
		var v *string
		if err := e.srv.DB.NewRaw("SELECT ?::text FROM entries WHERE id = ?", bun.Ident(column), id).Scan(context.Background(), &v); err != nil {
			e.t.Fatal(err)
		}
		if v != nil {
			out[name] = *v
		}
	}
	return out
}

// otherFamilysChange is a change of another family's transaction: its id answers every undo
// route as a change B may not see must.
func (e *rulesEnv) otherFamilysChange() string {
	e.t.Helper()
	x := testkit.MustCreateUser(e.t, e.srv.DB, testkit.UserOpts{})
	acct := testkit.MustCreateAccount(e.t, e.srv.DB, x.FamilyID, "Theirs", "Depository", "10")
	tx, err := ledger.Create(context.Background(), e.srv.DB, slog.Default(), models.FamilyViewer(x.FamilyID),
		ledger.NewTransaction{AccountID: acct.ID, Date: time.Now().UTC(), Amount: decimal.RequireFromString("5"), Name: "theirs"})
	if err != nil {
		e.t.Fatal(err)
	}
	return e.batch(who{name: "X", web: apptest.NewClient(e.t, e.srv), key: testkit.MustCreateAPIKey(e.t, e.srv.DB, x.ID, models.ScopeReadWrite)}, tx)
}

// batch excludes the transactions ids as w in one PATCH /api/v1/transactions and returns the
// change's id.
func (e *rulesEnv) batch(w who, ids ...uuid.UUID) string {
	e.t.Helper()
	r := w.web.API(http.MethodPatch, "/api/v1/transactions", w.key, map[string]any{"ids": ids, "excluded": true})
	var out struct {
		Data struct {
			ChangeID string `json:"change_id"`
		} `json:"data"`
	}
	if r.Status != http.StatusOK {
		e.t.Fatalf("batch as %s: %d %s", w.name, r.Status, r.Body)
	}
	r.JSON(e.t, &out)
	return out.Data.ChangeID
}

// apply applies the rule id as w through the API and returns the application's id ("" when it
// changed nothing) and how many transactions it changed.
func (e *rulesEnv) apply(w who, id string) (string, int) {
	e.t.Helper()
	r := w.web.API(http.MethodPost, "/api/v1/rules/"+id+"/apply", w.key, nil)
	var out struct {
		Data struct {
			ID      *string `json:"id"`
			Changed int     `json:"changed_count"`
		} `json:"data"`
	}
	if r.Status != http.StatusOK {
		e.t.Fatalf("apply as %s: %d %s", w.name, r.Status, r.Body)
	}
	r.JSON(e.t, &out)
	if out.Data.ID == nil {
		return "", out.Data.Changed
	}
	return *out.Data.ID, out.Data.Changed
}

// The rule form's preview counts and lists the transactions of the accounts its reader sees:
// B's none of P's, C's none of P's or Q's, and A's all of them.
func TestRulePreviewReadsOnlyVisibleAccounts(t *testing.T) {
	t.Parallel()
	e := newRulesEnv(t)
	form := url.Values{"name": {"Targets"}, "match": {"all"}, "cond_0_field": {"transaction_name"}, "cond_0_op": {"like"},
		"cond_0_value": {"rule target"}, "action_exclude": {"1"}}
	for _, tc := range []struct {
		w     who
		count string
		rows  []string
	}{
		{e.owner, "3 existing transactions match.", []string{"Pelican rule target", "Quokka rule target", "Sparrow rule target"}},
		{e.member, "2 existing transactions match.", []string{"Quokka rule target", "Sparrow rule target"}},
		{e.viewer, "1 existing transaction matches.", []string{"Sparrow rule target"}},
	} {
		tc.w.web.Get("/settings/rules")
		r := tc.w.web.PostForm("/settings/rules/preview", form)
		if r.Status != http.StatusOK {
			t.Fatalf("preview as %s: %d %s", tc.w.name, r.Status, r.Body)
		}
		if got := r.TestID(t, "preview-count"); got != tc.count {
			t.Errorf("preview as %s counts %q, want %q", tc.w.name, got, tc.count)
		}
		rows := []string{}
		r.Doc(t).Find(`[data-testid="preview-row"]`).Each(func(_ int, s *goquery.Selection) {
			for _, name := range []string{"Pelican rule target", "Quokka rule target", "Sparrow rule target"} {
				if strings.Contains(s.Text(), name) {
					rows = append(rows, name)
				}
			}
		})
		if slices.Sort(rows); strings.Join(rows, ",") != strings.Join(tc.rows, ",") {
			t.Errorf("preview as %s lists %q, want %q", tc.w.name, rows, tc.rows)
		}
		if tc.w.name != "A" {
			if found := e.leaks(r.Body, ""); len(found) > 0 {
				t.Errorf("preview as %s shows P's %q", tc.w.name, found)
			}
		}
	}
}

// A rule applied to the history by B, through the API or the page, changes and counts only
// the transactions of the accounts B sees; applied by A, it reaches P's too.
func TestApplyingARuleChangesOnlyVisibleAccounts(t *testing.T) {
	t.Parallel()
	e := newRulesEnv(t)
	fun, market := e.named("categories", "Fun"), e.named("merchants", "Market")
	byCategory := e.rule(e.owner, targetRule("Fun for all", map[string]any{"action_type": "set_transaction_category", "value": fun}))
	byMerchant := e.rule(e.owner, targetRule("To market", map[string]any{"action_type": "set_transaction_merchant", "value": market}))

	if _, n := e.apply(e.member, byCategory); n != 2 {
		t.Errorf("B's application changed %d transactions, want 2 (S's and Q's)", n)
	}
	if got := e.field("category_id"); got["P"] != "" || got["S"] != fun || got["Q"] != fun {
		t.Errorf("categories after B's application: %v, want S's and Q's set and P's not", got)
	}
	b := e.member.web
	b.Get("/settings/rules")
	wantRedirect(t, b.PostForm("/settings/rules/"+byMerchant+"/apply", url.Values{}), "/settings/rules")
	page := b.Get("/settings/rules")
	if got := page.TestID(t, "flash-success"); !strings.Contains(got, "“To market” changed 2 existing transactions") {
		t.Errorf("B's page application says %q, want 2 transactions changed", got)
	}
	if got := e.field("merchant_id"); got["P"] != "" || got["S"] != market || got["Q"] != market {
		t.Errorf("merchants after B's page application: %v, want S's and Q's set and P's not", got)
	}

	// The owner applies the same rule: P's transaction is the one left to change.
	if _, n := e.apply(e.owner, byCategory); n != 1 {
		t.Errorf("A's application changed %d transactions, want 1 (P's)", n)
	}
	if got := e.field("category_id"); got["P"] != fun {
		t.Errorf("P's category after A's application: %q", got["P"])
	}
}

// A change that touched P (A's rule applied to the history, A's batch edit) is not B's: every
// undo route answers for it exactly as for another family's change and undoes nothing, and
// the lists of changes leave it out. B's own change, of S and Q, is B's to see and undo, and
// not C's, who does not see Q. A undoes all.
func TestChangesOfHiddenAccountsCannotBeUndoneByOthers(t *testing.T) {
	t.Parallel()
	e := newRulesEnv(t)
	fun, market := e.named("categories", "Fun"), e.named("merchants", "Market")
	byCategory := e.rule(e.owner, targetRule("Fun for all", map[string]any{"action_type": "set_transaction_category", "value": fun}))
	byMerchant := e.rule(e.owner, targetRule("To market", map[string]any{"action_type": "set_transaction_merchant", "value": market}))
	applied, n := e.apply(e.owner, byCategory)
	if n != 3 {
		t.Fatalf("A's application changed %d, want 3", n)
	}
	batch := e.batch(e.owner, e.targets["P"], e.targets["S"])
	others := e.otherFamilysChange()
	bs, _ := e.apply(e.member, byMerchant)

	routes := []string{"/api/v1/transaction_changes/%s/undo", "/api/v1/rule_applications/%s/undo", "/transactions/changes/%s/undo",
		"/settings/rule_applications/%s/undo"}
	b := e.member
	for _, change := range []string{applied, batch} {
		for _, route := range routes {
			undo := func(id string) *testkit.Response {
				path := strings.Replace(route, "%s", id, 1)
				if strings.HasPrefix(path, "/api/") {
					return b.web.API(http.MethodPost, path, b.key, nil)
				}
				b.web.Get("/settings/rules")
				return b.web.PostForm(path, url.Values{})
			}
			r, o := undo(change), undo(others)
			if r.Status != http.StatusNotFound || !sameAnswer(r, o) {
				t.Errorf("%s of a change of P's as B: %d %s; another family's: %d %s", route, r.Status, r.Body, o.Status, o.Body)
			}
		}
	}
	if got := e.field("category_id"); got["P"] != fun || got["S"] != fun || got["Q"] != fun {
		t.Errorf("B's undos changed the categories: %v", got)
	}
	if got := e.field("excluded"); got["P"] != "true" || got["S"] != "true" {
		t.Errorf("B's undos changed the batch: %v", got)
	}

	// The lists: the rules page's applications, and the batch's banner on the transactions.
	applications := func(w who) []string {
		var out []string
		w.web.Get("/settings/rules").Doc(t).Find(`[data-testid="rule-application"]`).Each(func(_ int, s *goquery.Selection) {
			out = append(out, strings.Join(strings.Fields(s.Find("span").First().Text()), " "))
		})
		return out
	}
	for _, tc := range []struct {
		w    who
		want []string
	}{
		{e.owner, []string{"“To market” changed 2 transactions", "“Fun for all” changed 3 transactions"}},
		{e.member, []string{"“To market” changed 2 transactions"}},
		{e.viewer, nil},
	} {
		got := applications(tc.w)
		for i := range got {
			got[i], _, _ = strings.Cut(got[i], " on ")
		}
		if strings.Join(got, "|") != strings.Join(tc.want, "|") {
			t.Errorf("the applications %s's page lists: %q, want %q", tc.w.name, got, tc.want)
		}
	}
	if r := e.owner.web.Get("/transactions?changed=" + batch); !r.Has(t, "tx-undo-text") {
		t.Error("A's transactions do not offer to undo A's batch")
	}
	if r := b.web.Get("/transactions?changed=" + batch); r.Has(t, "tx-undo-text") {
		t.Errorf("B's transactions offer to undo A's batch of P's: %q", r.TestID(t, "tx-undo-text"))
	}

	// B undoes B's own; A undoes A's.
	if r := b.web.API(http.MethodPost, "/api/v1/transaction_changes/"+bs+"/undo", b.key, nil); r.Status != http.StatusNoContent {
		t.Errorf("B's undo of B's application: %d %s", r.Status, r.Body)
	}
	for _, change := range []string{batch, applied} {
		if r := e.owner.web.API(http.MethodPost, "/api/v1/transaction_changes/"+change+"/undo", e.owner.key, nil); r.Status != http.StatusNoContent {
			t.Errorf("A's undo of %s: %d %s", change, r.Status, r.Body)
		}
	}
	if got := e.field("merchant_id"); len(got) != 0 {
		t.Errorf("merchants after B's undo: %v", got)
	}
	// S's transaction changed since the batch (B's application and its undo): it stays.
	if got := e.field("excluded"); got["P"] != "false" || got["S"] != "true" {
		t.Errorf("excluded after A's undo: %v, want P's put back and S's kept", got)
	}
}

// A rule naming P, in a condition, a grouped condition and a transfer, is shown to B and C
// exactly as the same rule naming an account since deleted: in the API (no value), on the
// rules page ("(removed)") and in its edit form, never by P's id or name. B cannot name P in
// a rule, through the API or the form: the answer is the one for another family's account.
// B may still change what else the rule says, and P stays in it; A sees P throughout.
func TestRulesShowHiddenAccountsAsRemoved(t *testing.T) {
	t.Parallel()
	e := newRulesEnv(t)
	byAccount := func(account string) map[string]any {
		return map[string]any{"name": "By account",
			"conditions": []any{map[string]any{"condition_type": "transaction_account", "operator": "=", "value": account},
				map[string]any{"condition_type": "compound", "operator": "or", "sub_conditions": []any{
					map[string]any{"condition_type": "transaction_account", "operator": "=", "value": account},
					map[string]any{"condition_type": "transaction_name", "operator": "like", "value": "zz"}}}},
			"actions": []any{map[string]any{"action_type": "mark_as_transfer", "value": account}}}
	}
	gone := testkit.MustCreateAccount(t, e.srv.DB, e.a.FamilyID, "Doomed", "Depository", "1")
	onP, onGone := e.rule(e.owner, byAccount(e.p.ID.String())), e.rule(e.owner, byAccount(gone.ID.String()))
	if r := e.owner.web.API(http.MethodDelete, "/api/v1/accounts/"+gone.ID.String()+"?confirm=Doomed", e.owner.key, nil); r.Status != http.StatusNoContent {
		t.Fatalf("delete the account: %d %s", r.Status, r.Body)
	}
	body := func(r *testkit.Response) string {
		var out struct {
			Data struct {
				Conditions json.RawMessage `json:"conditions"`
				Actions    json.RawMessage `json:"actions"`
			} `json:"data"`
		}
		r.JSON(t, &out)
		return string(out.Data.Conditions) + " " + string(out.Data.Actions)
	}

	for _, w := range []who{e.member, e.viewer} {
		p, g := w.web.API(http.MethodGet, "/api/v1/rules/"+onP, w.key, nil), w.web.API(http.MethodGet, "/api/v1/rules/"+onGone, w.key, nil)
		if p.Status != http.StatusOK || body(p) != body(g) {
			t.Errorf("GET the rule on P as %s: %d %s; on a deleted account: %s", w.name, p.Status, body(p), body(g))
		}
		for _, path := range []string{"/api/v1/rules/" + onP, "/api/v1/rules"} {
			if found := e.leaks(w.web.API(http.MethodGet, path, w.key, nil).Body, ""); len(found) > 0 {
				t.Errorf("%s as %s shows P's %q", path, w.name, found)
			}
		}
		page := w.web.Get("/settings/rules")
		if found := e.leaks(page.Body, ""); len(found) > 0 {
			t.Errorf("the rules page as %s shows P's %q", w.name, found)
		}
		var texts []string
		page.Doc(t).Find(`[data-testid="rule-row"]`).Each(func(_ int, s *goquery.Selection) {
			texts = append(texts, s.Find(`[data-testid="rule-conditions"]`).Text()+" "+s.Find(`[data-testid="rule-actions"]`).Text())
		})
		if len(texts) != 2 || texts[0] != texts[1] || !strings.Contains(texts[0], "(removed)") {
			t.Errorf("the rules page as %s says %q, want the two rules alike, with (removed)", w.name, texts)
		}
		if w.viewer {
			continue
		}
		edit, editGone := w.web.Get("/settings/rules/"+onP+"/edit"), w.web.Get("/settings/rules/"+onGone+"/edit")
		if edit.Status != http.StatusOK || !sameAnswer(edit, editGone) {
			t.Errorf("the edit page of the rule on P as %s answers otherwise than on a deleted account:\n%d %s\n%d %s", w.name, edit.Status, edit.Body, editGone.Status, editGone.Body)
		}
		if found := e.leaks(edit.Body, ""); len(found) > 0 {
			t.Errorf("the edit page as %s shows P's %q", w.name, found)
		}
		if found := e.leaks(w.web.Get("/settings/rules/new").Body, ""); len(found) > 0 {
			t.Errorf("the new rule form as %s offers P's %q", w.name, found)
		}
	}

	// B names P: as another family's account.
	b := e.member
	for _, req := range []struct{ method, path string }{{http.MethodPost, "/api/v1/rules"}, {http.MethodPatch, "/api/v1/rules/" + onP}} {
		for _, part := range []string{"conditions", "actions"} {
			with := func(account uuid.UUID) *testkit.Response {
				rule := byAccount(account.String())
				rule["actions"] = []any{map[string]any{"action_type": "exclude_transaction"}}
				if part == "actions" {
					rule["conditions"], rule["actions"] = []any{}, byAccount(account.String())["actions"]
				}
				return b.web.API(req.method, req.path, b.key, rule)
			}
			r, o := with(e.p.ID), with(e.other.account)
			if r.Status != http.StatusUnprocessableEntity || !strings.Contains(r.Body, `"`+part+`[0]"`) || !sameAnswer(r, o) {
				t.Errorf("%s %s naming P in its %s as B: %d %s; another family's account: %d %s", req.method, req.path, part, r.Status, r.Body, o.Status, o.Body)
			}
		}
	}
	b.web.Get("/settings/rules/new")
	form := func(account uuid.UUID) *testkit.Response {
		return b.web.PostForm("/settings/rules", url.Values{"name": {"Mine"}, "match": {"all"}, "cond_0_field": {"transaction_name"},
			"cond_0_op": {"like"}, "cond_0_value": {"x"}, "action_transfer": {account.String()}})
	}
	if r, o := form(e.p.ID), form(e.other.account); r.Status != http.StatusUnprocessableEntity || !sameAnswer(r, o) {
		t.Errorf("the form naming P as B: %d %s; another family's account: %d %s", r.Status, r.Body, o.Status, o.Body)
	}

	// B renames the rules: P stays in the one, as the deleted account in the other, and the
	// answers are alike.
	p := b.web.API(http.MethodPatch, "/api/v1/rules/"+onP, b.key, map[string]any{"name": "Renamed"})
	g := b.web.API(http.MethodPatch, "/api/v1/rules/"+onGone, b.key, map[string]any{"name": "Renamed"})
	if p.Status != http.StatusOK || p.Status != g.Status || body(p) != body(g) {
		t.Errorf("B renaming the rule on P: %d %s; on a deleted account: %d %s", p.Status, p.Body, g.Status, g.Body)
	}
	if found := e.leaks(p.Body, ""); len(found) > 0 {
		t.Errorf("B's renamed rule shows P's %q", found)
	}

	// A sees P in the rule everywhere.
	a := e.owner
	if r := a.web.API(http.MethodGet, "/api/v1/rules/"+onP, a.key, nil); strings.Count(r.Body, e.p.ID.String()) != 3 || !strings.Contains(r.Body, `"Renamed"`) {
		t.Errorf("A's rule on P: %s", r.Body)
	}
	if r := a.web.Get("/settings/rules"); !strings.Contains(r.Body, "“"+e.p.Name+"”") || !strings.Contains(r.Body, "a transfer with "+e.p.Name) {
		t.Errorf("A's rules page does not name P: %s", r.TestID(t, "rules-list"))
	}
	if r := a.web.Get("/settings/rules/" + onP + "/edit"); !strings.Contains(r.Body, e.p.ID.String()) {
		t.Error("A's edit form of the rule on P does not hold P")
	}
}

// The family's export, an admin's, holds its rules whole, but a rule naming P is exported to
// another admin, from whom P is kept, as the same rule naming an account since deleted:
// without P's id. A's export names P.
func TestExportedRulesShowHiddenAccountsAsRemoved(t *testing.T) {
	t.Parallel()
	e := newRulesEnv(t)
	byAccount := func(account string) map[string]any {
		return map[string]any{"name": "By account " + account[len(account)-4:],
			"conditions": []any{map[string]any{"condition_type": "compound", "operator": "or", "sub_conditions": []any{
				map[string]any{"condition_type": "transaction_account", "operator": "=", "value": account}}}},
			"actions": []any{map[string]any{"action_type": "mark_as_transfer", "value": account}}}
	}
	gone := testkit.MustCreateAccount(t, e.srv.DB, e.a.FamilyID, "Doomed", "Depository", "1")
	e.rule(e.owner, byAccount(e.p.ID.String()))
	e.rule(e.owner, byAccount(gone.ID.String()))
	if r := e.owner.web.API(http.MethodDelete, "/api/v1/accounts/"+gone.ID.String()+"?confirm=Doomed", e.owner.key, nil); r.Status != http.StatusNoContent {
		t.Fatalf("delete the account: %d %s", r.Status, r.Body)
	}
	// rules are the export's Rule lines, their conditions and actions.
	rules := func(body string) []string {
		var out []string
		for line := range strings.SplitSeq(body, "\n") {
			var rec struct {
				Type string
				Data struct {
					Conditions, Actions json.RawMessage
				}
			}
			if json.Unmarshal([]byte(line), &rec) == nil && rec.Type == "Rule" {
				out = append(out, string(rec.Data.Conditions)+" "+string(rec.Data.Actions))
			}
		}
		return out
	}
	admin := e.privacyEnv.member("A2", testkit.MustCreateUser(t, e.srv.DB, testkit.UserOpts{FamilyID: e.a.FamilyID}), models.ScopeRead)
	for _, r := range []*testkit.Response{admin.web.API(http.MethodGet, "/api/v1/export", admin.key, nil), admin.web.Get("/settings/export/download")} {
		if found := e.leaks(r.Body, ""); r.Status != http.StatusOK || len(found) > 0 {
			t.Errorf("the export of another admin: %d, shows P's %q", r.Status, found)
		}
		if got := rules(r.Body); len(got) != 2 || got[0] != got[1] {
			t.Errorf("the export of another admin holds the rules %q, want the two alike", got)
		}
	}
	if r := e.owner.web.API(http.MethodGet, "/api/v1/export", e.owner.key, nil); strings.Count(strings.Join(rules(r.Body), ""), e.p.ID.String()) != 2 {
		t.Errorf("A's export does not name P in the rule: %q", rules(r.Body))
	}
}
