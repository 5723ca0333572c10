package handlers_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"tally/app/apptest"
	"tally/models"
	"tally/testkit"
)

// TestWebhooksSettingsPage is Settings › Webhooks without a browser: family admins only, the
// secret in the answer to the form and never again, and pausing, resuming and deleting.
func TestWebhooksSettingsPage(t *testing.T) {
	t.Parallel()
	srv := apptest.StartServer(t, apptest.ServerOptions{NoWorker: true})
	admin := testkit.MustCreateUser(t, srv.DB, testkit.UserOpts{})
	member := testkit.MustCreateUser(t, srv.DB, testkit.UserOpts{FamilyID: admin.FamilyID, Role: models.RoleMember})

	mc := testkit.NewClient(t, srv.URL)
	mc.SignIn(member.Email, testkit.Password)
	if r := mc.Get("/"); r.Status != http.StatusOK || r.Has(t, "nav-webhooks") {
		t.Errorf("a member's dashboard (%d) links to webhooks", r.Status)
	}
	if r := mc.Get("/settings/webhooks"); r.Status != http.StatusNotFound {
		t.Errorf("a member's GET: %d", r.Status)
	}

	c := testkit.NewClient(t, srv.URL)
	c.SignIn(admin.Email, testkit.Password)
	if !c.Get("/").Has(t, "nav-webhooks") {
		t.Fatal("an admin's sidebar does not link to webhooks")
	}
	c.Get("/settings/webhooks")
	r := c.PostForm("/settings/webhooks", url.Values{"url": {"http://hooks.example.com/x"}, "events": {"import.completed"}})
	if r.Status != http.StatusUnprocessableEntity || !strings.Contains(r.TestID(t, "error-url"), "https") {
		t.Fatalf("plain http: %d", r.Status)
	}
	if r := c.PostForm("/settings/webhooks", url.Values{"url": {"https://hooks.example.com/x"}}); r.Status != http.StatusUnprocessableEntity ||
		!strings.Contains(r.TestID(t, "error-events"), "at least one event") {
		t.Fatalf("no events: %d", r.Status)
	}
	r = c.PostForm("/settings/webhooks", url.Values{"url": {"https://hooks.example.com/x"}, "events": {"import.completed", "bank_sync.failed"}})
	if r.Status != http.StatusCreated {
		t.Fatalf("create: %d %s", r.Status, r.Body)
	}
	secret, _ := r.Doc(t).Find(`[data-testid="webhook-secret"]`).Attr("value")
	if !strings.HasPrefix(secret, "whsec_") {
		t.Fatalf("secret %q", secret)
	}
	page := c.Get("/settings/webhooks")
	if strings.Contains(page.Body, secret) || page.TestID(t, "webhook-status") != "Active" {
		t.Fatalf("the list shows the secret, or status %q", page.TestID(t, "webhook-status"))
	}
	href, _ := page.Doc(t).Find(`a[data-testid="webhook-url"]`).Attr("href")
	if r := mc.Get(href); r.Status != http.StatusNotFound {
		t.Errorf("a member's GET of the endpoint: %d", r.Status)
	}

	c.Get(href)
	if r := c.PostForm(href+"/pause", nil); r.Status != http.StatusSeeOther {
		t.Fatalf("pause: %d", r.Status)
	}
	if got := c.Get(href).TestID(t, "webhook-status"); got != "Paused" {
		t.Fatalf("after pause: %q", got)
	}
	c.PostForm(href+"/resume", nil)
	if got := c.Get(href).TestID(t, "webhook-status"); got != "Active" {
		t.Fatalf("after resume: %q", got)
	}
	r = c.PostForm(href+"/rotate_secret", nil)
	if rotated, _ := r.Doc(t).Find(`[data-testid="webhook-secret"]`).Attr("value"); r.Status != http.StatusOK || rotated == secret || !strings.HasPrefix(rotated, "whsec_") {
		t.Fatalf("rotate: %d %q", r.Status, rotated)
	}
	if r := c.PostForm(href+"/delete", nil); r.Status != http.StatusSeeOther {
		t.Fatalf("delete: %d", r.Status)
	}
	if !c.Get("/settings/webhooks").Has(t, "webhooks-empty") {
		t.Fatal("the endpoint is still listed")
	}
}

// TestWebhookChangesAreAudited creates, changes, rotates and deletes a webhook through the
// API and pauses one on the page: each is a webhook_changed entry of the audit log with its
// action, the admin, the address and the user agent, and the URL's host but not its path,
// which often carries a token.
func TestWebhookChangesAreAudited(t *testing.T) {
	t.Parallel()
	srv := apptest.StartServer(t, apptest.ServerOptions{NoWorker: true})
	admin := testkit.MustCreateUser(t, srv.DB, testkit.UserOpts{})
	key := testkit.MustCreateAPIKey(t, srv.DB, admin.ID, models.ScopeReadWrite)
	api := apptest.NewClient(t, srv)
	api.Headers = map[string]string{"User-Agent": "tally-cli/2.0"}

	r := api.API(http.MethodPost, "/api/v1/webhooks", key, map[string]any{"url": "https://hooks.example.com/T0KEN/abc", "events": []string{"import.completed"}})
	if r.Status != http.StatusCreated {
		t.Fatalf("create: %d %s", r.Status, r.Body)
	}
	var created struct{ Data struct{ ID string } }
	r.JSON(t, &created)
	path := "/api/v1/webhooks/" + created.Data.ID
	for _, step := range []struct {
		method, path string
		body         any
		status       int
	}{
		{http.MethodPatch, path, map[string]any{"description": "CI", "active": false}, http.StatusOK},
		{http.MethodPost, path + "/rotate_secret", nil, http.StatusOK},
		{http.MethodDelete, path, nil, http.StatusNoContent},
	} {
		if r := api.API(step.method, step.path, key, step.body); r.Status != step.status {
			t.Fatalf("%s %s: %d %s", step.method, step.path, r.Status, r.Body)
		}
	}
	page := apptest.NewClient(t, srv)
	page.SignIn(admin.Email, testkit.Password)
	page.Get("/settings/webhooks")
	if r := page.PostForm("/settings/webhooks", url.Values{"url": {"https://other.example.com/x"}, "events": {"import.completed"}}); r.Status != http.StatusCreated {
		t.Fatalf("create on the page: %d", r.Status)
	}

	var rows []struct {
		Action  string `bun:"action"`
		Host    string `bun:"host"`
		Changes string `bun:"changes"`
		UserID  string `bun:"user_id"`
		IP      string `bun:"ip_address"`
		UA      string `bun:"user_agent"`
		Raw     string `bun:"raw"`
	}
	if err := srv.DB.NewRaw(`SELECT metadata->>'action' AS action, metadata->>'host' AS host, coalesce(metadata->>'changes', '') AS changes,
			user_id::text, ip_address, coalesce(user_agent, '') AS user_agent, metadata::text AS raw
		FROM sso_audit_logs WHERE event_type = 'webhook_changed' ORDER BY created_at, id`).Scan(t.Context(), &rows); err != nil {
		t.Fatal(err)
	}
	want := []struct{ action, host, changes string }{
		{"created", "hooks.example.com", ""}, {"updated", "hooks.example.com", `["description", "active"]`},
		{"secret_rotated", "hooks.example.com", ""}, {"deleted", "hooks.example.com", ""}, {"created", "other.example.com", ""}}
	if len(rows) != len(want) {
		t.Fatalf("%d webhook_changed entries, want %d: %+v", len(rows), len(want), rows)
	}
	for i, w := range want {
		got := rows[i]
		if got.Action != w.action || got.Host != w.host || got.Changes != w.changes || got.UserID != admin.ID.String() || got.IP != "127.0.0.1" ||
			strings.Contains(got.Raw, "T0KEN") {
			t.Errorf("entry %d: %+v, want %+v", i+1, got, w)
		}
		if ua := map[bool]string{true: "tally-cli/2.0", false: "Go-http-client/1.1"}[i < 4]; got.UA != ua {
			t.Errorf("entry %d's user agent %q, want %q", i+1, got.UA, ua)
		}
	}
	// The super admin's audit log offers the event in its filter and lists the entries.
	root := testkit.MustCreateUser(t, srv.DB, testkit.UserOpts{Role: models.RoleSuperAdmin})
	sc := apptest.NewClient(t, srv)
	sc.SignIn(root.Email, testkit.Password)
	log := sc.Get("/admin/sso_audit_logs?event_type=webhook_changed")
	if n := log.Doc(t).Find(`[data-testid="audit-row"][data-event="webhook_changed"]`).Length(); log.Status != http.StatusOK || n != len(want) ||
		log.Doc(t).Find(`option[value="webhook_changed"]`).Text() != "Webhook changed" {
		t.Errorf("the audit log page: %d, %d rows", log.Status, n)
	}
}
