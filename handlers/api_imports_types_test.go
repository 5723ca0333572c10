package handlers_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/google/uuid"

	"tally/app/apptest"
	"tally/testkit"
)

// publish creates an import with publish=true and waits until the worker is done; the import
// must end complete.
func (e *importEnv) publish(t *testing.T, body map[string]any) importBody {
	t.Helper()
	body["publish"] = "true"
	var b importBody
	e.create(t, body, http.StatusCreated).JSON(t, &b)
	done := e.waitFor(t, b.Data.ID)
	if done.Data.Status != "complete" {
		t.Fatalf("import ended %s: %v\nserver log:\n%s", done.Data.Status, deref(done.Data.Error), e.srv.Logs.String())
	}
	return done
}

func deref(s *string) string {
	if s == nil {
		return "<nil>"
	}
	return *s
}

// amounts returns the import's entry amounts ordered by date then name, with two decimals.
func (e *importEnv) amounts(t *testing.T, importID string) []string {
	t.Helper()
	return e.strings(t, "SELECT amount::numeric(19,2)::text FROM entries WHERE import_id = ? ORDER BY date, name", uuid.MustParse(importID))
}

func (e *importEnv) strings(t *testing.T, query string, args ...any) []string {
	t.Helper()
	var out []string
	if err := e.srv.DB.NewRaw(query, args...).Scan(context.Background(), &out); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return out
}

func TestTransactionImportAcrossAccountsCreatesAndMatchesByName(t *testing.T) {
	t.Parallel()
	e := newImportEnv(t, apptest.ServerOptions{})
	testkit.MustCreateAccount(t, e.srv.DB, e.user.FamilyID, "TestAccount2", "Depository", "")
	csv := "date,name,amount,category,tags,account,notes\n" +
		"01/01/2024,Coffee,-3.50,TestCategory1,TestTag1,TestAccount1,morning\n" +
		"01/02/2024,Rent,-1200,TestCategory2,TestTag1|TestTag2,TestAccount2,\n" +
		"01/03/2024,Refund,20,,,TestAccount2,\n"
	b := e.publish(t, map[string]any{"raw_file_content": csv})
	if b.Data.Stats.MappingsCount != 6 || b.Data.Stats.UnassignedMappingsCount != 0 {
		t.Fatalf("mappings %d (unassigned %d), want 2 accounts + 2 categories + 2 tags, all assigned", b.Data.Stats.MappingsCount, b.Data.Stats.UnassignedMappingsCount)
	}
	if got := e.strings(t, "SELECT a.name FROM accounts a WHERE a.family_id = ? ORDER BY name", e.user.FamilyID); strings.Join(got, ",") != "TestAccount1,TestAccount2" {
		t.Fatalf("accounts %v: the named account was not reused or the new one not created", got)
	}
	if got := e.amounts(t, b.Data.ID); strings.Join(got, ",") != "3.50,1200.00,-20.00" {
		t.Fatalf("amounts %v: inflows positive in the file are negative entries", got)
	}
	if got := e.strings(t, "SELECT e.name || ':' || a.name FROM entries e JOIN accounts a ON a.id = e.account_id WHERE e.import_id = ? ORDER BY e.date", uuid.MustParse(b.Data.ID)); strings.Join(got, ",") != "Coffee:TestAccount1,Rent:TestAccount2,Refund:TestAccount2" {
		t.Fatalf("rows went to the wrong accounts: %v", got)
	}
	if got := e.strings(t, "SELECT t.name FROM entries e JOIN tags t ON t.id = ANY(e.tag_ids) WHERE e.name = 'Rent' ORDER BY 1"); strings.Join(got, ",") != "TestTag1,TestTag2" {
		t.Fatalf("rent tags %v", got)
	}
	// Notes and categories travel.
	if got := e.strings(t, "SELECT e.notes || '/' || c.name FROM entries e JOIN categories c ON c.id = e.category_id WHERE e.name = 'Coffee'"); len(got) != 1 || got[0] != "morning/TestCategory1" {
		t.Fatalf("coffee notes/category %v", got)
	}
	// Balance of the account the import created: 3.50 out.
	if got := e.strings(t, "SELECT balance::text FROM accounts WHERE name = 'TestAccount1'"); got[0] != "-3.5000" {
		t.Fatalf("new account balance %v", got)
	}
}

func TestTradeImport(t *testing.T) {
	t.Parallel()
	e := newImportEnv(t, apptest.ServerOptions{})
	acct := testkit.MustCreateAccount(t, e.srv.DB, e.user.FamilyID, "Brokerage", "Investment", "")
	csv := "date,ticker,exchange_operating_mic,quantity,price,currency\n" +
		"2024-05-15,AAPL,,10,150.00,USD\n" +
		"2024-05-16,aapl,,-5,160.00,USD\n" +
		"2024-05-17,GOOGL,XNAS,2,140.25,USD\n"
	b := e.publish(t, map[string]any{"type": "TradeImport", "raw_file_content": csv, "date_format": "%Y-%m-%d", "account_id": acct.ID.String()})
	got := e.strings(t, `SELECT e.name || '|' || t.qty::float8 || '|' || t.price::float8 || '|' || e.amount::float8 || '|' || s.ticker || '|' || coalesce(s.exchange_operating_mic, '-')
		FROM trades t JOIN entries e ON e.id = t.entry_id JOIN securities s ON s.id = t.security_id WHERE e.import_id = ? ORDER BY e.date`, uuid.MustParse(b.Data.ID))
	want := "Buy 10 AAPL|10|150|1500|AAPL|-,Sell 5 AAPL|-5|160|-800|AAPL|-,Buy 2 GOOGL|2|140.25|280.5|GOOGL|XNAS"
	if strings.Join(got, ",") != want {
		t.Fatalf("trades\n got %v\nwant %s", got, want)
	}
}

func TestAccountImport(t *testing.T) {
	t.Parallel()
	e := newImportEnv(t, apptest.ServerOptions{})
	csv := "Account type*,Name*,Balance*,Currency,Balance Date\n" +
		"checking,Main Checking,1000.00,USD,01/15/2024\n" +
		"Savings,Rainy day,5000,,\n" +
		"mortgage,Home loan,\"250,000.00\",USD,\n"
	b := e.publish(t, map[string]any{"type": "AccountImport", "raw_file_content": csv,
		"entity_type_col_label": "Account type*", "name_col_label": "Name*", "amount_col_label": "Balance*", "date_col_label": "Balance Date"})
	got := e.strings(t, `SELECT a.name || '|' || a.accountable_type || '|' || a.balance::float8 || '|' || a.currency || '|' || v.date
		FROM accounts a JOIN entries v ON v.account_id = a.id AND v.kind = 'valuation'
		JOIN valuations x ON x.entry_id = v.id AND x.kind = 'opening_anchor'
		WHERE a.import_id = ? ORDER BY a.name`, uuid.MustParse(b.Data.ID))
	twoYearsAgo := e.strings(t, "SELECT (current_date - interval '2 years')::date::text")[0]
	want := "Home loan|Loan|250000|USD|" + twoYearsAgo + ",Main Checking|Depository|1000|USD|2024-01-15,Rainy day|Depository|5000|USD|" + twoYearsAgo
	if strings.Join(got, ",") != want {
		t.Fatalf("accounts\n got %v\nwant %s", got, want)
	}
	// A word Tally cannot place is a row error that names it.
	r := e.c.API(http.MethodPost, "/api/v1/imports/preflight", e.read, map[string]any{"type": "AccountImport", "raw_file_content": "type,name,balance\nboat,Sailboat,100\n"})
	if !strings.Contains(r.Body, `Account type \"boat\" is not one Tally knows`) {
		t.Fatalf("unknown account type not explained: %s", r.Body)
	}
}

func TestBudgetingAppExports(t *testing.T) {
	t.Parallel()
	e := newImportEnv(t, apptest.ServerOptions{})
	cases := []struct {
		name, typ, csv string
		extra          map[string]any
		want           []string // "name|amount|category" by date
	}{
		{
			name: "Mint: direction from Transaction Type, labels in the file",
			typ:  "ExternalAppAImport",
			csv: "Date,Description,Original Description,Amount,Transaction Type,Category,Account Name,Labels,Notes\n" +
				"01/05/2024,Grocer,GROCER 123,\"1,234.56\",debit,Groceries,Mint Checking,food,\n" +
				"01/06/2024,Employer,PAYROLL,2500.00,credit,Paycheck,Mint Checking,,\n",
			want: []string{"Grocer|1234.56|Groceries", "Employer|-2500.00|Paycheck"},
		},
		{
			name: "Actual: categories joined with their group, blank payee falls back to notes",
			typ:  "ExternalAppBImport",
			csv: "Account,Date,Payee,Notes,Category_Group,Category,Amount,Split_Amount,Cleared\n" +
				"Actual Checking,2024-02-01,Cafe,,Food,Coffee,-4.50,,true\n" +
				"Actual Checking,2024-02-02,,Reconciliation balance adjustment,,Transfer,-10.00,,true\n" +
				"Actual Checking,2024-02-03,Employer,,Income,Paycheck,3000.00,,true\n",
			want: []string{"Cafe|4.50|Coffee", "Reconciliation balance adjustment|10.00|Transfer", "Employer|-3000.00|Paycheck"},
		},
		{
			name: "YNAB: inflow minus outflow",
			typ:  "ExternalAppCImport",
			csv: "Account,Flag,Date,Payee,Category Group/Category,Category Group,Category,Memo,Outflow,Inflow,Cleared\n" +
				"YNAB Checking,,03/01/2024,Landlord,Housing: Rent,Housing,Rent,,\"$1,500.00\",$0.00,Cleared\n" +
				"YNAB Checking,,03/02/2024,Employer,Income: Salary,Income,Salary,,$0.00,\"$2,500.00\",Cleared\n" +
				"YNAB Checking,,03/03/2024,Both,Misc: Misc,Misc,Misc,,$30.00,$100.00,Cleared\n",
			want: []string{"Landlord|1500.00|Rent", "Employer|-2500.00|Salary", "Both|-70.00|Misc"},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			body := map[string]any{"type": tc.typ, "raw_file_content": tc.csv}
			b := e.publish(t, body)
			got := e.strings(t, `SELECT e.name || '|' || e.amount::numeric(19,2) || '|' || coalesce(c.name, '')
				FROM entries e LEFT JOIN categories c ON c.id = e.category_id WHERE e.import_id = ? ORDER BY e.date`, uuid.MustParse(b.Data.ID))
			if strings.Join(got, ",") != strings.Join(tc.want, ",") {
				t.Fatalf("entries\n got %v\nwant %v", got, tc.want)
			}
		})
	}
	// Actual and YNAB categories "Group: Name" make a parent and a child.
	if got := e.strings(t, "SELECT p.name || '>' || c.name FROM categories c JOIN categories p ON p.id = c.parent_id WHERE c.name = 'Rent'"); len(got) != 1 || got[0] != "Housing>Rent" {
		t.Fatalf("YNAB category hierarchy %v", got)
	}
	// An explicit label wins over the app's preset.
	r := e.c.API(http.MethodPost, "/api/v1/imports/preflight", e.read, map[string]any{"type": "ExternalAppAImport",
		"raw_file_content": "Posted On,Value,Description\n01/05/2024,1.00,x\n", "date_col_label": "Posted On", "amount_col_label": "Value",
		"account_id": testkit.MustCreateAccount(t, e.srv.DB, e.user.FamilyID, "Mint", "Depository", "").ID.String()})
	if !strings.Contains(r.Body, `"valid":true`) {
		t.Fatalf("explicit labels ignored: %s", r.Body)
	}
}

func TestTaxonomyImports(t *testing.T) {
	t.Parallel()
	e := newImportEnv(t, apptest.ServerOptions{})
	e.publish(t, map[string]any{"type": "CategoryImport", "raw_file_content": "name*,color,parent_category,lucide_icon\n" +
		"Groceries,#407706,Food & Drink,shopping-basket\n" +
		"Food & Drink,#f97316,,carrot\n" +
		"Groceries,#111111,Food & Drink,\n"})
	got := e.strings(t, `SELECT c.name || '|' || c.color || '|' || c.lucide_icon || '|' || coalesce(p.name, '-')
		FROM categories c LEFT JOIN categories p ON p.id = c.parent_id WHERE c.family_id = ? ORDER BY c.name`, e.user.FamilyID)
	if strings.Join(got, ",") != "Food & Drink|#f97316|carrot|-,Groceries|#111111|shopping-basket|Food & Drink" {
		t.Fatalf("categories %v: parents listed later must link, the last row wins", got)
	}

	e.srv.DB.NewRaw("INSERT INTO merchants (id, family_id, name, color) VALUES (gen_random_uuid(), ?, 'Acme', '#000000')", e.user.FamilyID).Exec(context.Background())
	e.publish(t, map[string]any{"type": "MerchantImport", "raw_file_content": "name,color,website\nAcme,#ffffff,acme.test\nCorner Shop,,corner.test\n"})
	got = e.strings(t, "SELECT name || '|' || color || '|' || website_url FROM merchants WHERE family_id = ? ORDER BY name", e.user.FamilyID)
	if len(got) != 2 || got[0] != "Acme|#000000|" || !strings.HasPrefix(got[1], "Corner Shop|#") || !strings.HasSuffix(got[1], "|corner.test") {
		t.Fatalf("merchants %v: existing ones are left alone, new ones get a colour", got)
	}

	rule := "name,resource_type,active,effective_date,conditions,actions\n" +
		`Categorize groceries,transaction,true,2024-01-01,[{"condition_type":"transaction_name","operator":"like","value":"grocery"}],[{"action_type":"set_transaction_category","value":"Groceries"}]` + "\n"
	e.publish(t, map[string]any{"type": "RuleImport", "raw_file_content": rule})
	rule2 := strings.Replace(rule, `"value":"grocery"`, `"value":"supermarket"`, 1)
	e.publish(t, map[string]any{"type": "RuleImport", "raw_file_content": rule2})
	got = e.strings(t, "SELECT name || '|' || active || '|' || effective_date || '|' || (conditions->0->>'value') || '|' || (actions->0->>'value') FROM rules WHERE family_id = ?", e.user.FamilyID)
	groceries := e.strings(t, "SELECT id::text FROM categories WHERE family_id = ? AND name = 'Groceries'", e.user.FamilyID)[0]
	if len(got) != 1 || got[0] != "Categorize groceries|true|2024-01-01|supermarket|"+groceries {
		t.Fatalf("rules %v: a re-import of a named rule updates it, and names become ids", got)
	}
	for _, bad := range []struct{ csv, want string }{
		{"name,resource_type,active,effective_date,conditions,actions\nx,account,true,,[],[{\"action_type\":\"a\"}]\n", "Unsupported resource type: account"},
		{"name,resource_type,active,effective_date,conditions,actions\nx,transaction,true,,[{\"condition_type\":\"a\"}],[]\n", "Rule must have at least one action"},
		{"name,resource_type,active,effective_date,conditions,actions\nx,transaction,true,,[{oops],[{}]\n", "Conditions must be a JSON array"},
		{"title,color\nFood,#000000\n", "Missing required columns: name"},
	} {
		typ := "RuleImport"
		if strings.HasPrefix(bad.csv, "title") {
			typ = "CategoryImport"
		}
		r := e.c.API(http.MethodPost, "/api/v1/imports/preflight", e.read, map[string]any{"type": typ, "raw_file_content": bad.csv})
		if !strings.Contains(r.Body, bad.want) || !strings.Contains(r.Body, `"valid":false`) {
			t.Errorf("%s: preflight does not say %q: %s", typ, bad.want, r.Body)
		}
	}
}

func TestQIFImport(t *testing.T) {
	t.Parallel()
	e := newImportEnv(t, apptest.ServerOptions{})
	card := testkit.MustCreateAccount(t, e.srv.DB, e.user.FamilyID, "Visa", "CreditCard", "")
	qif := "!Type:CCard\nD6/ 4'20\nT-99.00\nPMerchant A\nLFees & Charges\n^\n" +
		"D6/ 5'20\nT-25.50\nPDiner\nLFood & Dining/TRIP2025\n^\n" +
		"D6/ 6'20\nT500.00\nPPayment\nL[Checking]\n^\n" +
		"D1/1'20\nT500.00\nPOpening Balance\n^\n"
	// Without an account a QIF import is not publishable, and says why.
	r := e.c.API(http.MethodPost, "/api/v1/imports", e.write, map[string]any{"type": "QifImport", "raw_file_content": qif, "publish": "true"})
	if r.Status != 422 || !strings.Contains(r.Body, "needs an account") {
		t.Fatalf("QIF without account: %d %s", r.Status, r.Body)
	}
	b := e.publish(t, map[string]any{"type": "QifImport", "raw_file_content": qif, "account_id": card.ID.String()})
	got := e.strings(t, `SELECT e.kind || '|' || e.date || '|' || e.name || '|' || e.amount::numeric(19,2) || '|' || coalesce(c.name, '') || '|' ||
			coalesce((SELECT string_agg(t.name, ';') FROM tags t WHERE t.id = ANY(e.tag_ids)), '')
		FROM entries e LEFT JOIN categories c ON c.id = e.category_id WHERE e.import_id = ? ORDER BY e.date`, uuid.MustParse(b.Data.ID))
	want := "valuation|2020-01-01|Opening balance|500.00||," +
		"transaction|2020-06-04|Merchant A|99.00|Fees & Charges|," +
		"transaction|2020-06-05|Diner|25.50|Food & Dining|TRIP2025," +
		"transaction|2020-06-06|Payment|-500.00||"
	if strings.Join(got, ",") != want {
		t.Fatalf("QIF entries\n got %v\nwant %s", got, want)
	}

	broker := testkit.MustCreateAccount(t, e.srv.DB, e.user.FamilyID, "Broker", "Investment", "")
	invst := "!Type:Security\nNAcme Corp\nSACME\nTStock\n^\n!Type:Invst\n" +
		"D1/10/2024\nNDiv\nYAcme Corp\nT190.75\n^\n" +
		"D1/11/2024\nNBuy\nYAcme Corp\nI66.10\nQ2.0\nT132.20\n^\n" +
		"D1/12/2024\nNXIn\nPMonthly Deposit\nT1000.00\n^\n" +
		"D1/13/2024\nNSell\nYCORP\nI10\nQ3\nT30.00\n^\n"
	b = e.publish(t, map[string]any{"type": "QifImport", "raw_file_content": invst, "account_id": broker.ID.String()})
	got = e.strings(t, `SELECT e.kind || '|' || e.name || '|' || e.amount::numeric(19,2) || '|' || coalesce(t.qty::float8::text, '')
		FROM entries e LEFT JOIN trades t ON t.entry_id = e.id WHERE e.import_id = ? ORDER BY e.date`, uuid.MustParse(b.Data.ID))
	want = "transaction|Dividend: Acme Corp|-190.75|,trade|Buy 2 shares of ACME|132.20|2,transaction|Monthly Deposit|-1000.00|,trade|Sell 3 shares of CORP|-30.00|-3"
	if strings.Join(got, ",") != want {
		t.Fatalf("investment entries\n got %v\nwant %s", got, want)
	}
}
