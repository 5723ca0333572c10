package handlers_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"tally/internal/apptest"
	"tally/internal/testkit"
	"tally/models"
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
	var tx map[string]any
	for i, line := range strings.Split(r.Body, "\n") {
		var rec struct {
			Type string         `json:"type"`
			Data map[string]any `json:"data"`
		}
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatalf("line %d is not JSON: %q", i+1, line)
		}
		types = append(types, rec.Type)
		if rec.Type == "Transaction" {
			tx = rec.Data
		}
	}
	if got := strings.Join(types, ","); got != "Account,Category,Category,Tag,Transaction,Valuation,Rule" {
		t.Fatalf("record order %s", got)
	}
	if tx["amount"] != "12.5000" || tx["date"] != "2024-01-02" || tx["source"] != "import" || len(tx["tag_ids"].([]any)) != 1 {
		t.Fatalf("transaction record %v", tx)
	}

	member := testkit.MustCreateUser(t, e.srv.DB, testkit.UserOpts{FamilyID: e.user.FamilyID, Role: models.RoleMember})
	memberKey := testkit.MustCreateAPIKey(t, e.srv.DB, member.ID, models.ScopeRead)
	if r := e.c.API(http.MethodGet, "/api/v1/export", memberKey, nil); r.Status != http.StatusForbidden {
		t.Fatalf("a member exported the family: %d", r.Status)
	}
}
