package handlers_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"tally/internal/apptest"
	"tally/internal/testkit"
	"tally/models"
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
