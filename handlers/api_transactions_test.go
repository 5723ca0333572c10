package handlers_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"tally/app/apptest"
	"tally/testkit"
)

type transactionBody struct {
	Data struct {
		ID           string   `json:"id"`
		Name         string   `json:"name"`
		OriginalName *string  `json:"original_name"`
		Amount       string   `json:"amount"`
		CategoryID   *string  `json:"category_id"`
		Kind         string   `json:"kind"`
		LockedFields []string `json:"locked_fields"`
		Transfer     *struct {
			ID                 string `json:"id"`
			Status             string `json:"status"`
			OtherTransactionID string `json:"other_transaction_id"`
		} `json:"transfer"`
	} `json:"data"`
}

type transferBody struct {
	Data struct {
		ID      string `json:"id"`
		Status  string `json:"status"`
		Outflow struct {
			TransactionID, Amount, Currency, Kind string
		} `json:"outflow"`
		Inflow struct {
			TransactionID, Amount, Currency, Kind string
		} `json:"inflow"`
	} `json:"data"`
}

type transferList struct {
	Data []struct {
		ID     string `json:"id"`
		Status string `json:"status"`
	} `json:"data"`
}

// TestTransactionsAPIRunsRulesAndMatchesTransfers adds transactions through the API: the
// family's rules run on them without overriding the name or a category the client gave, and
// the second side of a transfer is proposed as one, which the client confirms, unlinks (never
// proposed again) and links by hand across currencies.
func TestTransactionsAPIRunsRulesAndMatchesTransfers(t *testing.T) {
	e := newImportEnv(t, apptest.ServerOptions{})
	coffee, treats := e.named(t, "categories", "Coffee"), e.named(t, "categories", "Treats")
	checking := testkit.MustCreateAccount(t, e.srv.DB, e.user.FamilyID, "Checking", "Depository", "").ID.String()
	card := testkit.MustCreateAccount(t, e.srv.DB, e.user.FamilyID, "Visa", "CreditCard", "").ID.String()
	if r := e.c.API(http.MethodPost, "/api/v1/rules", e.write, map[string]any{"name": "Coffee",
		"conditions": []any{map[string]any{"condition_type": "transaction_name", "operator": "like", "value": "coffee"}},
		"actions": []any{map[string]any{"action_type": "set_transaction_category", "value": coffee},
			map[string]any{"action_type": "set_transaction_name", "value": "Coffee"}}}); r.Status != http.StatusCreated {
		t.Fatalf("create rule: %d %s", r.Status, r.Body)
	}
	create := func(body map[string]any) transactionBody {
		t.Helper()
		r := e.c.API(http.MethodPost, "/api/v1/transactions", e.write, body)
		if r.Status != http.StatusCreated {
			t.Fatalf("create %v: %d %s", body, r.Status, r.Body)
		}
		var b transactionBody
		r.JSON(t, &b)
		return b
	}

	ruled := create(map[string]any{"account_id": checking, "date": "2026-03-01", "amount": "4.50", "name": "BLUE BOTTLE COFFEE"})
	if d := ruled.Data; d.CategoryID == nil || *d.CategoryID != coffee || d.Name != "BLUE BOTTLE COFFEE" || d.OriginalName != nil {
		t.Errorf("the rule did not set the category alone on the created transaction: %+v", d)
	}
	byHand := create(map[string]any{"account_id": checking, "date": "2026-03-01", "amount": 6, "name": "Coffee and cake", "category_id": treats})
	if d := byHand.Data; d.CategoryID == nil || *d.CategoryID != treats || strings.Join(d.LockedFields, ",") != "category,name" || d.Amount != "6.00" {
		t.Errorf("the client's category was not kept: %+v", d)
	}

	// The card payment's two sides, one after the other.
	out := create(map[string]any{"account_id": checking, "date": "2026-03-05", "amount": "300.00", "name": "VISA PAYMENT"})
	if out.Data.Transfer != nil || out.Data.Kind != "standard" {
		t.Errorf("a transfer before its other side: %+v", out.Data)
	}
	in := create(map[string]any{"account_id": card, "date": "2026-03-06", "amount": "-300", "name": "PAYMENT THANK YOU"})
	if tr := in.Data.Transfer; tr == nil || tr.Status != "pending" || tr.OtherTransactionID != out.Data.ID || in.Data.Kind != "funds_movement" {
		t.Fatalf("the card's side was not matched: %+v", in.Data)
	}
	var shown transactionBody
	e.c.API(http.MethodGet, "/api/v1/transactions/"+out.Data.ID, e.read, nil).JSON(t, &shown)
	if shown.Data.Kind != "cc_payment" || shown.Data.Transfer == nil || shown.Data.Transfer.OtherTransactionID != in.Data.ID {
		t.Errorf("the payment is not a card payment linked to the card's side: %+v", shown.Data)
	}
	transferID := in.Data.Transfer.ID

	var list transferList
	e.c.API(http.MethodGet, "/api/v1/transfers?status=pending", e.read, nil).JSON(t, &list)
	if len(list.Data) != 1 || list.Data[0].ID != transferID {
		t.Fatalf("pending transfers: %+v", list.Data)
	}
	var confirmed transferBody
	if r := e.c.API(http.MethodPost, "/api/v1/transfers/"+transferID+"/confirm", e.write, nil); r.Status != http.StatusOK {
		t.Fatalf("confirm: %d %s", r.Status, r.Body)
	} else if r.JSON(t, &confirmed); confirmed.Data.Status != "confirmed" || confirmed.Data.Outflow.Kind != "cc_payment" {
		t.Errorf("confirmed: %+v", confirmed.Data)
	}

	// Another family sees none of it.
	other := testkit.MustCreateUser(t, e.srv.DB, testkit.UserOpts{})
	otherKey := testkit.MustCreateAPIKey(t, e.srv.DB, other.ID, "read_write")
	for _, req := range []struct{ method, path string }{
		{http.MethodGet, "/api/v1/transactions/" + out.Data.ID}, {http.MethodGet, "/api/v1/transfers/" + transferID},
		{http.MethodPost, "/api/v1/transfers/" + transferID + "/confirm"}, {http.MethodDelete, "/api/v1/transfers/" + transferID},
	} {
		if r := e.c.API(req.method, req.path, otherKey, nil); r.Status != http.StatusNotFound {
			t.Errorf("another family's %s %s: %d", req.method, req.path, r.Status)
		}
	}
	if r := e.c.API(http.MethodPost, "/api/v1/transactions", otherKey, map[string]any{"account_id": checking, "date": "2026-03-01",
		"amount": "1", "name": "x"}); r.Status != http.StatusUnprocessableEntity || !strings.Contains(r.Body, `"account_id"`) {
		t.Errorf("a transaction into another family's account: %d %s", r.Status, r.Body)
	}

	// Unlinked, the pair is not proposed again when a third transaction arrives.
	if r := e.c.API(http.MethodDelete, "/api/v1/transfers/"+transferID, e.write, nil); r.Status != http.StatusNoContent {
		t.Fatalf("unlink: %d %s", r.Status, r.Body)
	}
	e.c.API(http.MethodGet, "/api/v1/transactions/"+out.Data.ID, e.read, nil).JSON(t, &shown)
	if shown.Data.Kind != "standard" || shown.Data.Transfer != nil {
		t.Errorf("after unlinking: %+v", shown.Data)
	}
	again := create(map[string]any{"account_id": checking, "date": "2026-03-06", "amount": "12.00", "name": "LUNCH"})
	if again.Data.Transfer != nil {
		t.Errorf("an unrelated transaction was matched: %+v", again.Data)
	}
	e.c.API(http.MethodGet, "/api/v1/transfers", e.read, nil).JSON(t, &list)
	if len(list.Data) != 0 {
		t.Errorf("the unlinked pair came back: %+v", list.Data)
	}

	// By hand, across currencies: 100 EUR out of a euro account, 108.12 USD into checking.
	euro := e.c.API(http.MethodPost, "/api/v1/accounts", e.write, map[string]any{"name": "Euro", "accountable_type": "Depository", "currency": "EUR"})
	var acct struct{ Data struct{ ID string } }
	euro.JSON(t, &acct)
	eurOut := create(map[string]any{"account_id": acct.Data.ID, "date": "2026-03-02", "amount": "100", "name": "SEPA TRANSFER"})
	usdIn := create(map[string]any{"account_id": checking, "date": "2026-03-04", "amount": "-108.12", "name": "INCOMING WIRE"})
	var linked transferBody
	if r := e.c.API(http.MethodPost, "/api/v1/transfers", e.write, map[string]any{"from_transaction_id": eurOut.Data.ID,
		"to_transaction_id": usdIn.Data.ID}); r.Status != http.StatusCreated {
		t.Fatalf("link: %d %s", r.Status, r.Body)
	} else {
		r.JSON(t, &linked)
	}
	if d := linked.Data; d.Status != "confirmed" || d.Outflow.Amount != "100.00" || d.Outflow.Currency != "EUR" ||
		d.Inflow.Amount != "-108.12" || d.Inflow.Currency != "USD" {
		t.Errorf("linked: %+v", d)
	}
	for _, tc := range []struct {
		body  map[string]any
		field string
	}{
		{map[string]any{"from_transaction_id": eurOut.Data.ID, "to_transaction_id": out.Data.ID}, "from_transaction_id"},
		{map[string]any{"from_transaction_id": ruled.Data.ID, "to_transaction_id": byHand.Data.ID}, "to_transaction_id"},
		{map[string]any{"from_transaction_id": ruled.Data.ID}, "to_transaction_id"},
	} {
		if r := e.c.API(http.MethodPost, "/api/v1/transfers", e.write, tc.body); r.Status != http.StatusUnprocessableEntity || !strings.Contains(r.Body, `"`+tc.field+`"`) {
			t.Errorf("link %v: %d %s; want 422 naming %s", tc.body, r.Status, r.Body, tc.field)
		}
	}

	// Bad transactions are refused with the field at fault, and nothing is written.
	for _, tc := range []struct {
		body  map[string]any
		field string
	}{
		{map[string]any{"date": "2026-03-01", "amount": "1", "name": "x"}, "account_id"},
		{map[string]any{"account_id": checking, "date": "1 March", "amount": "1", "name": "x"}, "date"},
		{map[string]any{"account_id": checking, "date": "2026-03-01", "amount": "1.005", "name": "x"}, "amount"},
		{map[string]any{"account_id": checking, "date": "2026-03-01", "amount": "1", "name": " "}, "name"},
		{map[string]any{"account_id": checking, "date": "2026-03-01", "amount": "1", "name": "x", "category_id": card}, "category_id"},
	} {
		if r := e.c.API(http.MethodPost, "/api/v1/transactions", e.write, tc.body); r.Status != http.StatusUnprocessableEntity || !strings.Contains(r.Body, `"`+tc.field+`"`) {
			t.Errorf("create %v: %d %s; want 422 naming %s", tc.body, r.Status, r.Body, tc.field)
		}
	}
	var n int
	if err := e.srv.DB.NewRaw("SELECT count(*) FROM entries WHERE family_id = ? AND kind = 'transaction'", e.user.FamilyID).Scan(t.Context(), &n); err != nil || n != 7 {
		t.Errorf("%d transactions (err %v), want the 7 created", n, err)
	}
}

// TestRulesLeaveWhatWasSetByHand runs a rule renaming coffee to "Starbucks" and tagging it
// over transactions added by hand, through the API and on the account's page, and over an
// imported one: what a person or client set (the name always, the notes, category and tags
// when given) stays as they set it, and only the bank's name is cleaned up.
func TestRulesLeaveWhatWasSetByHand(t *testing.T) {
	t.Parallel()
	e := newImportEnv(t, apptest.ServerOptions{})
	caffeine, office := e.named(t, "tags", "Caffeine"), e.named(t, "tags", "Office")
	drinks := e.named(t, "categories", "Drinks")
	acct := testkit.MustCreateAccount(t, e.srv.DB, e.user.FamilyID, "Checking", "Depository", "")
	if r := e.c.API(http.MethodPost, "/api/v1/rules", e.write, map[string]any{"name": "Coffee",
		"conditions": []any{map[string]any{"condition_type": "transaction_name", "operator": "like", "value": "coffee"}},
		"actions": []any{map[string]any{"action_type": "set_transaction_name", "value": "Starbucks"},
			map[string]any{"action_type": "set_transaction_category", "value": drinks},
			map[string]any{"action_type": "set_transaction_tags", "value": []string{caffeine}}}}); r.Status != http.StatusCreated {
		t.Fatalf("create rule: %d %s", r.Status, r.Body)
	}
	type entry struct {
		Name     string   `bun:"name"`
		Original *string  `bun:"original_name"`
		Category string   `bun:"category"`
		Tags     []string `bun:"tags,array"`
		Locked   []string `bun:"locked_fields,array"`
	}
	read := func(t *testing.T, where string, args ...any) entry {
		t.Helper()
		var got entry
		if err := e.srv.DB.NewRaw(`SELECT e.name, e.original_name, coalesce(c.name, '') AS category, e.locked_fields,
				ARRAY(SELECT t.name FROM tags t WHERE t.id = ANY (e.tag_ids) ORDER BY t.name) AS tags
			FROM entries e LEFT JOIN categories c ON c.id = e.category_id WHERE `+where, args...).Scan(context.Background(), &got); err != nil {
			t.Fatalf("%s: %v", where, err)
		}
		return got
	}
	for _, tc := range []struct {
		name string
		add  func(t *testing.T) string // adds the transaction, and says its name
		want entry
	}{
		{"a client's name, rules set the rest", func(t *testing.T) string {
			e.addTransaction(t, map[string]any{"account_id": acct.ID.String(), "date": "2026-03-01", "amount": "4.50", "name": "Coffee with Ana at the corner cafe"})
			return "Coffee with Ana at the corner cafe"
		}, entry{Name: "Coffee with Ana at the corner cafe", Category: "Drinks", Tags: []string{"Caffeine"}, Locked: []string{"name"}}},
		{"a client's notes and tags", func(t *testing.T) string {
			e.addTransaction(t, map[string]any{"account_id": acct.ID.String(), "date": "2026-03-02", "amount": "9", "name": "Coffee beans",
				"notes": "for the office", "tag_ids": []string{office}})
			return "Coffee beans"
		}, entry{Name: "Coffee beans", Category: "Drinks", Tags: []string{"Office"}, Locked: []string{"name", "notes", "tags"}}},
		{"a person's name and notes on the account's page", func(t *testing.T) string {
			e.c.SignIn(e.user.Email, testkit.Password)
			e.c.Get("/accounts/" + acct.ID.String() + "/transactions/new")
			if r := e.c.PostForm("/accounts/"+acct.ID.String()+"/transactions", url.Values{"date": {"2026-03-03"}, "name": {"Iced coffee for Ben"},
				"amount": {"3.20"}, "direction": {"out"}, "category_id": {""}, "notes": {"his birthday"}}); r.Status != http.StatusSeeOther {
				t.Fatalf("the form: %d %s", r.Status, r.Body)
			}
			return "Iced coffee for Ben"
		}, entry{Name: "Iced coffee for Ben", Category: "Drinks", Tags: []string{"Caffeine"}, Locked: []string{"name", "notes"}}},
		{"an imported one is cleaned up", func(t *testing.T) string {
			e.publish(t, map[string]any{"raw_file_content": "date,amount,name\n2026-03-04,-4.80,COFFEE SHOP 123\n", "date_format": "%Y-%m-%d", "account_id": acct.ID.String()})
			return "Starbucks"
		}, entry{Name: "Starbucks", Original: new("COFFEE SHOP 123"), Category: "Drinks", Tags: []string{"Caffeine"}, Locked: []string{}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := read(t, "e.name = ?", tc.add(t))
			if got.Locked == nil {
				got.Locked = []string{}
			}
			show := func(e entry) string {
				return fmt.Sprintf("%q (original %s), category %q, tags %q, locked %q", e.Name, deref(e.Original), e.Category, e.Tags, e.Locked)
			}
			if show(got) != show(tc.want) {
				t.Errorf("got %s\nwant %s", show(got), show(tc.want))
			}
		})
	}
}
