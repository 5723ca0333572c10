package handlers_test

import (
	"bytes"
	"context"
	"net/http"
	"strings"
	"testing"

	"tally/internal/apptest"
	"tally/internal/testkit"
	"tally/models"
)

// An upload from the page larger than the import limit is refused before its body is read.
func TestImportUploadFromThePageIsBounded(t *testing.T) {
	t.Parallel()
	srv := apptest.StartServer(t, apptest.ServerOptions{})
	u := testkit.MustCreateUser(t, srv.DB, testkit.UserOpts{})
	c := testkit.NewClient(t, srv.URL)
	c.SignIn(u.Email, testkit.Password)
	c.Get("/imports/new")
	body, ct := multipartBody(t, map[string]string{"type": "TransactionImport"}, "big.csv", "text/csv", bytes.Repeat([]byte("2024-01-01,1\n"), 1_000_000))
	r := c.Do(http.MethodPost, "/imports", body, map[string]string{"Content-Type": ct})
	if r.Status != http.StatusRequestEntityTooLarge || !strings.Contains(r.Body, "at most 10 MB") {
		t.Fatalf("a 12 MB upload: %d %.300s", r.Status, r.Body)
	}
}

// TestUploadsPastTheReaderSlotsWaitThenGet429 takes the one reader slot of a server with
// MAX_CONCURRENT_UPLOADS=1, as a large upload being read would: an API upload, a preflight and
// a browser upload each get 429 with Retry-After and store nothing, and once the slot is free
// the same upload is read.
func TestUploadsPastTheReaderSlotsWaitThenGet429(t *testing.T) {
	t.Parallel()
	srv := apptest.StartServer(t, apptest.ServerOptions{NoWorker: true, Env: map[string]string{"MAX_CONCURRENT_UPLOADS": "1"}})
	u := testkit.MustCreateUser(t, srv.DB, testkit.UserOpts{})
	key := testkit.MustCreateAPIKey(t, srv.DB, u.ID, models.ScopeReadWrite)
	api := apptest.NewClient(t, srv)
	csv := "date,amount,name\n2024-01-02,-4.50,Coffee\n"
	upload := map[string]any{"type": "TransactionImport", "raw_file_content": csv}

	done, err := srv.Imports.Reading(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{"/api/v1/imports", "/api/v1/imports/preflight"} {
		r := api.API(http.MethodPost, path, key, upload)
		if r.Status != http.StatusTooManyRequests || r.Header.Get("Retry-After") == "" || !strings.Contains(r.Body, `"error":"too_many_uploads"`) {
			t.Errorf("%s with every reader busy: %d Retry-After %q %.300s", path, r.Status, r.Header.Get("Retry-After"), r.Body)
		}
	}
	page := testkit.NewClient(t, srv.URL)
	page.SignIn(u.Email, testkit.Password)
	token, _ := page.Get("/imports/new").Doc(t).Find(`meta[name="csrf-token"]`).Attr("content")
	body, ct := multipartBody(t, map[string]string{"type": "TransactionImport", "_csrf": token}, "coffee.csv", "text/csv", []byte(csv))
	r := page.Do(http.MethodPost, "/imports", body, map[string]string{"Content-Type": ct})
	if r.Status != http.StatusTooManyRequests || r.Header.Get("Retry-After") == "" || !strings.Contains(r.Body, "reading other files right now") {
		t.Errorf("a browser upload with every reader busy: %d Retry-After %q %.300s", r.Status, r.Header.Get("Retry-After"), r.Body)
	}
	var stored int
	if err := srv.DB.NewRaw("SELECT count(*) FROM imports WHERE family_id = ?", u.FamilyID).Scan(context.Background(), &stored); err != nil || stored != 0 {
		t.Fatalf("refused uploads stored %d imports (%v)", stored, err)
	}

	done()
	if r := api.API(http.MethodPost, "/api/v1/imports", key, upload); r.Status != http.StatusCreated {
		t.Fatalf("the same upload with the slot free: %d %.300s", r.Status, r.Body)
	}
}
