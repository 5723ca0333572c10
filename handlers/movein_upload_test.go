package handlers_test

import (
	"archive/zip"
	"bytes"
	"net/http"
	"os"
	"strings"
	"testing"

	"tally/app/apptest"
	"tally/internal/memtest"
	"tally/testkit"
)

// paddedActualExport is the Actual fixture's export grown to about size bytes by a member the
// reader does not read, stored as it is: an export of a long history is as large.
func paddedActualExport(t *testing.T, size int) []byte {
	t.Helper()
	fixture, err := os.ReadFile("testdata/actual-household.zip")
	if err != nil {
		t.Fatal(err)
	}
	zr, err := zip.NewReader(bytes.NewReader(fixture), int64(len(fixture)))
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	out.Grow(size + len(fixture))
	zw := zip.NewWriter(&out)
	for _, f := range zr.File {
		if err := zw.Copy(f); err != nil {
			t.Fatal(err)
		}
	}
	w, err := zw.CreateHeader(&zip.FileHeader{Name: "attachments/scan.bin", Method: zip.Store})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write(bytes.Repeat([]byte{0x5a}, size-len(fixture))); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

// TestImportPageTakesALargeMoveInExport uploads a 24 MB Actual export through the import page's
// form, over the 10 MB of other files: it is read, held once on the way (the form spools the
// file to disk, and its content is read into one buffer of its size), and its dry run is
// stored. Not parallel: it measures the heap.
func TestImportPageTakesALargeMoveInExport(t *testing.T) {
	if testing.Short() {
		t.Skip("uploads a 24 MB file")
	}
	srv := apptest.StartServer(t, apptest.ServerOptions{NoWorker: true})
	u := testkit.MustCreateUser(t, srv.DB, testkit.UserOpts{})
	page := testkit.NewClient(t, srv.URL)
	page.SignIn(u.Email, testkit.Password)
	token, _ := page.Get("/imports/new").Doc(t).Find(`meta[name="csrf-token"]`).Attr("content")
	export := paddedActualExport(t, 24<<20)
	body, ct := multipartBody(t, map[string]string{"_csrf": token, "type": "auto"}, "My Finances.zip", "application/zip", export)

	var r *testkit.Response
	use := memtest.Measure(func() { r = page.Do(http.MethodPost, "/imports", body, map[string]string{"Content-Type": ct}) })
	if r.Status != http.StatusSeeOther || !strings.HasPrefix(r.Location(), "/imports/") {
		t.Fatalf("the page's upload of a %d MB export: %d %.500s", len(export)>>20, r.Status, r.Body)
	}
	peak, live := use.MB()
	t.Logf("a %.1f MB export: peak heap %.1f MB, live %.1f MB", memtest.MB(uint64(len(export))), peak, live)
	// The file once, and what reading the budget holds; held twice it is 48 MB and more.
	if live > 36 {
		t.Errorf("the upload held %.1f MB live, want the 24 MB file once (under 36 MB)", live)
	}
	doc := page.Get(r.Location()).Doc(t)
	if n := doc.Find(`[data-testid="move-in-count"]`).Length(); n == 0 {
		t.Errorf("the import's page shows no dry run: %.500s", doc.Text())
	}
}

// An export over the move-in limit is refused by the API naming the limit (the page's refusal
// is TestImportUploadFromThePageIsBounded's); a file of another type keeps its own 10 MB, on
// the page too.
func TestMoveInUploadLimits(t *testing.T) {
	t.Parallel()
	e := newImportEnv(t, apptest.ServerOptions{NoWorker: true})
	page := testkit.NewClient(t, e.srv.URL)
	page.SignIn(e.user.Email, testkit.Password)
	token, _ := page.Get("/imports/new").Doc(t).Find(`meta[name="csrf-token"]`).Attr("content")
	upload := func(c *testkit.Client, path string, fields map[string]string, name string, content []byte, headers map[string]string) *testkit.Response {
		body, ct := multipartBody(t, fields, name, "application/octet-stream", content)
		headers["Content-Type"] = ct
		return c.Do(http.MethodPost, path, body, headers)
	}

	over := paddedActualExport(t, 50<<20+4096) // over 50 MB, within the body's room for a form
	r := upload(e.c, "/api/v1/imports", map[string]string{"type": "ActualImport"}, "big.zip", over, map[string]string{"X-Api-Key": e.write})
	if r.Status != http.StatusUnprocessableEntity || !strings.Contains(r.Body, "Maximum size is 50MB") {
		t.Errorf("the API's upload of a 50 MB export and more: %d %.300s", r.Status, r.Body)
	}
	far := append(over, make([]byte, 2<<20)...) // past the body's room too
	r = upload(e.c, "/api/v1/imports", map[string]string{"type": "ActualImport"}, "big.zip", far, map[string]string{"X-Api-Key": e.write})
	if r.Status != http.StatusUnprocessableEntity || !strings.Contains(r.Body, "Maximum size is 50MB for a move-in's export") {
		t.Errorf("the API's upload of a 52 MB body: %d %.300s", r.Status, r.Body)
	}
	csv := bytes.Repeat([]byte("2024-01-01,1,Coffee\n"), 600_000) // 12 MB
	r = upload(page, "/imports", map[string]string{"_csrf": token, "type": "TransactionImport"}, "big.csv", csv, map[string]string{})
	if r.Status != http.StatusUnprocessableEntity || !strings.Contains(r.Body, "File is too large. Maximum size is 10MB.") {
		t.Errorf("the page's upload of a 12 MB CSV: %d %.300s", r.Status, r.Body)
	}
	if n := e.count(t, "SELECT count(*) FROM imports WHERE family_id = ?", e.user.FamilyID); n != 0 {
		t.Errorf("%d imports stored, want none", n)
	}
}
