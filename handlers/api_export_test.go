package handlers_test

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/google/uuid"

	"tally/app/apptest"
	"tally/models"
	"tally/testkit"
)

func TestExport(t *testing.T) {
	t.Parallel()
	e := newImportEnv(t, apptest.ServerOptions{})
	acct := testkit.MustCreateAccount(t, e.srv.DB, e.user.FamilyID, "Checking", "Depository", "100")
	e.publish(t, map[string]any{"raw_file_content": "date,amount,name,category,tags\n2024-01-02,-12.50,Coffee,Food:Coffee,morning\n",
		"date_format": "%Y-%m-%d", "account_id": acct.ID.String()})
	e.publish(t, map[string]any{"type": "RuleImport", "raw_file_content": "name,resource_type,active,effective_date,conditions,actions\n" +
		`Coffee rule,transaction,true,,[{"condition_type":"transaction_name","operator":"like","value":"coffee"}],[{"action_type":"set_transaction_category","value":"Coffee"}]` + "\n"})
	// Another family's records must not leak into the file.
	other := testkit.MustCreateUser(t, e.srv.DB, testkit.UserOpts{})
	testkit.MustCreateAccount(t, e.srv.DB, other.FamilyID, "Secret savings", "Depository", "999")

	r := e.c.Do(http.MethodGet, "/api/v1/export", nil, map[string]string{"X-Api-Key": e.read})
	if r.Status != http.StatusOK || r.Header.Get("Content-Type") != "application/x-ndjson" {
		t.Fatalf("export: %d %s", r.Status, r.Header.Get("Content-Type"))
	}
	if strings.Contains(r.Body, "Secret savings") {
		t.Fatal("another family's account is in the export")
	}
	var types []string
	var tx, rule map[string]any
	for i, line := range strings.Split(r.Body, "\n") {
		var rec struct {
			Type string         `json:"type"`
			Data map[string]any `json:"data"`
		}
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatalf("line %d is not JSON: %q", i+1, line)
		}
		types = append(types, rec.Type)
		switch rec.Type {
		case "Transaction":
			tx = rec.Data
		case "Rule":
			rule = rec.Data
		}
	}
	// The merchant is the one the import read out of the transaction's name.
	if got := strings.Join(types, ","); got != "Account,Category,Category,Tag,Merchant,Transaction,Valuation,Rule" {
		t.Fatalf("record order %s", got)
	}
	if tx["amount"] != "12.5000" || tx["date"] != "2024-01-02" || tx["source"] != "import" || len(tx["tag_ids"].([]any)) != 1 {
		t.Fatalf("transaction record %v", tx)
	}

	// A rule names its category, so that another family can find or create it.
	action := rule["actions"].([]any)[0].(map[string]any)
	ref, _ := action["value_ref"].(map[string]any)
	if action["value"] != "Coffee" || ref["type"] != "Category" || ref["name"] != "Coffee" || ref["id"] == "" {
		t.Fatalf("rule action %v", action)
	}

	member := testkit.MustCreateUser(t, e.srv.DB, testkit.UserOpts{FamilyID: e.user.FamilyID, Role: models.RoleMember})
	memberKey := testkit.MustCreateAPIKey(t, e.srv.DB, member.ID, models.ScopeRead)
	if r := e.c.API(http.MethodGet, "/api/v1/export", memberKey, nil); r.Status != http.StatusForbidden {
		t.Fatalf("a member exported the family: %d", r.Status)
	}
}

// familySnapshot describes a family's data without ids, so that two families can be compared
// record for record.
func (e *importEnv) familySnapshot(t *testing.T, family uuid.UUID) map[string][]string {
	t.Helper()
	queries := map[string]string{
		"accounts": `SELECT concat_ws('|', name, accountable_type, subtype, currency, balance, cash_balance, status, institution_name, source, external_id)
			FROM accounts WHERE family_id = ?0 ORDER BY 1`,
		"entries": `SELECT concat_ws('|', a.name, e.kind, e.date, e.amount, e.currency, e.name, e.original_name, e.notes, e.excluded, c.name, m.name,
				(SELECT string_agg(t.name, ';' ORDER BY t.name) FROM tags t WHERE t.id = ANY(e.tag_ids)), e.transaction_kind, p.name,
				e.external_id, e.source, v.kind, s.ticker, tr.qty, tr.price, e.created_at, e.locked_fields, v.as_of)
			FROM entries e JOIN accounts a ON a.id = e.account_id LEFT JOIN categories c ON c.id = e.category_id
			LEFT JOIN merchants m ON m.id = e.merchant_id LEFT JOIN entries p ON p.id = e.parent_id
			LEFT JOIN valuations v ON v.entry_id = e.id LEFT JOIN trades tr ON tr.entry_id = e.id LEFT JOIN securities s ON s.id = tr.security_id
			WHERE e.family_id = ?0 ORDER BY 1`,
		"categories": `SELECT concat_ws('|', c.name, p.name, c.color, c.lucide_icon, c.classification, c.budget_rollover) FROM categories c
			LEFT JOIN categories p ON p.id = c.parent_id WHERE c.family_id = ?0 ORDER BY 1`,
		"tags":      `SELECT concat_ws('|', name, color) FROM tags WHERE family_id = ?0 ORDER BY 1`,
		"merchants": `SELECT concat_ws('|', name, color, website_url) FROM merchants WHERE family_id = ?0 ORDER BY 1`,
		"balances": `SELECT concat_ws('|', a.name, b.date, b.balance, b.cash_inflows, b.cash_outflows, b.flows_factor) FROM balances b
			JOIN accounts a ON a.id = b.account_id WHERE b.family_id = ?0 ORDER BY 1`,
		"holdings": `SELECT concat_ws('|', a.name, s.ticker, h.date, h.qty, h.price, h.amount, h.cost_basis, h.cost_basis_source) FROM holdings h
			JOIN accounts a ON a.id = h.account_id JOIN securities s ON s.id = h.security_id WHERE h.family_id = ?0 ORDER BY 1`,
		"recurring": `SELECT concat_ws('|', r.name, a.name, m.name, r.amount, r.expected_day_of_month, r.next_expected_date, r.status, r.interval,
				c.name, r.confidence) FROM recurring_transactions r
			LEFT JOIN accounts a ON a.id = r.account_id LEFT JOIN merchants m ON m.id = r.merchant_id
			LEFT JOIN categories c ON c.id = r.category_id WHERE r.family_id = ?0 ORDER BY 1`,
		"transfers": `SELECT concat_ws('|', i.name, o.name, t.status) FROM transfers t JOIN entries i ON i.id = t.inflow_entry_id
			JOIN entries o ON o.id = t.outflow_entry_id WHERE t.family_id = ?0 ORDER BY 1`,
		"rejected_transfers": `SELECT concat_ws('|', i.name, o.name) FROM rejected_transfers t JOIN entries i ON i.id = t.inflow_entry_id
			JOIN entries o ON o.id = t.outflow_entry_id WHERE t.family_id = ?0 ORDER BY 1`,
		"budgets": `SELECT concat_ws('|', b.start_date, b.end_date, b.budgeted_spending, c.name, bc.budgeted_spending) FROM budgets b
			LEFT JOIN budget_categories bc ON bc.budget_id = b.id LEFT JOIN categories c ON c.id = bc.category_id WHERE b.family_id = ?0 ORDER BY 1`,
		"rules": `SELECT concat_ws('|', r.name, r.active, r.effective_date, (SELECT string_agg(concat_ws(':', x->>'condition_type', x->>'action_type',
				coalesce(c.name, m.name, t.name, x->>'value')), ',' ORDER BY n) FROM jsonb_array_elements(r.conditions || r.actions) WITH ORDINALITY AS o(x, n)
				LEFT JOIN categories c ON c.id::text = x->>'value' LEFT JOIN merchants m ON m.id::text = x->>'value'
				LEFT JOIN tags t ON t.id::text = x->>'value')) FROM rules r WHERE r.family_id = ?0 ORDER BY 1`,
		"totals": `SELECT concat_ws('|', kind, count(*), sum(amount)) FROM entries WHERE family_id = ?0 GROUP BY kind ORDER BY 1`,
	}
	out := map[string][]string{}
	for name, q := range queries {
		out[name] = e.strings(t, q, family)
	}
	return out
}

func TestExportImportRoundTrip(t *testing.T) {
	t.Parallel()
	e := newImportEnv(t, apptest.ServerOptions{})
	// A family built every way Tally builds one: a manual account, a CSV import with
	// categories and tags (one of its transactions renamed by hand, the bank's text kept), a
	// rule import, and a native file with every record type.
	acct := testkit.MustCreateAccount(t, e.srv.DB, e.user.FamilyID, "Savings", "Depository", "100")
	csv := e.publish(t, map[string]any{"raw_file_content": "date,amount,name,category,tags\n2024-01-02,-12.50,Coffee,Food:Coffee,morning|work\n2024-02-01,1000,Salary,Income,\n",
		"date_format": "%Y-%m-%d", "account_id": acct.ID.String()})
	salary := e.strings(t, "SELECT id::text FROM entries WHERE import_id = ? AND name = 'Salary'", uuid.MustParse(csv.Data.ID))[0]
	if r := e.c.API(http.MethodPatch, "/api/v1/transactions/"+salary, e.write, map[string]any{"name": "Salary from Acme"}); r.Status != http.StatusOK {
		t.Fatalf("rename: %d %s", r.Status, r.Body)
	}
	e.publish(t, map[string]any{"type": "RuleImport", "raw_file_content": "name,resource_type,active,effective_date,conditions,actions\n" +
		`Coffee rule,transaction,true,2024-01-01,[{"condition_type":"transaction_name","operator":"like","value":"coffee"}],[{"action_type":"set_transaction_category","value":"Food:Coffee"}]` + "\n"})
	content, err := os.ReadFile("testdata/family.ndjson")
	if err != nil {
		t.Fatal(err)
	}
	e.publish(t, map[string]any{"type": "NativeImport", "raw_file_content": string(content)})
	// A series detection proposed, beside the one from the file, with what only Tally keeps.
	if _, err := e.srv.DB.NewRaw(`INSERT INTO recurring_transactions (id, family_id, account_id, category_id, name, amount, currency,
			expected_day_of_month, last_occurrence_date, next_expected_date, status, interval, confidence)
		SELECT gen_random_uuid(), ?0, ?1, (SELECT id FROM categories WHERE family_id = ?0 ORDER BY name LIMIT 1), 'Water', 120, 'USD',
			10, '2024-01-10', '2024-04-10', 'proposed', 'quarterly', 0.67`, e.user.FamilyID, acct.ID).Exec(context.Background()); err != nil {
		t.Fatal(err)
	}

	// A balance a bank stated (a checkpoint) stays one: compared, never a reset.
	if _, err := e.srv.DB.NewRaw(`WITH e AS (INSERT INTO entries (id, family_id, account_id, kind, date, amount, currency, name, source)
			VALUES (gen_random_uuid(), ?0, ?1, 'valuation', '2024-01-31', 1087.50, 'USD', 'Closing balance', 'statement') RETURNING id)
		INSERT INTO valuations (entry_id, kind) SELECT id, 'checkpoint' FROM e`, e.user.FamilyID, acct.ID).Exec(context.Background()); err != nil {
		t.Fatal(err)
	}
	// A budget's rollover setting travels with its category.
	if r := e.c.API(http.MethodPatch, "/api/v1/budgets/2024-01/categories/"+e.strings(t, "SELECT id::text FROM categories WHERE family_id = ? AND name = 'Coffee'", e.user.FamilyID)[0],
		e.write, map[string]any{"rollover": "both", "budgeted": "25"}); r.Status != http.StatusOK {
		t.Fatalf("rollover: %d %s", r.Status, r.Body)
	}
	export := e.c.Do(http.MethodGet, "/api/v1/export", nil, map[string]string{"X-Api-Key": e.read})
	if export.Status != http.StatusOK {
		t.Fatalf("export: %d %s", export.Status, export.Body)
	}

	// Into an empty family, as a multipart upload.
	other := testkit.MustCreateUser(t, e.srv.DB, testkit.UserOpts{})
	key := testkit.MustCreateAPIKey(t, e.srv.DB, other.ID, models.ScopeReadWrite)
	body, ct := multipartBody(t, map[string]string{"type": "NativeImport", "publish": "true"}, "family.ndjson", "application/x-ndjson", []byte(export.Body))
	r := e.c.Do(http.MethodPost, "/api/v1/imports", body, map[string]string{"Content-Type": ct, "X-Api-Key": key})
	if r.Status != http.StatusCreated {
		t.Fatalf("import the export: %d %s", r.Status, r.Body)
	}
	var created nativeBody
	r.JSON(t, &created)
	b := e.native(t, created.Data.ID, key)
	if b.Data.Status != "complete" || b.Data.Verification.Readback.Status != "matched" {
		t.Fatalf("round trip: %s, readback %+v", b.Data.Status, b.Data.Verification.Readback)
	}
	if n := b.Data.Verification.Readback.SynthesizedCounts; n["valuations"] != 0 || n["tags"] != 0 {
		t.Errorf("the import had to make records the export should have carried: %v", n)
	}
	// The budget a Sure file carried is a budget month, in both families.
	for _, k := range []string{e.read, key} {
		r := e.c.API(http.MethodGet, "/api/v1/budgets/2024-01", k, nil)
		if !strings.Contains(r.Body, `"expected_income":"2500.00"`) || !strings.Contains(r.Body, `"name":"Food","budgeted":"400.00"`) {
			t.Errorf("January 2024's budget: %s", r.Body)
		}
	}
	want, got := e.familySnapshot(t, e.user.FamilyID), e.familySnapshot(t, other.FamilyID)
	for name := range want {
		if len(want[name]) == 0 {
			t.Errorf("the source family has no %s: the round trip would prove nothing about them", name)
		}
		if !slices.Equal(want[name], got[name]) {
			t.Errorf("%s differ after the round trip:\nsource:\n  %s\nimported:\n  %s", name,
				strings.Join(want[name], "\n  "), strings.Join(got[name], "\n  "))
		}
	}
}

// The export page shows an admin what the file holds and downloads the same file as the API;
// a member of the family is told to ask an admin, and cannot download it.
func TestExportPage(t *testing.T) {
	t.Parallel()
	e := newImportEnv(t, apptest.ServerOptions{})
	acct := testkit.MustCreateAccount(t, e.srv.DB, e.user.FamilyID, "Checking", "Depository", "100")
	e.publish(t, map[string]any{"raw_file_content": "date,amount,name\n2024-01-02,-12.50,Coffee\n2024-01-03,-4,Tea\n",
		"date_format": "%Y-%m-%d", "account_id": acct.ID.String()})
	e.c.SignIn(e.user.Email, testkit.Password)
	r := e.c.Get("/settings/export")
	if got := r.TestID(t, "export-counts"); !strings.Contains(got, "Accounts1Transactions2") {
		t.Errorf("counts %q", got)
	}
	href, _ := r.Doc(t).Find(`[data-testid="export-download"]`).Attr("href")
	page := e.c.Get(href)
	api := e.c.Do(http.MethodGet, "/api/v1/export", nil, map[string]string{"X-Api-Key": e.read})
	if page.Status != http.StatusOK || page.Body != api.Body || !strings.Contains(page.Header.Get("Content-Disposition"), `attachment; filename="tally-`) {
		t.Errorf("download: %d %q, same as the API: %v", page.Status, page.Header.Get("Content-Disposition"), page.Body == api.Body)
	}
	n := 0
	for _, line := range strings.Split(page.Body, "\n") {
		var rec struct{ Type string }
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatalf("line %q: %v", line, err)
		}
		if rec.Type == "Transaction" {
			n++
		}
	}
	if n != 2 {
		t.Errorf("%d transactions in the file", n)
	}

	member := testkit.MustCreateUser(t, e.srv.DB, testkit.UserOpts{FamilyID: e.user.FamilyID, Role: models.RoleMember})
	mc := apptest.NewClient(t, e.srv)
	mc.SignIn(member.Email, testkit.Password)
	if r := mc.Get("/settings/export"); !r.Has(t, "export-admins-only") || r.Has(t, "export-download") {
		t.Errorf("a member's export page offers the download")
	}
	if r := mc.Get("/settings/export/download"); r.Status != http.StatusNotFound || strings.Contains(r.Body, "Coffee") {
		t.Errorf("a member downloads: %d", r.Status)
	}
}
