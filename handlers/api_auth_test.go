package handlers_test

import (
	"net/http"
	"testing"
	"time"

	"tally/app/apptest"
	"tally/models"
	"tally/testkit"
)

func TestAPIAuthentication(t *testing.T) {
	t.Parallel()
	srv := apptest.StartServer(t, apptest.ServerOptions{})
	u := testkit.MustCreateUser(t, srv.DB, testkit.UserOpts{})
	readKey := testkit.MustCreateAPIKey(t, srv.DB, u.ID, models.ScopeRead)
	writeKey := testkit.MustCreateAPIKey(t, srv.DB, u.ID, models.ScopeReadWrite)
	revoked := testkit.MustCreateAPIKey(t, srv.DB, u.ID, models.ScopeReadWrite)
	expired := testkit.MustCreateAPIKey(t, srv.DB, u.ID, models.ScopeReadWrite)
	ctx := t.Context()
	mustExec(t, srv, "UPDATE api_keys SET revoked_at = now() WHERE key_hash = ?", models.HashSecret(revoked))
	mustExec(t, srv, "UPDATE api_keys SET expires_at = ? WHERE key_hash = ?", time.Now().Add(-time.Minute), models.HashSecret(expired))
	suspended := testkit.MustCreateUser(t, srv.DB, testkit.UserOpts{})
	suspendedKey := testkit.MustCreateAPIKey(t, srv.DB, suspended.ID, models.ScopeReadWrite)
	testkit.MustSuspend(t, srv.DB, suspended.ID)
	_ = ctx

	newAccount := map[string]any{"name": "Savings", "accountable_type": "Depository", "balance": "100.50"}
	cases := []struct {
		name, method, path, key string
		body                    any
		wantStatus              int
		wantError, wantMessage  string
	}{
		{"no key", "GET", "/api/v1/accounts", "", nil, 401, "unauthorized", "Access token or API key is invalid, expired, or missing"},
		{"unknown key", "GET", "/api/v1/accounts", "tally_0000", nil, 401, "unauthorized", "Access token or API key is invalid, expired, or missing"},
		{"revoked key", "GET", "/api/v1/accounts", revoked, nil, 401, "unauthorized", "Access token or API key is invalid, expired, or missing"},
		{"expired key", "GET", "/api/v1/accounts", expired, nil, 401, "unauthorized", "Access token or API key is invalid, expired, or missing"},
		{"suspended user", "GET", "/api/v1/accounts", suspendedKey, nil, 401, "unauthorized", "Account has been deactivated"},
		{"read key reads", "GET", "/api/v1/accounts", readKey, nil, 200, "", ""},
		{"read key cannot write", "POST", "/api/v1/accounts", readKey, newAccount, 403, "insufficient_scope", "This action requires the 'write' scope"},
		{"write key writes", "POST", "/api/v1/accounts", writeKey, newAccount, 201, "", ""},
		{"write key reads", "GET", "/api/v1/accounts", writeKey, nil, 200, "", ""},
		{"invalid account lists every problem", "POST", "/api/v1/accounts", writeKey, map[string]any{"accountable_type": "Boat", "currency": "dollars"}, 422, "validation_failed", ""},
		{"malformed JSON", "POST", "/api/v1/accounts", writeKey, "not an object", 400, "bad_request", ""},
		{"unknown route under the API", "GET", "/api/v1/nothing", readKey, nil, 404, "record_not_found", "The requested resource was not found"},
	}
	c := apptest.NewClient(t, srv)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := c.API(tc.method, tc.path, tc.key, tc.body)
			if r.Status != tc.wantStatus {
				t.Fatalf("status %d, want %d: %s", r.Status, tc.wantStatus, r.Body)
			}
			if ct := r.Header.Get("Content-Type"); ct != "application/json" && ct != "application/json; charset=UTF-8" {
				t.Fatalf("content type %q", ct)
			}
			if tc.wantError == "" {
				return
			}
			var body struct {
				Error   string   `json:"error"`
				Message string   `json:"message"`
				Errors  []string `json:"errors"`
			}
			r.JSON(t, &body)
			if body.Error != tc.wantError || (tc.wantMessage != "" && body.Message != tc.wantMessage) {
				t.Fatalf("body %+v, want error %q message %q", body, tc.wantError, tc.wantMessage)
			}
			if tc.wantError == "validation_failed" && len(body.Errors) != 3 {
				t.Fatalf("want every problem (name, type, currency), got %v", body.Errors)
			}
		})
	}

	var created struct {
		Data struct {
			Name, Balance, Classification string
		} `json:"data"`
	}
	r := c.API("GET", "/api/v1/accounts", readKey, nil)
	var list struct {
		Data []map[string]any `json:"data"`
	}
	r.JSON(t, &list)
	if len(list.Data) != 1 || list.Data[0]["name"] != "Savings" || list.Data[0]["balance"] != "100.50" || list.Data[0]["classification"] != "asset" {
		t.Fatalf("accounts after create: %+v", list.Data)
	}
	_ = created
}

func mustExec(t *testing.T, srv *apptest.Server, query string, args ...any) {
	t.Helper()
	if _, err := srv.DB.NewRaw(query, args...).Exec(t.Context()); err != nil {
		t.Fatal(err)
	}
}

func TestTenantIsolation(t *testing.T) {
	t.Parallel()
	srv := apptest.StartServer(t, apptest.ServerOptions{})
	alice := testkit.MustCreateUser(t, srv.DB, testkit.UserOpts{})
	bob := testkit.MustCreateUser(t, srv.DB, testkit.UserOpts{})
	bobs := testkit.MustCreateAccount(t, srv.DB, bob.FamilyID, "Bob's checking", "Depository", "500")
	alicesKey := testkit.MustCreateAPIKey(t, srv.DB, alice.ID, models.ScopeReadWrite)

	c := apptest.NewClient(t, srv)
	if r := c.API("GET", "/api/v1/accounts/"+bobs.ID.String(), alicesKey, nil); r.Status != http.StatusNotFound {
		t.Fatalf("API: another family's account answered %d", r.Status)
	}
	var list struct{ Data []any }
	c.API("GET", "/api/v1/accounts", alicesKey, nil).JSON(t, &list)
	if len(list.Data) != 0 {
		t.Fatalf("API list shows another family's accounts: %v", list.Data)
	}

	c.SignIn(alice.Email, testkit.Password)
	for _, r := range []*testkit.Response{
		c.Get("/accounts/" + bobs.ID.String()),
		c.Get("/accounts/" + bobs.ID.String() + "/edit"),
		c.PostForm("/accounts/"+bobs.ID.String()+"/close", nil),
		c.PostForm("/accounts/"+bobs.ID.String(), map[string][]string{"name": {"Mine now"}, "accountable_type": {"Depository"}}),
		c.Get("/accounts/not-a-uuid"),
	} {
		if r.Status != http.StatusNotFound {
			t.Fatalf("page on another family's account answered %d", r.Status)
		}
	}
	if r := c.Get("/"); r.Doc(t).Find(`[data-testid="account-link"]`).Length() != 0 {
		t.Fatal("dashboard shows another family's account")
	}
	acct, err := models.AccountByID(t.Context(), srv.DB, models.FamilyViewer(bob.FamilyID), bobs.ID)
	if err != nil || acct.Name != "Bob's checking" || acct.Status != models.AccountActive {
		t.Fatalf("Bob's account changed: %+v %v", acct, err)
	}
}
