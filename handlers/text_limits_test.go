package handlers_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/uuid"

	"tally/app/apptest"
	"tally/testkit"
)

// TestFreeTextIsBoundedThroughTheAPI writes names and notes past their bounds (a name 255
// characters, notes 10,000, counted as characters) through every API write path that takes
// them: each is a 422 naming the field, and nothing of it is stored. A 9 MB name included.
func TestFreeTextIsBoundedThroughTheAPI(t *testing.T) {
	t.Parallel()
	e := newImportEnv(t, apptest.ServerOptions{NoWorker: true})
	acct := testkit.MustCreateAccount(t, e.srv.DB, e.user.FamilyID, "Checking", "Depository", "").ID.String()
	name256, name255 := strings.Repeat("n", 256), strings.Repeat("é", 255)
	notes := strings.Repeat("x", 10_001)
	huge := strings.Repeat("9", 9<<20)
	txn := e.mustPost(t, "/api/v1/transactions", map[string]any{"account_id": acct, "date": "2026-03-01", "amount": "1", "name": "Tea"})
	stored := func(n int) func(t *testing.T) {
		return func(t *testing.T) {
			if got := e.count(t, "SELECT count(*) FROM entries WHERE family_id = ? AND (length(name) > 255 OR length(notes) > 10000)", e.user.FamilyID); got != 0 {
				t.Fatalf("%d transactions hold text past their bounds", got)
			}
			if got := e.count(t, "SELECT count(*) FROM entries WHERE family_id = ? AND kind = 'transaction'", e.user.FamilyID); got != n {
				t.Fatalf("%d transactions, want %d", got, n)
			}
		}
	}
	tooLong := func(field, label string, max string) []string {
		return []string{`"` + field + `":["` + label + ` can be at most ` + max + ` characters long"]`}
	}
	rename := func(v string) map[string]any {
		return map[string]any{"name": "Tidy", "conditions": []any{map[string]any{"condition_type": "transaction_name", "operator": "like", "value": "tea"}},
			"actions": []any{map[string]any{"action_type": "set_transaction_name", "value": v}}}
	}
	e.runAPICases(t, []apiCase{
		{name: "a transaction's name of 256 characters", method: http.MethodPost, path: "/api/v1/transactions",
			body: map[string]any{"account_id": acct, "date": "2026-03-01", "amount": "1", "name": name256}, status: http.StatusUnprocessableEntity,
			contains: tooLong("name", "Name", "255"), after: stored(1)},
		{name: "a transaction's name of 9 MB", method: http.MethodPost, path: "/api/v1/transactions",
			body: map[string]any{"account_id": acct, "date": "2026-03-01", "amount": "1", "name": huge}, status: http.StatusUnprocessableEntity,
			contains: tooLong("name", "Name", "255"), excludes: []string{huge[:1000]}, after: stored(1)},
		{name: "a transaction's notes of 10,001 characters", method: http.MethodPost, path: "/api/v1/transactions",
			body: map[string]any{"account_id": acct, "date": "2026-03-01", "amount": "1", "name": "Tea", "notes": notes}, status: http.StatusUnprocessableEntity,
			contains: tooLong("notes", "Notes", "10,000"), after: stored(1)},
		{name: "a name of 255 two-byte characters is at the bound", method: http.MethodPost, path: "/api/v1/transactions",
			body: map[string]any{"account_id": acct, "date": "2026-03-01", "amount": "1", "name": name255}, status: http.StatusCreated, after: stored(2)},
		{name: "a change of a transaction's notes", method: http.MethodPatch, path: "/api/v1/transactions/" + txn,
			body: map[string]any{"notes": notes}, status: http.StatusUnprocessableEntity, contains: tooLong("notes", "Notes", "10,000"), after: stored(2)},
		{name: "a change of a transaction's name", method: http.MethodPatch, path: "/api/v1/transactions/" + txn,
			body: map[string]any{"name": name256}, status: http.StatusUnprocessableEntity, contains: tooLong("name", "Name", "255"), after: stored(2)},
		{name: "an account's name", method: http.MethodPost, path: "/api/v1/accounts",
			body: map[string]any{"name": name256, "accountable_type": "Depository", "currency": "USD"}, status: http.StatusUnprocessableEntity, contains: tooLong("name", "Name", "255")},
		{name: "a change of an account's name", method: http.MethodPatch, path: "/api/v1/accounts/" + acct,
			body: map[string]any{"name": name256}, status: http.StatusUnprocessableEntity, contains: tooLong("name", "Name", "255")},
		{name: "a category's name", method: http.MethodPost, path: "/api/v1/categories", body: map[string]any{"name": name256},
			status: http.StatusUnprocessableEntity, contains: tooLong("name", "Name", "255")},
		{name: "a tag's name", method: http.MethodPost, path: "/api/v1/tags", body: map[string]any{"name": name256},
			status: http.StatusUnprocessableEntity, contains: tooLong("name", "Name", "255")},
		{name: "a merchant's name", method: http.MethodPost, path: "/api/v1/merchants", body: map[string]any{"name": name256},
			status: http.StatusUnprocessableEntity, contains: tooLong("name", "Name", "255")},
		{name: "a rule's name", method: http.MethodPost, path: "/api/v1/rules", body: func() map[string]any { r := rename("Tea"); r["name"] = name256; return r }(),
			status: http.StatusUnprocessableEntity, contains: tooLong("name", "Name", "255")},
		{name: "the name a rule gives", method: http.MethodPost, path: "/api/v1/rules", body: rename(name256),
			status: http.StatusUnprocessableEntity, contains: tooLong("actions[0]", "The new name", "255")},
		{name: "a webhook's description", method: http.MethodPost, path: "/api/v1/webhooks",
			body:   map[string]any{"url": "https://hooks.example.com/x", "events": []string{"import.completed"}, "description": strings.Repeat("d", 201)},
			status: http.StatusUnprocessableEntity, contains: []string{`"description"`}},
	})
	if n := e.count(t, "SELECT count(*) FROM rules WHERE family_id = ?", e.user.FamilyID); n != 0 {
		t.Errorf("%d rules stored", n)
	}
}

// TestFreeTextIsBoundedOnThePages writes a name past its bound on the pages a person uses:
// each form comes back with the error on the field, and nothing is stored.
func TestFreeTextIsBoundedOnThePages(t *testing.T) {
	t.Parallel()
	srv := apptest.StartServer(t, apptest.ServerOptions{NoWorker: true})
	u := testkit.MustCreateUser(t, srv.DB, testkit.UserOpts{})
	acct := testkit.MustCreateAccount(t, srv.DB, u.FamilyID, "Checking", "Depository", "")
	c := apptest.NewClient(t, srv)
	c.SignIn(u.Email, testkit.Password)
	long := strings.Repeat("n", 256)
	for _, tc := range []struct {
		name, page, action, field string
		form                      url.Values
	}{
		{"a new transaction", "/accounts/" + acct.ID.String() + "/transactions/new", "/accounts/" + acct.ID.String() + "/transactions", "name",
			url.Values{"name": {long}, "date": {"2026-03-01"}, "amount": {"1"}, "direction": {"out"}}},
		{"a new transaction's notes", "/accounts/" + acct.ID.String() + "/transactions/new", "/accounts/" + acct.ID.String() + "/transactions", "notes",
			url.Values{"name": {"Tea"}, "notes": {strings.Repeat("x", 10_001)}, "date": {"2026-03-01"}, "amount": {"1"}, "direction": {"out"}}},
		{"a new account", "/accounts/new", "/accounts", "name", url.Values{"name": {long}, "accountable_type": {"Depository"}, "currency": {"USD"}}},
		{"a renamed account", "/accounts/" + acct.ID.String() + "/edit", "/accounts/" + acct.ID.String(), "name",
			url.Values{"name": {long}, "accountable_type": {"Depository"}}},
		{"a new category", "/categories", "/categories", "name", url.Values{"name": {long}, "classification": {"expense"}, "color": {"#407706"}}},
		{"a new tag", "/tags", "/tags", "name", url.Values{"name": {long}, "color": {"#407706"}}},
		{"a new merchant", "/merchants", "/merchants", "name", url.Values{"name": {long}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c.Get(tc.page)
			r := c.PostForm(tc.action, tc.form)
			if r.Status != http.StatusUnprocessableEntity || !strings.Contains(r.TestID(t, "error-"+tc.field), "can be at most") {
				t.Fatalf("%d, error on %s %q", r.Status, tc.field, r.TestID(t, "error-"+tc.field))
			}
		})
	}
	var n int
	if err := srv.DB.NewRaw(`SELECT (SELECT count(*) FROM entries WHERE family_id = ?) + (SELECT count(*) FROM categories WHERE family_id = ? AND length(name) > 255)
		+ (SELECT count(*) FROM accounts WHERE family_id = ? AND name <> 'Checking')`, u.FamilyID, u.FamilyID, u.FamilyID).Scan(t.Context(), &n); err != nil || n != 0 {
		t.Fatalf("%d records stored (%v)", n, err)
	}
}

// TestImportedTextIsCutWithANote imports a CSV and a native file whose texts are past their
// bounds: the file is not refused (a bank's export is not edited by hand), its rows stay
// valid, and what they make is cut to the bounds, with a note on the row in the rows view and
// the API, and a warning of the native import.
func TestImportedTextIsCutWithANote(t *testing.T) {
	t.Parallel()
	e := newImportEnv(t, apptest.ServerOptions{})
	acct := testkit.MustCreateAccount(t, e.srv.DB, e.user.FamilyID, "Checking", "Depository", "")
	long, notes, category := strings.Repeat("ü", 300), strings.Repeat("x", 12_000), strings.Repeat("c", 300)
	csv := "date,amount,name,category,notes\n2026-01-02,-12.50," + long + "," + category + "," + notes + "\n2026-01-03,-3,Tea,Food,\n"
	b := e.publish(t, map[string]any{"raw_file_content": csv, "date_format": "%Y-%m-%d", "account_id": acct.ID.String()})
	if b.Data.Stats.ValidRowsCount != 2 {
		t.Fatalf("%d valid rows, want both", b.Data.Stats.ValidRowsCount)
	}
	got := e.strings(t, "SELECT length(e.name) || ',' || length(e.notes) || ',' || length(c.name) FROM entries e JOIN categories c ON c.id = e.category_id WHERE e.import_id = ? ORDER BY e.date",
		uuid.MustParse(b.Data.ID))
	if len(got) != 2 || got[0] != "255,10000,255" {
		t.Fatalf("lengths of name, notes and category: %v", got)
	}
	var rows struct {
		Data []struct {
			Warnings []string          `json:"warnings"`
			Fields   map[string]string `json:"fields"`
		} `json:"data"`
	}
	e.c.API(http.MethodGet, "/api/v1/imports/"+b.Data.ID+"/rows", e.read, nil).JSON(t, &rows)
	want := []string{"The name had more than 255 characters: the first 255 are kept.", "The notes had more than 10,000 characters: the first 10,000 are kept.",
		"The category had more than 255 characters: the first 255 are kept."}
	if len(rows.Data) != 2 || strings.Join(rows.Data[0].Warnings, "|") != strings.Join(want, "|") || rows.Data[1].Warnings != nil ||
		utf8.RuneCountInString(rows.Data[0].Fields["notes"]) != 10_000 {
		t.Fatalf("rows: %+v", rows.Data)
	}
	page := apptest.NewClient(t, e.srv)
	page.SignIn(e.user.Email, testkit.Password)
	if w := page.Get("/imports/"+b.Data.ID).TestID(t, "file-row-warnings"); !strings.Contains(w, want[0]) {
		t.Fatalf("the rows view's note %q", w)
	}

	native := `{"type":"Account","data":{"id":"a1","name":"Savings","balance":"100","currency":"USD","accountable_type":"Depository"}}
{"type":"Transaction","data":{"id":"t1","account_id":"a1","date":"2024-01-15","amount":"10","name":"` + long + `"}}`
	n := e.publishNative(t, native)
	if got := e.strings(t, "SELECT length(name)::text FROM entries WHERE import_id = ? AND kind = 'transaction'", uuid.MustParse(n.Data.ID)); len(got) != 1 || got[0] != "255" {
		t.Fatalf("native transaction's name length %v", got)
	}
	if w := e.strings(t, "SELECT warnings::text FROM imports WHERE id = ?", uuid.MustParse(n.Data.ID)); len(w) != 1 || !strings.Contains(w[0], "text_clipped") {
		t.Fatalf("native import's warnings %v", w)
	}
}
