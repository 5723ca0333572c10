package handlers_test

import (
	"bytes"
	"net/http"
	"strings"
	"testing"

	"tally/internal/apptest"
	"tally/internal/testkit"
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
