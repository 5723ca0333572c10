package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"golang.org/x/oauth2"

	"tally/app/apptest"
	"tally/testkit"
)

// clientApp is an OAuth client's side of the flow: its redirect target, a local listener on
// loopback as a native app's would be, and its registration at Tally.
type clientApp struct {
	conf *oauth2.Config
	// callbacks receives the query of each request to the redirect target.
	callbacks chan url.Values
}

// startClientApp starts the redirect target and registers it at srv as a public client named
// name, through POST /register as an application would.
func startClientApp(t *testing.T, srv *apptest.Server, name string) *clientApp {
	t.Helper()
	app := &clientApp{callbacks: make(chan url.Values, 4)}
	target := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/cb" { // the browser's favicon request, say
			http.NotFound(w, r)
			return
		}
		app.callbacks <- r.URL.Query()
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, `<!doctype html><title>Back in the app</title><p data-testid="client-callback">You can close this window.</p>`)
	}))
	t.Cleanup(target.Close)
	redirect := target.URL + "/cb"

	body, _ := json.Marshal(map[string]any{"client_name": name, "redirect_uris": []string{redirect}})
	resp, err := http.Post(srv.URL+"/register", "application/json", strings.NewReader(string(body)))
	if err != nil {
		t.Fatalf("register: %v", err)
	}
	defer resp.Body.Close()
	var reg struct {
		ClientID string `json:"client_id"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&reg); err != nil || resp.StatusCode != http.StatusCreated || reg.ClientID == "" {
		t.Fatalf("register: %d %+v %v", resp.StatusCode, reg, err)
	}
	app.conf = &oauth2.Config{ClientID: reg.ClientID, RedirectURL: redirect, Scopes: []string{"read_write"},
		Endpoint: oauth2.Endpoint{AuthURL: srv.URL + "/oauth/authorize", TokenURL: srv.URL + "/oauth/token", AuthStyle: oauth2.AuthStyleInParams}}
	return app
}

// callback waits for the browser to reach the redirect target and returns the query it
// brought.
func (app *clientApp) callback(t *testing.T, ctx context.Context) url.Values {
	t.Helper()
	visible(t, ctx, "client-callback")
	select {
	case q := <-app.callbacks:
		return q
	default:
		t.Fatal("the browser is on the redirect target, but it received no request")
		return nil
	}
}

// accountsStatus calls GET /api/v1/accounts with token as the bearer and returns the status.
func accountsStatus(t *testing.T, srv *apptest.Server, token string) int {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, srv.URL+"/api/v1/accounts", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("GET /api/v1/accounts: %v", err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// TestOAuthConsentDenyAllowAndRevoke is an application's way into a person's account: it
// registers, sends the person to Tally's consent page, is denied, then allowed; it uses the
// API with its token, until the person revokes it under Settings › Security.
func TestOAuthConsentDenyAllowAndRevoke(t *testing.T) {
	t.Parallel()
	ctx := newTab(t)
	srv := startServer(t, apptest.ServerOptions{})
	u := testkit.MustCreateUser(t, srv.DB, testkit.UserOpts{})
	app := startClientApp(t, srv, "Pocket Ledger")
	dialog := "revoke-app-" + app.conf.ClientID
	var token *oauth2.Token

	step(t, "sign in", func(t *testing.T) {
		signInAs(t, ctx, srv, u.Email)
	})
	step(t, "the consent page names the application and what it asks for", func(t *testing.T) {
		visit(t, ctx, app.conf.AuthCodeURL("state-deny-0001", oauth2.S256ChallengeOption(oauth2.GenerateVerifier())))
		visible(t, ctx, "consent-form")
		wantPath(t, ctx, "/oauth/authorize")
		wantText(t, ctx, "consent-client", "Pocket Ledger")
		// The scope's line starts with a check mark.
		if got := text(t, ctx, "consent-scope-read_write"); !strings.HasSuffix(got, "Read and change your family's accounts, transactions and imports") {
			t.Errorf("the read_write scope says %q", got)
		}
		if n := count(t, ctx, "consent-scope-read"); n != 0 {
			t.Errorf("%d read scopes shown, but only read_write was asked for", n)
		}
		shot(t, ctx, "oauth-consent")
	})
	step(t, "deny sends access_denied back to the application", func(t *testing.T) {
		click(t, ctx, "consent-deny")
		q := app.callback(t, ctx)
		if q.Get("error") != "access_denied" || q.Get("state") != "state-deny-0001" || q.Get("code") != "" {
			t.Fatalf("the application received %v", q)
		}
	})
	step(t, "allow gives the application a code it exchanges for a token", func(t *testing.T) {
		verifier := oauth2.GenerateVerifier()
		visit(t, ctx, app.conf.AuthCodeURL("state-allow-0002", oauth2.S256ChallengeOption(verifier)))
		visible(t, ctx, "consent-form")
		click(t, ctx, "consent-allow")
		q := app.callback(t, ctx)
		if q.Get("code") == "" || q.Get("state") != "state-allow-0002" || q.Get("error") != "" {
			t.Fatalf("the application received %v", q)
		}
		var err error
		token, err = app.conf.Exchange(context.Background(), q.Get("code"), oauth2.VerifierOption(verifier))
		if err != nil {
			t.Fatalf("exchange: %v", err)
		}
		if s := accountsStatus(t, srv, token.AccessToken); s != http.StatusOK {
			t.Fatalf("the API with the token: %d", s)
		}
	})
	step(t, "Security lists the application", func(t *testing.T) {
		visit(t, ctx, srv.URL+"/")
		clickNav(t, ctx, "security")
		visible(t, ctx, "apps-table")
		wantPath(t, ctx, "/settings/security")
		if n := count(t, ctx, "app-row"); n != 1 {
			t.Fatalf("%d applications listed, want 1", n)
		}
		wantText(t, ctx, "app-name", "Pocket Ledger")
		wantText(t, ctx, "app-access", "Read and write")
		wantText(t, ctx, "app-scopes", "read_write")
		shot(t, ctx, "security-apps")
	})
	step(t, "revoking asks first", func(t *testing.T) {
		click(t, ctx, "revoke-app")
		visible(t, ctx, dialog)
		wantPath(t, ctx, "/settings/security")
		if s := accountsStatus(t, srv, token.AccessToken); s != http.StatusOK {
			t.Fatalf("the token stopped working before the revocation was confirmed: %d", s)
		}
		shot(t, ctx, "security-apps-revoke-confirm")
	})
	step(t, "confirming revokes it", func(t *testing.T) {
		click(t, ctx, dialog+"-submit")
		visible(t, ctx, "flash-success")
		wantPath(t, ctx, "/settings/security")
		wantText(t, ctx, "flash-success", "Pocket Ledger no longer has access to your account.")
		visible(t, ctx, "apps-empty")
		if n := count(t, ctx, "app-row"); n != 0 {
			t.Errorf("%d applications still listed", n)
		}
		if s := accountsStatus(t, srv, token.AccessToken); s != http.StatusUnauthorized {
			t.Errorf("the revoked token: %d, want 401", s)
		}
		run(t, ctx, "scroll to apps-empty", chromedp.ScrollIntoView(testID("apps-empty")))
		shot(t, ctx, "security-apps-revoked")
	})
}
