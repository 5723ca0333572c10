package handlers_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"tally/app/apptest"
	"tally/internal/memtest"
	"tally/models"
	"tally/testkit"
)

// raw_file_content is decoded as JSON decodes a string, escapes and all: the stored file is
// what the client meant, byte for byte, and other fields keep their text, numbers and booleans
// as written.
func TestJSONUploadKeepsTheFileAsSent(t *testing.T) {
	t.Parallel()
	e := newImportEnv(t, apptest.ServerOptions{NoWorker: true})
	body := `{"type": "TransactionImport", "rows_to_skip": 0, "publish": false, "date_format": "%Y-%m-%d", ` +
		`"raw_file_content": "date,amount,name\n2024-01-02,-4.50,\"Caf\u00e9 \"\"\u00e0 emporter\"\"\"\r\n2024-01-03,-1.00,\ud83d\ude00 \/ \\ \t tab\n"}`
	r := e.c.Do(http.MethodPost, "/api/v1/imports", strings.NewReader(body), map[string]string{"Content-Type": "application/json", "X-Api-Key": e.write})
	if r.Status != http.StatusCreated {
		t.Fatalf("upload: %d %s", r.Status, r.Body)
	}
	var b importBody
	r.JSON(t, &b)
	file := e.c.Do(http.MethodGet, "/api/v1/imports/"+b.Data.ID+"/file", nil, map[string]string{"X-Api-Key": e.read})
	want := "date,amount,name\n2024-01-02,-4.50,\"Café \"\"à emporter\"\"\"\r\n2024-01-03,-1.00,😀 / \\ \t tab\n"
	if file.Body != want {
		t.Fatalf("stored file %q, want %q", file.Body, want)
	}
	if got := strings.Join(e.rows(t, b.Data.ID), "\n"); !strings.Contains(got, `Café "à emporter"`) || !strings.Contains(got, "😀 / \\ \t tab") {
		t.Fatalf("rows %s", got)
	}
}

// A JSON body is one object: an array, or an object with more after it, is refused whole
// rather than read in part.
func TestJSONBodyIsOneObject(t *testing.T) {
	t.Parallel()
	e := newImportEnv(t, apptest.ServerOptions{NoWorker: true})
	for _, body := range []string{`["TransactionImport"]`, `{"type": "CategoryImport", "raw_file_content": "name\nFood\n"} {"publish": "true"}`} {
		r := e.c.Do(http.MethodPost, "/api/v1/imports", strings.NewReader(body), map[string]string{"Content-Type": "application/json", "X-Api-Key": e.write})
		if r.Status != http.StatusBadRequest || !strings.Contains(r.Body, "The request body must be a JSON object") || strings.Contains(r.Body, "bodyField") {
			t.Errorf("%s: %d %s", body, r.Status, r.Body)
		}
	}
	if n := e.count(t, "SELECT count(*) FROM imports WHERE family_id = ?", e.user.FamilyID); n != 0 {
		t.Fatalf("%d imports stored", n)
	}
}

// TestJSONUploadDecodesTheFileOnce sends a 10 MB file as raw_file_content, as a PdfImport,
// which is refused once the body is read (a statement must come as a file), so that what the
// request costs is the body's reading: the body, in a buffer of the size it declares, and the
// file decoded from it once. Read by a decoder growing its own buffer, and decoded into a Go
// string and then a []byte of it, the request peaked at 44 MB.
func TestJSONUploadDecodesTheFileOnce(t *testing.T) {
	srv := apptest.StartServer(t, apptest.ServerOptions{NoWorker: true})
	u := testkit.MustCreateUser(t, srv.DB, testkit.UserOpts{})
	key := testkit.MustCreateAPIKey(t, srv.DB, u.ID, models.ScopeReadWrite)
	c := testkit.NewClient(t, srv.URL)
	var buf bytes.Buffer
	line := "2024-01-02,-4.50,\"Coffee \"\"to go\"\"\"\n"
	json.NewEncoder(&buf).Encode(map[string]any{"type": "PdfImport", "raw_file_content": strings.Repeat(line, 10<<20/len(line))})
	body := buf.Bytes()
	var r *testkit.Response
	use := memtest.Measure(func() {
		r = c.Do(http.MethodPost, "/api/v1/imports", bytes.NewReader(body), map[string]string{"Content-Type": "application/json", "X-Api-Key": key})
	})
	if r.Status != http.StatusUnprocessableEntity || !strings.Contains(r.Body, "multipart file upload") {
		t.Fatalf("a PdfImport as raw_file_content: %d %.300s", r.Status, r.Body)
	}
	peak, live := use.MB()
	t.Logf("%.1f MB body: peak heap %.1f MB, live %.1f MB", memtest.MB(uint64(len(body))), peak, live)
	if peak > 30 {
		t.Errorf("the request peaked at %.1f MB, want under 30 MB", peak)
	}
}
