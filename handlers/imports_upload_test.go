package handlers_test

import (
	"bytes"
	"context"
	"net/http"
	"strings"
	"testing"

	"tally/app/apptest"
	"tally/models"
	"tally/testkit"
)

// An upload from the page larger than the largest import file (a move-in's export) is refused
// before its body is read, naming the limits.
func TestImportUploadFromThePageIsBounded(t *testing.T) {
	t.Parallel()
	srv := apptest.StartServer(t, apptest.ServerOptions{})
	u := testkit.MustCreateUser(t, srv.DB, testkit.UserOpts{})
	c := testkit.NewClient(t, srv.URL)
	c.SignIn(u.Email, testkit.Password)
	c.Get("/imports/new")
	body, ct := multipartBody(t, map[string]string{"type": "auto"}, "big.zip", "application/zip", bytes.Repeat([]byte("PK"), 26<<20))
	r := c.Do(http.MethodPost, "/imports", body, map[string]string{"Content-Type": ct})
	if r.Status != http.StatusRequestEntityTooLarge || !strings.Contains(r.Body, "an Actual or YNAB export may be at most 50 MB, any other file 10 MB") {
		t.Fatalf("a 52 MB upload: %d %.300s", r.Status, r.Body)
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

// The issue's card export: one line naming the card and period above the header. "Detect from
// the file" reads it as the transaction CSV it is, as the API's type=auto does.
func TestDetectFromTheFileReadsACSVUnderAPreamble(t *testing.T) {
	t.Parallel()
	e := newImportEnv(t, apptest.ServerOptions{NoWorker: true})
	card := testkit.MustCreateAccount(t, e.srv.DB, e.user.FamilyID, "Sapphire", "CreditCard", "")
	csv := "Chase Sapphire Preferred (...4821) activity from 10/01/2026 to 10/31/2026\n" +
		"Transaction Date,Post Date,Description,Category,Type,Amount,Memo\n" +
		"10/02/2026,10/03/2026,STARBUCKS STORE 0815,Food & Drink,Sale,-5.75,\n" +
		"10/05/2026,10/06/2026,Payment Thank You-Mobile,,Payment,500.00,\n"
	var b struct {
		Data struct {
			Type          string `json:"type"`
			Configuration struct {
				Preset     *string `json:"preset"`
				RowsToSkip int     `json:"rows_to_skip"`
			} `json:"configuration"`
			Stats struct {
				ValidRowsCount int `json:"valid_rows_count"`
			} `json:"stats"`
		} `json:"data"`
	}
	e.create(t, map[string]any{"type": "auto", "raw_file_content": csv, "account_id": card.ID.String()}, http.StatusCreated).JSON(t, &b)
	if b.Data.Type != "TransactionImport" || deref(b.Data.Configuration.Preset) != "chase_card" || b.Data.Configuration.RowsToSkip != 1 || b.Data.Stats.ValidRowsCount != 2 {
		t.Fatalf("read as %+v (preset %s)", b.Data, deref(b.Data.Configuration.Preset))
	}

	page := testkit.NewClient(t, e.srv.URL)
	page.SignIn(e.user.Email, testkit.Password)
	token, _ := page.Get("/imports/new").Doc(t).Find(`meta[name="csrf-token"]`).Attr("content")
	body, ct := multipartBody(t, map[string]string{"type": "auto", "_csrf": token}, "Chase4821_Activity.CSV", "text/csv", []byte(csv))
	r := page.Do(http.MethodPost, "/imports", body, map[string]string{"Content-Type": ct})
	if r.Status != http.StatusSeeOther || !strings.HasPrefix(r.Header.Get("Location"), "/imports/") {
		t.Fatalf("the page's upload: %d %.500s", r.Status, r.Body)
	}
}

// A file Tally cannot tell is refused on the page in words for a person, with every field
// the person entered kept. A browser posting the form itself forgets the file, so the page
// says to choose it again; posted by htmx, the form comes back around the file, still chosen.
func TestARefusedUploadKeepsTheFormAndSaysWhatToDo(t *testing.T) {
	t.Parallel()
	srv := apptest.StartServer(t, apptest.ServerOptions{NoWorker: true})
	u := testkit.MustCreateUser(t, srv.DB, testkit.UserOpts{})
	acct := testkit.MustCreateAccount(t, srv.DB, u.FamilyID, "Everyday checking", "Depository", "")
	page := testkit.NewClient(t, srv.URL)
	page.SignIn(u.Email, testkit.Password)
	token, _ := page.Get("/imports/new").Doc(t).Find(`meta[name="csrf-token"]`).Attr("content")
	fields := map[string]string{"type": "auto", "_csrf": token, "account_id": acct.ID.String(), "date_format": "%d/%m/%Y", "name_col_label": "Payee"}
	cases := []struct {
		name    string
		headers map[string]string
		chosen  string
	}{
		{"posted by the browser", nil, "Choose notes.txt again: a browser does not keep a chosen file when the form comes back. Everything else you entered is kept."},
		{"posted by htmx", map[string]string{"HX-Request": "true", "HX-Target": "new-import"}, "Still chosen: notes.txt."},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			body, ct := multipartBody(t, fields, "notes.txt", "text/plain", []byte("Remember the milk\nand the bread\n"))
			headers := map[string]string{"Content-Type": ct}
			for k, v := range c.headers {
				headers[k] = v
			}
			r := page.Do(http.MethodPost, "/imports", body, headers)
			if r.Status != http.StatusUnprocessableEntity {
				t.Fatalf("%d %.500s", r.Status, r.Body)
			}
			doc := r.Doc(t)
			msg := doc.Find(`[data-testid="error-file"]`).Text()
			if !strings.Contains(msg, "Tally could not tell what kind of file this is") || strings.Contains(msg, "Send the type") {
				t.Errorf("the file's error: %q", msg)
			}
			if got := doc.Find(`[data-testid="file-chosen"]`).Text(); got != c.chosen {
				t.Errorf("about the file: %q, want %q", got, c.chosen)
			}
			if v, _ := doc.Find(`#new-import input[name="file"]`).Attr("hx-preserve"); v != "true" {
				t.Error("the file input is not kept across the swap")
			}
			for name, want := range map[string]string{"date_format": "%d/%m/%Y", "name_col_label": "Payee"} {
				if v, _ := doc.Find(`input[name="` + name + `"]`).Attr("value"); v != want {
					t.Errorf("%s came back as %q, want %q", name, v, want)
				}
			}
			if v, _ := doc.Find(`select[name="account_id"] option[selected]`).Attr("value"); v != acct.ID.String() {
				t.Errorf("the account came back as %q", v)
			}
			if doc.Find(`[data-testid="form-error"]`).Length() != 0 {
				t.Errorf("a message above the form as well: %q", doc.Find(`[data-testid="form-error"]`).Text())
			}
		})
	}
}

// A file with nothing under its header is refused at upload, on the file, where before it was
// stored and refused only at publish.
func TestTheUploadFormRefusesAFileWithNoTransactions(t *testing.T) {
	t.Parallel()
	srv := apptest.StartServer(t, apptest.ServerOptions{NoWorker: true})
	u := testkit.MustCreateUser(t, srv.DB, testkit.UserOpts{})
	page := testkit.NewClient(t, srv.URL)
	page.SignIn(u.Email, testkit.Password)
	token, _ := page.Get("/imports/new").Doc(t).Find(`meta[name="csrf-token"]`).Attr("content")
	body, ct := multipartBody(t, map[string]string{"type": "auto", "_csrf": token}, "export.csv", "text/csv",
		[]byte("Date,Description,Amount\n"+strings.Repeat(",,\n", 10_000)))
	r := page.Do(http.MethodPost, "/imports", body, map[string]string{"Content-Type": ct})
	if r.Status != http.StatusUnprocessableEntity {
		t.Fatalf("%d %.500s", r.Status, r.Body)
	}
	if got := r.Doc(t).Find(`[data-testid="error-file"]`).Text(); got != "The file has no transactions: every line under its header is blank." {
		t.Errorf("the file's error: %q", got)
	}
	var stored int
	if err := srv.DB.NewRaw("SELECT count(*) FROM imports WHERE family_id = ?", u.FamilyID).Scan(context.Background(), &stored); err != nil || stored != 0 {
		t.Fatalf("%d imports stored (%v)", stored, err)
	}
}
