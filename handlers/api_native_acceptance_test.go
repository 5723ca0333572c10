package handlers_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"

	"tally/app/apptest"
	"tally/models"
	"tally/testkit"
)

// The NativeImport acceptance cases of reference/sure-imports.md §7 (5 to 10), as Tally
// decided them (DECISIONS "Imports" 3, 5 and 11).

// nativeProblem is one NativeImport preflight finding.
type nativeProblem struct {
	Code       string `json:"code"`
	Message    string `json:"message"`
	Chunk      int    `json:"chunk"`
	Line       int    `json:"line"`
	RecordType string `json:"record_type"`
	Field      string `json:"field"`
}

func (p nativeProblem) String() string {
	return fmt.Sprintf("%s@%d/%s/%s", p.Code, p.Line, p.RecordType, p.Field)
}

// nativePreflightBody is a PreflightResponse for a NativeImport.
type nativePreflightBody struct {
	Data struct {
		Type    string `json:"type"`
		Valid   bool   `json:"valid"`
		Content struct {
			Filename    string `json:"filename"`
			ContentType string `json:"content_type"`
			ByteSize    int    `json:"byte_size"`
		} `json:"content"`
		Stats struct {
			RowsCount        int            `json:"rows_count"`
			ValidRowsCount   int            `json:"valid_rows_count"`
			InvalidRowsCount int            `json:"invalid_rows_count"`
			EntityCounts     map[string]int `json:"entity_counts"`
			RecordTypeCounts map[string]int `json:"record_type_counts"`
		} `json:"stats"`
		Errors   []nativeProblem `json:"errors"`
		Warnings []nativeProblem `json:"warnings"`
	} `json:"data"`
}

// nativeRefusal is an ErrorResponseWithImportId whose details are preflight findings.
type nativeRefusal struct {
	Error    string          `json:"error"`
	Message  string          `json:"message"`
	Errors   []string        `json:"errors"`
	Details  []nativeProblem `json:"details"`
	ImportID string          `json:"import_id"`
}

// Lines reused by the cases below.
const (
	nAccount = `{"type":"Account","data":{"id":"a1","name":"Checking","balance":"100.00","currency":"USD","accountable_type":"Depository"}}`
	nTxn     = `{"type":"Transaction","data":{"id":"t1","account_id":"a1","date":"2024-01-02","amount":"100.00"}}`
	nMystery = `{"type":"MysteryType","data":{}}`
)

func ndjson(lines ...string) string { return strings.Join(lines, "\n") }

// entityKeys are the 15 keys of expected_record_counts.
var entityKeys = []string{"accounts", "balances", "categories", "tags", "merchants", "recurring_transactions",
	"transactions", "transfers", "rejected_transfers", "trades", "holdings", "valuations", "budgets",
	"budget_categories", "rules"}

// checkCounts fails unless counts has exactly the 15 entity keys, with want's values and 0
// for the others.
func checkCounts(t *testing.T, what string, counts map[string]int, want map[string]int) {
	t.Helper()
	if len(counts) != len(entityKeys) {
		t.Errorf("%s has %d keys, want the 15 entities: %v", what, len(counts), counts)
	}
	for _, k := range entityKeys {
		got, ok := counts[k]
		if !ok || got != want[k] {
			t.Errorf("%s[%s] = %d (present %v), want %d", what, k, got, ok, want[k])
		}
	}
}

// readbackJSON returns the import's verification.readback as raw JSON members.
func (e *importEnv) readbackJSON(t *testing.T, id string) map[string]json.RawMessage {
	t.Helper()
	var b struct {
		Data struct {
			Verification struct {
				Readback map[string]json.RawMessage `json:"readback"`
			} `json:"verification"`
		} `json:"data"`
	}
	r := e.c.API(http.MethodGet, "/api/v1/imports/"+id, e.read, nil)
	if r.Status != http.StatusOK {
		t.Fatalf("get import: %d %s", r.Status, r.Body)
	}
	r.JSON(t, &b)
	return b.Data.Verification.Readback
}

// publishNative creates a NativeImport with publish and waits for its job; it must end
// complete.
func (e *importEnv) publishNative(t *testing.T, content string) nativeBody {
	t.Helper()
	var created importBody
	e.create(t, map[string]any{"type": "NativeImport", "raw_file_content": content, "publish": "true"}, http.StatusCreated).JSON(t, &created)
	if created.Data.Status != "importing" {
		t.Fatalf("created import is %s, want importing", created.Data.Status)
	}
	b := e.native(t, created.Data.ID)
	if b.Data.Status != "complete" {
		t.Fatalf("import ended %s: %s\nserver log:\n%s", b.Data.Status, deref(b.Data.Error), e.srv.Logs.String())
	}
	return b
}

func (e *importEnv) revertNative(t *testing.T, id string) nativeBody {
	t.Helper()
	if r := e.c.API(http.MethodPost, "/api/v1/imports/"+id+"/revert", e.write, nil); r.Status != http.StatusAccepted {
		t.Fatalf("revert: %d %s", r.Status, r.Body)
	}
	return e.native(t, id)
}

// §7.5: what create refuses stores nothing.
func TestNativeImportCreateRejections(t *testing.T) {
	t.Parallel()
	e := newImportEnv(t, apptest.ServerOptions{})
	good := ndjson(nAccount)
	cases := []struct {
		name       string
		body       map[string]any // JSON body; nil for the multipart case
		file       string         // multipart file name
		key        string
		wantStatus int
		wantError  string
		inErrors   string // a text one of the body's errors must hold
	}{
		{"no content", map[string]any{"type": "NativeImport"}, "", "", 422, "missing_content", "raw_file_content"},
		{"whitespace is no content", map[string]any{"type": "NativeImport", "raw_file_content": " \n\t\n "}, "", "", 422, "missing_content", "raw_file_content"},
		{"not ndjson", map[string]any{"type": "NativeImport", "raw_file_content": "not ndjson"}, "", "", 422, "invalid_ndjson", ""},
		{"a first line without data", map[string]any{"type": "NativeImport", "raw_file_content": `{"type":"Account"}` + "\n" + nAccount}, "", "", 422, "invalid_ndjson", ""},
		{"a PDF", nil, "statement.pdf", "", 422, "invalid_file_type", ""},
		{"read key", map[string]any{"type": "NativeImport", "raw_file_content": good}, "", "read", 403, "insufficient_scope", ""},
		{"no key", map[string]any{"type": "NativeImport", "raw_file_content": good}, "", "none", 401, "unauthorized", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := apptest.NewClient(t, e.srv)
			key := e.write
			switch tc.key {
			case "read":
				key = e.read
			case "none":
				key = ""
			}
			var r *testkit.Response
			if tc.body == nil {
				body, ct := multipartBody(t, map[string]string{"type": "NativeImport", "publish": "true"}, tc.file, "application/pdf", []byte("%PDF-1.7 ..."))
				r = c.Do(http.MethodPost, "/api/v1/imports", body, map[string]string{"Content-Type": ct, "X-Api-Key": key})
			} else {
				r = c.API(http.MethodPost, "/api/v1/imports", key, tc.body)
			}
			if r.Status != tc.wantStatus {
				t.Fatalf("status %d, want %d: %s", r.Status, tc.wantStatus, r.Body)
			}
			var b apiError
			r.JSON(t, &b)
			if b.Error != tc.wantError || b.ImportID != "" {
				t.Fatalf("error %q import_id %q, want %q and no import: %s", b.Error, b.ImportID, tc.wantError, r.Body)
			}
			if tc.inErrors != "" && !slices.ContainsFunc(b.Errors, func(s string) bool { return strings.Contains(s, tc.inErrors) }) {
				t.Errorf("no entry of errors %q mentions %q: %s", b.Errors, tc.inErrors, r.Body)
			}
			if n := e.count(t, "SELECT count(*) FROM imports"); n != 0 {
				t.Fatalf("a refused create stored %d imports", n)
			}
		})
	}
}

// §7.5: a valid file is stored pending with its counts; readback is literally not_verified.
func TestNativeImportCreate(t *testing.T) {
	t.Parallel()
	e := newImportEnv(t, apptest.ServerOptions{})
	line := `{"type":"Account","data":{"id":"account_1","name":"Checking"}}`

	check := func(t *testing.T, r *testkit.Response, filename string) string {
		t.Helper()
		var ib importBody
		var nb nativeBody
		var content struct {
			Data struct {
				Type    string `json:"type"`
				Content struct {
					Filename string `json:"filename"`
					ByteSize int    `json:"byte_size"`
				} `json:"content"`
			} `json:"data"`
		}
		r.JSON(t, &ib)
		r.JSON(t, &nb)
		r.JSON(t, &content)
		if ib.Data.Status != "pending" || ib.Data.Type != "NativeImport" || ib.Data.Stats.RowsCount != 1 {
			t.Errorf("created %+v", ib.Data)
		}
		if content.Data.Content.Filename != filename || content.Data.Content.ByteSize != len(line) {
			t.Errorf("content %+v, want %s of %d bytes", content.Data.Content, filename, len(line))
		}
		checkCounts(t, "expected_record_counts", nb.Data.Verification.ExpectedRecordCounts, map[string]int{"accounts": 1})
		if nb.Data.Verification.Readback.Status != "not_verified" {
			t.Errorf("readback status %q, want not_verified", nb.Data.Verification.Readback.Status)
		}
		// The file is kept byte for byte.
		f := e.c.Do(http.MethodGet, "/api/v1/imports/"+ib.Data.ID+"/file", nil, map[string]string{"X-Api-Key": e.read})
		if f.Status != http.StatusOK || f.Body != line {
			t.Errorf("stored file: %d %q", f.Status, f.Body)
		}
		return ib.Data.ID
	}

	r := e.create(t, map[string]any{"type": "NativeImport", "raw_file_content": line}, http.StatusCreated)
	raw := check(t, r, "import.ndjson")
	if rb := e.readbackJSON(t, raw); string(rb["status"]) != `"not_verified"` {
		t.Errorf("GET readback %s, want the literal status not_verified", rb["status"])
	}

	body, ct := multipartBody(t, map[string]string{"type": "NativeImport"}, "family.ndjson", "application/x-ndjson", []byte(line))
	r = e.c.Do(http.MethodPost, "/api/v1/imports", body, map[string]string{"Content-Type": ct, "X-Api-Key": e.write})
	if r.Status != http.StatusCreated {
		t.Fatalf("multipart create: %d %s", r.Status, r.Body)
	}
	check(t, r, "family.ndjson")

	// A .ndjson name is enough, whatever type the client gives the part.
	body, ct = multipartBody(t, map[string]string{"type": "NativeImport"}, "export.ndjson", "application/x-unknown", []byte(line))
	if r := e.c.Do(http.MethodPost, "/api/v1/imports", body, map[string]string{"Content-Type": ct, "X-Api-Key": e.write}); r.Status != http.StatusCreated {
		t.Fatalf("multipart .ndjson with an odd type: %d %s", r.Status, r.Body)
	}
	if n := e.count(t, "SELECT count(*) FROM imports WHERE family_id = ? AND status = 'pending'", e.user.FamilyID); n != 3 {
		t.Fatalf("%d pending imports, want 3", n)
	}
}

// §7.6: an auto-publish the preflight refuses keeps the upload, marks it failed and lists
// each finding with where it is.
func TestNativeImportAutoPublishRefusedByPreflight(t *testing.T) {
	t.Parallel()
	e := newImportEnv(t, apptest.ServerOptions{})
	content := ndjson(nAccount, nMystery)
	r := e.c.API(http.MethodPost, "/api/v1/imports", e.write, map[string]any{"type": "NativeImport", "raw_file_content": content, "publish": true})
	if r.Status != http.StatusUnprocessableEntity {
		t.Fatalf("status %d: %s", r.Status, r.Body)
	}
	var b nativeRefusal
	r.JSON(t, &b)
	if b.Error != "preflight_failed" || b.ImportID == "" {
		t.Fatalf("refusal %+v", b)
	}
	if !slices.ContainsFunc(b.Errors, func(s string) bool { return strings.Contains(s, "unsupported record type MysteryType") }) {
		t.Errorf("errors %q do not name the unsupported type", b.Errors)
	}
	// Every detail is an object with its code, message and location.
	var raw struct {
		Details []map[string]any `json:"details"`
	}
	r.JSON(t, &raw)
	if len(raw.Details) != 1 {
		t.Fatalf("details %v, want the one finding", raw.Details)
	}
	for _, k := range []string{"code", "message", "line", "record_type", "field"} {
		if _, ok := raw.Details[0][k]; !ok {
			t.Errorf("detail %v has no %s", raw.Details[0], k)
		}
	}
	if d := b.Details[0]; d.Code != "unsupported_record_type" || d.Line != 2 || d.RecordType != "MysteryType" || d.Field != "type" {
		t.Errorf("detail %+v", d)
	}

	kept := e.native(t, b.ImportID)
	if kept.Data.Status != "failed" || !strings.HasPrefix(deref(kept.Data.Error), "The NDJSON preflight failed:") ||
		!strings.Contains(deref(kept.Data.Error), "unsupported record type MysteryType") {
		t.Fatalf("kept import %s: %q", kept.Data.Status, deref(kept.Data.Error))
	}
	if f := e.c.Do(http.MethodGet, "/api/v1/imports/"+b.ImportID+"/file", nil, map[string]string{"X-Api-Key": e.read}); f.Body != content {
		t.Errorf("the upload was not kept: %q", f.Body)
	}
	if n := e.count(t, "SELECT count(*) FROM accounts WHERE family_id = ?", e.user.FamilyID); n != 0 {
		t.Errorf("%d accounts written by a refused publish", n)
	}
}

// §7.8 (Tally: caught by preflight): a Transaction dated "not-a-date" is refused before
// anything is written.
func TestNativeImportInvalidDateIsRefusedBeforeWriting(t *testing.T) {
	t.Parallel()
	e := newImportEnv(t, apptest.ServerOptions{})
	content := ndjson(nAccount, `{"type":"Transaction","data":{"id":"t1","account_id":"a1","date":"not-a-date","amount":"10"}}`)
	r := e.c.API(http.MethodPost, "/api/v1/imports", e.write, map[string]any{"type": "NativeImport", "raw_file_content": content, "publish": "true"})
	var b nativeRefusal
	r.JSON(t, &b)
	if r.Status != http.StatusUnprocessableEntity || b.Error != "preflight_failed" || b.ImportID == "" {
		t.Fatalf("%d %s", r.Status, r.Body)
	}
	if len(b.Details) != 1 || b.Details[0].String() != "invalid_date@2/Transaction/date" {
		t.Errorf("details %v", b.Details)
	}
	kept := e.native(t, b.ImportID)
	if kept.Data.Status != "failed" {
		t.Errorf("status %s", kept.Data.Status)
	}
	for _, table := range []string{"accounts", "entries"} {
		if n := e.count(t, "SELECT count(*) FROM "+table+" WHERE family_id = ?", e.user.FamilyID); n != 0 {
			t.Errorf("%d %s written", n, table)
		}
	}
}

// §7.6: over the record limit, the upload is kept pending; the preflight warns.
func TestNativeImportMaxRecords(t *testing.T) {
	t.Parallel()
	e := newImportEnv(t, apptest.ServerOptions{Env: map[string]string{"IMPORT_MAX_RECORDS": "2"}})
	content := ndjson(nAccount, nTxn, strings.Replace(nTxn, `"t1"`, `"t2"`, 1))
	r := e.c.API(http.MethodPost, "/api/v1/imports", e.write, map[string]any{"type": "NativeImport", "raw_file_content": content, "publish": true})
	var b apiError
	r.JSON(t, &b)
	if r.Status != http.StatusUnprocessableEntity || b.Error != "max_row_count_exceeded" || b.ImportID == "" {
		t.Fatalf("%d %s", r.Status, r.Body)
	}
	if kept := e.native(t, b.ImportID); kept.Data.Status != "pending" {
		t.Errorf("kept import is %s, want pending", kept.Data.Status)
	}
	if n := e.count(t, "SELECT count(*) FROM accounts WHERE family_id = ?", e.user.FamilyID); n != 0 {
		t.Errorf("%d accounts written", n)
	}

	var p nativePreflightBody
	pr := e.c.API(http.MethodPost, "/api/v1/imports/preflight", e.read, map[string]any{"type": "NativeImport", "raw_file_content": content})
	if pr.Status != http.StatusOK {
		t.Fatalf("preflight: %d %s", pr.Status, pr.Body)
	}
	pr.JSON(t, &p)
	if !slices.ContainsFunc(p.Data.Warnings, func(w nativeProblem) bool { return w.Code == "max_row_count_exceeded" }) {
		t.Errorf("warnings %v, want max_row_count_exceeded", p.Data.Warnings)
	}
}

// §7.6: the upload is stored but cannot be queued: 500 with its id, and it stays pending.
func TestNativeImportEnqueueFailure(t *testing.T) {
	t.Parallel()
	e := newImportEnv(t, apptest.ServerOptions{NoWorker: true})
	mustExecDB(t, e, "ALTER TABLE river_job RENAME TO river_job_away")
	r := e.c.API(http.MethodPost, "/api/v1/imports", e.write, map[string]any{"type": "NativeImport", "raw_file_content": nAccount, "publish": "true"})
	mustExecDB(t, e, "ALTER TABLE river_job_away RENAME TO river_job")
	var b apiError
	r.JSON(t, &b)
	if r.Status != http.StatusInternalServerError || b.Error != "publish_failed" || b.ImportID == "" {
		t.Fatalf("%d %s", r.Status, r.Body)
	}
	if strings.Contains(r.Body, "river_job") || strings.Contains(r.Body, "SQLSTATE") {
		t.Errorf("the internal error leaked: %s", r.Body)
	}
	var kept importBody
	e.c.API(http.MethodGet, "/api/v1/imports/"+b.ImportID, e.read, nil).JSON(t, &kept)
	if kept.Data.Status != "pending" || kept.Data.Stats.RowsCount != 1 {
		t.Fatalf("kept import %+v", kept.Data)
	}
}

// §7.7: an account and its opening valuation read back matched; revert says reverted.
func TestNativeImportVerificationMatchedThenReverted(t *testing.T) {
	t.Parallel()
	e := newImportEnv(t, apptest.ServerOptions{})
	b := e.publishNative(t, ndjson(
		`{"type":"Account","data":{"id":"account-1","name":"Checking","balance":"100.00","currency":"USD","accountable_type":"Depository"}}`,
		`{"type":"Valuation","data":{"id":"valuation-1","account_id":"account-1","date":"2024-01-14","amount":"100.00","kind":"opening_anchor"}}`))
	v := b.Data.Verification
	checkCounts(t, "expected_record_counts", v.ExpectedRecordCounts, map[string]int{"accounts": 1, "valuations": 1})
	rb := v.Readback
	if rb.Status != "matched" || rb.CheckedAt == nil {
		t.Fatalf("readback %s at %v: %v", rb.Status, rb.CheckedAt, rb.Mismatches)
	}
	checkCounts(t, "actual_delta_counts", rb.ActualDeltaCounts, map[string]int{"accounts": 1, "valuations": 1})
	checkCounts(t, "checked_counts", rb.CheckedCounts, map[string]int{"accounts": 1, "valuations": 1})
	if rb.SynthesizedCounts["valuations"] != 0 {
		t.Errorf("synthesized %v: the file has the opening valuation", rb.SynthesizedCounts)
	}
	// mismatches is there, and empty (§7.7: mismatches = {}).
	if m, ok := e.readbackJSON(t, b.Data.ID)["mismatches"]; !ok || string(m) != "{}" {
		t.Errorf("readback.mismatches = %s (present %v), want {}", m, ok)
	}
	id := uuid.MustParse(b.Data.ID)
	if got := e.strings(t, `SELECT e.date || ':' || e.amount || ':' || v.kind FROM entries e JOIN valuations v ON v.entry_id = e.id
		JOIN accounts a ON a.id = e.account_id WHERE a.import_id = ?`, id); !slices.Equal(got, []string{"2024-01-14:100.0000:opening_anchor"}) {
		t.Errorf("valuations %v: the file's own, and no other", got)
	}

	r := e.revertNative(t, b.Data.ID)
	if r.Data.Status != "pending" || r.Data.Verification.Readback.Status != "reverted" {
		t.Fatalf("after revert: %s, readback %s", r.Data.Status, r.Data.Verification.Readback.Status)
	}
	for _, table := range []string{"accounts", "entries"} {
		if n := e.count(t, "SELECT count(*) FROM "+table+" WHERE family_id = ?", e.user.FamilyID); n != 0 {
			t.Errorf("%d %s left after revert", n, table)
		}
	}
}

// §7.8, as Tally decided it: the opening balance Tally makes for an account the file gives
// none is reported apart and does not cause a mismatch.
func TestNativeImportSynthesizedOpeningBalanceStillMatches(t *testing.T) {
	t.Parallel()
	e := newImportEnv(t, apptest.ServerOptions{})
	b := e.publishNative(t, `{"type":"Account","data":{"id":"account-1","name":"Checking","balance":"100.00","currency":"USD","accountable_type":"Depository"}}`)
	rb := b.Data.Verification.Readback
	if rb.Status != "matched" {
		t.Fatalf("readback %s: %v", rb.Status, rb.Mismatches)
	}
	checkCounts(t, "actual_delta_counts", rb.ActualDeltaCounts, map[string]int{"accounts": 1})
	checkCounts(t, "synthesized_counts", rb.SynthesizedCounts, map[string]int{"valuations": 1})
	id := uuid.MustParse(b.Data.ID)
	if got := e.strings(t, "SELECT balance::text FROM accounts WHERE import_id = ?", id); !slices.Equal(got, []string{"100.0000"}) {
		t.Errorf("balance %v, want 100", got)
	}
	if got := e.strings(t, `SELECT e.amount || ':' || v.kind FROM entries e JOIN valuations v ON v.entry_id = e.id
		JOIN accounts a ON a.id = e.account_id WHERE a.import_id = ?`, id); !slices.Equal(got, []string{"100.0000:opening_anchor"}) {
		t.Errorf("valuations %v, want the synthesized opening balance of 100", got)
	}
}

// DECISIONS 11: a category the family already has is reused, not a collision; revert
// leaves it.
func TestNativeImportMergesIntoExistingCategory(t *testing.T) {
	t.Parallel()
	e := newImportEnv(t, apptest.ServerOptions{})
	existing := uuid.New()
	mustExecDB(t, e, "INSERT INTO categories (id, family_id, name) VALUES (?, ?, 'Groceries')", existing, e.user.FamilyID)
	b := e.publishNative(t, ndjson(
		`{"type":"Category","data":{"id":"c1","name":"Groceries"}}`,
		nAccount,
		`{"type":"Transaction","data":{"id":"t1","account_id":"a1","date":"2024-01-02","amount":"25.00","name":"Market","category_id":"c1"}}`))
	rb := b.Data.Verification.Readback
	if rb.Status != "matched" {
		t.Fatalf("readback %s: %v", rb.Status, rb.Mismatches)
	}
	checkCounts(t, "merged_counts", rb.MergedCounts, map[string]int{"categories": 1})
	checkCounts(t, "actual_delta_counts", rb.ActualDeltaCounts, map[string]int{"accounts": 1, "categories": 1, "transactions": 1})
	if n := e.count(t, "SELECT count(*) FROM categories WHERE family_id = ? AND name = 'Groceries'", e.user.FamilyID); n != 1 {
		t.Fatalf("%d Groceries categories, want the existing one only", n)
	}
	id := uuid.MustParse(b.Data.ID)
	if got := e.strings(t, "SELECT category_id::text FROM entries WHERE import_id = ? AND kind = 'transaction'", id); !slices.Equal(got, []string{existing.String()}) {
		t.Fatalf("transaction category %v, want the existing %s", got, existing)
	}

	r := e.revertNative(t, b.Data.ID)
	if r.Data.Status != "pending" || r.Data.Verification.Readback.Status != "reverted" {
		t.Fatalf("after revert: %s, readback %s", r.Data.Status, r.Data.Verification.Readback.Status)
	}
	if n := e.count(t, "SELECT count(*) FROM categories WHERE id = ?", existing); n != 1 {
		t.Fatal("revert removed the category the family had before the import")
	}
	if n := e.count(t, "SELECT count(*) FROM entries WHERE family_id = ?", e.user.FamilyID); n != 0 {
		t.Errorf("%d entries left after revert", n)
	}
}

// §7.10 and §6.5: the preflight endpoint, with one case per finding the NativeImport
// preflight can produce. Nothing is stored.
func TestNativeImportPreflightFindings(t *testing.T) {
	t.Parallel()
	e := newImportEnv(t, apptest.ServerOptions{})
	dbAccount := testkit.MustCreateAccount(t, e.srv.DB, e.user.FamilyID, "In the database", "Depository", "")
	dbCategory := uuid.New()
	mustExecDB(t, e, "INSERT INTO categories (id, family_id, name) VALUES (?, ?, 'Food')", dbCategory, e.user.FamilyID)

	preflight := func(t *testing.T, content string) (*testkit.Response, nativePreflightBody) {
		t.Helper()
		var b nativePreflightBody
		r := apptest.NewClient(t, e.srv).API(http.MethodPost, "/api/v1/imports/preflight", e.read, map[string]any{"type": "NativeImport", "raw_file_content": content})
		if r.Status == http.StatusOK {
			r.JSON(t, &b)
		}
		return r, b
	}

	t.Run("a valid file", func(t *testing.T) {
		r, b := preflight(t, ndjson(nAccount, nTxn))
		if r.Status != http.StatusOK {
			t.Fatalf("%d %s", r.Status, r.Body)
		}
		d := b.Data
		if !d.Valid || d.Type != "NativeImport" || len(d.Errors) != 0 || len(d.Warnings) != 0 {
			t.Fatalf("%s", r.Body)
		}
		if d.Stats.RowsCount != 2 || d.Stats.ValidRowsCount != 2 || d.Stats.InvalidRowsCount != 0 {
			t.Errorf("stats %+v", d.Stats)
		}
		checkCounts(t, "entity_counts", d.Stats.EntityCounts, map[string]int{"accounts": 1, "transactions": 1})
		if len(d.Stats.RecordTypeCounts) != 2 || d.Stats.RecordTypeCounts["Account"] != 1 || d.Stats.RecordTypeCounts["Transaction"] != 1 {
			t.Errorf("record_type_counts %v", d.Stats.RecordTypeCounts)
		}
		if d.Content.Filename != "import.ndjson" || d.Content.ByteSize != len(ndjson(nAccount, nTxn)) {
			t.Errorf("content %+v", d.Content)
		}
	})

	// Empty or blank content is no content at all.
	for _, content := range []string{"", " \n\t\r\n "} {
		t.Run(fmt.Sprintf("no content %q", content), func(t *testing.T) {
			r, _ := preflight(t, content)
			var b apiError
			r.JSON(t, &b)
			if r.Status != http.StatusUnprocessableEntity || b.Error != "missing_content" {
				t.Fatalf("%d %s", r.Status, r.Body)
			}
		})
	}

	txnWith := func(extra string) string {
		return `{"type":"Transaction","data":{"id":"t1","account_id":"a1","date":"2024-01-02","amount":"100"` + extra + `}}`
	}
	type finding struct {
		code, recordType, field string
		line                    int
		text                    string // in the message, when set
	}
	cases := []struct {
		name     string
		content  string
		valid    bool
		errors   []finding // exactly these errors, in order
		warnings []finding // exactly these warnings, in order
		check    func(t *testing.T, b nativePreflightBody)
	}{
		{"invalid_json", "not ndjson", false,
			[]finding{{"invalid_json", "", "", 1, "not valid JSON"}}, []finding{{"no_importable_records", "", "", 0, ""}},
			func(t *testing.T, b nativePreflightBody) {
				if s := b.Data.Stats; s.RowsCount != 1 || s.ValidRowsCount != 0 || s.InvalidRowsCount != 1 {
					t.Errorf("stats %+v", s)
				}
			}},
		{"invalid_ndjson_record: an array", "[]", false,
			[]finding{{"invalid_ndjson_record", "", "", 1, "must be a JSON object"}}, []finding{{"no_importable_records", "", "", 0, ""}}, nil},
		{"invalid_ndjson_record: no data", ndjson(nAccount, `{"type":"Tag"}`), false,
			[]finding{{"invalid_ndjson_record", "Tag", "data", 2, "must include type and data"}}, nil, nil},
		{"invalid_ndjson_record: data not an object", `{"type":"Tag","data":[1]}`, false,
			[]finding{{"invalid_ndjson_record", "Tag", "data", 1, "data must be a JSON object"}}, nil, nil},
		{"invalid_ndjson_record plus an incomplete transaction", ndjson("[]", `{"type":"Transaction","data":{"id":"transaction-1"}}`), false,
			[]finding{{"invalid_ndjson_record", "", "", 1, ""},
				{"missing_required_fields", "Transaction", "account_id", 2, ""},
				{"missing_required_fields", "Transaction", "date", 2, ""},
				{"missing_required_fields", "Transaction", "amount", 2, ""}}, nil,
			func(t *testing.T, b nativePreflightBody) {
				if s := b.Data.Stats; s.RowsCount != 2 || s.ValidRowsCount != 1 || s.InvalidRowsCount != 1 {
					t.Errorf("stats %+v", s)
				}
			}},
		{"unsupported_record_type", ndjson(nAccount, nMystery), false,
			[]finding{{"unsupported_record_type", "MysteryType", "type", 2, "unsupported record type MysteryType"}}, nil,
			func(t *testing.T, b nativePreflightBody) {
				if s := b.Data.Stats; s.RowsCount != 2 || s.ValidRowsCount != 1 || s.EntityCounts["accounts"] != 1 || s.RecordTypeCounts["MysteryType"] != 1 {
					t.Errorf("stats %+v", s)
				}
			}},
		// A byte-order mark passes the blank-content check but holds no line.
		{"no_data_rows", "\uFEFF\n\n", false, []finding{{"no_data_rows", "", "", 0, "No data rows were found."}}, nil, nil},
		{"missing_required_fields", ndjson(nAccount, `{"type":"Transaction","data":{"id":"t1","account_id":"a1","amount":"1"}}`), false,
			[]finding{{"missing_required_fields", "Transaction", "date", 2, "missing required field date"}}, nil, nil},
		{"missing_required_fields: a split line without amount", ndjson(nAccount, txnWith(`,"split_lines":[{"name":"x"}]`)), false,
			[]finding{{"missing_required_fields", "Transaction", "split_lines[1].amount", 2, "split line 1 is missing required field amount"}}, nil, nil},
		{"invalid_accountable_type", `{"type":"Account","data":{"id":"a1","name":"X","balance":1,"accountable_type":"Kernel"}}`, false,
			[]finding{{"invalid_accountable_type", "Account", "accountable_type", 1, "Kernel"}}, nil, nil},
		{"invalid_accountable_subtype: not text", `{"type":"Account","data":{"id":"a1","name":"X","balance":1,"accountable_type":"Depository","subtype":5}}`, false,
			[]finding{{"invalid_accountable_subtype", "Account", "subtype", 1, ""}}, nil, nil},
		{"invalid_split_lines", ndjson(nAccount, txnWith(`,"split_lines":{"a":1}`)), false,
			[]finding{{"invalid_split_lines", "Transaction", "split_lines", 2, "must be an array"}}, nil, nil},
		{"invalid_split_line", ndjson(nAccount, txnWith(`,"split_lines":[1]`)), false,
			[]finding{{"invalid_split_line", "Transaction", "split_lines[1]", 2, "split line 1 must be a JSON object"}}, nil, nil},
		{"split_amount_mismatch", ndjson(nAccount, txnWith(`,"split_lines":[{"id":"s1","amount":"60"},{"id":"s2","amount":"30"}]`)), false,
			[]finding{{"split_amount_mismatch", "Transaction", "split_lines", 2, "sum to 90"}}, nil, nil},
		{"duplicate_source_id", ndjson(nAccount, strings.Replace(nAccount, "Checking", "Savings", 1)), false,
			[]finding{{"duplicate_source_id", "Account", "id", 2, `"a1"`}}, nil, nil},
		{"duplicate_taxonomy_name", ndjson(`{"type":"Category","data":{"id":"c1","name":"Groceries"}}`, `{"type":"Category","data":{"id":"c2","name":"Groceries"}}`), false,
			[]finding{{"duplicate_taxonomy_name", "Category", "name", 2, `"Groceries"`}}, nil, nil},
		{"duplicate_valuation", ndjson(nAccount,
			`{"type":"Valuation","data":{"account_id":"a1","date":"2024-01-01","amount":"1"}}`,
			`{"type":"Valuation","data":{"account_id":"a1","date":"2024-01-01","amount":"2"}}`), false,
			[]finding{{"duplicate_valuation", "Valuation", "date", 3, "first seen on line 2"}}, nil, nil},
		{"duplicate_external_id", ndjson(nAccount,
			txnWith(`,"source":"simplefin","external_id":"x1"`),
			strings.Replace(txnWith(`,"source":"simplefin","external_id":"x1"`), `"t1"`, `"t2"`, 1)), false,
			[]finding{{"duplicate_external_id", "Transaction", "external_id", 3, "line 2"}}, nil, nil},
		// References resolve within the file only, even to ids the database has.
		{"missing_reference", ndjson(
			`{"type":"Valuation","data":{"account_id":"`+dbAccount.ID.String()+`","date":"2024-01-14","amount":"1"}}`,
			`{"type":"Category","data":{"id":"c1","name":"Dining","parent_id":"`+dbCategory.String()+`"}}`), false,
			[]finding{{"missing_reference", "Valuation", "account_id", 1, dbAccount.ID.String()},
				{"missing_reference", "Category", "parent_id", 2, dbCategory.String()}}, nil, nil},
		{"invalid_date", ndjson(nAccount, `{"type":"Transaction","data":{"id":"t1","account_id":"a1","date":"not-a-date","amount":"1"}}`), false,
			[]finding{{"invalid_date", "Transaction", "date", 2, `"not-a-date"`}}, nil, nil},
		{"invalid_number", ndjson(nAccount, `{"type":"Transaction","data":{"id":"t1","account_id":"a1","date":"2024-01-01","amount":"12,34.5"}}`), false,
			[]finding{{"invalid_number", "Transaction", "amount", 2, `"12,34.5"`}}, nil, nil},
		{"invalid_currency", strings.Replace(nAccount, `"USD"`, `"US Dollar"`, 1), false,
			[]finding{{"invalid_currency", "Account", "currency", 1, `"US Dollar"`}}, nil, nil},
		{"invalid_value", `{"type":"RecurringTransaction","data":{"id":"r1","amount":"5","expected_day_of_month":32,"last_occurrence_date":"2024-01-01","next_expected_date":"2024-02-01"}}`, false,
			[]finding{{"invalid_value", "RecurringTransaction", "expected_day_of_month", 1, "32"}}, nil, nil},
		// Warnings do not block.
		{"skipped_missing_reference: orphan rejected transfer, null rule name", ndjson(nAccount,
			`{"type":"Rule","version":1,"data":{"id":"r1","name":null,"resource_type":"transaction","conditions":[],"actions":[{"action_type":"set_transaction_category","value":"Food"}]}}`,
			`{"type":"RejectedTransfer","data":{"inflow_transaction_id":"x","outflow_transaction_id":"y"}}`), true,
			nil, []finding{{"skipped_missing_reference", "RejectedTransfer", "inflow_transaction_id", 3, "skipped"},
				{"skipped_missing_reference", "RejectedTransfer", "outflow_transaction_id", 3, "skipped"}}, nil},
		{"invalid_accountable_subtype: a warning", `{"type":"Account","data":{"id":"a1","name":"X","balance":1,"accountable_type":"Depository","accountable":{"subtype":"not-a-subtype"}}}`, true,
			nil, []finding{{"invalid_accountable_subtype", "Account", "accountable.subtype", 1, `"not-a-subtype"`}}, nil},
		{"no_importable_records", nMystery, false,
			[]finding{{"unsupported_record_type", "MysteryType", "type", 1, ""}}, []finding{{"no_importable_records", "", "", 0, "No importable records were found."}}, nil},
	}
	compare := func(t *testing.T, what string, got []nativeProblem, want []finding) {
		t.Helper()
		if len(got) != len(want) {
			t.Errorf("%s %v, want %d", what, got, len(want))
			return
		}
		for i, w := range want {
			g := got[i]
			if g.Code != w.code || g.Line != w.line || g.RecordType != w.recordType || g.Field != w.field || g.Chunk != 0 {
				t.Errorf("%s[%d] = %s, want %s@%d/%s/%s", what, i, g, w.code, w.line, w.recordType, w.field)
			}
			if g.Message == "" || !strings.Contains(g.Message, w.text) {
				t.Errorf("%s[%d] message %q, want one containing %q", what, i, g.Message, w.text)
			}
		}
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r, b := preflight(t, tc.content)
			if r.Status != http.StatusOK {
				t.Fatalf("%d %s", r.Status, r.Body)
			}
			if b.Data.Valid != tc.valid {
				t.Errorf("valid %v, want %v: %s", b.Data.Valid, tc.valid, r.Body)
			}
			compare(t, "errors", b.Data.Errors, tc.errors)
			compare(t, "warnings", b.Data.Warnings, tc.warnings)
			if tc.check != nil {
				tc.check(t, b)
			}
		})
	}
	if n := e.count(t, "SELECT count(*) FROM imports"); n != 0 {
		t.Fatalf("preflight stored %d imports", n)
	}
	if n := e.count(t, "SELECT count(*) FROM accounts WHERE family_id = ?", e.user.FamilyID); n != 1 {
		t.Fatalf("%d accounts: preflight wrote records", n)
	}
}

// DECISIONS 11: readback counts only the import's own records, so writes to the same family
// while a large publish runs never make it a mismatch.
func TestNativeImportReadbackIgnoresConcurrentWritesToTheFamily(t *testing.T) {
	t.Parallel()
	e := newImportEnv(t, apptest.ServerOptions{})
	fam := e.user.FamilyID
	everyday := testkit.MustCreateAccount(t, e.srv.DB, fam, "Everyday", "Depository", "")

	const nCategories, nTransactions = 5, 6000 // more than one COPY batch of entries
	var file strings.Builder
	file.WriteString(`{"type":"Account","data":{"id":"big","name":"Big account","balance":"5000.00","currency":"USD","accountable_type":"Depository"}}`)
	for i := range nCategories {
		fmt.Fprintf(&file, "\n"+`{"type":"Category","data":{"id":"cat-%d","name":"Imported %d"}}`, i, i)
	}
	for i := range nTransactions {
		fmt.Fprintf(&file, "\n"+`{"type":"Transaction","data":{"id":"t-%d","account_id":"big","date":"2024-%02d-%02d","amount":"%d.%02d","name":"Purchase %d","category_id":"cat-%d"}}`,
			i, i%12+1, i%28+1, i%90+1, i%100, i, i%nCategories)
	}

	// Another writer keeps adding categories, accounts (with their opening balances) and
	// entries to the same family from before the publish starts until after it ends. Each
	// round runs to its end, so the rounds counted are exactly what it wrote.
	ctx := context.Background()
	stop := make(chan struct{})
	started := make(chan struct{})
	var startedOnce sync.Once
	var wg sync.WaitGroup
	var stopOnce sync.Once
	halt := func() {
		stopOnce.Do(func() { close(stop) })
		wg.Wait()
	}
	defer halt() // also when the test fails while the writer runs
	var writes int
	var writeErr error
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer startedOnce.Do(func() { close(started) })
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			name := fmt.Sprintf("Concurrent %d", i)
			if _, err := e.srv.DB.NewRaw("INSERT INTO categories (id, family_id, name) VALUES (?, ?, ?)", uuid.New(), fam, name).Exec(ctx); err != nil {
				writeErr = err
				return
			}
			if _, err := models.CreateAccount(ctx, e.srv.DB, fam, models.AccountInput{Name: name,
				AccountableType: "Depository", Currency: "USD", Balance: testkit.Ptr(decimal.NewFromInt(10))}); err != nil {
				writeErr = err
				return
			}
			if _, err := e.srv.DB.NewRaw(`INSERT INTO entries (id, family_id, account_id, kind, date, amount, currency, name)
				VALUES (?, ?, ?, 'transaction', '2024-03-01', 1, 'USD', ?)`, uuid.New(), fam, everyday.ID, name).Exec(ctx); err != nil {
				writeErr = err
				return
			}
			writes++
			startedOnce.Do(func() { close(started) })
		}
	}()
	<-started

	var created importBody
	e.create(t, map[string]any{"type": "NativeImport", "raw_file_content": file.String(), "publish": true}, http.StatusCreated).JSON(t, &created)
	b := e.native(t, created.Data.ID)
	halt()
	if writeErr != nil {
		t.Fatalf("concurrent writer: %v", writeErr)
	}
	if writes < 2 {
		t.Fatalf("the concurrent writer made only %d writes", writes)
	}
	t.Logf("%d rounds of concurrent writes", writes)
	if b.Data.Status != "complete" {
		t.Fatalf("import ended %s: %s", b.Data.Status, deref(b.Data.Error))
	}

	want := map[string]int{"accounts": 1, "categories": nCategories, "transactions": nTransactions}
	v := b.Data.Verification
	checkCounts(t, "expected_record_counts", v.ExpectedRecordCounts, want)
	rb := v.Readback
	if rb.Status != "matched" || len(rb.Mismatches) != 0 {
		t.Fatalf("readback %s with %d concurrent writes: mismatches %v", rb.Status, writes, rb.Mismatches)
	}
	checkCounts(t, "actual_delta_counts", rb.ActualDeltaCounts, want)
	checkCounts(t, "checked_counts", rb.CheckedCounts, want)
	checkCounts(t, "synthesized_counts", rb.SynthesizedCounts, map[string]int{"valuations": 1})
	checkCounts(t, "merged_counts", rb.MergedCounts, nil)

	// The database agrees, and the other writer's records are not the import's.
	id := uuid.MustParse(created.Data.ID)
	if n := e.count(t, "SELECT count(*) FROM entries WHERE import_id = ? AND kind = 'transaction'", id); n != nTransactions {
		t.Errorf("%d imported transactions, want %d", n, nTransactions)
	}
	if n := e.count(t, "SELECT count(*) FROM categories WHERE import_id = ?", id); n != nCategories {
		t.Errorf("%d imported categories, want %d", n, nCategories)
	}
	if n := e.count(t, "SELECT count(*) FROM categories WHERE family_id = ? AND name LIKE 'Concurrent %'", fam); n != writes {
		t.Errorf("%d concurrent categories, want %d", n, writes)
	}
	if got := e.strings(t, "SELECT balance::text FROM accounts WHERE import_id = ?", id); !slices.Equal(got, []string{"5000.0000"}) {
		t.Errorf("imported account balance %v, want the file's 5000", got)
	}
}
