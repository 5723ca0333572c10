package e2e

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"tally/app/apptest"
	"tally/models"
	"tally/testkit"
)

// shownNow reports whether the element with data-testid id is on the page and not inside a
// hidden section, without waiting.
func shownNow(t *testing.T, ctx context.Context, id string) bool {
	t.Helper()
	js := fmt.Sprintf(`(function (el) { return !!el && el.closest("[hidden]") === null })(document.querySelector(%q))`, string(testID(id)))
	return run(t, ctx, "is "+id+" shown", chromedp.Evaluate[bool](js))
}

// clientCredentialsStatus asks Tally's token endpoint for a client credentials token, as a
// service would, and returns the status.
func clientCredentialsStatus(t *testing.T, srv *apptest.Server, id, secret string) int {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, srv.URL+"/oauth/token", strings.NewReader("grant_type=client_credentials"))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.SetBasicAuth(url.QueryEscape(id), url.QueryEscape(secret))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("token request: %v", err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// TestOAuthAppJourney is a super admin's journey through the OAuth applications: register a
// confidential application, copy its secret from the one page that shows it, rename it, and
// delete it through the confirmation dialog.
func TestOAuthAppJourney(t *testing.T) {
	t.Parallel()
	ctx := newTab(t)
	srv := startServer(t, apptest.ServerOptions{Env: map[string]string{"ADMIN_RATE_LIMIT_PER_MINUTE": "1000"}})
	root := testkit.MustCreateUser(t, srv.DB, testkit.UserOpts{Role: models.RoleSuperAdmin})
	clients := func() []string {
		var names []string
		if err := srv.DB.NewRaw("SELECT name FROM oauth_clients ORDER BY name").Scan(context.Background(), &names); err != nil {
			t.Fatal(err)
		}
		return names
	}
	var clientID, secret string

	step(t, "the navigation leads to an empty list", func(t *testing.T) {
		signInAs(t, ctx, srv, root.Email)
		clickNav(t, ctx, "oauth_apps")
		visible(t, ctx, "oauth-apps-empty")
		wantPath(t, ctx, "/oauth/applications")
		wantText(t, ctx, "page-title", "OAuth applications")
		shot(t, ctx, "oauth-apps-empty")
	})

	step(t, "register a confidential application", func(t *testing.T) {
		click(t, ctx, "oauth-apps-empty-add")
		visible(t, ctx, "oauth-app-form")
		fill(t, ctx, "field-name", "Nightly sync")
		fill(t, ctx, "field-redirect_uris", "https://sync.example.com/callback")
		if shownNow(t, ctx, "field-client_credentials") || shownNow(t, ctx, "field-owner") {
			t.Fatal("client credentials are offered to a public client")
		}
		click(t, ctx, "field-confidential")
		visible(t, ctx, "field-client_credentials")
		if shownNow(t, ctx, "field-owner") {
			t.Fatal("the owner is asked for before client credentials are allowed")
		}
		click(t, ctx, "field-client_credentials")
		visible(t, ctx, "field-owner")
		if got := inputValue(t, ctx, "field-owner"); got != root.Email {
			t.Errorf("the owner defaults to %q, want the signed-in admin %q", got, root.Email)
		}
		shot(t, ctx, "oauth-app-new")
		click(t, ctx, "oauth-app-save")
		visible(t, ctx, "new-client-secret")
		clientID, secret = inputValue(t, ctx, "new-client-id"), inputValue(t, ctx, "new-client-secret-value")
		if clientID == "" || len(secret) < 32 {
			t.Fatalf("shown client ID %q and secret %q", clientID, secret)
		}
		wantText(t, ctx, "flash-success", "Application “Nightly sync” created.")
		if n := count(t, ctx, "oauth-app-row"); n != 1 {
			t.Errorf("%d applications listed, want 1", n)
		}
		shot(t, ctx, "oauth-app-secret")
	})

	step(t, "the secret works once copied, and is never shown again", func(t *testing.T) {
		if status := clientCredentialsStatus(t, srv, clientID, secret); status != http.StatusOK {
			t.Fatalf("token with the shown secret: %d", status)
		}
		visit(t, ctx, srv.URL+"/oauth/applications")
		visible(t, ctx, "oauth-apps-table")
		if count(t, ctx, "new-client-secret") != 0 || pageContains(t, ctx, secret) {
			t.Fatal("the list shows the secret again")
		}
	})

	step(t, "rename it", func(t *testing.T) {
		click(t, ctx, "oauth-app-name")
		visible(t, ctx, "oauth-app-form")
		if pageContains(t, ctx, secret) || count(t, ctx, "field-confidential") != 0 {
			t.Fatal("the edit page shows the secret, or lets the type change")
		}
		run(t, ctx, "clear the name", chromedp.Clear(testID("field-name")))
		fill(t, ctx, "field-name", "Nightly export")
		shot(t, ctx, "oauth-app-edit")
		click(t, ctx, "oauth-app-save")
		waitText(t, ctx, "oauth-app-name", "Nightly export", 10*time.Second)
		wantText(t, ctx, "flash-success", "Application “Nightly export” saved.")
		if got := clients(); strings.Join(got, ",") != "Nightly export" {
			t.Errorf("stored applications %v", got)
		}
	})

	step(t, "deleting asks first", func(t *testing.T) {
		click(t, ctx, "oauth-app-name")
		visible(t, ctx, "delete-oauth-app")
		click(t, ctx, "delete-oauth-app")
		visible(t, ctx, "confirm-delete-oauth-app")
		if got := text(t, ctx, "confirm-delete-oauth-app"); !strings.Contains(got, "Every token of this application stops working") {
			t.Errorf("the dialog says %q", got)
		}
		if len(clients()) != 1 {
			t.Fatal("the application was deleted before it was confirmed")
		}
		shot(t, ctx, "oauth-app-delete-confirm")
	})

	step(t, "confirming deletes it", func(t *testing.T) {
		click(t, ctx, "confirm-delete-oauth-app-submit")
		visible(t, ctx, "oauth-apps-empty")
		wantPath(t, ctx, "/oauth/applications")
		wantText(t, ctx, "flash-success", "Application “Nightly export” deleted. Its tokens no longer work.")
		if got := clients(); len(got) != 0 {
			t.Errorf("applications left: %v", got)
		}
		if status := clientCredentialsStatus(t, srv, clientID, secret); status != http.StatusUnauthorized {
			t.Errorf("token for a deleted application: %d", status)
		}
		shot(t, ctx, "oauth-apps-deleted")
	})
}
