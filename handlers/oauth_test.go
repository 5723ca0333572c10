package handlers_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"golang.org/x/oauth2"

	"tally/app/apptest"
	"tally/models"
	"tally/testkit"
)

const oauthRedirect = "http://127.0.0.1:9/callback"

// oauthEnv is a signed-in user and a public client registered through POST /register.
type oauthEnv struct {
	t    *testing.T
	srv  *apptest.Server
	c    *testkit.Client
	user *models.User
	conf *oauth2.Config
}

func newOAuthEnv(t *testing.T) *oauthEnv {
	t.Helper()
	srv := apptest.StartServer(t, apptest.ServerOptions{})
	u := testkit.MustCreateUser(t, srv.DB, testkit.UserOpts{})
	c := testkit.NewClient(t, srv.URL)
	c.SignIn(u.Email, testkit.Password)
	e := &oauthEnv{t: t, srv: srv, c: c, user: u}
	e.conf = e.register("CLI", oauthRedirect)
	return e
}

// register registers a public client and returns its x/oauth2 configuration.
func (e *oauthEnv) register(name string, redirect string) *oauth2.Config {
	e.t.Helper()
	r := e.post("/register", `{"client_name": "`+name+`", "redirect_uris": ["`+redirect+`"]}`, "application/json")
	var reg struct {
		ClientID   string   `json:"client_id"`
		ClientName string   `json:"client_name"`
		Method     string   `json:"token_endpoint_auth_method"`
		Redirects  []string `json:"redirect_uris"`
	}
	r.JSON(e.t, &reg)
	if r.Status != http.StatusCreated || reg.ClientID == "" || reg.ClientName != name || reg.Method != "none" || reg.Redirects[0] != redirect {
		e.t.Fatalf("register: %d %s", r.Status, r.Body)
	}
	return &oauth2.Config{ClientID: reg.ClientID, RedirectURL: redirect, Scopes: []string{"read_write"},
		Endpoint: oauth2.Endpoint{AuthURL: e.srv.URL + "/oauth/authorize", TokenURL: e.srv.URL + "/oauth/token", AuthStyle: oauth2.AuthStyleInParams}}
}

func (e *oauthEnv) post(path, body, contentType string) *testkit.Response {
	e.t.Helper()
	return testkit.NewClient(e.t, e.srv.URL).Do(http.MethodPost, path, strings.NewReader(body), map[string]string{"Content-Type": contentType})
}

// consent opens an authorization URL as the signed-in user and answers the consent page;
// it returns where Tally sent the browser.
func (e *oauthEnv) consent(authURL, decision string) *url.URL {
	e.t.Helper()
	page := e.c.Get(strings.TrimPrefix(authURL, e.srv.URL))
	if page.Status != http.StatusOK {
		e.t.Fatalf("consent page: %d %s", page.Status, page.Body)
	}
	form := url.Values{"decision": {decision}}
	page.Doc(e.t).Find(`[data-testid="consent-form"] input[type="hidden"]`).Each(func(_ int, s *goquery.Selection) {
		form.Set(s.AttrOr("name", ""), s.AttrOr("value", ""))
	})
	r := e.c.PostForm("/oauth/authorize", form)
	if r.Status != http.StatusSeeOther && r.Status != http.StatusFound {
		e.t.Fatalf("consent %s: %d %s", decision, r.Status, r.Body)
	}
	to, err := url.Parse(r.Location())
	if err != nil {
		e.t.Fatal(err)
	}
	return to
}

// code runs the authorization with PKCE and returns the code and its verifier.
func (e *oauthEnv) code(conf *oauth2.Config) (string, string) {
	e.t.Helper()
	verifier := oauth2.GenerateVerifier()
	to := e.consent(conf.AuthCodeURL("state-0123456789", oauth2.S256ChallengeOption(verifier)), "allow")
	if to.Query().Get("state") != "state-0123456789" || to.Query().Get("code") == "" {
		e.t.Fatalf("after consent: %s", to)
	}
	return to.Query().Get("code"), verifier
}

// token runs the whole flow and returns the tokens.
func (e *oauthEnv) token(conf *oauth2.Config) *oauth2.Token {
	e.t.Helper()
	code, verifier := e.code(conf)
	tok, err := conf.Exchange(context.Background(), code, oauth2.VerifierOption(verifier))
	if err != nil {
		e.t.Fatalf("exchange: %v", err)
	}
	return tok
}

// api calls the API with a bearer token.
func (e *oauthEnv) api(method, path, token string, body string) *testkit.Response {
	e.t.Helper()
	h := map[string]string{"Authorization": "Bearer " + token}
	if body != "" {
		h["Content-Type"] = "application/json"
	}
	var rd *strings.Reader
	if body != "" {
		rd = strings.NewReader(body)
	} else {
		rd = strings.NewReader("")
	}
	return testkit.NewClient(e.t, e.srv.URL).Do(method, path, rd, h)
}

// tokenError posts to the token endpoint and returns the status and the RFC 6749 error code.
func (e *oauthEnv) tokenError(form url.Values) (int, string) {
	e.t.Helper()
	r := e.post("/oauth/token", form.Encode(), "application/x-www-form-urlencoded")
	var body struct {
		Error string `json:"error"`
	}
	_ = json.Unmarshal([]byte(r.Body), &body)
	return r.Status, body.Error
}

func (e *oauthEnv) events(kind string) int {
	return len(testkitStrings(e.t, e.srv, "SELECT id::text FROM sso_audit_logs WHERE event_type = ?", kind))
}

func TestOAuthAuthorizationCodeWithPKCEThenTheAPI(t *testing.T) {
	t.Parallel()
	e := newOAuthEnv(t)

	var meta map[string]any
	e.c.Get("/.well-known/oauth-authorization-server").JSON(t, &meta)
	if meta["token_endpoint"] != e.srv.URL+"/oauth/token" || !strings.Contains(strings.Join(toStrings(meta["code_challenge_methods_supported"]), ","), "S256") ||
		strings.Contains(strings.Join(toStrings(meta["code_challenge_methods_supported"]), ","), "plain") {
		t.Fatalf("metadata %v", meta)
	}

	page := e.c.Get(strings.TrimPrefix(e.conf.AuthCodeURL("state-0123456789", oauth2.S256ChallengeOption(oauth2.GenerateVerifier())), e.srv.URL))
	if !strings.Contains(page.TestID(t, "consent-client"), "CLI") || !page.Has(t, "consent-scope-read_write") {
		t.Fatalf("consent page: %s", page.Body)
	}
	tok := e.token(e.conf)
	if tok.AccessToken == "" || tok.RefreshToken == "" || tok.Expiry.Before(time.Now().Add(50*time.Minute)) {
		t.Fatalf("token %+v", tok)
	}
	// x/oauth2's own client carries the token.
	resp, err := e.conf.Client(context.Background(), tok).Get(e.srv.URL + "/api/v1/accounts")
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("API with the token: %v %v", resp, err)
	}
	resp.Body.Close()
	if r := e.api(http.MethodPost, "/api/v1/accounts", tok.AccessToken, `{"name": "Wallet", "accountable_type": "Depository", "balance": "10"}`); r.Status != http.StatusCreated {
		t.Fatalf("write with read_write: %d %s", r.Status, r.Body)
	}
	if n := testkitStrings(t, e.srv, "SELECT name FROM accounts WHERE family_id = ?", e.user.FamilyID); strings.Join(n, ",") != "Wallet" {
		t.Fatalf("accounts %v", n)
	}
	if e.events("oauth_grant") != 1 {
		t.Fatal("the grant was not audited")
	}
	// Codes and tokens are stored as signatures only.
	for _, secret := range []string{tok.AccessToken, tok.RefreshToken} {
		if n := testkitStrings(t, e.srv, "SELECT kind FROM oauth_tokens WHERE signature = ? OR form::text LIKE '%' || ? || '%' OR session::text LIKE '%' || ? || '%'", secret, secret, secret); len(n) != 0 {
			t.Fatalf("a token is stored as is: %v", n)
		}
	}
}

func TestOAuthDenyAndScopes(t *testing.T) {
	t.Parallel()
	e := newOAuthEnv(t)
	to := e.consent(e.conf.AuthCodeURL("state-0123456789", oauth2.S256ChallengeOption(oauth2.GenerateVerifier())), "deny")
	if to.Query().Get("error") != "access_denied" || to.Query().Get("state") != "state-0123456789" || to.Query().Get("code") != "" {
		t.Fatalf("deny sent %s", to)
	}
	if e.events("oauth_grant_denied") != 1 {
		t.Fatal("the denial was not audited")
	}
	// A read token reads but does not write.
	read := *e.conf
	read.Scopes = []string{"read"}
	tok := e.token(&read)
	if r := e.api(http.MethodGet, "/api/v1/accounts", tok.AccessToken, ""); r.Status != http.StatusOK {
		t.Fatalf("read with read: %d", r.Status)
	}
	r := e.api(http.MethodPost, "/api/v1/accounts", tok.AccessToken, `{"name": "Wallet", "accountable_type": "Depository"}`)
	if r.Status != http.StatusForbidden || !strings.Contains(r.Body, "insufficient_scope") {
		t.Fatalf("write with read: %d %s", r.Status, r.Body)
	}
	// No scope asked: read.
	none := *e.conf
	none.Scopes = nil
	if tok := e.token(&none); !strings.Contains(tok.Extra("scope").(string), "read") || strings.Contains(tok.Extra("scope").(string), "read_write") {
		t.Fatalf("default scope %v", tok.Extra("scope"))
	}
}

func TestOAuthRefreshRotatesAndReuseRevokesTheChain(t *testing.T) {
	t.Parallel()
	e := newOAuthEnv(t)
	first := e.token(e.conf)
	refresh := func(rt string) (*oauth2.Token, error) {
		return e.conf.TokenSource(context.Background(), &oauth2.Token{RefreshToken: rt, Expiry: time.Now().Add(-time.Hour)}).Token()
	}
	second, err := refresh(first.RefreshToken)
	if err != nil || second.RefreshToken == first.RefreshToken || second.AccessToken == first.AccessToken {
		t.Fatalf("refresh: %+v %v", second, err)
	}
	if r := e.api(http.MethodGet, "/api/v1/accounts", second.AccessToken, ""); r.Status != http.StatusOK {
		t.Fatalf("the new access token: %d", r.Status)
	}
	if r := e.api(http.MethodGet, "/api/v1/accounts", first.AccessToken, ""); r.Status != http.StatusUnauthorized {
		t.Fatalf("the replaced access token still works: %d", r.Status)
	}
	// The first refresh token again: refused, and the whole chain with it.
	_, err = refresh(first.RefreshToken)
	var re *oauth2.RetrieveError
	if !errors.As(err, &re) || re.ErrorCode != "invalid_grant" {
		t.Fatalf("reuse: %v", err)
	}
	if r := e.api(http.MethodGet, "/api/v1/accounts", second.AccessToken, ""); r.Status != http.StatusUnauthorized ||
		!strings.Contains(r.Body, "Access token is invalid, expired, or missing required scope") {
		t.Fatalf("after reuse the chain's access token: %d %s", r.Status, r.Body)
	}
	if _, err := refresh(second.RefreshToken); !errors.As(err, &re) || re.ErrorCode != "invalid_grant" {
		t.Fatalf("after reuse the chain's refresh token: %v", err)
	}
	// Both retired refresh tokens were presented again: two reuses recorded.
	if n := e.events("oauth_token_reuse"); n != 2 {
		t.Fatalf("%d reuses audited, want 2", n)
	}
}

func TestOAuthErrorsAreTheRFCs(t *testing.T) {
	t.Parallel()
	e := newOAuthEnv(t)
	exchange := func(code, verifier, redirect string) (int, string) {
		return e.tokenError(url.Values{"grant_type": {"authorization_code"}, "client_id": {e.conf.ClientID}, "code": {code},
			"code_verifier": {verifier}, "redirect_uri": {redirect}})
	}
	t.Run("a code replayed", func(t *testing.T) {
		code, verifier := e.code(e.conf)
		if s, _ := exchange(code, verifier, oauthRedirect); s != http.StatusOK {
			t.Fatalf("first use: %d", s)
		}
		if s, code := exchange(code, verifier, oauthRedirect); s != http.StatusBadRequest || code != "invalid_grant" {
			t.Fatalf("replay: %d %s", s, code)
		}
	})
	t.Run("a wrong code_verifier", func(t *testing.T) {
		code, _ := e.code(e.conf)
		if s, c := exchange(code, oauth2.GenerateVerifier(), oauthRedirect); s != http.StatusBadRequest || c != "invalid_grant" {
			t.Fatalf("%d %s", s, c)
		}
	})
	t.Run("no code_verifier", func(t *testing.T) {
		code, _ := e.code(e.conf)
		if s, c := exchange(code, "", oauthRedirect); s != http.StatusBadRequest || c != "invalid_grant" {
			t.Fatalf("%d %s", s, c)
		}
	})
	t.Run("a redirect URI other than the authorization's", func(t *testing.T) {
		code, verifier := e.code(e.conf)
		if s, c := exchange(code, verifier, "http://127.0.0.1:9/other"); s != http.StatusBadRequest || c != "invalid_grant" {
			t.Fatalf("%d %s", s, c)
		}
	})
	t.Run("an expired code", func(t *testing.T) {
		code, verifier := e.code(e.conf)
		if _, err := e.srv.DB.NewRaw(`UPDATE oauth_tokens SET session = jsonb_set(session, '{expires_at,authorize_code}', to_jsonb(?::text))
			WHERE kind = 'code'`, time.Now().Add(-time.Minute).UTC().Format(time.RFC3339)).Exec(context.Background()); err != nil {
			t.Fatal(err)
		}
		if s, c := exchange(code, verifier, oauthRedirect); s != http.StatusBadRequest || c != "invalid_grant" {
			t.Fatalf("%d %s", s, c)
		}
	})
	t.Run("plain PKCE is refused at authorization", func(t *testing.T) {
		u := e.conf.AuthCodeURL("state-0123456789", oauth2.SetAuthURLParam("code_challenge", oauth2.GenerateVerifier()),
			oauth2.SetAuthURLParam("code_challenge_method", "plain"))
		r := e.c.Get(strings.TrimPrefix(u, e.srv.URL))
		to, _ := url.Parse(r.Location())
		if r.Status != http.StatusSeeOther && r.Status != http.StatusFound || to.Query().Get("error") != "invalid_request" {
			t.Fatalf("plain PKCE: %d %s", r.Status, r.Location())
		}
	})
	t.Run("no PKCE is refused at authorization", func(t *testing.T) {
		r := e.c.Get(strings.TrimPrefix(e.conf.AuthCodeURL("state-0123456789"), e.srv.URL))
		to, _ := url.Parse(r.Location())
		if to == nil || to.Query().Get("error") != "invalid_request" {
			t.Fatalf("no PKCE: %d %s", r.Status, r.Location())
		}
	})
	t.Run("an unregistered redirect URI is not redirected to", func(t *testing.T) {
		other := *e.conf
		other.RedirectURL = "https://evil.example/cb"
		r := e.c.Get(strings.TrimPrefix(other.AuthCodeURL("state-0123456789", oauth2.S256ChallengeOption(oauth2.GenerateVerifier())), e.srv.URL))
		if r.Status != http.StatusBadRequest || r.Location() != "" || !r.Has(t, "oauth-error") {
			t.Fatalf("unregistered redirect: %d %q", r.Status, r.Location())
		}
	})
	t.Run("an unknown client", func(t *testing.T) {
		if s, c := e.tokenError(url.Values{"grant_type": {"authorization_code"}, "client_id": {"nobody"}, "code": {"x"}}); s != http.StatusUnauthorized || c != "invalid_client" {
			t.Fatalf("%d %s", s, c)
		}
	})
	// Every refusal above is in the audit log, with its endpoint and RFC error.
	got := testkitStrings(t, e.srv, `SELECT metadata->>'endpoint' || ':' || (metadata->>'error') FROM sso_audit_logs
		WHERE event_type = 'oauth_failed' ORDER BY created_at, id`)
	want := []string{"token:invalid_grant", "token:invalid_grant", "token:invalid_grant", "token:invalid_grant", "token:invalid_grant",
		"authorize:invalid_request", "authorize:invalid_request", "authorize:invalid_request", "token:invalid_client"}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("audited refusals\n got %v\nwant %v", got, want)
	}
}

func TestOAuthRevocationIntrospectionAndOtherClients(t *testing.T) {
	t.Parallel()
	e := newOAuthEnv(t)
	tok := e.token(e.conf)
	other := e.register("Other app", "https://other.example/cb")
	form := func(client string, v url.Values) string {
		v.Set("client_id", client)
		return v.Encode()
	}
	// A public client introspects with one of its access tokens as the bearer.
	introspect := func(bearer, token string) map[string]any {
		var out map[string]any
		testkit.NewClient(t, e.srv.URL).Do(http.MethodPost, "/oauth/introspect", strings.NewReader(url.Values{"token": {token}}.Encode()),
			map[string]string{"Content-Type": "application/x-www-form-urlencoded", "Authorization": "Bearer " + bearer}).JSON(t, &out)
		return out
	}
	mine, theirs := e.token(e.conf), e.token(other)
	if got := introspect(mine.AccessToken, tok.AccessToken); got["active"] != true || got["client_id"] != e.conf.ClientID || got["sub"] != e.user.ID.String() {
		t.Fatalf("introspect own token: %v", got)
	}
	if got := introspect(theirs.AccessToken, tok.AccessToken); got["active"] != false || len(got) != 1 {
		t.Fatalf("another client learned about the token: %v", got)
	}
	r := testkit.NewClient(t, e.srv.URL).Do(http.MethodPost, "/oauth/introspect", strings.NewReader(url.Values{"token": {tok.AccessToken}}.Encode()),
		map[string]string{"Content-Type": "application/x-www-form-urlencoded"})
	if r.Status != http.StatusUnauthorized {
		t.Fatalf("introspection without credentials: %d %s", r.Status, r.Body)
	}
	// Another client cannot revoke it.
	r = e.post("/oauth/revoke", form(other.ClientID, url.Values{"token": {tok.RefreshToken}}), "application/x-www-form-urlencoded")
	if r.Status != http.StatusBadRequest && r.Status != http.StatusUnauthorized || !strings.Contains(r.Body, "unauthorized_client") {
		t.Fatalf("another client's revocation: %d %s", r.Status, r.Body)
	}
	if r := e.api(http.MethodGet, "/api/v1/accounts", tok.AccessToken, ""); r.Status != http.StatusOK {
		t.Fatalf("the token after another client tried to revoke it: %d", r.Status)
	}
	// Its own client revokes the refresh token: the grant ends.
	if r := e.post("/oauth/revoke", form(e.conf.ClientID, url.Values{"token": {tok.RefreshToken}}), "application/x-www-form-urlencoded"); r.Status != http.StatusOK {
		t.Fatalf("revoke: %d %s", r.Status, r.Body)
	}
	if r := e.api(http.MethodGet, "/api/v1/accounts", tok.AccessToken, ""); r.Status != http.StatusUnauthorized {
		t.Fatalf("a revoked grant's access token: %d", r.Status)
	}
	if got := introspect(mine.AccessToken, tok.AccessToken); got["active"] != false {
		t.Fatalf("introspect revoked: %v", got)
	}
	if e.events("oauth_revoke") != 1 {
		t.Fatal("the revocation was not audited")
	}
	// A bad bearer token is final: a good API key does not rescue it.
	key := testkit.MustCreateAPIKey(t, e.srv.DB, e.user.ID, models.ScopeRead)
	r = testkit.NewClient(t, e.srv.URL).Do(http.MethodGet, "/api/v1/accounts", nil, map[string]string{"Authorization": "Bearer nope", "X-Api-Key": key})
	if r.Status != http.StatusUnauthorized {
		t.Fatalf("a bad bearer with a good key: %d", r.Status)
	}
}

func TestOAuthSuspendedUserTokensStopAtOnce(t *testing.T) {
	t.Parallel()
	e := newOAuthEnv(t)
	tok := e.token(e.conf)
	testkit.MustSuspend(t, e.srv.DB, e.user.ID)
	if r := e.api(http.MethodGet, "/api/v1/accounts", tok.AccessToken, ""); r.Status != http.StatusUnauthorized || !strings.Contains(r.Body, "Account has been deactivated") {
		t.Fatalf("a suspended user's token: %d %s", r.Status, r.Body)
	}
	if s, c := e.tokenError(url.Values{"grant_type": {"refresh_token"}, "client_id": {e.conf.ClientID}, "refresh_token": {tok.RefreshToken}}); s != http.StatusBadRequest || c != "invalid_grant" {
		t.Fatalf("a suspended user's refresh: %d %s", s, c)
	}
}

func TestOAuthRegistrationRefusesUnsafeRedirects(t *testing.T) {
	t.Parallel()
	srv := apptest.StartServer(t, apptest.ServerOptions{})
	c := testkit.NewClient(t, srv.URL)
	for _, body := range []string{
		`{"client_name": "x"}`,
		`{"redirect_uris": ["javascript:alert(1)"]}`,
		`{"redirect_uris": ["https://app.example/cb#frag"]}`,
		`{"redirect_uris": ["http://app.example/cb"]}`,
		`{"redirect_uris": ["/relative"]}`,
	} {
		r := c.Do(http.MethodPost, "/register", strings.NewReader(body), map[string]string{"Content-Type": "application/json"})
		var out map[string]string
		r.JSON(t, &out)
		if r.Status != http.StatusBadRequest || out["error"] != "invalid_client_metadata" || out["error_description"] == "" {
			t.Errorf("%s: %d %v", body, r.Status, out)
		}
	}
	r := c.Do(http.MethodPost, "/register", strings.NewReader(`{"redirect_uris": ["https://app.example/cb"], "token_endpoint_auth_method": "client_secret_basic"}`),
		map[string]string{"Content-Type": "application/json"})
	if r.Status != http.StatusBadRequest || !strings.Contains(r.Body, "invalid_client_metadata") {
		t.Errorf("a confidential registration: %d %s", r.Status, r.Body)
	}
	for _, ok := range []string{"http://127.0.0.1:8123/cb", "http://localhost/cb", "http://[::1]:9/cb", "https://app.example/cb"} {
		if r := c.Do(http.MethodPost, "/register", strings.NewReader(`{"redirect_uris": ["`+ok+`"]}`), map[string]string{"Content-Type": "application/json"}); r.Status != http.StatusCreated {
			t.Errorf("%s refused: %d %s", ok, r.Status, r.Body)
		}
	}
}

// The token endpoint's limit holds across two instances sharing the database.
func TestOAuthTokenRateLimitIsSharedAcrossInstances(t *testing.T) {
	t.Parallel()
	first := apptest.StartServer(t, apptest.ServerOptions{})
	second := apptest.StartServer(t, apptest.ServerOptions{DB: first.DB})
	if left := time.Until(time.Now().Truncate(time.Minute).Add(time.Minute)); left < 10*time.Second {
		time.Sleep(left + 100*time.Millisecond)
	}
	clients := []*testkit.Client{apptest.NewClient(t, first), apptest.NewClient(t, second)}
	body := url.Values{"grant_type": {"client_credentials"}, "client_id": {"nobody"}}.Encode()
	post := func(c *testkit.Client) *testkit.Response {
		return c.Do(http.MethodPost, "/oauth/token", strings.NewReader(body), map[string]string{"Content-Type": "application/x-www-form-urlencoded"})
	}
	for i := range 10 {
		if r := post(clients[i%2]); r.Status == http.StatusTooManyRequests {
			t.Fatalf("request %d was limited", i+1)
		}
	}
	for i, c := range clients {
		r := post(c)
		secs, err := strconv.Atoi(r.Header.Get("Retry-After"))
		var out map[string]any
		r.JSON(t, &out)
		if r.Status != http.StatusTooManyRequests || err != nil || secs < 1 || secs > 60 || out["error"] == nil {
			t.Fatalf("instance %d, request 11: %d %q %v", i+1, r.Status, r.Header.Get("Retry-After"), out)
		}
	}
}

func toStrings(v any) []string {
	var out []string
	if list, ok := v.([]any); ok {
		for _, x := range list {
			out = append(out, x.(string))
		}
	}
	return out
}

// Refreshes racing with one refresh token: exactly one succeeds.
func TestOAuthConcurrentRefreshesWithOneToken(t *testing.T) {
	t.Parallel()
	e := newOAuthEnv(t)
	tok := e.token(e.conf)
	type result struct {
		tok *oauth2.Token
		err error
	}
	results := make(chan result, 4)
	for range 4 {
		go func() {
			t, err := e.conf.TokenSource(context.Background(), &oauth2.Token{RefreshToken: tok.RefreshToken, Expiry: time.Now().Add(-time.Hour)}).Token()
			results <- result{t, err}
		}()
	}
	var won []*oauth2.Token
	for range 4 {
		if r := <-results; r.err == nil {
			won = append(won, r.tok)
		}
	}
	// The first to retire the token wins; the others find it retired (a late one is even
	// taken for reuse and revokes the grant, which is the safe side).
	if len(won) != 1 {
		t.Fatalf("%d refreshes succeeded with one refresh token, want 1", len(won))
	}
}
