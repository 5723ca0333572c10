package e2e

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"

	"tally/app/apptest"
	"tally/models"
	"tally/testkit"
)

// TestFirstRunToAPIKey is the journey of a new instance's first person: onboarding, signing
// out and in again, creating an API key that is shown once, using it over HTTP, and finally an
// instance where local login is off.
func TestFirstRunToAPIKey(t *testing.T) {
	t.Parallel()
	ctx := newTab(t)
	srv := startServer(t, apptest.ServerOptions{})

	const (
		email    = "ada@example.com"
		password = "analytical engine 1843"
		keyName  = "Budget script"
	)
	var key string

	step(t, "onboarding", func(t *testing.T) {
		// The family's time zone is the browser's.
		if _, err := chromedp.Call(ctx, emulation.SetTimezoneOverride, emulation.SetTimezoneOverrideParams{TimezoneID: "Europe/Lisbon"}); err != nil {
			t.Fatalf("be in Lisbon: %v", err)
		}
		visit(t, ctx, srv.URL+"/")
		visible(t, ctx, "onboarding-form")
		wantPath(t, ctx, "/onboarding")

		fill(t, ctx, "field-family_name", "The Lovelaces")
		fill(t, ctx, "field-first_name", "Ada")
		fill(t, ctx, "field-last_name", "Lovelace")
		fill(t, ctx, "field-email", email)
		fill(t, ctx, "field-password", password)
		choose(t, ctx, "field-currency", "EUR")
		// The starter categories are ticked, and previewed in the language of the numbers.
		wantText(t, ctx, "starter-category-name", "Income")
		choose(t, ctx, "field-locale", "de-DE")
		waitText(t, ctx, "starter-category-name", "Einnahmen", 10*time.Second)
		run(t, ctx, "scroll to the preview", chromedp.ScrollIntoView(testID("starter-categories")))
		shot(t, ctx, "onboarding-starter-categories")
		checkAccessible(t, ctx, axeSource(t), "/onboarding")
		click(t, ctx, "onboarding-submit")

		visible(t, ctx, "current-user")
		wantPath(t, ctx, "/")
		wantText(t, ctx, "page-title", "Dashboard")
		wantText(t, ctx, "current-user", "Ada Lovelace")
		wantText(t, ctx, "family-name", "The Lovelaces")
		visible(t, ctx, "flash-success")

		u, err := models.UserByEmail(context.Background(), srv.DB, email)
		if err != nil {
			t.Fatalf("onboarded user: %v", err)
		}
		if u.Family == nil || u.Family.Currency != "EUR" || u.Family.Timezone != "Europe/Lisbon" || u.Family.Locale != "de-DE" {
			t.Errorf("family %+v, want currency EUR and numbers de-DE as chosen, and the browser's time zone", u.Family)
		}
		if all, err := models.AllCategories(context.Background(), srv.DB, models.FamilyViewer(u.FamilyID)); err != nil || !slices.ContainsFunc(all, func(c models.Category) bool { return c.Name == "Lebensmittel" }) {
			t.Errorf("the family starts with %d categories, without Lebensmittel (err %v)", len(all), err)
		}
	})

	step(t, "sign out", func(t *testing.T) {
		click(t, ctx, "sign-out")
		visible(t, ctx, "sign-in-form")
		wantPath(t, ctx, "/sessions/new")
		visible(t, ctx, "flash-success")
		if n := count(t, ctx, "current-user"); n != 0 {
			t.Errorf("signed-out page shows current-user %d times", n)
		}
	})

	step(t, "sign in", func(t *testing.T) {
		fill(t, ctx, "field-email", email)
		fill(t, ctx, "field-password", password)
		click(t, ctx, "sign-in-submit")

		visible(t, ctx, "current-user")
		wantPath(t, ctx, "/")
		wantText(t, ctx, "page-title", "Dashboard")
		wantText(t, ctx, "current-user", "Ada Lovelace")
	})

	step(t, "create an API key", func(t *testing.T) {
		clickNav(t, ctx, "api_keys")
		visible(t, ctx, "api-key-form")
		wantPath(t, ctx, "/settings/api_keys")
		wantText(t, ctx, "page-title", "API keys")

		fill(t, ctx, "field-name", keyName)
		choose(t, ctx, "field-scope", models.ScopeRead)
		click(t, ctx, "create-api-key")

		visible(t, ctx, "new-api-key")
		key = inputValue(t, ctx, "api-key-value")
		if !strings.HasPrefix(key, "tally_") {
			t.Fatalf("new API key %q does not start with tally_", key)
		}
		if !pageContains(t, ctx, key) { // the control for the check after the reload
			t.Fatalf("page does not contain the key it shows")
		}
		if n := count(t, ctx, "api-key-row"); n != 1 {
			t.Errorf("%d key rows after creating one, want 1", n)
		}
	})

	step(t, "the key is shown once", func(t *testing.T) {
		visit(t, ctx, srv.URL+"/settings/api_keys")
		visible(t, ctx, "api-keys-table")
		if n := count(t, ctx, "new-api-key"); n != 0 {
			t.Errorf("reloaded page shows the new-key panel again")
		}
		if pageContains(t, ctx, key) {
			t.Errorf("reloaded page still contains the key %q", key)
		}
		if n := count(t, ctx, "api-key-row"); n != 1 {
			t.Fatalf("%d key rows, want 1", n)
		}
		if row := text(t, ctx, "api-key-row"); !strings.Contains(row, keyName) || !strings.Contains(row, "Read only") {
			t.Errorf("key row %q, want the name %q and Read only", row, keyName)
		}
	})

	step(t, "use the key over HTTP", func(t *testing.T) {
		u, err := models.UserByEmail(context.Background(), srv.DB, email)
		if err != nil {
			t.Fatalf("onboarded user: %v", err)
		}
		testkit.MustCreateAccount(t, srv.DB, u.FamilyID, "Everyday checking", "Depository", "1250.00")

		status, body := apiGet(t, srv.URL+"/api/v1/accounts", key)
		if status != http.StatusOK {
			t.Fatalf("GET /api/v1/accounts with the key: status %d, body %s", status, body)
		}
		var list struct {
			Data []struct {
				Name string `json:"name"`
			} `json:"data"`
		}
		if err := json.Unmarshal(body, &list); err != nil {
			t.Fatalf("decode %s: %v", body, err)
		}
		if len(list.Data) != 1 || list.Data[0].Name != "Everyday checking" {
			t.Errorf("accounts %s, want the family's one account", body)
		}

		if status, body := apiGet(t, srv.URL+"/api/v1/accounts", ""); status != http.StatusUnauthorized {
			t.Errorf("GET /api/v1/accounts without a key: status %d, want 401; body %s", status, body)
		}
		if status, body := apiGet(t, srv.URL+"/api/v1/accounts", key+"x"); status != http.StatusUnauthorized {
			t.Errorf("GET /api/v1/accounts with a wrong key: status %d, want 401; body %s", status, body)
		}
	})

	step(t, "sign out again", func(t *testing.T) {
		click(t, ctx, "sign-out")
		visible(t, ctx, "sign-in-form")
		wantPath(t, ctx, "/sessions/new")
	})

	step(t, "no sign-in form when local login is off", func(t *testing.T) {
		off := startServer(t, apptest.ServerOptions{DB: srv.DB, Env: map[string]string{"AUTH_LOCAL_LOGIN_ENABLED": "false"}})
		visit(t, ctx, off.URL+"/sessions/new")
		visible(t, ctx, "no-auth-methods")
		wantPath(t, ctx, "/sessions/new")
		for _, id := range []string{"sign-in-form", "field-password", "sign-in-submit"} {
			if n := count(t, ctx, id); n != 0 {
				t.Errorf("%s is on the page with local login off", id)
			}
		}
	})
}

// apiGet sends GET url with the API key (none when "") as a program would, and returns the
// status and the body.
func apiGet(t *testing.T, url, key string) (int, []byte) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		t.Fatalf("new request: %v", err)
	}
	req.Header.Set("Accept", "application/json")
	if key != "" {
		req.Header.Set("X-Api-Key", key)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("read %s: %v", url, err)
	}
	return resp.StatusCode, body
}
