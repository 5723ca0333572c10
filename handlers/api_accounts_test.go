package handlers_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"

	"tally/app/apptest"
	"tally/models"
	"tally/testkit"
)

// TestAccountChangesAPI changes accounts field by field, with the account form's rules.
func TestAccountChangesAPI(t *testing.T) {
	t.Parallel()
	e := newImportEnv(t, apptest.ServerOptions{NoWorker: true})
	acct := testkit.MustCreateAccount(t, e.srv.DB, e.user.FamilyID, "Checking", "Depository", "100")
	other := testkit.MustCreateUser(t, e.srv.DB, testkit.UserOpts{})
	otherKey := testkit.MustCreateAPIKey(t, e.srv.DB, other.ID, "read_write")
	path := "/api/v1/accounts/" + acct.ID.String()
	stored := func(t *testing.T, want string) {
		t.Helper()
		a, err := models.AccountByID(context.Background(), e.srv.DB, models.FamilyViewer(e.user.FamilyID), acct.ID)
		if err != nil {
			t.Fatal(err)
		}
		if got := a.Name + "|" + a.Subtype + "|" + a.Status; got != want {
			t.Errorf("stored %s, want %s", got, want)
		}
	}

	e.runAPICases(t, []apiCase{
		{name: "only the name changes when only the name is given", method: http.MethodPatch, path: path, body: map[string]any{"name": " Everyday "},
			status: http.StatusOK, contains: []string{`"name":"Everyday"`, `"subtype":""`, `"status":"active"`, `"balance":"100.00"`},
			after: func(t *testing.T) { stored(t, "Everyday||active") }},
		{name: "a subtype of the type", method: http.MethodPatch, path: path, body: map[string]any{"subtype": "savings"},
			status: http.StatusOK, contains: []string{`"name":"Everyday"`, `"subtype":"savings"`}},
		{name: "disabled closes it", method: http.MethodPatch, path: path, body: map[string]any{"status": "disabled"},
			status: http.StatusOK, contains: []string{`"status":"disabled"`}, after: func(t *testing.T) { stored(t, "Everyday|savings|disabled") }},
		{name: "every problem at once, each on its field, and nothing changes", method: http.MethodPatch, path: path,
			body: map[string]any{"name": "", "subtype": "mortgage", "status": "draft"}, status: http.StatusUnprocessableEntity,
			contains: []string{`"name":["Name can't be blank"]`, `"subtype":["Subtype is not valid for this type"]`, `"status":["Status must be active or disabled"]`},
			after:    func(t *testing.T) { stored(t, "Everyday|savings|disabled") }},
		{name: "active reopens it, and an empty subtype clears it", method: http.MethodPatch, path: path, body: map[string]any{"status": "active", "subtype": ""},
			status: http.StatusOK, contains: []string{`"status":"active"`, `"subtype":""`}},
		{name: "a field an account does not have is a bad request", method: http.MethodPatch, path: path, body: map[string]any{"currency": "EUR"},
			status: http.StatusBadRequest},
		{name: "a read key cannot change it", method: http.MethodPatch, path: path, key: e.read, body: map[string]any{"name": "x"}, status: http.StatusForbidden},
		{name: "another family cannot change it", method: http.MethodPatch, path: path, key: otherKey, body: map[string]any{"name": "Mine"},
			status: http.StatusNotFound, after: func(t *testing.T) { stored(t, "Everyday||active") }},
		{name: "an unknown account", method: http.MethodPatch, path: "/api/v1/accounts/" + uuid.NewString(), body: map[string]any{"name": "x"}, status: http.StatusNotFound},
	})
}

// TestAccountDeleteAPI deletes an account only with its exact name, which the refusal asks
// for with what would go; never while an import into it runs; and with its whole history,
// its transfers' other sides counting as spending or income again.
func TestAccountDeleteAPI(t *testing.T) {
	t.Parallel()
	e := newImportEnv(t, apptest.ServerOptions{NoWorker: true})
	ctx := context.Background()
	checking := testkit.MustCreateAccount(t, e.srv.DB, e.user.FamilyID, "Checking", "Depository", "1000")
	savings := testkit.MustCreateAccount(t, e.srv.DB, e.user.FamilyID, "Savings", "Depository", "")
	other := testkit.MustCreateUser(t, e.srv.DB, testkit.UserOpts{})
	otherKey := testkit.MustCreateAPIKey(t, e.srv.DB, other.ID, "read_write")
	// Money from checking to savings, proposed as a transfer, and a purchase.
	out := e.mustPost(t, "/api/v1/transactions", map[string]any{"account_id": checking.ID, "date": "2026-03-02", "amount": "100", "name": "To savings"})
	in := e.mustPost(t, "/api/v1/transactions", map[string]any{"account_id": savings.ID, "date": "2026-03-02", "amount": "-100", "name": "From checking"})
	e.mustPost(t, "/api/v1/transactions", map[string]any{"account_id": checking.ID, "date": "2026-03-03", "amount": "25", "name": "Books"})
	if n := e.count(t, "SELECT count(*) FROM transfers WHERE outflow_entry_id = ? AND inflow_entry_id = ?", out, in); n != 1 {
		t.Fatal("no transfer proposed")
	}
	// A pending import whose file names the account.
	var imp importBody
	e.create(t, map[string]any{"raw_file_content": "date,amount,name,account\n2026-03-04,-5,Snack,Checking\n", "date_format": "%Y-%m-%d"},
		http.StatusCreated).JSON(t, &imp)
	if n := e.count(t, "SELECT count(*) FROM import_mappings WHERE import_id = ? AND kind = 'account' AND target_id = ?", imp.Data.ID, checking.ID); n != 1 {
		t.Fatal("the import's account is not mapped to Checking")
	}
	setStatus := func(status string) func(t *testing.T) {
		return func(t *testing.T) {
			if _, err := e.srv.DB.NewRaw("UPDATE imports SET status = ? WHERE id = ?", status, imp.Data.ID).Exec(ctx); err != nil {
				t.Fatal(err)
			}
		}
	}
	path := "/api/v1/accounts/" + checking.ID.String()
	still := func(t *testing.T) {
		if n := e.count(t, "SELECT count(*) FROM entries WHERE account_id = ?", checking.ID); n != 3 {
			t.Errorf("%d entries left after a refused delete", n)
		}
	}
	setStatus("importing")(t)

	e.runAPICases(t, []apiCase{
		{name: "without confirm, the answer says what would go", method: http.MethodDelete, path: path, status: http.StatusUnprocessableEntity,
			contains: []string{`"confirm":["Deleting “Checking” deletes its 2 transactions (3 entries in all) and cannot be undone: confirm with the account's exact name"]`},
			after:    still},
		{name: "a name in another case is not the name", method: http.MethodDelete, path: path + "?confirm=checking", status: http.StatusUnprocessableEntity,
			contains: []string{`"confirm":`}, after: still},
		{name: "a read key cannot delete", method: http.MethodDelete, path: path + "?confirm=Checking", key: e.read, status: http.StatusForbidden},
		{name: "another family cannot delete it", method: http.MethodDelete, path: path + "?confirm=Checking", key: otherKey, status: http.StatusNotFound, after: still},
		{name: "not while an import into it is being published", method: http.MethodDelete, path: path + "?confirm=Checking", status: http.StatusConflict,
			contains: []string{"An import into this account is being published or reverted (" + imp.Data.ID + ")"},
			after:    func(t *testing.T) { still(t); setStatus("pending")(t) }},
		{name: "confirmed, it goes with its history", method: http.MethodDelete, path: path + "?confirm=Checking", status: http.StatusNoContent,
			after: func(t *testing.T) {
				for _, q := range []string{"SELECT count(*) FROM accounts WHERE id = ?", "SELECT count(*) FROM entries WHERE account_id = ?",
					"SELECT count(*) FROM valuations v JOIN entries e ON e.id = v.entry_id WHERE e.account_id = ?"} {
					if n := e.count(t, q, checking.ID); n != 0 {
						t.Errorf("%s: %d", q, n)
					}
				}
				if n := e.count(t, "SELECT count(*) FROM transfers WHERE inflow_entry_id = ?", in); n != 0 {
					t.Error("the transfer is still there")
				}
				if n := e.count(t, "SELECT count(*) FROM entries WHERE id = ? AND transaction_kind = 'standard'", in); n != 1 {
					t.Error("the other side is still a transfer")
				}
				if n := e.count(t, "SELECT count(*) FROM import_mappings WHERE import_id = ? AND kind = 'account' AND target_id IS NULL", imp.Data.ID); n != 1 {
					t.Error("the import still maps to the deleted account")
				}
				if n := e.count(t, "SELECT count(*) FROM accounts WHERE id = ?", savings.ID); n != 1 {
					t.Error("the other account went too")
				}
			}},
		{name: "a deleted account is not found", method: http.MethodGet, path: path, key: e.read, status: http.StatusNotFound},
	})
}

// TestAccountBalancesAPI answers one balance a day, by default for the 90 days up to today,
// and names the parameter at fault.
func TestAccountBalancesAPI(t *testing.T) {
	t.Parallel()
	e := newImportEnv(t, apptest.ServerOptions{NoWorker: true})
	card := testkit.MustCreateAccount(t, e.srv.DB, e.user.FamilyID, "Visa", "CreditCard", "")
	jpy, err := models.CreateAccount(context.Background(), e.srv.DB, e.user.FamilyID, models.AccountInput{Name: "Yen", AccountableType: "Depository",
		Currency: "JPY", Balance: testkit.Ptr(decimal.RequireFromString("1500")), BalanceDate: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)})
	if err != nil {
		t.Fatal(err)
	}
	other := testkit.MustCreateUser(t, e.srv.DB, testkit.UserOpts{})
	otherKey := testkit.MustCreateAPIKey(t, e.srv.DB, other.ID, "read")
	for _, tx := range []map[string]any{
		{"date": "2026-03-01", "amount": "40", "name": "Fuel"},
		{"date": "2026-03-03", "amount": "-15.50", "name": "Refund"},
	} {
		tx["account_id"] = card.ID
		e.mustPost(t, "/api/v1/transactions", tx)
	}
	path := "/api/v1/accounts/" + card.ID.String() + "/balances"
	today := time.Now().UTC().Format(time.DateOnly)

	e.runAPICases(t, []apiCase{
		{name: "a range of days, a card owing more after a purchase", method: http.MethodGet, path: path + "?start_date=2026-02-28&end_date=2026-03-04", key: e.read,
			status: http.StatusOK, contains: []string{`{"data":[{"date":"2026-02-28","balance":"0.00"},{"date":"2026-03-01","balance":"40.00"},` +
				`{"date":"2026-03-02","balance":"40.00"},{"date":"2026-03-03","balance":"24.50"},{"date":"2026-03-04","balance":"24.50"}],` +
				`"meta":{"account_id":"` + card.ID.String() + `","currency":"USD","end_date":"2026-03-04","start_date":"2026-02-28"}}`}},
		{name: "by default the 90 days up to today", method: http.MethodGet, path: path, key: e.read, status: http.StatusOK,
			contains: []string{`"end_date":"` + today + `"`},
			after: func(t *testing.T) {
				var b struct {
					Data []struct{ Date, Balance string }
				}
				e.c.API(http.MethodGet, path, e.read, nil).JSON(t, &b)
				if len(b.Data) != 90 || b.Data[89].Date != today || b.Data[89].Balance != "24.50" {
					t.Errorf("%d points, the last %+v", len(b.Data), b.Data[len(b.Data)-1])
				}
			}},
		{name: "amounts in the currency's decimals", method: http.MethodGet, path: "/api/v1/accounts/" + jpy.ID.String() + "/balances?start_date=2025-12-31&end_date=2026-01-01",
			key: e.read, status: http.StatusOK, contains: []string{`[{"date":"2025-12-31","balance":"1500"},{"date":"2026-01-01","balance":"1500"}]`, `"currency":"JPY"`}},
		{name: "dates that are not dates", method: http.MethodGet, path: path + "?start_date=March&end_date=2026-02-30", key: e.read, status: http.StatusUnprocessableEntity,
			contains: []string{`"start_date":["start_date \"March\" is not a date (YYYY-MM-DD)"]`, `"end_date":["end_date \"2026-02-30\" is not a date (YYYY-MM-DD)"]`}},
		{name: "an end before the start", method: http.MethodGet, path: path + "?start_date=2026-03-02&end_date=2026-03-01", key: e.read, status: http.StatusUnprocessableEntity,
			contains: []string{`"start_date":["start_date must be on or before end_date"]`}},
		{name: "more than ten years", method: http.MethodGet, path: path + "?start_date=2016-03-01&end_date=2026-03-02", key: e.read, status: http.StatusUnprocessableEntity,
			contains: []string{`"end_date":["end_date must be within 10 years of start_date"]`}},
		{name: "only a start, up to today", method: http.MethodGet, path: path + "?start_date=" + time.Now().UTC().AddDate(0, 0, -2).Format(time.DateOnly), key: e.read,
			status: http.StatusOK, contains: []string{`"end_date":"` + today + `"`}},
		{name: "another family's account", method: http.MethodGet, path: path, key: otherKey, status: http.StatusNotFound},
	})
}
