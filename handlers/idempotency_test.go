package handlers_test

import (
	"bytes"
	"encoding/json"
	"mime/multipart"
	"net/http"
	"testing"

	"github.com/google/uuid"

	"tally/app/apptest"
	"tally/models"
	"tally/testkit"
)

// createWithKey posts an import as JSON with an Idempotency-Key.
func (e *importEnv) createWithKey(t *testing.T, apiKey, key string, body map[string]any) *testkit.Response {
	t.Helper()
	b, _ := json.Marshal(body)
	return e.c.Do(http.MethodPost, "/api/v1/imports", bytes.NewReader(b),
		map[string]string{"Content-Type": "application/json", "X-Api-Key": apiKey, "Idempotency-Key": key})
}

// uploadWithKey posts an import as a multipart form, whose boundary is new each time.
func (e *importEnv) uploadWithKey(t *testing.T, key, account, csv string) *testkit.Response {
	t.Helper()
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	_ = w.WriteField("account_id", account)
	_ = w.WriteField("date_format", "%Y-%m-%d")
	f, _ := w.CreateFormFile("file", "march.csv")
	_, _ = f.Write([]byte(csv))
	_ = w.Close()
	return e.c.Do(http.MethodPost, "/api/v1/imports", &buf,
		map[string]string{"Content-Type": w.FormDataContentType(), "X-Api-Key": e.write, "Idempotency-Key": key})
}

func importID(t *testing.T, r *testkit.Response) string {
	t.Helper()
	var b importBody
	r.JSON(t, &b)
	return b.Data.ID
}

// TestIdempotentImportCreate retries import creates with an Idempotency-Key: the same request
// answers the first response and creates nothing, however it is encoded; another request with
// the key is refused; an error is not kept; a key still at work is a 409; and keys are each
// user's own and last a day.
func TestIdempotentImportCreate(t *testing.T) {
	t.Parallel()
	e := newImportEnv(t, apptest.ServerOptions{NoWorker: true})
	acct := testkit.MustCreateAccount(t, e.srv.DB, e.user.FamilyID, "Checking", "Depository", "").ID.String()
	csv := "date,amount,name\n2026-03-01,-12.50,Coffee\n"
	body := map[string]any{"raw_file_content": csv, "date_format": "%Y-%m-%d", "account_id": acct}
	imports := func() int { return e.count(t, "SELECT count(*) FROM imports WHERE family_id = ?", e.user.FamilyID) }

	first := e.createWithKey(t, e.write, "retry-1", body)
	again := e.createWithKey(t, e.write, "retry-1", body)
	if first.Status != http.StatusCreated || again.Status != http.StatusCreated || importID(t, first) != importID(t, again) {
		t.Fatalf("retry: %d then %d %s", first.Status, again.Status, again.Body)
	}
	if first.Header.Get("Idempotent-Replayed") != "" || again.Header.Get("Idempotent-Replayed") != "true" {
		t.Errorf("Idempotent-Replayed: first %q, retry %q", first.Header.Get("Idempotent-Replayed"), again.Header.Get("Idempotent-Replayed"))
	}
	if n := imports(); n != 1 {
		t.Fatalf("%d imports after a retry, want 1", n)
	}

	t.Run("a multipart retry with a new boundary is the same request", func(t *testing.T) {
		a, b := e.uploadWithKey(t, "upload-1", acct, csv), e.uploadWithKey(t, "upload-1", acct, csv)
		if a.Status != http.StatusCreated || b.Status != http.StatusCreated || importID(t, a) != importID(t, b) {
			t.Fatalf("multipart retry: %d %d", a.Status, b.Status)
		}
		if c := e.uploadWithKey(t, "upload-1", acct, csv+"2026-03-02,-1,Tea\n"); c.Status != http.StatusUnprocessableEntity {
			t.Errorf("another file with the key: %d %s", c.Status, c.Body)
		}
	})

	t.Run("another request with the key is refused", func(t *testing.T) {
		before := imports()
		other := map[string]any{"raw_file_content": csv + "2026-03-02,-3,Tea\n", "date_format": "%Y-%m-%d", "account_id": acct}
		r := e.createWithKey(t, e.write, "retry-1", other)
		var b errorBody
		r.JSON(t, &b)
		if r.Status != http.StatusUnprocessableEntity || b.Error != "idempotency_key_reused" || imports() != before {
			t.Fatalf("reused key: %d %s", r.Status, r.Body)
		}
	})

	t.Run("an error is not kept", func(t *testing.T) {
		bad := map[string]any{"raw_file_content": csv, "date_format": "%Y-%m-%d", "account_id": uuid.NewString()}
		if r := e.createWithKey(t, e.write, "fix-and-retry", bad); r.Status != http.StatusUnprocessableEntity {
			t.Fatalf("bad account: %d %s", r.Status, r.Body)
		}
		if r := e.createWithKey(t, e.write, "fix-and-retry", body); r.Status != http.StatusCreated || r.Header.Get("Idempotent-Replayed") != "" {
			t.Errorf("the corrected retry: %d %s", r.Status, r.Body)
		}
	})

	t.Run("a key still at work", func(t *testing.T) {
		// A request holding the key right now (its answer not yet kept), then the same whose
		// process died three minutes ago.
		held := e.createWithKey(t, e.write, "busy", body)
		if _, err := e.srv.DB.NewRaw(`UPDATE idempotency_keys SET status = NULL, response = NULL, claimed_at = now() WHERE key = 'busy'`).Exec(t.Context()); err != nil {
			t.Fatal(err)
		}
		r := e.createWithKey(t, e.write, "busy", body)
		var b errorBody
		r.JSON(t, &b)
		if r.Status != http.StatusConflict || b.Error != "idempotency_key_in_use" || r.Header.Get("Retry-After") == "" {
			t.Errorf("busy key: %d %s %v", r.Status, r.Body, r.Header)
		}
		if _, err := e.srv.DB.NewRaw(`UPDATE idempotency_keys SET claimed_at = now() - interval '3 minutes' WHERE key = 'busy'`).Exec(t.Context()); err != nil {
			t.Fatal(err)
		}
		if r := e.createWithKey(t, e.write, "busy", body); r.Status != http.StatusCreated || importID(t, r) == importID(t, held) {
			t.Errorf("a key whose request died is not taken over: %d %s", r.Status, r.Body)
		}
	})

	t.Run("keys are each user's and last a day", func(t *testing.T) {
		sibling := testkit.MustCreateUser(t, e.srv.DB, testkit.UserOpts{FamilyID: e.user.FamilyID})
		key := testkit.MustCreateAPIKey(t, e.srv.DB, sibling.ID, models.ScopeReadWrite)
		if r := e.createWithKey(t, key, "retry-1", body); r.Status != http.StatusCreated || importID(t, r) == importID(t, first) {
			t.Errorf("another user's key of the same name: %d %s", r.Status, r.Body)
		}
		if _, err := e.srv.DB.NewRaw(`UPDATE idempotency_keys SET created_at = now() - interval '25 hours' WHERE key = 'retry-1' AND user_id = ?`, e.user.ID).Exec(t.Context()); err != nil {
			t.Fatal(err)
		}
		if r := e.createWithKey(t, e.write, "retry-1", body); r.Status != http.StatusCreated || importID(t, r) == importID(t, first) {
			t.Errorf("a day-old key still answered the old import: %d %s", r.Status, r.Body)
		}
	})

	t.Run("import sessions", func(t *testing.T) {
		post := func(key string, body map[string]any) *testkit.Response {
			b, _ := json.Marshal(body)
			return e.c.Do(http.MethodPost, "/api/v1/import_sessions", bytes.NewReader(b),
				map[string]string{"Content-Type": "application/json", "X-Api-Key": e.write, "Idempotency-Key": key})
		}
		a, b := post("session-1", map[string]any{"expected_chunks": 2}), post("session-1", map[string]any{"expected_chunks": 2})
		if a.Status != http.StatusCreated || b.Status != http.StatusCreated || importID(t, a) != importID(t, b) || b.Header.Get("Idempotent-Replayed") != "true" {
			t.Fatalf("session retry: %d %d %s", a.Status, b.Status, b.Body)
		}
		if r := post("session-1", map[string]any{"expected_chunks": 3}); r.Status != http.StatusUnprocessableEntity {
			t.Errorf("session key reused: %d %s", r.Status, r.Body)
		}
	})
}

// TestIdempotentTransactionCreate retries a transaction's create: one transaction, however many
// retries.
func TestIdempotentTransactionCreate(t *testing.T) {
	t.Parallel()
	e := newImportEnv(t, apptest.ServerOptions{NoWorker: true})
	acct := testkit.MustCreateAccount(t, e.srv.DB, e.user.FamilyID, "Checking", "Depository", "").ID.String()
	b, _ := json.Marshal(map[string]any{"account_id": acct, "date": "2026-03-01", "amount": "4.50", "name": "Coffee"})
	var ids []string
	for range 3 {
		r := e.c.Do(http.MethodPost, "/api/v1/transactions", bytes.NewReader(b),
			map[string]string{"Content-Type": "application/json", "X-Api-Key": e.write, "Idempotency-Key": "coffee-1"})
		var tb transactionBody
		r.JSON(t, &tb)
		if r.Status != http.StatusCreated {
			t.Fatalf("create: %d %s", r.Status, r.Body)
		}
		ids = append(ids, tb.Data.ID)
	}
	if ids[0] != ids[1] || ids[1] != ids[2] || e.count(t, "SELECT count(*) FROM entries WHERE account_id = ?", uuid.MustParse(acct)) != 1 {
		t.Errorf("three tries made %v", ids)
	}
}
