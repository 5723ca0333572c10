package handlers_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/google/uuid"

	"tally/app/apptest"
	"tally/testkit"
)

// Cases found in review: each failed before its fix.

func TestYNABAmountsInDecimalCommaFormat(t *testing.T) {
	t.Parallel()
	e := newImportEnv(t, apptest.ServerOptions{})
	acct := testkit.MustCreateAccount(t, e.srv.DB, e.user.FamilyID, "YNAB", "Depository", "")
	csv := "Account;Date;Payee;Memo;Outflow;Inflow\n" +
		"x;03/01/2024;Landlord;;1.500,00;0,00\n" +
		"x;03/02/2024;Tiny;;0,125;\n" +
		"x;03/03/2024;Nothing;;;\n"
	r := e.c.API(http.MethodPost, "/api/v1/imports", e.write, map[string]any{"type": "ExternalAppCImport", "raw_file_content": csv,
		"col_sep": "semicolon", "number_format": "1.234,56", "account_id": acct.ID.String()})
	var b importBody
	r.JSON(t, &b)
	var rows rowsBody
	e.c.API(http.MethodGet, "/api/v1/imports/"+b.Data.ID+"/rows", e.read, nil).JSON(t, &rows)
	if !rows.Data[0].Valid || !rows.Data[1].Valid || rows.Data[2].Valid || !strings.Contains(strings.Join(rows.Data[2].Errors, ""), "Amount is required") {
		t.Fatalf("rows %+v", rows.Data)
	}
	got := e.strings(t, "SELECT amount::text FROM import_rows WHERE import_id = ? ORDER BY row_number", uuid.MustParse(b.Data.ID))
	if got[0] != "1500.0000" || got[1] != "0.1250" {
		t.Fatalf("amounts %v, want 1500 and 0.125 as outflows", got)
	}
}

func TestTradeTooLargeIsARowError(t *testing.T) {
	t.Parallel()
	e := newImportEnv(t, apptest.ServerOptions{})
	r := e.c.API(http.MethodPost, "/api/v1/imports/preflight", e.read, map[string]any{"type": "TradeImport",
		"raw_file_content": "date,ticker,qty,price,account\n01/02/2024,X,1000000000,10000000,Broker\n"})
	if r.Status != 200 || !strings.Contains(r.Body, "Qty times price is too large") {
		t.Fatalf("preflight: %d %s", r.Status, r.Body)
	}
}

func TestRuleCannotPointAtAnotherFamilysCategory(t *testing.T) {
	t.Parallel()
	e := newImportEnv(t, apptest.ServerOptions{})
	other := testkit.MustCreateUser(t, e.srv.DB, testkit.UserOpts{})
	foreign := uuid.New()
	mustExecDB(t, e, "INSERT INTO categories (id, family_id, name) VALUES (?, ?, 'Theirs')", foreign, other.FamilyID)
	var b importBody
	e.create(t, map[string]any{"type": "RuleImport", "publish": "true", "raw_file_content": "name,resource_type,active,effective_date,conditions,actions\n" +
		`Sneaky,transaction,true,,[{"condition_type":"transaction_name","operator":"like","value":"x"}],[{"action_type":"set_transaction_category","value":"` + foreign.String() + `"}]` + "\n"}, http.StatusCreated).JSON(t, &b)
	done := e.waitFor(t, b.Data.ID)
	if done.Data.Status != "failed" || !strings.Contains(deref(done.Data.Error), "not one of this family's") {
		t.Fatalf("rule import: %s %q", done.Data.Status, deref(done.Data.Error))
	}
	if n := e.count(t, "SELECT count(*) FROM rules"); n != 0 {
		t.Fatalf("%d rules stored", n)
	}
}

func TestPublishRecreatesAMappedAccountThatWasReverted(t *testing.T) {
	t.Parallel()
	e := newImportEnv(t, apptest.ServerOptions{})
	first := e.publish(t, map[string]any{"raw_file_content": "date,amount,account\n01/02/2024,1,Checking\n"})
	var second importBody
	e.create(t, map[string]any{"raw_file_content": "date,amount,account\n01/03/2024,2,Checking\n"}, http.StatusCreated).JSON(t, &second)
	// The second upload mapped "Checking" to the account the first created; revert the first.
	e.c.API(http.MethodPost, "/api/v1/imports/"+first.Data.ID+"/revert", e.write, nil)
	e.waitFor(t, first.Data.ID)
	if n := e.count(t, "SELECT count(*) FROM accounts WHERE family_id = ?", e.user.FamilyID); n != 0 {
		t.Fatalf("%d accounts after the revert", n)
	}
	e.c.API(http.MethodPost, "/api/v1/imports/"+second.Data.ID+"/publish", e.write, nil)
	if got := e.waitFor(t, second.Data.ID); got.Data.Status != "complete" {
		t.Fatalf("second publish: %s %q", got.Data.Status, deref(got.Data.Error))
	}
	if n := e.count(t, "SELECT count(*) FROM entries WHERE import_id = ?", uuid.MustParse(second.Data.ID)); n != 1 {
		t.Fatalf("%d entries: the row was dropped", n)
	}
}

func TestRevertKeepsUsedAccountsAndRepublishes(t *testing.T) {
	t.Parallel()
	e := newImportEnv(t, apptest.ServerOptions{})
	b := e.publish(t, map[string]any{"type": "AccountImport", "raw_file_content": "type,name,balance\nchecking,Main,100\nsavings,Spare,5\n"})
	// Someone records a transaction on Main: the account is in use now.
	mustExecDB(t, e, `INSERT INTO entries (id, family_id, account_id, kind, date, amount, currency, name)
		SELECT gen_random_uuid(), family_id, id, 'transaction', '2024-05-01', 10, 'USD', 'Lunch' FROM accounts WHERE name = 'Main'`)
	e.c.API(http.MethodPost, "/api/v1/imports/"+b.Data.ID+"/revert", e.write, nil)
	if got := e.waitFor(t, b.Data.ID); got.Data.Status != "pending" {
		t.Fatalf("revert: %s %q", got.Data.Status, deref(got.Data.Error))
	}
	if got := e.strings(t, "SELECT name || ':' || (import_id IS NULL) FROM accounts WHERE family_id = ? ORDER BY name", e.user.FamilyID); strings.Join(got, ",") != "Main:true" {
		t.Fatalf("accounts after revert %v: the used one stays and is no longer the import's", got)
	}
	anchors := func() string {
		return strings.Join(e.strings(t, `SELECT a.name || ' ' || v.amount::numeric(19,2) FROM entries v JOIN accounts a ON a.id = v.account_id
			WHERE v.kind = 'valuation' AND a.family_id = ? ORDER BY a.name`, e.user.FamilyID), ", ")
	}
	if got := anchors(); got != "Main 100.00" {
		t.Fatalf("opening balances after revert: %q, want Main's kept", got)
	}
	e.c.API(http.MethodPost, "/api/v1/imports/"+b.Data.ID+"/publish", e.write, nil)
	if got := e.waitFor(t, b.Data.ID); got.Data.Status != "complete" {
		t.Fatalf("republish: %s %q", got.Data.Status, deref(got.Data.Error))
	}
	if n := e.count(t, "SELECT count(*) FROM accounts WHERE family_id = ?", e.user.FamilyID); n != 2 {
		t.Fatalf("%d accounts after republishing, want Main and Spare", n)
	}
	if got := anchors(); got != "Main 100.00, Spare 5.00" {
		t.Fatalf("opening balances after republishing: %q", got)
	}
}

func TestDuplicatesCompareCurrencies(t *testing.T) {
	t.Parallel()
	e := newImportEnv(t, apptest.ServerOptions{})
	acct := testkit.MustCreateAccount(t, e.srv.DB, e.user.FamilyID, "Checking", "Depository", "")
	mustExecDB(t, e, "INSERT INTO entries (id, family_id, account_id, kind, date, amount, currency, name) VALUES (gen_random_uuid(), ?, ?, 'transaction', '2024-01-01', 100, 'USD', 'Hotel')", e.user.FamilyID, acct.ID)
	b := e.publish(t, map[string]any{"raw_file_content": "date,amount,name,currency\n2024-01-01,-100,Hotel,EUR\n2024-01-01,-100,Hotel,USD\n",
		"date_format": "%Y-%m-%d", "account_id": acct.ID.String()})
	if b.Data.Stats.DuplicateRowsCount != 1 {
		t.Fatalf("duplicates %d, want only the USD row", b.Data.Stats.DuplicateRowsCount)
	}
}

func TestRevertRestoresWhatTaxonomyImportsChanged(t *testing.T) {
	t.Parallel()
	e := newImportEnv(t, apptest.ServerOptions{})
	mustExecDB(t, e, "INSERT INTO categories (id, family_id, name, color, lucide_icon) VALUES (gen_random_uuid(), ?, 'Groceries', '#000000', 'cart')", e.user.FamilyID)
	mustExecDB(t, e, `INSERT INTO rules (id, family_id, name, active, conditions, actions) VALUES (gen_random_uuid(), ?, 'Coffee rule', false,
		'[{"condition_type":"transaction_name","operator":"like","value":"coffee"}]', '[{"action_type":"set_transaction_name","value":"Coffee"}]')`, e.user.FamilyID)
	state := func() string {
		return strings.Join(e.strings(t, `SELECT c.name || ' ' || c.color || ' ' || c.lucide_icon || ' ' || coalesce(p.name, '-')
			FROM categories c LEFT JOIN categories p ON p.id = c.parent_id WHERE c.family_id = ? ORDER BY c.name`, e.user.FamilyID), "; ") + " | " +
			strings.Join(e.strings(t, `SELECT name || ' ' || active || ' ' || (conditions->0->>'value') FROM rules WHERE family_id = ?`, e.user.FamilyID), "; ")
	}
	before := state()
	cats := e.publish(t, map[string]any{"type": "CategoryImport", "raw_file_content": "name,color,parent_category,lucide_icon\nGroceries,#111111,Food,basket\n"})
	rules := e.publish(t, map[string]any{"type": "RuleImport", "raw_file_content": "name,resource_type,active,effective_date,conditions,actions\n" +
		`Coffee rule,transaction,true,,[{"condition_type":"transaction_name","operator":"like","value":"espresso"}],[{"action_type":"set_transaction_name","value":"Coffee"}]` + "\n"})
	if after := state(); after != "Food #737373 shapes -; Groceries #111111 basket Food | Coffee rule true espresso" {
		t.Fatalf("after the imports: %s", after)
	}
	for _, id := range []string{rules.Data.ID, cats.Data.ID} {
		e.c.API(http.MethodPost, "/api/v1/imports/"+id+"/revert", e.write, nil)
		if got := e.waitFor(t, id); got.Data.Status != "pending" {
			t.Fatalf("revert: %s %q", got.Data.Status, deref(got.Data.Error))
		}
	}
	if after := state(); after != before {
		t.Fatalf("after reverting:\n%s\nbefore the imports:\n%s", after, before)
	}
}
