package handlers_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"tally/app/apptest"
	"tally/models"
	"tally/testkit"
)

func TestAPIKeysPage(t *testing.T) {
	t.Parallel()
	srv := apptest.StartServer(t, apptest.ServerOptions{})
	u := testkit.MustCreateUser(t, srv.DB, testkit.UserOpts{Role: models.RoleMember})
	c := apptest.NewClient(t, srv)
	c.SignIn(u.Email, testkit.Password)

	if r := c.Get("/settings/api_keys"); !r.Has(t, "api-keys-empty") {
		t.Fatal("no empty state before any key exists")
	}
	r := c.PostForm("/settings/api_keys", url.Values{"name": {""}, "scope": {"admin"}})
	if r.Status != http.StatusUnprocessableEntity || r.TestID(t, "error-name") != "Name can't be blank" ||
		r.TestID(t, "error-scope") != "Scope must be either 'read' or 'read_write'" {
		t.Fatalf("invalid key: %d name=%q scope=%q", r.Status, r.TestID(t, "error-name"), r.TestID(t, "error-scope"))
	}

	r = c.PostForm("/settings/api_keys", url.Values{"name": {"Budget script"}, "scope": {"read_write"}})
	if r.Status != http.StatusCreated {
		t.Fatalf("create key: %d", r.Status)
	}
	key, _ := r.Doc(t).Find(`[data-testid="api-key-value"]`).Attr("value")
	if label, _ := r.Doc(t).Find(`[data-testid="api-key-value"]`).Attr("aria-label"); label != "Your new API key" {
		t.Errorf("the key's field is labelled %q", label)
	}
	if !strings.HasPrefix(key, "tally_") || len(key) != len("tally_")+64 {
		t.Fatalf("shown key %q", key)
	}
	// The key is shown once and stored only as a hash.
	again := c.Get("/settings/api_keys")
	if again.Has(t, "new-api-key") || strings.Contains(again.Body, key) {
		t.Fatal("key shown a second time")
	}
	if n := again.Doc(t).Find(`[data-testid="api-key-row"]`).Length(); n != 1 {
		t.Fatalf("%d key rows, want 1", n)
	}
	var stored int
	if err := srv.DB.NewRaw("SELECT count(*) FROM api_keys WHERE key_hash = ? AND prefix = ?", models.HashSecret(key), key[:12]).Scan(t.Context(), &stored); err != nil || stored != 1 {
		t.Fatalf("stored hash rows = %d (err %v)", stored, err)
	}
	if r := c.PostForm("/settings/api_keys", url.Values{"name": {"Budget script"}, "scope": {"read"}}); r.TestID(t, "error-name") != "Name has already been taken" {
		t.Fatalf("duplicate name: %d %q", r.Status, r.TestID(t, "error-name"))
	}

	if r := c.API(http.MethodGet, "/api/v1/accounts", key, nil); r.Status != http.StatusOK {
		t.Fatalf("new key refused: %d %s", r.Status, r.Body)
	}
	keys, _ := models.APIKeysForUser(context.Background(), srv.DB, u.ID)
	r = c.PostForm("/settings/api_keys/"+keys[0].ID.String()+"/revoke", nil)
	if r.Status != http.StatusSeeOther {
		t.Fatalf("revoke: %d", r.Status)
	}
	if r := c.API(http.MethodGet, "/api/v1/accounts", key, nil); r.Status != http.StatusUnauthorized {
		t.Fatalf("revoked key accepted: %d", r.Status)
	}

	// Another user cannot revoke someone else's key: it is not found.
	other := testkit.MustCreateUser(t, srv.DB, testkit.UserOpts{FamilyID: u.FamilyID})
	otherKey := testkit.MustCreateAPIKey(t, srv.DB, other.ID, models.ScopeRead)
	otherKeys, _ := models.APIKeysForUser(context.Background(), srv.DB, other.ID)
	if r := c.PostForm("/settings/api_keys/"+otherKeys[0].ID.String()+"/revoke", nil); r.Status != http.StatusNotFound {
		t.Fatalf("revoking another user's key: %d", r.Status)
	}
	if r := c.API(http.MethodGet, "/api/v1/accounts", otherKey, nil); r.Status != http.StatusOK {
		t.Fatalf("other user's key was revoked: %d", r.Status)
	}
}
