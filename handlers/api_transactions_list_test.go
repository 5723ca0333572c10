package handlers_test

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/google/uuid"

	"tally/app/apptest"
	"tally/models"
	"tally/testkit"
)

type transactionPage struct {
	Data []struct {
		ID        string   `json:"id"`
		AccountID string   `json:"account_id"`
		Date      string   `json:"date"`
		Name      string   `json:"name"`
		Amount    string   `json:"amount"`
		Category  *string  `json:"category_id"`
		TagIDs    []string `json:"tag_ids"`
		Splits    []any    `json:"splits"`
	} `json:"data"`
	Meta struct {
		PerPage    int     `json:"per_page"`
		NextCursor *string `json:"next_cursor"`
	} `json:"meta"`
}

type errorBody struct {
	Error   string              `json:"error"`
	Message string              `json:"message"`
	Fields  map[string][]string `json:"details"`
}

// list fetches one page of transactions and fails the test unless it answers 200.
func (e *importEnv) list(t *testing.T, query string) transactionPage {
	t.Helper()
	r := e.c.API(http.MethodGet, "/api/v1/transactions?"+query, e.read, nil)
	if r.Status != http.StatusOK {
		t.Fatalf("GET /api/v1/transactions?%s: %d %s", query, r.Status, r.Body)
	}
	var p transactionPage
	r.JSON(t, &p)
	return p
}

func (p transactionPage) names() []string {
	var out []string
	for _, d := range p.Data {
		out = append(out, d.Name)
	}
	return out
}

// addTransaction adds a manual transaction through the API and returns its id.
func (e *importEnv) addTransaction(t *testing.T, body map[string]any) string {
	t.Helper()
	r := e.c.API(http.MethodPost, "/api/v1/transactions", e.write, body)
	if r.Status != http.StatusCreated {
		t.Fatalf("create %v: %d %s", body, r.Status, r.Body)
	}
	var b transactionBody
	r.JSON(t, &b)
	return b.Data.ID
}

// TestTransactionListWalksByCursor walks the family's transactions three at a time: newest
// first by date then id, each exactly once even when one is added between pages, and never
// another family's.
func TestTransactionListWalksByCursor(t *testing.T) {
	t.Parallel()
	e := newImportEnv(t, apptest.ServerOptions{NoWorker: true})
	checking := testkit.MustCreateAccount(t, e.srv.DB, e.user.FamilyID, "Checking", "Depository", "").ID.String()
	card := testkit.MustCreateAccount(t, e.srv.DB, e.user.FamilyID, "Visa", "CreditCard", "").ID.String()
	// Three on one day, so the id decides their order within it.
	for i, d := range []string{"2026-01-05", "2026-01-03", "2026-01-03", "2026-01-03", "2026-01-01", "2026-02-01", "2025-12-31"} {
		acct := checking
		if i%2 == 1 {
			acct = card
		}
		e.addTransaction(t, map[string]any{"account_id": acct, "date": d, "amount": fmt.Sprint(i + 1), "name": fmt.Sprintf("t%d", i)})
	}
	other := testkit.MustCreateUser(t, e.srv.DB, testkit.UserOpts{})
	otherAcct := testkit.MustCreateAccount(t, e.srv.DB, other.FamilyID, "Theirs", "Depository", "")
	otherKey := testkit.MustCreateAPIKey(t, e.srv.DB, other.ID, models.ScopeReadWrite)
	if r := e.c.API(http.MethodPost, "/api/v1/transactions", otherKey, map[string]any{"account_id": otherAcct.ID.String(),
		"date": "2026-01-04", "amount": "1", "name": "not yours"}); r.Status != http.StatusCreated {
		t.Fatalf("other family's transaction: %d %s", r.Status, r.Body)
	}

	want := e.strings(t, `SELECT name FROM entries WHERE family_id = ? ORDER BY date DESC, id DESC`, e.user.FamilyID)
	var got []string
	cursor := ""
	for pages := 0; ; pages++ {
		if pages > 5 {
			t.Fatal("the cursor never ends")
		}
		p := e.list(t, "per_page=3&cursor="+url.QueryEscape(cursor))
		if p.Meta.PerPage != 3 || len(p.Data) > 3 {
			t.Fatalf("page of %d with per_page %d", len(p.Data), p.Meta.PerPage)
		}
		got = append(got, p.names()...)
		if pages == 0 {
			// Added after the first page, dated before the rest: it is met once, in its place.
			e.addTransaction(t, map[string]any{"account_id": checking, "date": "2025-06-01", "amount": "9", "name": "late"})
			want = append(want, "late")
		}
		if p.Meta.NextCursor == nil {
			break
		}
		cursor = *p.Meta.NextCursor
	}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("walk: got %v, want %v", got, want)
	}
	if slices.Contains(got, "not yours") {
		t.Error("another family's transaction is listed")
	}
	if p := e.list(t, "per_page=500"); len(p.Data) != 8 || p.Meta.NextCursor != nil || p.Data[0].Splits != nil {
		t.Errorf("one page of all: %d rows, next %v, splits in a list %v", len(p.Data), p.Meta.NextCursor, p.Data[0].Splits)
	}
}

// TestTransactionListFilters narrows the list by each filter, and names a wrong one.
func TestTransactionListFilters(t *testing.T) {
	t.Parallel()
	e := newImportEnv(t, apptest.ServerOptions{})
	checking := testkit.MustCreateAccount(t, e.srv.DB, e.user.FamilyID, "Checking", "Depository", "").ID.String()
	savings := testkit.MustCreateAccount(t, e.srv.DB, e.user.FamilyID, "Savings", "Depository", "").ID.String()
	card := testkit.MustCreateAccount(t, e.srv.DB, e.user.FamilyID, "Visa", "CreditCard", "").ID.String()
	food, tag, shop := e.named(t, "categories", "Food"), e.named(t, "tags", "Holiday"), e.named(t, "merchants", "Corner Shop")
	e.addTransaction(t, map[string]any{"account_id": checking, "date": "2026-03-01", "amount": "12.50", "name": "Corner shop", "category_id": food, "merchant_id": shop})
	groceries := e.named(t, "categories", "Groceries")
	if _, err := e.srv.DB.NewRaw("UPDATE categories SET parent_id = ? WHERE id = ?", food, groceries).Exec(t.Context()); err != nil {
		t.Fatal(err)
	}
	e.addTransaction(t, map[string]any{"account_id": card, "date": "2026-02-20", "amount": "64.10", "name": "Supermarket", "category_id": groceries})
	e.addTransaction(t, map[string]any{"account_id": checking, "date": "2026-03-02", "amount": "-2500", "name": "Salary", "notes": "March PAY"})
	e.addTransaction(t, map[string]any{"account_id": card, "date": "2026-03-03", "amount": "120", "name": "Hotel 100% refundable", "tag_ids": []string{tag}})
	e.addTransaction(t, map[string]any{"account_id": savings, "date": "2026-03-10", "amount": "-500", "name": "From checking"})
	e.addTransaction(t, map[string]any{"account_id": checking, "date": "2026-03-10", "amount": "500", "name": "To savings"})
	imported := e.publish(t, map[string]any{"raw_file_content": "date,amount,name\n2026-02-01,-30,Imported coffee\n",
		"date_format": "%Y-%m-%d", "account_id": checking})
	if _, err := e.srv.DB.NewRaw("UPDATE entries SET pending = true WHERE name = 'Imported coffee'").Exec(t.Context()); err != nil {
		t.Fatal(err)
	}
	// Another family's category, on a transaction of theirs.
	stranger := testkit.MustCreateUser(t, e.srv.DB, testkit.UserOpts{})
	theirAccount := testkit.MustCreateAccount(t, e.srv.DB, stranger.FamilyID, "Theirs", "Depository", "")
	theirFood := uuid.NewString()
	if _, err := e.srv.DB.NewRaw(`INSERT INTO categories (id, family_id, name) VALUES (?, ?, 'Food');
		INSERT INTO entries (id, family_id, account_id, kind, date, amount, currency, name, category_id)
		VALUES (gen_random_uuid(), ?, ?, 'transaction', '2026-03-05', 9, 'USD', 'Their lunch', ?)`,
		theirFood, stranger.FamilyID, stranger.FamilyID, theirAccount.ID, theirFood).Exec(t.Context()); err != nil {
		t.Fatal(err)
	}

	for _, tc := range []struct {
		name, query string
		want        []string
	}{
		{"everything, newest first", "", []string{"To savings", "From checking", "Hotel 100% refundable", "Salary", "Corner shop", "Supermarket", "Imported coffee"}},
		{"two accounts", "account_id=" + card + "&account_id=" + savings, []string{"From checking", "Hotel 100% refundable", "Supermarket"}},
		{"a date range, both ends included", "start_date=2026-03-02&end_date=2026-03-03", []string{"Hotel 100% refundable", "Salary"}},
		{"a category with its subcategories", "category_id=" + food, []string{"Corner shop", "Supermarket"}},
		{"a subcategory", "category_id=" + groceries, []string{"Supermarket"}},
		{"no category", "category_id=none", []string{"To savings", "From checking", "Hotel 100% refundable", "Salary", "Imported coffee"}},
		{"a tag", "tag_id=" + tag, []string{"Hotel 100% refundable"}},
		{"a merchant", "merchant_id=" + shop, []string{"Corner shop"}},
		{"an import", "import_id=" + imported.Data.ID, []string{"Imported coffee"}},
		{"text in the notes, any case", "q=march+pay", []string{"Salary"}},
		{"a percent sign is itself", "q=" + url.QueryEscape("100%"), []string{"Hotel 100% refundable"}},
		{"every word, in any order, without the accents", "q=" + url.QueryEscape("refundable HÔTEL"), []string{"Hotel 100% refundable"}},
		{"an amount, as money out", "q=-12.50", []string{"Corner shop"}},
		{"an amount with a decimal comma, either way", "q=2500,00", []string{"Salary"}},
		{"spending of 100 or more", "min_amount=100", []string{"To savings", "Hotel 100% refundable"}},
		{"money in of 1000 or more", "max_amount=-1000", []string{"Salary"}},
		{"pending", "pending=true", []string{"Imported coffee"}},
		{"both sides of a transfer", "kind=funds_movement", []string{"To savings", "From checking"}},
		{"filters combine", "account_id=" + checking + "&min_amount=0&q=C", []string{"Corner shop", "Imported coffee"}},
		{"a category of another family is simply empty", "category_id=" + theirFood, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := e.list(t, tc.query).names(); strings.Join(got, "|") != strings.Join(tc.want, "|") {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}

	for _, tc := range []struct{ query, field string }{
		{"account_id=nope", "account_id"},
		{"start_date=03/01/2026", "start_date"},
		{"start_date=2026-03-05&end_date=2026-03-01", "end_date"},
		{"min_amount=lots", "min_amount"},
		{"pending=maybe", "pending"},
		{"kind=transfer", "kind"},
		{"per_page=501", "per_page"},
		{"cursor=garbage", "cursor"},
	} {
		r := e.c.API(http.MethodGet, "/api/v1/transactions?"+tc.query, e.read, nil)
		var b errorBody
		r.JSON(t, &b)
		if r.Status != http.StatusUnprocessableEntity || len(b.Fields[tc.field]) == 0 {
			t.Errorf("%s: %d %s, want 422 naming %s", tc.query, r.Status, r.Body, tc.field)
		}
	}
}

// TestTransactionChanges changes transactions one at a time, many at once and deletes them:
// what is set by hand is locked against rules, an imported transaction keeps its bank's date
// and amount, a batch is all or nothing, and another family's transaction is a 404.
func TestTransactionChanges(t *testing.T) {
	t.Parallel()
	e := newImportEnv(t, apptest.ServerOptions{})
	checking := testkit.MustCreateAccount(t, e.srv.DB, e.user.FamilyID, "Checking", "Depository", "")
	savings := testkit.MustCreateAccount(t, e.srv.DB, e.user.FamilyID, "Savings", "Depository", "")
	food, fun := e.named(t, "categories", "Food"), e.named(t, "categories", "Fun")
	tag := e.named(t, "tags", "Holiday")
	manual := e.addTransaction(t, map[string]any{"account_id": checking.ID.String(), "date": "2026-03-01", "amount": "10", "name": "Lunch"})
	imp := e.publish(t, map[string]any{"raw_file_content": "date,amount,name\n2026-02-01,-30,Coffee\n2026-02-02,-40,Books\n2026-02-03,-50,Cinema\n",
		"date_format": "%Y-%m-%d", "account_id": checking.ID.String()})
	importedIDs := e.strings(t, "SELECT id::text FROM entries WHERE import_id = ? ORDER BY date", uuid.MustParse(imp.Data.ID))
	patch := func(id, key string, body map[string]any) *testkit.Response {
		return e.c.API(http.MethodPatch, "/api/v1/transactions/"+id, key, body)
	}
	balance := func(id uuid.UUID) string {
		return e.strings(t, "SELECT balance::numeric(19,2)::text FROM accounts WHERE id = ?", id)[0]
	}

	t.Run("one transaction", func(t *testing.T) {
		r := patch(manual, e.write, map[string]any{"category_id": food, "tag_ids": []string{tag}, "notes": "with Sam", "amount": "12.50", "date": "2026-03-02", "name": "Lunch with Sam"})
		var b transactionBody
		r.JSON(t, &b)
		if r.Status != http.StatusOK || b.Data.CategoryID == nil || *b.Data.CategoryID != food || b.Data.Amount != "12.50" ||
			b.Data.Name != "Lunch with Sam" || strings.Join(b.Data.LockedFields, ",") != "category,name,notes,tags" {
			t.Fatalf("patch: %d %s", r.Status, r.Body)
		}
		if got := balance(checking.ID); got != "-132.50" {
			t.Errorf("the balance did not follow the new amount: %s", got)
		}
		if r := patch(manual, e.write, map[string]any{"category_id": nil, "tag_ids": nil}); r.Status != http.StatusOK ||
			e.count(t, "SELECT count(*) FROM entries WHERE id = ? AND category_id IS NULL AND tag_ids = '{}'", uuid.MustParse(manual)) != 1 {
			t.Errorf("null did not clear the category and tags: %d %s", r.Status, r.Body)
		}
	})

	t.Run("bad changes name their field and change nothing", func(t *testing.T) {
		for _, tc := range []struct {
			id    string
			body  map[string]any
			field string
		}{
			{importedIDs[0], map[string]any{"date": "2026-01-01", "notes": "kept?"}, "date"},
			{importedIDs[0], map[string]any{"amount": "1"}, "amount"},
			{manual, map[string]any{"amount": "1.234"}, "amount"},
			{manual, map[string]any{"date": "yesterday"}, "date"},
			{manual, map[string]any{"category_id": uuid.NewString()}, "category_id"},
			{manual, map[string]any{"tag_ids": []string{tag, uuid.NewString()}}, "tag_ids[1]"},
			{manual, map[string]any{"account_id": savings.ID.String()}, "account_id"},
			{manual, map[string]any{"excluded": "yes"}, "excluded"},
		} {
			r := patch(tc.id, e.write, tc.body)
			var b errorBody
			r.JSON(t, &b)
			if r.Status != http.StatusUnprocessableEntity || len(b.Fields[tc.field]) == 0 {
				t.Errorf("%v: %d %s, want 422 naming %s", tc.body, r.Status, r.Body, tc.field)
			}
		}
		if n := e.count(t, "SELECT count(*) FROM entries WHERE notes = 'kept?' OR name = 'Renamed'"); n != 0 {
			t.Error("a refused change was half-written")
		}
		if r := patch(manual, e.read, map[string]any{"notes": "x"}); r.Status != http.StatusForbidden {
			t.Errorf("a read key changed a transaction: %d", r.Status)
		}
	})

	t.Run("many at once", func(t *testing.T) {
		r := e.c.API(http.MethodPatch, "/api/v1/transactions", e.write, map[string]any{"ids": append([]string{uuid.NewString()}, importedIDs...), "category_id": fun})
		var eb errorBody
		r.JSON(t, &eb)
		if r.Status != http.StatusUnprocessableEntity || len(eb.Fields["ids"]) != 1 || e.count(t, "SELECT count(*) FROM entries WHERE category_id = ?", uuid.MustParse(fun)) != 0 {
			t.Fatalf("a batch with an unknown id: %d %s (and nothing may change)", r.Status, r.Body)
		}
		r = e.c.API(http.MethodPatch, "/api/v1/transactions", e.write, map[string]any{"ids": importedIDs, "category_id": fun, "excluded": true})
		var b struct {
			Data struct {
				UpdatedCount int `json:"updated_count"`
			} `json:"data"`
		}
		r.JSON(t, &b)
		if r.Status != http.StatusOK || b.Data.UpdatedCount != 3 {
			t.Fatalf("batch: %d %s", r.Status, r.Body)
		}
		if n := e.count(t, "SELECT count(*) FROM entries WHERE category_id = ? AND excluded AND locked_fields @> '{category,excluded}'", uuid.MustParse(fun)); n != 3 {
			t.Errorf("%d transactions recategorised and locked, want 3", n)
		}
		many := make([]string, 1001)
		for i := range many {
			many[i] = uuid.NewString()
		}
		for _, body := range []map[string]any{{"ids": many, "category_id": fun}, {"ids": importedIDs}, {"ids": importedIDs, "notes": "x"}, {"category_id": fun}} {
			if r := e.c.API(http.MethodPatch, "/api/v1/transactions", e.write, body); r.Status != http.StatusUnprocessableEntity {
				t.Errorf("batch %.80v: %d %s, want 422", body, r.Status, r.Body)
			}
		}
	})

	t.Run("another family's transaction is not found", func(t *testing.T) {
		other := testkit.MustCreateUser(t, e.srv.DB, testkit.UserOpts{})
		key := testkit.MustCreateAPIKey(t, e.srv.DB, other.ID, models.ScopeReadWrite)
		for _, r := range []*testkit.Response{
			e.c.API(http.MethodGet, "/api/v1/transactions/"+manual, key, nil),
			patch(manual, key, map[string]any{"notes": "mine now"}),
			e.c.API(http.MethodDelete, "/api/v1/transactions/"+manual, key, nil),
		} {
			if r.Status != http.StatusNotFound {
				t.Errorf("another family: %d %s", r.Status, r.Body)
			}
		}
		if r := e.c.API(http.MethodPatch, "/api/v1/transactions", key, map[string]any{"ids": []string{manual}, "excluded": true}); r.Status != http.StatusUnprocessableEntity {
			t.Errorf("another family's batch: %d", r.Status)
		}
	})

	t.Run("delete ends a transfer", func(t *testing.T) {
		out := e.addTransaction(t, map[string]any{"account_id": checking.ID.String(), "date": "2026-04-01", "amount": "200", "name": "To savings"})
		in := e.addTransaction(t, map[string]any{"account_id": savings.ID.String(), "date": "2026-04-01", "amount": "-200", "name": "From checking"})
		if n := e.count(t, "SELECT count(*) FROM transfers WHERE inflow_entry_id = ?", uuid.MustParse(in)); n != 1 {
			t.Fatal("no transfer was proposed")
		}
		if r := e.c.API(http.MethodDelete, "/api/v1/transactions/"+out, e.write, nil); r.Status != http.StatusNoContent {
			t.Fatalf("delete: %d %s", r.Status, r.Body)
		}
		var b transactionBody
		e.c.API(http.MethodGet, "/api/v1/transactions/"+in, e.read, nil).JSON(t, &b)
		if b.Data.Transfer != nil || b.Data.Kind != "standard" {
			t.Errorf("the other side is still a transfer: %+v", b.Data)
		}
		if got := balance(checking.ID); got != "-132.50" {
			t.Errorf("balance after delete: %s", got)
		}
		if r := e.c.API(http.MethodGet, "/api/v1/transactions/"+out, e.read, nil); r.Status != http.StatusNotFound {
			t.Errorf("deleted transaction: %d", r.Status)
		}
	})
}
