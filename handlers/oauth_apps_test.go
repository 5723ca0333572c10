package handlers_test

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/pquerna/otp/totp"
	"golang.org/x/crypto/bcrypt"

	"tally/app/apptest"
	"tally/models"
	"tally/testkit"
)

// oauthAppsEnv is a server with room for an admin's many requests and a super admin signed in.
func oauthAppsEnv(t *testing.T) (*apptest.Server, *testkit.Client, *models.User) {
	t.Helper()
	srv := apptest.StartServer(t, apptest.ServerOptions{Env: map[string]string{"ADMIN_RATE_LIMIT_PER_MINUTE": "1000"}})
	root := testkit.MustCreateUser(t, srv.DB, testkit.UserOpts{Role: models.RoleSuperAdmin})
	c := testkit.NewClient(t, srv.URL)
	c.SignIn(root.Email, testkit.Password)
	c.Get("/") // signing in renews the CSRF token that forms carry
	return srv, c, root
}

// appForm is the application form as a browser submits it: check boxes only when ticked.
func appForm(name, redirects string, checked ...string) url.Values {
	v := url.Values{"name": {name}, "redirect_uris": {redirects}, "_submitted": {"1"}}
	for _, box := range checked {
		v.Set(box, "1")
	}
	return v
}

// valueOf is the value attribute of the input with data-testid id.
func valueOf(t *testing.T, r *testkit.Response, id string) string {
	t.Helper()
	return r.Doc(t).Find(`[data-testid="`+id+`"]`).First().AttrOr("value", "")
}

// createdApp creates a confidential application through the page and returns its client ID
// and the secret shown once.
func createdApp(t *testing.T, c *testkit.Client, form url.Values) (string, string) {
	t.Helper()
	r := c.PostForm("/oauth/applications", form)
	if r.Status != http.StatusCreated || !r.Has(t, "new-client-secret") {
		t.Fatalf("create confidential: %d %s", r.Status, r.Body)
	}
	id, secret := valueOf(t, r, "new-client-id"), valueOf(t, r, "new-client-secret-value")
	if id == "" || len(secret) < 32 {
		t.Fatalf("created client %q with secret %q", id, secret)
	}
	return id, secret
}

func TestOAuthAppsCreateEditDeleteAndAudit(t *testing.T) {
	t.Parallel()
	srv, c, root := oauthAppsEnv(t)

	r := c.Get("/oauth/applications")
	if r.Status != http.StatusOK || !r.Has(t, "oauth-apps-empty") || r.Has(t, "oauth-app-row") {
		t.Fatalf("empty list: %d", r.Status)
	}
	if cur := r.Doc(t).Find(`[aria-current="page"]`).AttrOr("data-testid", ""); cur != "nav-oauth_apps" {
		t.Errorf("the navigation highlights %q", cur)
	}
	if r := c.Get("/oauth/applications/new"); r.Status != http.StatusOK || valueOf(t, r, "field-owner") != root.Email {
		t.Fatalf("new form: %d, owner %q", r.Status, valueOf(t, r, "field-owner"))
	}

	// A public client: no secret, straight back to the list.
	r = c.PostForm("/oauth/applications", appForm("Phone app", "https://app.example.com/cb\r\n\r\nhttp://127.0.0.1:8765/cb", "read_write"))
	if r.Status != http.StatusSeeOther || r.Location() != "/oauth/applications" {
		t.Fatalf("create public: %d %s", r.Status, r.Body)
	}
	public := testkitStrings(t, srv, "SELECT id FROM oauth_clients WHERE name = 'Phone app' AND secret_hash IS NULL")
	if len(public) != 1 {
		t.Fatalf("public clients %v", public)
	}
	r = c.Get("/oauth/applications")
	row := r.Doc(t).Find(`[data-testid="oauth-app-row"][data-client-id="` + public[0] + `"]`)
	if !strings.Contains(r.TestID(t, "flash-success"), "Phone app") || row.Length() != 1 {
		t.Fatalf("list after create: flash %q, %d rows", r.TestID(t, "flash-success"), row.Length())
	}
	for id, want := range map[string]string{"oauth-app-type": "Public", "oauth-app-via": "admin", "oauth-app-scopes": "read read_write"} {
		if got := strings.TrimSpace(row.Find(`[data-testid="` + id + `"]`).Text()); got != want {
			t.Errorf("%s shows %q, want %q", id, got, want)
		}
	}
	if got := row.Find(`[data-testid="oauth-app-redirects"] li`).Map(func(_ int, s *goquery.Selection) string { return s.Text() }); strings.Join(got, " ") != "https://app.example.com/cb http://127.0.0.1:8765/cb" {
		t.Errorf("redirect URIs listed: %v", got)
	}

	// A confidential client with client credentials: its secret is shown once, stored hashed.
	form := appForm("Nightly sync", "", "confidential", "client_credentials")
	form.Set("owner", root.Email)
	confID, secret := createdApp(t, c, form)
	hash := testkitStrings(t, srv, "SELECT secret_hash FROM oauth_clients WHERE id = ?", confID)
	if len(hash) != 1 || hash[0] == secret || !strings.HasPrefix(hash[0], "$2") || bcrypt.CompareHashAndPassword([]byte(hash[0]), []byte(secret)) != nil {
		t.Fatalf("stored secret %v is not a bcrypt hash of the secret shown", hash)
	}
	for _, path := range []string{"/oauth/applications", "/oauth/applications/" + confID + "/edit"} {
		if r := c.Get(path); r.Status != http.StatusOK || strings.Contains(r.Body, secret) || r.Has(t, "new-client-secret") {
			t.Errorf("GET %s: %d, shows the secret again", path, r.Status)
		}
	}
	if got := testkitStrings(t, srv, "SELECT u.email FROM oauth_clients c JOIN users u ON u.id = c.owner_user_id WHERE c.id = ?", confID); len(got) != 1 || got[0] != root.Email {
		t.Errorf("owner %v, want %s", got, root.Email)
	}

	// Edit: the form shows what is stored; a bad change is refused and changes nothing.
	base := "/oauth/applications/" + public[0]
	r = c.Get(base + "/edit")
	if valueOf(t, r, "field-name") != "Phone app" || r.TestID(t, "field-redirect_uris") != "https://app.example.com/cb\nhttp://127.0.0.1:8765/cb" || r.Has(t, "field-confidential") {
		t.Fatalf("edit form: name %q, redirects %q", valueOf(t, r, "field-name"), r.TestID(t, "field-redirect_uris"))
	}
	if r := c.PostForm(base, appForm("Phone app v2", "http://example.com/cb", "read_write")); r.Status != http.StatusUnprocessableEntity || r.TestID(t, "error-redirect_uris") == "" {
		t.Fatalf("bad update: %d", r.Status)
	}
	if r := c.PostForm(base, appForm("Phone app v2", "https://app.example.com/cb")); r.Status != http.StatusSeeOther {
		t.Fatalf("update: %d %s", r.Status, r.Body)
	}
	if got := testkitStrings(t, srv, "SELECT name || ' ' || array_to_string(scopes, ',') FROM oauth_clients WHERE id = ?", public[0]); len(got) != 1 || got[0] != "Phone app v2 read" {
		t.Fatalf("after update: %v", got)
	}
	if r := c.Get("/oauth/applications"); !strings.Contains(r.TestID(t, "flash-success"), "Phone app v2") {
		t.Errorf("no flash after saving: %q", r.TestID(t, "flash-success"))
	}

	// Delete: the dialog's form posts to /delete.
	if r := c.Get(base + "/edit"); r.Doc(t).Find(`[data-testid="confirm-delete-oauth-app"] form`).AttrOr("action", "") != base+"/delete" {
		t.Fatal("the edit page has no delete dialog for the application")
	}
	if r := c.PostForm(base+"/delete", nil); r.Status != http.StatusSeeOther || r.Location() != "/oauth/applications" {
		t.Fatalf("delete: %d", r.Status)
	}
	if n := testkitStrings(t, srv, "SELECT id FROM oauth_clients WHERE id = ?", public[0]); len(n) != 0 {
		t.Fatal("the deleted client is still stored")
	}
	r = c.Get("/oauth/applications")
	if !strings.Contains(r.TestID(t, "flash-success"), "deleted") {
		t.Errorf("no flash after deleting: %q", r.TestID(t, "flash-success"))
	}
	if n := r.Doc(t).Find(`[data-testid="oauth-app-row"]`).Length(); n != 1 || r.Doc(t).Find(`[data-client-id="`+public[0]+`"]`).Length() != 0 {
		t.Errorf("the list after deleting has %d rows, or still the deleted one", n)
	}
	if r := c.Get(base + "/edit"); r.Status != http.StatusNotFound {
		t.Errorf("edit a deleted client: %d", r.Status)
	}

	got := testkitStrings(t, srv, `SELECT concat_ws(' ', metadata->>'action', metadata->>'client_id', metadata->>'name', user_id::text)
		FROM sso_audit_logs WHERE event_type = 'oauth_client_changed' ORDER BY created_at, id`)
	want := []string{"created " + public[0] + " Phone app " + root.ID.String(), "created " + confID + " Nightly sync " + root.ID.String(),
		"updated " + public[0] + " Phone app v2 " + root.ID.String(), "deleted " + public[0] + " Phone app v2 " + root.ID.String()}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("audited\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestOAuthAppFormShowsEveryProblem(t *testing.T) {
	t.Parallel()
	srv, c, _ := oauthAppsEnv(t)
	for _, bad := range []string{"http://example.com/cb", "javascript:x", "https://app.example.com/cb#frag"} {
		r := c.PostForm("/oauth/applications", appForm("Bad", bad))
		if r.Status != http.StatusUnprocessableEntity || !strings.Contains(r.TestID(t, "error-redirect_uris"), bad) {
			t.Errorf("redirect %q: %d, error %q", bad, r.Status, r.TestID(t, "error-redirect_uris"))
		}
		if valueOf(t, r, "field-name") != "Bad" || r.TestID(t, "field-redirect_uris") != bad {
			t.Errorf("redirect %q: the form lost what was typed", bad)
		}
	}
	// An unknown owner is reported with the service's own problems, all at once.
	form := appForm("", "http://example.com/cb", "confidential", "client_credentials")
	form.Set("owner", "nobody@example.com")
	r := c.PostForm("/oauth/applications", form)
	if r.Status != http.StatusUnprocessableEntity || !strings.Contains(r.TestID(t, "error-owner"), "nobody@example.com") ||
		r.TestID(t, "error-name") == "" || r.TestID(t, "error-redirect_uris") == "" {
		t.Fatalf("unknown owner: %d, owner %q, name %q", r.Status, r.TestID(t, "error-owner"), r.TestID(t, "error-name"))
	}
	// Alone, it still rolls back a client that would otherwise be valid.
	form = appForm("Robot", "", "confidential", "client_credentials")
	form.Set("owner", "nobody@example.com")
	if r := c.PostForm("/oauth/applications", form); r.Status != http.StatusUnprocessableEntity || r.TestID(t, "error-owner") == "" {
		t.Fatalf("unknown owner alone: %d", r.Status)
	}
	// Client credentials need a secret.
	if r := c.PostForm("/oauth/applications", appForm("Robot", "", "client_credentials")); r.Status != http.StatusUnprocessableEntity || r.TestID(t, "error-client_credentials") == "" {
		t.Fatalf("public with client credentials: %d", r.Status)
	}
	if n := testkitStrings(t, srv, "SELECT id FROM oauth_clients"); len(n) != 0 {
		t.Fatalf("refused forms created %d clients", len(n))
	}
	if n := testkitStrings(t, srv, "SELECT id::text FROM sso_audit_logs WHERE event_type = 'oauth_client_changed'"); len(n) != 0 {
		t.Fatalf("refused forms were audited %d times", len(n))
	}
}

// tokenFor asks for a client credentials token with HTTP Basic authentication, for the
// scopes given, if any.
func tokenFor(t *testing.T, srv *apptest.Server, id, secret string, scope ...string) (int, map[string]any) {
	t.Helper()
	basic := base64.StdEncoding.EncodeToString([]byte(url.QueryEscape(id) + ":" + url.QueryEscape(secret)))
	req := "grant_type=client_credentials"
	if len(scope) > 0 {
		req += "&scope=" + url.QueryEscape(strings.Join(scope, " "))
	}
	r := testkit.NewClient(t, srv.URL).Do(http.MethodPost, "/oauth/token", strings.NewReader(req),
		map[string]string{"Content-Type": "application/x-www-form-urlencoded", "Authorization": "Basic " + basic})
	var body map[string]any
	_ = json.Unmarshal([]byte(r.Body), &body)
	return r.Status, body
}

func TestOAuthAppClientCredentialsActForTheOwner(t *testing.T) {
	t.Parallel()
	srv, c, root := oauthAppsEnv(t)
	owner := root
	testkit.MustCreateAccount(t, srv.DB, owner.FamilyID, "Owner's wallet", "Depository", "10")

	// Someone else, of another family, cannot be made the owner: the token would read and
	// change their data without their say.
	other := testkit.MustCreateUser(t, srv.DB, testkit.UserOpts{Email: "robot-owner@example.com", Role: models.RoleMember})
	form := appForm("Nightly sync", "", "confidential", "client_credentials")
	form.Set("owner", "Robot-Owner@example.com ")
	if r := c.PostForm("/oauth/applications", form); r.Status != http.StatusUnprocessableEntity ||
		!strings.Contains(r.TestID(t, "error-owner"), "act for the administrator who sets them up") {
		t.Fatalf("another user as the owner: %d %q", r.Status, r.TestID(t, "error-owner"))
	}
	if n := testkitStrings(t, srv, "SELECT id::text FROM oauth_clients WHERE owner_user_id = ?", other.ID); len(n) != 0 {
		t.Fatalf("an application acting for %s was made", other.Email)
	}
	c.Get("/oauth/applications/new")
	form.Set("owner", strings.ToUpper(owner.Email)+" ")
	id, secret := createdApp(t, c, form)
	if r := c.Get("/oauth/applications"); r.TestID(t, "oauth-app-owner") != owner.Email {
		t.Errorf("the list says the client acts for %q", r.TestID(t, "oauth-app-owner"))
	}

	status, body := tokenFor(t, srv, id, secret)
	token, _ := body["access_token"].(string)
	if status != http.StatusOK || token == "" {
		t.Fatalf("token: %d %v", status, body)
	}
	api := func() *testkit.Response {
		return testkit.NewClient(t, srv.URL).Do(http.MethodGet, "/api/v1/accounts", nil, map[string]string{"Authorization": "Bearer " + token})
	}
	r := api()
	var accounts struct {
		Data []struct {
			Name string `json:"name"`
		} `json:"data"`
	}
	r.JSON(t, &accounts)
	if r.Status != http.StatusOK || len(accounts.Data) != 1 || accounts.Data[0].Name != "Owner's wallet" {
		t.Fatalf("API as the owner: %d %s", r.Status, r.Body)
	}

	if status, body := tokenFor(t, srv, id, secret+"x"); status != http.StatusUnauthorized || body["error"] != "invalid_client" {
		t.Fatalf("wrong secret: %d %v", status, body)
	}

	// Deleting the application ends its tokens, as the dialog says.
	if r := c.PostForm("/oauth/applications/"+id+"/delete", nil); r.Status != http.StatusSeeOther {
		t.Fatalf("delete: %d", r.Status)
	}
	if r := api(); r.Status != http.StatusUnauthorized {
		t.Fatalf("a deleted application's token: %d", r.Status)
	}
}

func TestOAuthAppPagesAreForSuperAdminsOnly(t *testing.T) {
	t.Parallel()
	srv, root, _ := oauthAppsEnv(t)
	id, _ := createdApp(t, root, appForm("Kept", "https://kept.example.com/cb", "confidential"))
	admin := testkit.MustCreateUser(t, srv.DB, testkit.UserOpts{Role: models.RoleAdmin})
	member := testkit.MustCreateUser(t, srv.DB, testkit.UserOpts{Role: models.RoleMember, FamilyID: admin.FamilyID})
	base := "/oauth/applications"
	gets := []string{base, base + "/new", base + "/" + id + "/edit"}
	posts := []string{base, base + "/" + id, base + "/" + id + "/delete"}
	for who, u := range map[string]*models.User{"admin": admin, "member": member} {
		c := testkit.NewClient(t, srv.URL)
		c.SignIn(u.Email, testkit.Password)
		for _, path := range gets {
			if r := c.Get(path); r.Status != http.StatusNotFound {
				t.Errorf("%s GET %s: %d, want 404", who, path, r.Status)
			}
		}
		c.Get("/")
		for _, path := range posts {
			if r := c.PostForm(path, appForm("Taken over", "https://evil.example.com/cb", "confidential", "read_write")); r.Status != http.StatusNotFound {
				t.Errorf("%s POST %s: %d, want 404", who, path, r.Status)
			}
		}
	}
	anonymous := testkit.NewClient(t, srv.URL)
	for _, path := range gets {
		if r := anonymous.Get(path); r.Status != http.StatusSeeOther {
			t.Errorf("anonymous GET %s: %d, want a redirect to sign in", path, r.Status)
		}
	}
	if got := testkitStrings(t, srv, "SELECT id || ' ' || name || ' ' || array_to_string(redirect_uris, ',') FROM oauth_clients"); len(got) != 1 ||
		got[0] != id+" Kept https://kept.example.com/cb" {
		t.Fatalf("the refused requests changed the clients: %v", got)
	}
}

func TestOAuthAppsListDynamicRegistrations(t *testing.T) {
	t.Parallel()
	srv, c, _ := oauthAppsEnv(t)
	r := testkit.NewClient(t, srv.URL).Do(http.MethodPost, "/register", strings.NewReader(`{"client_name": "Assistant", "redirect_uris": ["http://127.0.0.1:9/cb"]}`),
		map[string]string{"Content-Type": "application/json"})
	var reg struct {
		ClientID string `json:"client_id"`
	}
	r.JSON(t, &reg)
	row := c.Get("/oauth/applications").Doc(t).Find(`[data-testid="oauth-app-row"][data-client-id="` + reg.ClientID + `"]`)
	if reg.ClientID == "" || row.Length() != 1 {
		t.Fatalf("registered %q, listed %d times", reg.ClientID, row.Length())
	}
	for id, want := range map[string]string{"oauth-app-name": "Assistant", "oauth-app-via": "dynamic registration", "oauth-app-type": "Public",
		"oauth-app-grants": "authorization_coderefresh_token", "oauth-app-scopes": "read read_write"} {
		if got := strings.TrimSpace(row.Find(`[data-testid="` + id + `"]`).Text()); got != want {
			t.Errorf("%s shows %q, want %q", id, got, want)
		}
	}
}

// TestOAuthAppClientCredentialsTakeTheSecondFactorAndGetTheirScope is a super admin with an
// authenticator app whose session gave no code lately: setting up client credentials asks
// for it, and the token then gets the read_write scope it asks for, and can write.
func TestOAuthAppClientCredentialsTakeTheSecondFactorAndGetTheirScope(t *testing.T) {
	t.Parallel()
	srv, c, root := oauthAppsEnv(t)
	secret := apptest.MustEnrolTOTP(t, srv, root)
	c.Get("/oauth/applications/new")
	form := appForm("Writer", "", "confidential", "client_credentials", "read_write")
	form.Set("owner", root.Email)
	if r := c.PostForm("/oauth/applications", form); r.Status != http.StatusOK || !r.Has(t, "step-up-form") {
		t.Fatalf("client credentials without the code: %d, step-up %v", r.Status, r.Has(t, "step-up-form"))
	}
	if n := testkitStrings(t, srv, "SELECT id::text FROM oauth_clients"); len(n) != 0 {
		t.Fatal("the application was made before the code")
	}
	code, _ := totp.GenerateCode(secret, time.Now())
	form.Set("step_up_code", code)
	id, clientSecret := createdApp(t, c, form)

	status, body := tokenFor(t, srv, id, clientSecret, "read_write")
	token, _ := body["access_token"].(string)
	if status != http.StatusOK || token == "" || body["scope"] != "read_write" {
		t.Fatalf("a read_write token: %d %v", status, body)
	}
	r := testkit.NewClient(t, srv.URL).Do(http.MethodPost, "/api/v1/tags", strings.NewReader(`{"name": "From the robot"}`),
		map[string]string{"Authorization": "Bearer " + token, "Content-Type": "application/json"})
	if r.Status != http.StatusCreated {
		t.Fatalf("writing with the read_write token: %d %s", r.Status, r.Body)
	}
}
