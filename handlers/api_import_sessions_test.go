package handlers_test

import (
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"tally/app/apptest"
	"tally/models"
	"tally/testkit"
)

type sessionBody struct {
	Data struct {
		ID             string `json:"id"`
		Status         string `json:"status"`
		ExpectedChunks *int   `json:"expected_chunks"`
		ChunksCount    int    `json:"chunks_count"`
		Error          *string
		Summary        map[string]struct{ Created, Merged, Synthesized, Skipped int }
		Problems       []struct {
			Code, Message, Field string
			Chunk, Line          int
			RecordType           string `json:"record_type"`
		}
		Verification struct {
			Readback struct{ Status string }
		}
		Chunks []struct {
			Sequence int
			Status   string
			SHA256   string `json:"sha256"`
			Error    *struct{ Code, Message string }
		}
	} `json:"data"`
}

const (
	sessionChunk1 = `{"type":"Account","data":{"id":"a1","name":"Checking","balance":"100","currency":"USD","accountable_type":"Depository"}}
{"type":"Category","data":{"id":"c1","name":"Groceries"}}
{"type":"Merchant","data":{"id":"m1","name":"Corner Shop"}}
{"type":"Tag","data":{"id":"t1","name":"Weekly"}}`
	sessionChunk2 = `{"type":"Transaction","data":{"id":"x1","account_id":"a1","date":"2024-03-01","amount":"25.00","name":"Milk","category_id":"c1","merchant_id":"m1","tag_ids":["t1"]}}`
)

func checksum(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

func (e *importEnv) chunk(t *testing.T, id string, body map[string]any, want int) *testkit.Response {
	t.Helper()
	r := e.c.API(http.MethodPost, "/api/v1/import_sessions/"+id+"/chunks", e.write, body)
	if r.Status != want {
		t.Fatalf("chunk %v: %d, want %d: %s", body["sequence"], r.Status, want, r.Body)
	}
	return r
}

func (e *importEnv) session(t *testing.T, id string) sessionBody {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		var b sessionBody
		e.c.API(http.MethodGet, "/api/v1/import_sessions/"+id, e.read, nil).JSON(t, &b)
		if b.Data.Status != "importing" || time.Now().After(deadline) {
			return b
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func TestImportSessionPublishesChunksThatReferToEarlierOnes(t *testing.T) {
	t.Parallel()
	e := newImportEnv(t, apptest.ServerOptions{})
	var s sessionBody
	r := e.c.API(http.MethodPost, "/api/v1/import_sessions", e.write, map[string]any{"client_session_id": "backup-1", "expected_chunks": 2})
	if r.Status != http.StatusCreated {
		t.Fatalf("create: %d %s", r.Status, r.Body)
	}
	r.JSON(t, &s)
	id := s.Data.ID

	// The same client_session_id is the same session.
	var again sessionBody
	e.c.API(http.MethodPost, "/api/v1/import_sessions", e.write, map[string]any{"client_session_id": "backup-1", "expected_chunks": "2"}).JSON(t, &again)
	if again.Data.ID != id {
		t.Fatalf("a repeated create made session %s, not %s", again.Data.ID, id)
	}

	e.chunk(t, id, map[string]any{"sequence": 1, "raw_file_content": sessionChunk1, "sha256": checksum(sessionChunk1)}, http.StatusCreated)
	// A retry of the same chunk is accepted and stores nothing more.
	e.chunk(t, id, map[string]any{"sequence": "1", "raw_file_content": sessionChunk1}, http.StatusOK)
	body, ct := multipartBody(t, map[string]string{"sequence": "2", "sha256": checksum(sessionChunk2)}, "part-2.ndjson", "application/x-ndjson", []byte(sessionChunk2))
	if r := e.c.Do(http.MethodPost, "/api/v1/import_sessions/"+id+"/chunks", body, map[string]string{"Content-Type": ct, "X-Api-Key": e.write}); r.Status != http.StatusCreated {
		t.Fatalf("chunk 2 as a file: %d %s", r.Status, r.Body)
	}
	if n := e.count(t, "SELECT count(*) FROM import_chunks WHERE import_id = ?", uuid.MustParse(id)); n != 2 {
		t.Fatalf("%d chunks stored, want 2", n)
	}

	if r := e.c.API(http.MethodPost, "/api/v1/import_sessions/"+id+"/publish", e.write, nil); r.Status != http.StatusAccepted {
		t.Fatalf("publish: %d %s", r.Status, r.Body)
	}
	done := e.session(t, id)
	if done.Data.Status != "complete" || done.Data.Verification.Readback.Status != "matched" {
		t.Fatalf("session %s (%v), readback %s", done.Data.Status, deref(done.Data.Error), done.Data.Verification.Readback.Status)
	}
	if got := done.Data.Summary["transactions"].Created; got != 1 {
		t.Errorf("summary: %d transactions created, want 1", got)
	}
	for _, c := range done.Data.Chunks {
		if c.Status != "complete" {
			t.Errorf("chunk %d is %s after the session completed", c.Sequence, c.Status)
		}
	}
	got := e.strings(t, `SELECT e.name || ':' || c.name || ':' || m.name || ':' || t.name FROM entries e JOIN categories c ON c.id = e.category_id
		JOIN merchants m ON m.id = e.merchant_id JOIN tags t ON t.id = ANY(e.tag_ids) WHERE e.import_id = ? AND e.kind = 'transaction'`, uuid.MustParse(id))
	if strings.Join(got, ",") != "Milk:Groceries:Corner Shop:Weekly" {
		t.Fatalf("the transaction of chunk 2 lost its references to chunk 1: %v", got)
	}
	// Publishing again does nothing, and the session is an import like any other.
	if r := e.c.API(http.MethodPost, "/api/v1/import_sessions/"+id+"/publish", e.write, nil); r.Status != http.StatusAccepted {
		t.Fatalf("publish again: %d %s", r.Status, r.Body)
	}
	if n := e.count(t, "SELECT count(*) FROM entries WHERE import_id = ? AND kind = 'transaction'", uuid.MustParse(id)); n != 1 {
		t.Fatalf("a second publish wrote %d transactions", n)
	}
	if b := e.native(t, id); b.Data.Verification.Readback.Status != "matched" {
		t.Fatalf("GET /api/v1/imports/{id} of a session: %+v", b.Data)
	}
}

func TestImportSessionRefusals(t *testing.T) {
	t.Parallel()
	e := newImportEnv(t, apptest.ServerOptions{})
	newSession := func(body map[string]any) string {
		var s sessionBody
		r := e.c.API(http.MethodPost, "/api/v1/import_sessions", e.write, body)
		if r.Status != http.StatusCreated {
			t.Fatalf("create %v: %d %s", body, r.Status, r.Body)
		}
		r.JSON(t, &s)
		return s.Data.ID
	}
	for _, c := range []struct {
		body map[string]any
		want int
		text string
	}{
		{map[string]any{"type": "TransactionImport"}, http.StatusUnprocessableEntity, "NativeImport"},
		{map[string]any{"expected_chunks": "2abc"}, http.StatusUnprocessableEntity, "expected_chunks"},
		{map[string]any{"expected_chunks": 0}, http.StatusUnprocessableEntity, "expected_chunks"},
	} {
		if r := e.c.API(http.MethodPost, "/api/v1/import_sessions", e.write, c.body); r.Status != c.want || !strings.Contains(r.Body, c.text) {
			t.Errorf("create %v: %d %s", c.body, r.Status, r.Body)
		}
	}
	newSession(map[string]any{"client_session_id": "s-2", "expected_chunks": 2})
	if r := e.c.API(http.MethodPost, "/api/v1/import_sessions", e.write, map[string]any{"client_session_id": "s-2", "expected_chunks": 3}); r.Status != http.StatusConflict {
		t.Errorf("the same client_session_id with other expected_chunks: %d %s", r.Status, r.Body)
	}

	id := newSession(map[string]any{"expected_chunks": 3})
	e.chunk(t, id, map[string]any{"sequence": 1, "raw_file_content": sessionChunk1}, http.StatusCreated)
	for _, c := range []struct {
		name string
		body map[string]any
		want int
		code string
		text string
	}{
		{"no sequence", map[string]any{"raw_file_content": sessionChunk2}, http.StatusBadRequest, "bad_request", "sequence"},
		{"malformed sequence", map[string]any{"sequence": "two", "raw_file_content": sessionChunk2}, http.StatusUnprocessableEntity, "validation_failed", "sequence"},
		{"out of order", map[string]any{"sequence": 3, "raw_file_content": sessionChunk2}, http.StatusUnprocessableEntity, "chunk_out_of_order", "the next is chunk 2"},
		{"beyond expected", map[string]any{"sequence": 4, "raw_file_content": sessionChunk2}, http.StatusUnprocessableEntity, "validation_failed", "exceeds expected_chunks 3"},
		{"wrong checksum", map[string]any{"sequence": 2, "raw_file_content": sessionChunk2, "sha256": checksum("something else")}, http.StatusUnprocessableEntity, "checksum_mismatch", "Chunk 2 does not match its checksum"},
		{"replayed with other content", map[string]any{"sequence": 1, "raw_file_content": sessionChunk2}, http.StatusConflict, "import_session_conflict", "different content"},
		{"no content", map[string]any{"sequence": 2}, http.StatusUnprocessableEntity, "missing_content", "raw_file_content"},
		{"not ndjson", map[string]any{"sequence": 2, "raw_file_content": "date,amount\n"}, http.StatusUnprocessableEntity, "invalid_ndjson", "first line"},
	} {
		r := e.c.API(http.MethodPost, "/api/v1/import_sessions/"+id+"/chunks", e.write, c.body)
		var b apiError
		r.JSON(t, &b)
		if r.Status != c.want || b.Error != c.code || !strings.Contains(r.Body, c.text) {
			t.Errorf("%s: %d %s", c.name, r.Status, r.Body)
		}
	}
	// Two of three chunks: publish says which are missing.
	e.chunk(t, id, map[string]any{"sequence": 2, "raw_file_content": sessionChunk2}, http.StatusCreated)
	if r := e.c.API(http.MethodPost, "/api/v1/import_sessions/"+id+"/publish", e.write, nil); r.Status != http.StatusConflict || !strings.Contains(r.Body, "missing chunk 3") {
		t.Errorf("publish with a chunk missing: %d %s", r.Status, r.Body)
	}
	if r := e.c.API(http.MethodPost, "/api/v1/import_sessions/"+newSession(nil)+"/publish", e.write, nil); r.Status != http.StatusConflict || !strings.Contains(r.Body, "no chunks") {
		t.Errorf("publish with no chunks: %d %s", r.Status, r.Body)
	}

	// Another family's session is not found, whatever the call.
	stranger := testkit.MustCreateUser(t, e.srv.DB, testkit.UserOpts{})
	key := testkit.MustCreateAPIKey(t, e.srv.DB, stranger.ID, models.ScopeReadWrite)
	for _, c := range []struct{ method, path string }{{http.MethodGet, ""}, {http.MethodPost, "/chunks"}, {http.MethodPost, "/publish"}} {
		r := e.c.API(c.method, "/api/v1/import_sessions/"+id+c.path, key, map[string]any{"sequence": 3, "raw_file_content": sessionChunk2})
		if r.Status != http.StatusNotFound {
			t.Errorf("%s %s of another family: %d %s", c.method, c.path, r.Status, r.Body)
		}
	}
	if r := e.c.API(http.MethodPost, "/api/v1/import_sessions", e.read, nil); r.Status != http.StatusForbidden {
		t.Errorf("a read key created a session: %d", r.Status)
	}
}

// A reference no earlier chunk defines is found when the session is published, located by
// chunk and line, and nothing is written.
func TestImportSessionPreflightNamesTheChunkAndLine(t *testing.T) {
	t.Parallel()
	e := newImportEnv(t, apptest.ServerOptions{})
	var s sessionBody
	e.c.API(http.MethodPost, "/api/v1/import_sessions", e.write, map[string]any{}).JSON(t, &s)
	id := s.Data.ID
	e.chunk(t, id, map[string]any{"sequence": 1, "raw_file_content": sessionChunk1}, http.StatusCreated)
	bad := sessionChunk2 + "\n" + `{"type":"Transaction","data":{"id":"x2","account_id":"a9","date":"2024-03-02","amount":"5"}}`
	e.chunk(t, id, map[string]any{"sequence": 2, "raw_file_content": bad}, http.StatusCreated)
	r := e.c.API(http.MethodPost, "/api/v1/import_sessions/"+id+"/publish", e.write, nil)
	var b apiError
	r.JSON(t, &b)
	if r.Status != http.StatusUnprocessableEntity || b.Error != "preflight_failed" || b.ImportID != id || !strings.Contains(r.Body, "chunk 2 line 2") {
		t.Fatalf("publish: %d %s", r.Status, r.Body)
	}
	got := e.session(t, id)
	if got.Data.Status != "failed" || len(got.Data.Problems) != 1 {
		t.Fatalf("session after a refused publish: %s %+v", got.Data.Status, got.Data.Problems)
	}
	if p := got.Data.Problems[0]; p.Chunk != 2 || p.Line != 2 || p.RecordType != "Transaction" || p.Field != "account_id" || p.Code != "missing_reference" {
		t.Fatalf("finding %+v", p)
	}
	if n := e.count(t, "SELECT count(*) FROM accounts WHERE family_id = ?", e.user.FamilyID); n != 0 {
		t.Fatalf("%d accounts written by a refused session", n)
	}
}
