package handlers_test

import (
	"context"
	"net/http"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/google/uuid"

	"tally/app/apptest"
)

// nativeBody is an ImportDetail response with its NativeImport parts.
type nativeBody struct {
	Data struct {
		ID           string  `json:"id"`
		Status       string  `json:"status"`
		Error        *string `json:"error"`
		Verification struct {
			ExpectedRecordCounts map[string]int `json:"expected_record_counts"`
			Readback             struct {
				Status            string                    `json:"status"`
				CheckedAt         *string                   `json:"checked_at"`
				ActualDeltaCounts map[string]int            `json:"actual_delta_counts"`
				CheckedCounts     map[string]int            `json:"checked_counts"`
				Mismatches        map[string]map[string]int `json:"mismatches"`
				SynthesizedCounts map[string]int            `json:"synthesized_counts"`
				MergedCounts      map[string]int            `json:"merged_counts"`
				Error             *string                   `json:"error"`
			} `json:"readback"`
		} `json:"verification"`
	} `json:"data"`
}

// native waits for the import to finish and returns it, read with key (the family's read key
// when "").
func (e *importEnv) native(t *testing.T, id string, key ...string) nativeBody {
	t.Helper()
	k := e.read
	if len(key) > 0 {
		k = key[0]
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		var b nativeBody
		if r := e.c.API(http.MethodGet, "/api/v1/imports/"+id, k, nil); r.Status != http.StatusOK {
			t.Fatalf("get import %s: %d %s", id, r.Status, r.Body)
		} else {
			r.JSON(t, &b)
		}
		if b.Data.Status != "importing" && b.Data.Status != "reverting" {
			return b
		}
		if time.Now().After(deadline) {
			t.Fatalf("import %s still %s after 30s", id, b.Data.Status)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func TestNativeImportPublishesEveryRecordType(t *testing.T) {
	t.Parallel()
	e := newImportEnv(t, apptest.ServerOptions{})
	content, err := os.ReadFile("testdata/family.ndjson")
	if err != nil {
		t.Fatal(err)
	}
	var created nativeBody
	e.create(t, map[string]any{"type": "NativeImport", "raw_file_content": string(content), "publish": true}, http.StatusCreated).JSON(t, &created)
	b := e.native(t, created.Data.ID)
	if b.Data.Status != "complete" {
		t.Fatalf("status %s: %v", b.Data.Status, deref(b.Data.Error))
	}
	rb := b.Data.Verification.Readback
	if rb.Status != "matched" {
		t.Fatalf("readback %s: mismatches %v", rb.Status, rb.Mismatches)
	}
	if rb.SynthesizedCounts["valuations"] != 2 || rb.SynthesizedCounts["tags"] != 1 {
		t.Errorf("synthesized: %v, want the two opening balances the file lacks and the tag the rule names", rb.SynthesizedCounts)
	}
	id := uuid.MustParse(b.Data.ID)
	// Balances come out as the file states them: the opening balances made for Checking and
	// Visa are sized so that their transactions lead to it.
	got := e.strings(t, `SELECT name || '=' || balance FROM accounts WHERE import_id = ? ORDER BY name`, id)
	if want := []string{"Brokerage=3000.0000", "Checking=1500.0000", "Visa=250.0000"}; !slices.Equal(got, want) {
		t.Errorf("balances %v, want %v", got, want)
	}
	checks := []struct {
		what, query string
		want        []string
	}{
		{"categories and parents", `SELECT c.name || '<' || coalesce(p.name, '') FROM categories c LEFT JOIN categories p ON p.id = c.parent_id
			WHERE c.import_id = ? ORDER BY c.name`, []string{"Coffee<Food", "Food<", "Salary<"}},
		{"transfer kinds", `SELECT e.name || ':' || e.transaction_kind FROM entries e WHERE e.import_id = ? AND e.name IN ('Card payment', 'Payment received') ORDER BY e.name`,
			[]string{"Card payment:cc_payment", "Payment received:funds_movement"}},
		{"split parts", `SELECT s.name || ':' || s.amount || ':' || c.name FROM entries s JOIN entries p ON p.id = s.parent_id JOIN categories c ON c.id = s.category_id
			WHERE p.import_id = ? ORDER BY s.amount`, []string{"Coffee beans:40.0000:Coffee", "Food:60.0000:Food"}},
		{"tagged and merchant", `SELECT e.name || ':' || m.name || ':' || t.name FROM entries e JOIN merchants m ON m.id = e.merchant_id JOIN tags t ON t.id = ANY(e.tag_ids)
			WHERE e.import_id = ?`, []string{"Coffee:Corner Cafe:Weekly"}},
		{"provenance kept", `SELECT e.name || ':' || e.source || ':' || e.external_id FROM entries e WHERE e.import_id = ? AND e.external_id IS NOT NULL`,
			[]string{"Paycheck:simplefin:bank-1"}},
		{"trade", `SELECT e.name || ':' || s.ticker || ':' || s.exchange_operating_mic || ':' || s.name || ':' || t.qty FROM entries e JOIN trades t ON t.entry_id = e.id
			JOIN securities s ON s.id = t.security_id WHERE e.import_id = ?`, []string{"Buy AAPL:AAPL:XNAS:Apple Inc.:10.00000000"}},
		{"rule operands", `SELECT (SELECT name FROM merchants WHERE id::text = r.conditions->0->>'value') || ':' ||
				(SELECT name FROM categories WHERE id::text = r.actions->0->>'value') || ':' || (SELECT name FROM tags WHERE id::text = r.actions->1->>'value')
			FROM rules r WHERE r.import_id = ?`, []string{"Corner Cafe:Coffee:Reviewed"}},
		{"budget", `SELECT b.start_date || ':' || c.name || ':' || bc.budgeted_spending FROM budget_categories bc JOIN budgets b ON b.id = bc.budget_id
			JOIN categories c ON c.id = bc.category_id WHERE bc.import_id = ?`, []string{"2024-01-01:Food:400.0000"}},
	}
	for _, c := range checks {
		if got := e.strings(t, c.query, id); !slices.Equal(got, c.want) {
			t.Errorf("%s: %v, want %v", c.what, got, c.want)
		}
	}

	// Revert removes every record, and says so in the readback.
	if r := e.c.API(http.MethodPost, "/api/v1/imports/"+b.Data.ID+"/revert", e.write, nil); r.Status != http.StatusAccepted {
		t.Fatalf("revert: %d %s", r.Status, r.Body)
	}
	b = e.native(t, b.Data.ID)
	if b.Data.Status != "pending" || b.Data.Verification.Readback.Status != "reverted" {
		t.Fatalf("after revert: %s, readback %s", b.Data.Status, b.Data.Verification.Readback.Status)
	}
	for _, table := range []string{"accounts", "entries", "balances", "categories", "tags", "merchants", "recurring_transactions",
		"holdings", "budgets", "budget_categories", "rules", "transfers", "rejected_transfers"} {
		if n := e.count(t, "SELECT count(*) FROM "+table+" WHERE family_id = ?", e.user.FamilyID); n != 0 {
			t.Errorf("%d %s left after revert", n, table)
		}
	}
}

// Revert removes the file's valuations even when the account stays because something else
// uses it now; only the opening balance the account's history starts from stays with it.
func TestNativeRevertOfAnAccountInUseKeepsOnlyItsOpeningBalance(t *testing.T) {
	t.Parallel()
	e := newImportEnv(t, apptest.ServerOptions{})
	file := `{"type":"Account","data":{"id":"a1","name":"Checking","balance":"100","currency":"USD","accountable_type":"Depository"}}
{"type":"Valuation","data":{"account_id":"a1","date":"2024-02-01","amount":"150","kind":"reconciliation"}}
{"type":"Valuation","data":{"account_id":"a1","date":"2024-03-01","amount":"160","kind":"reconciliation"}}
{"type":"Transaction","data":{"id":"t1","account_id":"a1","date":"2024-01-15","amount":"10"}}`
	var created nativeBody
	e.create(t, map[string]any{"type": "NativeImport", "raw_file_content": file, "publish": true}, http.StatusCreated).JSON(t, &created)
	if b := e.native(t, created.Data.ID); b.Data.Status != "complete" {
		t.Fatalf("publish: %s", b.Data.Status)
	}
	var acct uuid.UUID
	if err := e.srv.DB.NewRaw("SELECT id FROM accounts WHERE family_id = ?", e.user.FamilyID).Scan(context.Background(), &acct); err != nil {
		t.Fatal(err)
	}
	mustExecDB(t, e, `INSERT INTO entries (id, family_id, account_id, kind, date, amount, currency, name)
		VALUES (gen_random_uuid(), ?, ?, 'transaction', '2024-04-01', 5, 'USD', 'Typed by hand')`, e.user.FamilyID, acct)
	if r := e.c.API(http.MethodPost, "/api/v1/imports/"+created.Data.ID+"/revert", e.write, nil); r.Status != http.StatusAccepted {
		t.Fatalf("revert: %d %s", r.Status, r.Body)
	}
	e.native(t, created.Data.ID)
	got := e.strings(t, `SELECT e.kind || ':' || coalesce(v.kind, e.name) FROM entries e LEFT JOIN valuations v ON v.entry_id = e.id
		WHERE e.account_id = ? ORDER BY e.date`, acct)
	if want := []string{"valuation:opening_anchor", "transaction:Typed by hand"}; !slices.Equal(got, want) {
		t.Fatalf("after revert the account holds %v, want %v", got, want)
	}
}

// A session whose first chunk has a rule naming a category, and whose second chunk then
// defines that category, publishes, and the category counts as the line's.
func TestNativeSessionCategoryNamedByARuleBeforeItsLine(t *testing.T) {
	t.Parallel()
	e := newImportEnv(t, apptest.ServerOptions{})
	var s sessionBody
	e.c.API(http.MethodPost, "/api/v1/import_sessions", e.write, map[string]any{}).JSON(t, &s)
	e.chunk(t, s.Data.ID, map[string]any{"sequence": 1, "raw_file_content": `{"type":"Rule","data":{"id":"r1","name":"Dining out","actions":[{"action_type":"set_transaction_category","value":"Dining"}]}}`}, http.StatusCreated)
	e.chunk(t, s.Data.ID, map[string]any{"sequence": 2, "raw_file_content": `{"type":"Category","data":{"id":"c1","name":"Dining"}}`}, http.StatusCreated)
	if r := e.c.API(http.MethodPost, "/api/v1/import_sessions/"+s.Data.ID+"/publish", e.write, nil); r.Status != http.StatusAccepted {
		t.Fatalf("publish: %d %s", r.Status, r.Body)
	}
	b := e.native(t, s.Data.ID)
	if rb := b.Data.Verification.Readback; b.Data.Status != "complete" || rb.Status != "matched" || rb.SynthesizedCounts["categories"] != 0 {
		t.Fatalf("session %s %v, readback %+v", b.Data.Status, deref(b.Data.Error), rb)
	}
	if n := e.count(t, "SELECT count(*) FROM categories WHERE family_id = ? AND name = 'Dining'", e.user.FamilyID); n != 1 {
		t.Fatalf("%d Dining categories", n)
	}
}
