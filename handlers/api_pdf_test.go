package handlers_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/google/uuid"

	"tally/app/apptest"
	"tally/testkit"
)

func statementPDF(t *testing.T, withElectric bool) []byte {
	return testkit.StatementPDF(t, withElectric)
}

func (e *importEnv) uploadPDF(t *testing.T, fields map[string]string, pdf []byte) *testkit.Response {
	t.Helper()
	body, ct := multipartBody(t, fields, "january.pdf", "application/pdf", pdf)
	return e.c.Do(http.MethodPost, "/api/v1/imports", body, map[string]string{"Content-Type": ct, "X-Api-Key": e.write})
}

func TestPdfImportReconcilesPublishesAndReverts(t *testing.T) {
	t.Parallel()
	e := newImportEnv(t, apptest.ServerOptions{})
	acct := testkit.MustCreateAccount(t, e.srv.DB, e.user.FamilyID, "Checking", "Depository", "")
	r := e.uploadPDF(t, map[string]string{"type": "PdfImport", "account_id": acct.ID.String(), "publish": "true"}, statementPDF(t, true))
	if r.Status != http.StatusCreated {
		t.Fatalf("create: %d %s", r.Status, r.Body)
	}
	var b struct {
		Data struct {
			ID        string
			Statement struct {
				Extractor  string
				Reconciled bool
				Opening    string `json:"opening_balance"`
				Closing    string `json:"closing_balance"`
			}
		}
	}
	r.JSON(t, &b)
	// pdftotext reads the text when it is installed (CI installs it); the pure-Go reader otherwise.
	extractor := "pdftotext"
	if _, err := exec.LookPath("pdftotext"); err != nil {
		extractor = "go"
	}
	if st := b.Data.Statement; !st.Reconciled || st.Opening != "1000" || st.Closing != "2119.75" || st.Extractor != extractor {
		t.Fatalf("statement %+v", st)
	}
	if got := e.waitFor(t, b.Data.ID); got.Data.Status != "complete" {
		t.Fatalf("publish: %s %v", got.Data.Status, deref(got.Data.Error))
	}
	// Money out is an outflow: positive in the ledger. Around the lines, the statement's opening
	// balance the day before its period and its closing balance on its last day: checkpoints,
	// the closing one the account's anchor, as its balance was not known.
	want := []string{"1000.00", "-2500.00", "1200.00", "120.25", "60.00", "2119.75"}
	if got := e.amounts(t, b.Data.ID); !slices.Equal(got, want) {
		t.Fatalf("entries %v, want %v", got, want)
	}
	names := e.strings(t, "SELECT name FROM entries WHERE import_id = ? AND kind = 'transaction' ORDER BY date", uuid.MustParse(b.Data.ID))
	if strings.Join(names, ",") != "PAYROLL ACME CORP,RENT JANUARY,ELECTRIC COMPANY,ATM WITHDRAWAL" {
		t.Fatalf("names %v", names)
	}

	// The same statement again: every line is already in the account.
	r = e.uploadPDF(t, map[string]string{"type": "PdfImport", "account_id": acct.ID.String(), "publish": "true"}, statementPDF(t, true))
	r.JSON(t, &b)
	if got := e.waitFor(t, b.Data.ID); got.Data.Status != "complete" || got.Data.Stats.DuplicateRowsCount != 4 {
		t.Fatalf("second upload: %s, %d duplicates", got.Data.Status, got.Data.Stats.DuplicateRowsCount)
	}
	if n := e.count(t, "SELECT count(*) FROM entries WHERE account_id = ? AND kind = 'transaction'", acct.ID); n != 4 {
		t.Fatalf("%d transactions after importing the statement twice", n)
	}
	if balance := e.strings(t, "SELECT balance::numeric(19,2)::text FROM accounts WHERE id = ?", acct.ID); balance[0] != "2119.75" {
		t.Fatalf("balance %s, want the statement's closing balance", balance[0])
	}
}

func TestPdfImportThatDoesNotReconcileIsNotPublishable(t *testing.T) {
	t.Parallel()
	e := newImportEnv(t, apptest.ServerOptions{})
	acct := testkit.MustCreateAccount(t, e.srv.DB, e.user.FamilyID, "Checking", "Depository", "")
	r := e.uploadPDF(t, map[string]string{"type": "PdfImport", "account_id": acct.ID.String(), "publish": "true"}, statementPDF(t, false))
	var b apiError
	r.JSON(t, &b)
	if r.Status != http.StatusUnprocessableEntity || b.Error != "not_publishable" || b.ImportID == "" || !strings.Contains(r.Body, "does not reconcile") {
		t.Fatalf("publish of a statement missing a line: %d %s", r.Status, r.Body)
	}
	// The row whose running balance does not follow says so.
	var rows struct {
		Data []struct {
			Valid  bool
			Errors []string
		}
	}
	e.c.API(http.MethodGet, "/api/v1/imports/"+b.ImportID+"/rows?only=invalid", e.read, nil).JSON(t, &rows)
	if len(rows.Data) != 1 || !strings.Contains(strings.Join(rows.Data[0].Errors, " "), "running balance") {
		t.Fatalf("invalid rows %+v", rows.Data)
	}
	if n := e.count(t, "SELECT count(*) FROM entries WHERE account_id = ? AND kind = 'transaction'", acct.ID); n != 0 {
		t.Fatalf("%d entries written from a statement that does not reconcile", n)
	}
}

func TestPdfImportRejections(t *testing.T) {
	t.Parallel()
	e := newImportEnv(t, apptest.ServerOptions{})
	for _, c := range []struct {
		name   string
		fields map[string]string
		pdf    []byte
		code   string
	}{
		{"not a PDF", map[string]string{"type": "PdfImport"}, []byte("date,amount\n"), "invalid_file_type"},
		{"LLM not configured", map[string]string{"type": "PdfImport", "extractor": "llm"}, statementPDF(t, true), "validation_failed"},
		{"unknown extractor", map[string]string{"type": "PdfImport", "extractor": "ocr"}, statementPDF(t, true), "validation_failed"},
	} {
		r := e.uploadPDF(t, c.fields, c.pdf)
		var b apiError
		r.JSON(t, &b)
		if r.Status != http.StatusUnprocessableEntity || b.Error != c.code {
			t.Errorf("%s: %d %s", c.name, r.Status, r.Body)
		}
	}
	r := e.c.API(http.MethodPost, "/api/v1/imports", e.write, map[string]any{"type": "PdfImport", "raw_file_content": "%PDF-1.4"})
	if r.Status != http.StatusUnprocessableEntity || !strings.Contains(r.Body, "multipart") {
		t.Errorf("raw content for a PDF: %d %s", r.Status, r.Body)
	}
	if n := e.count(t, "SELECT count(*) FROM imports"); n != 0 {
		t.Fatalf("%d imports stored by rejected requests", n)
	}
}

// With an OpenAI-compatible endpoint configured, a statement can be read by the model instead;
// its answer is reconciled like the built-in parser's.
func TestPdfImportWithTheLLMExtractor(t *testing.T) {
	t.Parallel()
	var asked atomic.Int32
	llm := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		asked.Add(1)
		if r.URL.Path != "/v1/chat/completions" || r.Header.Get("Authorization") != "Bearer llm-test-key" {
			http.Error(w, "unexpected request", http.StatusBadRequest)
			return
		}
		reply := `{"opening_balance": 1000, "closing_balance": 2119.75, "currency": "USD", "transactions": [
			{"date": "2024-01-02", "description": "PAYROLL ACME CORP", "amount": 2500},
			{"date": "2024-01-03", "description": "RENT JANUARY", "amount": -1200},
			{"date": "2024-01-10", "description": "ELECTRIC COMPANY", "amount": -120.25},
			{"date": "2024-01-15", "description": "ATM WITHDRAWAL", "amount": -60}]}`
		json.NewEncoder(w).Encode(map[string]any{"choices": []any{map[string]any{"message": map[string]string{"role": "assistant", "content": reply}}}})
	}))
	t.Cleanup(llm.Close)
	e := newImportEnv(t, apptest.ServerOptions{Env: map[string]string{"LLM_BASE_URL": llm.URL + "/v1", "LLM_API_KEY": "llm-test-key", "LLM_MODEL": "statement-reader"}})
	acct := testkit.MustCreateAccount(t, e.srv.DB, e.user.FamilyID, "Checking", "Depository", "")
	r := e.uploadPDF(t, map[string]string{"type": "PdfImport", "account_id": acct.ID.String(), "extractor": "llm", "publish": "true"}, statementPDF(t, true))
	if r.Status != http.StatusCreated {
		t.Fatalf("create: %d %s", r.Status, r.Body)
	}
	var b struct {
		Data struct {
			ID        string
			Statement struct {
				Extractor  string
				Reconciled bool
			}
		}
	}
	r.JSON(t, &b)
	if b.Data.Statement.Extractor != "llm" || !b.Data.Statement.Reconciled || asked.Load() == 0 {
		t.Fatalf("statement %+v after %d requests", b.Data.Statement, asked.Load())
	}
	if got := e.waitFor(t, b.Data.ID); got.Data.Status != "complete" {
		t.Fatalf("publish: %s %v", got.Data.Status, deref(got.Data.Error))
	}
	if got := e.amounts(t, b.Data.ID); !slices.Equal(got, []string{"1000.00", "-2500.00", "1200.00", "120.25", "60.00", "2119.75"}) {
		t.Fatalf("entries %v", got)
	}
	if strings.Contains(e.srv.Logs.String(), "llm-test-key") {
		t.Fatal("the LLM key is in the log")
	}
}
