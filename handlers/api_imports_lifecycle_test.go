package handlers_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"tally/app/apptest"
	"tally/imports"
	"tally/testkit"
)

func TestPublishRevertPublishGivesTheSameResult(t *testing.T) {
	t.Parallel()
	e := newImportEnv(t, apptest.ServerOptions{})
	acct := testkit.MustCreateAccount(t, e.srv.DB, e.user.FamilyID, "Checking", "Depository", "")
	csv := "date,amount,name,category,tags\n2024-01-02,-12.50,Coffee,Food:Coffee,morning\n2024-01-03,2500,Salary,Income,\n"
	b := e.publish(t, map[string]any{"raw_file_content": csv, "date_format": "%Y-%m-%d", "account_id": acct.ID.String()})
	snapshot := func() string {
		return strings.Join(e.strings(t, `SELECT e.id || '|' || e.date || '|' || e.amount || '|' || e.name || '|' || coalesce(c.name, '') || '|' ||
				coalesce((SELECT string_agg(t.name, ';') FROM tags t WHERE t.id = ANY(e.tag_ids)), '') || '|' || a.balance
			FROM entries e JOIN accounts a ON a.id = e.account_id LEFT JOIN categories c ON c.id = e.category_id
			WHERE e.import_id = ? ORDER BY e.date`, uuid.MustParse(b.Data.ID)), "\n")
	}
	first := snapshot()
	if first == "" {
		t.Fatal("nothing published")
	}
	if r := e.c.API(http.MethodPost, "/api/v1/imports/"+b.Data.ID+"/revert", e.write, nil); r.Status != http.StatusAccepted {
		t.Fatalf("revert: %d %s", r.Status, r.Body)
	}
	if got := e.waitFor(t, b.Data.ID); got.Data.Status != "pending" || got.Data.Error != nil {
		t.Fatalf("after revert: %s %v", got.Data.Status, deref(got.Data.Error))
	}
	if r := e.c.API(http.MethodPost, "/api/v1/imports/"+b.Data.ID+"/publish", e.write, nil); r.Status != http.StatusAccepted {
		t.Fatalf("publish again: %d %s", r.Status, r.Body)
	}
	if got := e.waitFor(t, b.Data.ID); got.Data.Status != "complete" {
		t.Fatalf("second publish: %s", got.Data.Status)
	}
	if again := snapshot(); again != first {
		t.Fatalf("second publish differs:\n%s\nvs\n%s", again, first)
	}
	// A complete import can be neither published again nor deleted; a pending one cannot be reverted.
	for _, c := range []struct{ method, path, want string }{
		{http.MethodPost, "/publish", "not_publishable"},
		{http.MethodDelete, "", "not_deletable"},
	} {
		r := e.c.API(c.method, "/api/v1/imports/"+b.Data.ID+c.path, e.write, nil)
		if r.Status != http.StatusConflict || !strings.Contains(r.Body, c.want) {
			t.Errorf("%s %s on a complete import: %d %s", c.method, c.path, r.Status, r.Body)
		}
	}
}

func TestImportsOfAnotherFamilyAreNotFound(t *testing.T) {
	t.Parallel()
	e := newImportEnv(t, apptest.ServerOptions{})
	acct := testkit.MustCreateAccount(t, e.srv.DB, e.user.FamilyID, "Checking", "Depository", "")
	var b importBody
	e.create(t, map[string]any{"raw_file_content": "date,amount\n01/02/2024,1\n", "account_id": acct.ID.String()}, http.StatusCreated).JSON(t, &b)

	stranger := testkit.MustCreateUser(t, e.srv.DB, testkit.UserOpts{})
	key := testkit.MustCreateAPIKey(t, e.srv.DB, stranger.ID, "read_write")
	for _, c := range []struct{ method, path string }{
		{http.MethodGet, ""}, {http.MethodGet, "/rows"}, {http.MethodGet, "/file"},
		{http.MethodPost, "/publish"}, {http.MethodPost, "/revert"}, {http.MethodDelete, ""},
	} {
		r := e.c.API(c.method, "/api/v1/imports/"+b.Data.ID+c.path, key, nil)
		if r.Status != http.StatusNotFound {
			t.Errorf("%s %s of another family: %d", c.method, c.path, r.Status)
		}
	}
	var list struct{ Data []any }
	e.c.API(http.MethodGet, "/api/v1/imports", key, nil).JSON(t, &list)
	if len(list.Data) != 0 {
		t.Fatalf("another family's list shows %d imports", len(list.Data))
	}
	if got := e.waitFor(t, b.Data.ID); got.Data.Status != "pending" {
		t.Fatalf("the import changed: %s", got.Data.Status)
	}
}

func TestImportList(t *testing.T) {
	t.Parallel()
	e := newImportEnv(t, apptest.ServerOptions{})
	acct := testkit.MustCreateAccount(t, e.srv.DB, e.user.FamilyID, "Checking", "Depository", "")
	e.publish(t, map[string]any{"raw_file_content": "date,amount\n01/02/2024,1\n", "account_id": acct.ID.String()})
	e.create(t, map[string]any{"raw_file_content": "date,amount\n01/03/2024,2\n", "account_id": acct.ID.String()}, http.StatusCreated)
	e.create(t, map[string]any{"type": "CategoryImport", "raw_file_content": "name\nFood\n"}, http.StatusCreated)

	type listBody struct {
		Data []struct{ Type, Status string }
		Meta struct {
			TotalCount int  `json:"total_count"`
			NextPage   *int `json:"next_page"`
		}
	}
	cases := []struct {
		query string
		want  string // "type/status" newest first
	}{
		{"", "CategoryImport/pending,TransactionImport/pending,TransactionImport/complete"},
		{"?status=complete", "TransactionImport/complete"},
		{"?type=CategoryImport", "CategoryImport/pending"},
		{"?per_page=2", "CategoryImport/pending,TransactionImport/pending"},
		{"?per_page=2&page=2", "TransactionImport/complete"},
	}
	for _, c := range cases {
		var l listBody
		e.c.API(http.MethodGet, "/api/v1/imports"+c.query, e.read, nil).JSON(t, &l)
		var got []string
		for _, d := range l.Data {
			got = append(got, d.Type+"/"+d.Status)
		}
		if strings.Join(got, ",") != c.want {
			t.Errorf("list%s = %v, want %s", c.query, got, c.want)
		}
	}
	for _, bad := range []string{"?status=lost", "?type=Spreadsheet"} {
		if r := e.c.API(http.MethodGet, "/api/v1/imports"+bad, e.read, nil); r.Status != http.StatusUnprocessableEntity {
			t.Errorf("list%s: %d", bad, r.Status)
		}
	}
}

func TestReaperFailsImportsWhoseJobIsGone(t *testing.T) {
	t.Parallel()
	e := newImportEnv(t, apptest.ServerOptions{NoWorker: true})
	acct := testkit.MustCreateAccount(t, e.srv.DB, e.user.FamilyID, "Checking", "Depository", "")
	var lost, running importBody
	e.create(t, map[string]any{"raw_file_content": "date,amount\n01/02/2024,1\n", "account_id": acct.ID.String(), "publish": "true"}, http.StatusCreated).JSON(t, &lost)
	e.create(t, map[string]any{"raw_file_content": "date,amount\n01/03/2024,2\n", "account_id": acct.ID.String(), "publish": "true"}, http.StatusCreated).JSON(t, &running)
	ctx := context.Background()
	// The first import's job is gone; the second one's is still queued. Both look old.
	mustExecDB(t, e, "DELETE FROM river_job WHERE args->>'import_id' = ?", lost.Data.ID)
	mustExecDB(t, e, "UPDATE imports SET status_changed_at = now() - interval '5 minutes'")
	n, err := e.srv.Imports.ReapLost(ctx, 2*time.Hour)
	if err != nil || n != 1 {
		t.Fatalf("reaped %d (err %v), want 1", n, err)
	}
	got := e.get(t, lost.Data.ID)
	if got.Data.Status != "failed" || deref(got.Data.Error) != imports.MsgPublishLost {
		t.Fatalf("lost import: %s %q", got.Data.Status, deref(got.Data.Error))
	}
	if got := e.get(t, running.Data.ID); got.Data.Status != "importing" {
		t.Fatalf("an import with a live job was reaped: %s", got.Data.Status)
	}
	// A failed import can be published again.
	if r := e.c.API(http.MethodPost, "/api/v1/imports/"+lost.Data.ID+"/publish", e.write, nil); r.Status != http.StatusAccepted {
		t.Fatalf("republish after reaping: %d %s", r.Status, r.Body)
	}
}

// get reads the import once, whatever its status.
func (e *importEnv) get(t *testing.T, id string) importBody {
	t.Helper()
	var b importBody
	e.c.API(http.MethodGet, "/api/v1/imports/"+id, e.read, nil).JSON(t, &b)
	return b
}
