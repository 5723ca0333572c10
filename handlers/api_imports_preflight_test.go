package handlers_test

import (
	"net/http"
	"strings"
	"testing"

	"tally/app/apptest"
	"tally/testkit"
)

type preflightBody struct {
	Data struct {
		Type                   string   `json:"type"`
		Valid                  bool     `json:"valid"`
		Headers                []string `json:"headers"`
		RequiredHeaders        []string `json:"required_headers"`
		MissingRequiredHeaders []string `json:"missing_required_headers"`
		Errors                 []struct{ Code, Message string }
		Warnings               []string
		Stats                  struct {
			RowsCount      int `json:"rows_count"`
			ValidRowsCount int `json:"valid_rows_count"`
		}
	} `json:"data"`
}

// The preflight cases of the reference (§7.9): nothing is ever stored.
func TestPreflight(t *testing.T) {
	t.Parallel()
	e := newImportEnv(t, apptest.ServerOptions{})
	acct := testkit.MustCreateAccount(t, e.srv.DB, e.user.FamilyID, "Checking", "Depository", "")
	other := testkit.MustCreateUser(t, e.srv.DB, testkit.UserOpts{})
	foreign := testkit.MustCreateAccount(t, e.srv.DB, other.FamilyID, "Theirs", "Depository", "")
	cases := []struct {
		name       string
		body       map[string]any
		wantStatus int
		valid      bool
		check      func(t *testing.T, b preflightBody, raw string)
	}{
		{"a valid file", map[string]any{"raw_file_content": "date,amount,name\n2023-01-01,-10.00,Test Transaction", "date_format": "%Y-%m-%d", "account_id": acct.ID.String()}, 200, true,
			func(t *testing.T, b preflightBody, _ string) {
				if b.Data.Stats.RowsCount != 1 || strings.Join(b.Data.Headers, ",") != "date,amount,name" {
					t.Errorf("stats %+v headers %v", b.Data.Stats, b.Data.Headers)
				}
			}},
		{"missing required headers", map[string]any{"raw_file_content": "name\nMissing Amount"}, 200, false,
			func(t *testing.T, b preflightBody, _ string) {
				if strings.Join(b.Data.MissingRequiredHeaders, ",") != "date,amount" || b.Data.Errors[0].Code != "missing_required_headers" {
					t.Errorf("missing %v errors %+v", b.Data.MissingRequiredHeaders, b.Data.Errors)
				}
			}},
		{"rows to skip drops a preamble", map[string]any{"raw_file_content": "Exported by Bank\nposted,amount,description\n01/02/2024,1,x\n", "rows_to_skip": 1, "date_col_label": "posted", "name_col_label": "description", "account_id": acct.ID.String()}, 200, true,
			func(t *testing.T, b preflightBody, _ string) {
				if strings.Join(b.Data.Headers, ",") != "posted,amount,description" {
					t.Errorf("headers %v", b.Data.Headers)
				}
			}},
		{"an empty separator is a validation error", map[string]any{"raw_file_content": "date,amount\n", "col_sep": ""}, 200, false,
			func(t *testing.T, b preflightBody, _ string) {
				if b.Data.Errors[0].Code != "validation_failed" || b.Data.Stats.RowsCount != 0 {
					t.Errorf("errors %+v", b.Data.Errors)
				}
			}},
		{"a header without rows", map[string]any{"raw_file_content": "date,amount,name\n"}, 200, false,
			func(t *testing.T, b preflightBody, _ string) {
				if b.Data.Errors[0].Code != "no_data_rows" || len(b.Data.Warnings) != 0 {
					t.Errorf("errors %+v warnings %v", b.Data.Errors, b.Data.Warnings)
				}
			}},
		{"lines of separators only", map[string]any{"raw_file_content": ",,\n , ,\n"}, 200, false,
			func(t *testing.T, b preflightBody, _ string) {
				if len(b.Data.Errors) != 1 || b.Data.Errors[0].Code != "no_data_rows" || b.Data.Errors[0].Message != "The file has no transactions: it is blank." {
					t.Errorf("errors %+v", b.Data.Errors)
				}
			}},
		{"rows are checked, not just headers", map[string]any{"raw_file_content": "date,amount\n2024-13-45,abc\n", "date_format": "%Y-%m-%d", "account_id": acct.ID.String()}, 200, false,
			func(t *testing.T, b preflightBody, _ string) {
				if b.Data.Stats.ValidRowsCount != 0 || len(b.Data.Errors) != 2 || b.Data.Errors[0].Code != "invalid_row" {
					t.Errorf("errors %+v", b.Data.Errors)
				}
			}},
		{"an unclosed quote", map[string]any{"raw_file_content": "date,amount\n\"2024-01-01,1\n"}, 422, false, nil},
		{"an unknown type", map[string]any{"type": "FakeImport", "raw_file_content": "x\n1\n"}, 422, false, nil},
		{"another family's account", map[string]any{"raw_file_content": "date,amount\n01/02/2024,1\n", "account_id": foreign.ID.String()}, 200, false,
			func(t *testing.T, b preflightBody, _ string) {
				if b.Data.Errors[0].Message != "Account must belong to your family" {
					t.Errorf("errors %+v", b.Data.Errors)
				}
			}},
		{"no content", map[string]any{"type": "TransactionImport"}, 422, false, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := e.c.API(http.MethodPost, "/api/v1/imports/preflight", e.read, tc.body)
			if r.Status != tc.wantStatus {
				t.Fatalf("status %d, want %d: %s", r.Status, tc.wantStatus, r.Body)
			}
			if tc.wantStatus != 200 {
				return
			}
			var b preflightBody
			r.JSON(t, &b)
			if b.Data.Valid != tc.valid {
				t.Fatalf("valid %v, want %v: %s", b.Data.Valid, tc.valid, r.Body)
			}
			if tc.check != nil {
				tc.check(t, b, r.Body)
			}
		})
	}
	if n := e.count(t, "SELECT count(*) FROM imports"); n != 0 {
		t.Fatalf("preflight stored %d imports", n)
	}
}

// When the upload is stored but its job cannot be queued, the answer is 500 with the import's
// id, and the import stays pending.
func TestEnqueueFailureKeepsTheUpload(t *testing.T) {
	t.Parallel()
	e := newImportEnv(t, apptest.ServerOptions{NoWorker: true})
	acct := testkit.MustCreateAccount(t, e.srv.DB, e.user.FamilyID, "Checking", "Depository", "")
	mustExecDB(t, e, "ALTER TABLE river_job RENAME TO river_job_away")
	r := e.c.API(http.MethodPost, "/api/v1/imports", e.write, map[string]any{"raw_file_content": "date,amount\n01/02/2024,1\n", "account_id": acct.ID.String(), "publish": "true"})
	mustExecDB(t, e, "ALTER TABLE river_job_away RENAME TO river_job")
	var b apiError
	r.JSON(t, &b)
	if r.Status != http.StatusInternalServerError || b.Error != "publish_failed" || b.ImportID == "" {
		t.Fatalf("enqueue failure: %d %+v", r.Status, b)
	}
	if strings.Contains(r.Body, "river_job") {
		t.Fatalf("the internal error leaked: %s", r.Body)
	}
	var kept importBody
	e.c.API(http.MethodGet, "/api/v1/imports/"+b.ImportID, e.read, nil).JSON(t, &kept)
	if kept.Data.Status != "pending" || kept.Data.Stats.RowsCount != 1 {
		t.Fatalf("kept import %+v", kept.Data)
	}
	// Once the queue is back, the same upload publishes.
	if r := e.c.API(http.MethodPost, "/api/v1/imports/"+b.ImportID+"/publish", e.write, nil); r.Status != http.StatusAccepted {
		t.Fatalf("retry: %d %s", r.Status, r.Body)
	}
}
