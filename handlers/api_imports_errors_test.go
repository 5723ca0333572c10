package handlers_test

import (
	"bytes"
	"mime/multipart"
	"net/http"
	"strings"
	"testing"

	"tally/app/apptest"
	"tally/testkit"
)

// apiError is an ErrorResponse or ErrorResponseWithImportId.
type apiError struct {
	Error    string   `json:"error"`
	Message  string   `json:"message"`
	Errors   []string `json:"errors"`
	ImportID string   `json:"import_id"`
}

// multipartBody builds a multipart form with fields and one file part.
func multipartBody(t *testing.T, fields map[string]string, filename, contentType string, content []byte) (*bytes.Buffer, string) {
	t.Helper()
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	for k, v := range fields {
		w.WriteField(k, v)
	}
	if filename != "" {
		h := make(map[string][]string)
		h["Content-Disposition"] = []string{`form-data; name="file"; filename="` + filename + `"`}
		h["Content-Type"] = []string{contentType}
		part, err := w.CreatePart(h)
		if err != nil {
			t.Fatal(err)
		}
		part.Write(content)
	}
	w.Close()
	return &buf, w.FormDataContentType()
}

func TestImportCreateRejections(t *testing.T) {
	t.Parallel()
	e := newImportEnv(t, apptest.ServerOptions{Env: map[string]string{"IMPORT_MAX_ROWS": "2"}})
	other := testkit.MustCreateUser(t, e.srv.DB, testkit.UserOpts{})
	foreign := testkit.MustCreateAccount(t, e.srv.DB, other.FamilyID, "Not yours", "Depository", "")
	own := testkit.MustCreateAccount(t, e.srv.DB, e.user.FamilyID, "Checking", "Depository", "")
	good := "date,amount,name\n2024-01-02,-10.00,Coffee\n"

	cases := []struct {
		name       string
		body       map[string]any
		key        string
		wantStatus int
		wantError  string
		wantText   string // in the message or one of the errors
		kept       bool   // the upload is stored (an ErrorResponseWithImportId)
	}{
		{"unknown type lists the valid ones", map[string]any{"type": "FakeImport", "raw_file_content": good}, "", 422, "invalid_import_type", "TransactionImport, TradeImport", false},
		{"bad number format", map[string]any{"raw_file_content": good, "number_format": "1_234.56"}, "", 422, "validation_failed", `Number format "1_234.56" is not one of`, false},
		{"bad separator", map[string]any{"raw_file_content": good, "col_sep": "colon"}, "", 422, "validation_failed", "Column separator", false},
		{"bad signage", map[string]any{"raw_file_content": good, "signage_convention": "up"}, "", 422, "validation_failed", "Signage convention", false},
		{"bad strategy", map[string]any{"raw_file_content": good, "amount_type_strategy": "guess"}, "", 422, "validation_failed", "Amount type strategy", false},
		{"custom column without inflow value", map[string]any{"raw_file_content": good, "amount_type_strategy": "custom_column"}, "", 422, "validation_failed", "amount_type_inflow_value", false},
		{"negative rows to skip", map[string]any{"raw_file_content": good, "rows_to_skip": -1}, "", 422, "validation_failed", "Rows to skip must be greater than or equal to 0", false},
		{"unknown date directive", map[string]any{"raw_file_content": good, "date_format": "%Y-%Q-%d"}, "", 422, "validation_failed", "%Q", false},
		{"date format without a day", map[string]any{"raw_file_content": good, "date_format": "%Y-%m"}, "", 422, "validation_failed", "day", false},
		{"another family's account", map[string]any{"raw_file_content": good, "account_id": foreign.ID.String()}, "", 422, "validation_failed", "Account must belong to your family", false},
		{"malformed account id", map[string]any{"raw_file_content": good, "account_id": "not-a-uuid"}, "", 422, "validation_failed", "Account must belong to your family", false},
		{"every problem at once", map[string]any{"raw_file_content": good, "col_sep": "x", "number_format": "x"}, "", 422, "validation_failed", "Column separator", false},
		{"no content", map[string]any{"type": "TransactionImport"}, "", 422, "missing_content", "Provide a file or raw_file_content.", false},
		{"a header and a million blank lines", map[string]any{"raw_file_content": "date,amount,name\n" + strings.Repeat("\n", 1_000_000)}, "", 422, "no_data_rows", "The file has no transactions: every line under its header is blank.", false},
		{"a header and lines of separators", map[string]any{"type": "auto", "raw_file_content": "date,amount,name\n" + strings.Repeat(",,\n", 1000)}, "", 422, "no_data_rows", "The file has no transactions: every line under its header is blank.", false},
		{"lines of separators", map[string]any{"raw_file_content": strings.Repeat(" , ,\r\n", 1000)}, "", 422, "no_data_rows", "The file has no transactions: it is blank.", false},
		{"a bank export of balance lines only", map[string]any{"raw_file_content": "Date,Description,Amount,Running Bal.\n01/01/2026,Beginning balance as of 01/01/2026,,100.00\n"}, "", 422, "no_data_rows", "one its bank marks as no transaction", false},
		{"categories under their header only", map[string]any{"type": "CategoryImport", "raw_file_content": "name,color\n\n"}, "", 422, "no_data_rows", "The file has no rows: every line under its header is blank.", false},
		{"unclosed quote names its line", map[string]any{"raw_file_content": "date,amount,name\n2024-01-02,1,\"Coffee\n2024-01-03,2,Tea\n"}, "", 422, "invalid_csv", "line 2", false},
		{"headers that normalise alike", map[string]any{"raw_file_content": "date,Date*,amount\n2024-01-02,x,1\n"}, "", 422, "invalid_csv", "date, Date*", false},
		{"missing required columns", map[string]any{"raw_file_content": "name\nMissing Amount\n"}, "", 422, "missing_required_headers", "Missing required columns: date, amount", false},
		{"rows to skip past the end", map[string]any{"raw_file_content": good, "rows_to_skip": 5}, "", 422, "invalid_csv", "rows to skip", false},
		{"publish must be a boolean", map[string]any{"raw_file_content": good, "publish": "maybe"}, "", 422, "validation_failed", "publish must be true or false", false},
		{"read key cannot create", map[string]any{"raw_file_content": good}, "read", 403, "insufficient_scope", "This action requires the 'write' scope", false},
		{"no key", map[string]any{"raw_file_content": good}, "none", 401, "unauthorized", "", false},
		{"invalid rows refuse auto-publish but keep the upload", map[string]any{"raw_file_content": "date,amount,name\nnot-a-date,abc,Coffee\n", "date_format": "%Y-%m-%d", "account_id": own.ID.String(), "publish": "true"}, "", 422, "not_publishable", "Row 1 (line 2)", true},
		{"too many rows refuse auto-publish but keep the upload", map[string]any{"raw_file_content": good + "2024-01-03,-1,A\n2024-01-04,-1,B\n", "date_format": "%Y-%m-%d", "account_id": own.ID.String(), "publish": true}, "", 422, "max_row_count_exceeded", "the limit is 2", true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			before := e.count(t, "SELECT count(*) FROM imports")
			key := e.write
			switch tc.key {
			case "read":
				key = e.read
			case "none":
				key = ""
			}
			r := e.c.API(http.MethodPost, "/api/v1/imports", key, tc.body)
			if r.Status != tc.wantStatus {
				t.Fatalf("status %d, want %d: %s", r.Status, tc.wantStatus, r.Body)
			}
			var body apiError
			r.JSON(t, &body)
			if body.Error != tc.wantError {
				t.Fatalf("error %q, want %q: %s", body.Error, tc.wantError, r.Body)
			}
			if tc.wantText != "" && !strings.Contains(body.Message+" "+strings.Join(body.Errors, " | "), tc.wantText) {
				t.Fatalf("response does not say %q: %s", tc.wantText, r.Body)
			}
			after := e.count(t, "SELECT count(*) FROM imports")
			if tc.kept {
				if body.ImportID == "" || after != before+1 {
					t.Fatalf("upload not kept with its id (import_id %q, %d → %d imports)", body.ImportID, before, after)
				}
				var b importBody
				e.c.API(http.MethodGet, "/api/v1/imports/"+body.ImportID, e.read, nil).JSON(t, &b)
				if b.Data.Status != "pending" {
					t.Fatalf("kept import is %s, want pending", b.Data.Status)
				}
			} else if after != before || body.ImportID != "" {
				t.Fatalf("a rejected request was stored (%d → %d imports, import_id %q)", before, after, body.ImportID)
			}
		})
	}
}

func TestImportUploadLimits(t *testing.T) {
	t.Parallel()
	e := newImportEnv(t, apptest.ServerOptions{})
	tenMB := 10 * 1024 * 1024
	row := "2024-01-02,-10.00,Coffee\n"
	big := "date,amount,name\n" + strings.Repeat(row, (tenMB-17)/len(row)+1)
	exact := []byte(big[:tenMB])
	exact = append(exact[:bytes.LastIndexByte(exact, '\n')+1], bytes.Repeat([]byte(" "), tenMB-bytes.LastIndexByte(exact, '\n')-1)...)

	cases := []struct {
		name        string
		filename    string
		contentType string
		content     []byte
		want        int
		wantError   string
	}{
		{"a file of exactly 10 MB is accepted", "big.csv", "text/csv", exact, 201, ""},
		{"a file one byte over is too large", "big.csv", "text/csv", append(append([]byte{}, exact...), '\n'), 422, "file_too_large"},
		{"a PDF is not a CSV", "statement.pdf", "application/pdf", []byte("%PDF-1.7 ..."), 422, "invalid_file_type"},
		{"binary content is refused whatever its type says", "data.csv", "text/csv", []byte("date\x00amount"), 422, "invalid_file_type"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			body, ct := multipartBody(t, map[string]string{"date_format": "%Y-%m-%d"}, tc.filename, tc.contentType, tc.content)
			r := e.c.Do(http.MethodPost, "/api/v1/imports", body, map[string]string{"Content-Type": ct, "X-Api-Key": e.write})
			if r.Status != tc.want {
				t.Fatalf("status %d, want %d: %.300s", r.Status, tc.want, r.Body)
			}
			if tc.wantError != "" {
				var b apiError
				r.JSON(t, &b)
				if b.Error != tc.wantError {
					t.Fatalf("error %q, want %q", b.Error, tc.wantError)
				}
			}
		})
	}
	r := e.c.API(http.MethodPost, "/api/v1/imports", e.write, map[string]any{"raw_file_content": big})
	var b apiError
	r.JSON(t, &b)
	if r.Status != 422 || b.Error != "content_too_large" || b.Message != "Content is too large. Maximum size is 10MB." {
		t.Fatalf("raw content over 10 MB: %d %+v", r.Status, b)
	}
}
