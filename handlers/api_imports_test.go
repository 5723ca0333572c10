package handlers_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/google/uuid"

	"tally/app/apptest"
	"tally/models"
	"tally/testkit"
)

// importEnv is a family with an API key of each scope, on a server whose worker runs.
type importEnv struct {
	srv         *apptest.Server
	user        *models.User
	c           *testkit.Client
	write, read string
}

func newImportEnv(t *testing.T, opts apptest.ServerOptions) *importEnv {
	t.Helper()
	srv := apptest.StartServer(t, opts)
	u := testkit.MustCreateUser(t, srv.DB, testkit.UserOpts{})
	return &importEnv{srv: srv, user: u, c: apptest.NewClient(t, srv),
		write: testkit.MustCreateAPIKey(t, srv.DB, u.ID, models.ScopeReadWrite),
		read:  testkit.MustCreateAPIKey(t, srv.DB, u.ID, models.ScopeRead)}
}

// importBody is an ImportDetail response.
type importBody struct {
	Data struct {
		ID           string  `json:"id"`
		Type         string  `json:"type"`
		Status       string  `json:"status"`
		Error        *string `json:"error"`
		AccountID    *string `json:"account_id"`
		StatusDetail struct {
			Uploaded, Configured, Terminal, Cleaned, Publishable, Revertable bool
		} `json:"status_detail"`
		Stats struct {
			RowsCount               int `json:"rows_count"`
			ValidRowsCount          int `json:"valid_rows_count"`
			InvalidRowsCount        int `json:"invalid_rows_count"`
			MappingsCount           int `json:"mappings_count"`
			UnassignedMappingsCount int `json:"unassigned_mappings_count"`
			DuplicateRowsCount      int `json:"duplicate_rows_count"`
		} `json:"stats"`
	} `json:"data"`
}

// create posts an import and fails the test unless it answers want.
func (e *importEnv) create(t *testing.T, body map[string]any, want int) *testkit.Response {
	t.Helper()
	r := e.c.API(http.MethodPost, "/api/v1/imports", e.write, body)
	if r.Status != want {
		t.Fatalf("create import: %d, want %d: %s\n%s", r.Status, want, r.Body, e.srv.Logs)
	}
	return r
}

// waitFor polls the import until its status is no longer importing or reverting.
func (e *importEnv) waitFor(t *testing.T, id string) importBody {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		var b importBody
		e.c.API(http.MethodGet, "/api/v1/imports/"+id, e.read, nil).JSON(t, &b)
		if b.Data.Status != "importing" && b.Data.Status != "reverting" {
			return b
		}
		if time.Now().After(deadline) {
			t.Fatalf("import %s still %s after 30s", id, b.Data.Status)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func (e *importEnv) count(t *testing.T, query string, args ...any) int {
	t.Helper()
	var n int
	if err := e.srv.DB.NewRaw(query, args...).Scan(context.Background(), &n); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return n
}

func TestTransactionImportPublishesAndReverts(t *testing.T) {
	t.Parallel()
	e := newImportEnv(t, apptest.ServerOptions{})
	acct := testkit.MustCreateAccount(t, e.srv.DB, e.user.FamilyID, "Checking", "Depository", "1000")
	csv := "date,amount,name,category,tags,notes\n" +
		"2024-01-02,-12.50,Coffee,Food:Coffee,morning|treats,flat white\n" +
		"2024-01-03,2500,Salary,Income,,\n" +
		"2024-01-04,-80.00,Groceries,Food:Groceries,weekly,\n"
	r := e.create(t, map[string]any{"raw_file_content": csv, "date_format": "%Y-%m-%d", "account_id": acct.ID.String(), "publish": true}, http.StatusCreated)
	var b importBody
	r.JSON(t, &b)
	if b.Data.Status != "importing" || b.Data.Stats.RowsCount != 3 || b.Data.Stats.ValidRowsCount != 3 {
		t.Fatalf("created: %+v", b.Data)
	}
	done := e.waitFor(t, b.Data.ID)
	if done.Data.Status != "complete" {
		t.Fatalf("publish ended %s: %v", done.Data.Status, done.Data.Error)
	}
	if n := e.count(t, "SELECT count(*) FROM entries WHERE import_id = ?", uuid.MustParse(b.Data.ID)); n != 3 {
		t.Fatalf("%d entries, want 3", n)
	}
	if n := e.count(t, "SELECT count(*) FROM categories WHERE family_id = ?", e.user.FamilyID); n != 4 {
		t.Fatalf("%d categories, want Food, Coffee, Groceries, Income", n)
	}
	if n := e.count(t, "SELECT coalesce(sum(cardinality(tag_ids)), 0) FROM entries WHERE family_id = ?", e.user.FamilyID); n != 3 {
		t.Fatalf("%d tag links, want 3", n)
	}

	rv := e.c.API(http.MethodPost, "/api/v1/imports/"+b.Data.ID+"/revert", e.write, nil)
	if rv.Status != http.StatusAccepted {
		t.Fatalf("revert: %d %s", rv.Status, rv.Body)
	}
	reverted := e.waitFor(t, b.Data.ID)
	if reverted.Data.Status != "pending" {
		t.Fatalf("revert ended %s: %v", reverted.Data.Status, reverted.Data.Error)
	}
	if n := e.count(t, "SELECT count(*) FROM entries WHERE account_id = ? AND kind = 'transaction'", acct.ID); n != 0 {
		t.Fatalf("%d entries left after revert", n)
	}
	if n := e.count(t, "SELECT count(*) FROM categories WHERE family_id = ?", e.user.FamilyID); n != 0 {
		t.Fatalf("%d categories left after revert", n)
	}
}
