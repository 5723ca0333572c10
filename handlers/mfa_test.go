package handlers_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/google/uuid"
	"github.com/pquerna/otp/totp"

	"tally/app/apptest"
	"tally/models"
	"tally/testkit"
)

// TestTOTPSignIn is two-factor sign-in through the real router: enrolment, then a password
// alone gets no session, a wrong code is refused, a right one signs in once, a recovery code
// works once, the half-signed-in state reaches no page, and the attempts are limited.
func TestTOTPSignIn(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	// Each browser comes from its own address, through a proxy the server trusts, so that the
	// limit per user shows apart from the one per IP.
	srv := apptest.StartServer(t, apptest.ServerOptions{Env: map[string]string{"TRUSTED_PROXIES": "127.0.0.1/32"}})
	u := testkit.MustCreateUser(t, srv.DB, testkit.UserOpts{Role: models.RoleAdmin})
	browsers := 0
	newBrowser := func() *testkit.Client {
		browsers++
		b := apptest.NewClient(t, srv)
		b.Headers = map[string]string{"X-Forwarded-For": fmt.Sprintf("203.0.113.%d", browsers)}
		return b
	}
	c := newBrowser()
	c.SignIn(u.Email, testkit.Password)

	page := c.Get("/settings/mfa/totp/new")
	if page.Status != http.StatusOK {
		t.Fatalf("enrolment page: %d", page.Status)
	}
	secret := strings.ReplaceAll(page.TestID(t, "totp-secret"), " ", "")
	uri := page.TestID(t, "totp-uri")
	if !strings.HasPrefix(uri, "otpauth://totp/Tally:") || !strings.Contains(uri, "secret="+secret) || !strings.Contains(uri, "issuer=Tally") {
		t.Fatalf("URI %q for secret %q", uri, secret)
	}
	if svg := page.Doc(t).Find(`[data-testid="totp-qr"] svg path`); svg.Length() != 1 {
		t.Fatal("no QR code drawn on the page")
	}
	code := func(at time.Time) string {
		s, err := totp.GenerateCode(secret, at)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	if r := c.PostForm("/settings/mfa/totp", url.Values{"code": {"12345"}}); r.Status != http.StatusUnprocessableEntity || !strings.Contains(r.TestID(t, "error-code"), "not right") {
		t.Fatalf("a wrong first code: %d %s", r.Status, r.Body)
	}
	on := c.PostForm("/settings/mfa/totp", url.Values{"code": {code(time.Now())}})
	if on.Status != http.StatusOK {
		t.Fatalf("confirm: %d %s", on.Status, on.Body)
	}
	recovery := on.Doc(t).Find(`[data-testid="recovery-code"]`).Map(func(_ int, s *goquery.Selection) string { return s.Text() })
	if len(recovery) != 10 {
		t.Fatalf("%d recovery codes shown", len(recovery))
	}
	if sec := c.Get("/settings/security"); !strings.Contains(sec.TestID(t, "mfa-status"), "10 recovery codes are left.") {
		t.Errorf("security page: %q", sec.TestID(t, "mfa-status"))
	}

	// A new browser: the password alone is not a session.
	b := newBrowser()
	r := b.PostForm("/sessions", url.Values{"email": {u.Email}, "password": {testkit.Password}})
	if r.Status != http.StatusSeeOther || r.Location() != "/sessions/mfa" {
		t.Fatalf("password step: %d → %q", r.Status, r.Location())
	}
	for _, path := range []string{"/", "/settings/security", "/accounts"} {
		if r := b.Get(path); r.Status != http.StatusSeeOther || r.Location() != "/sessions/mfa" {
			t.Errorf("half signed in, GET %s answered %d → %q", path, r.Status, r.Location())
		}
	}
	if r := b.PostForm("/sessions/mfa", url.Values{"code": {"000 000"}}); r.Status != http.StatusUnprocessableEntity || !strings.Contains(r.TestID(t, "error-code"), "not right") {
		t.Fatalf("a wrong code: %d", r.Status)
	}
	// The confirming code's 30 seconds may not be over: the next step's code is accepted (one
	// step of drift), and then refused as a replay.
	next := code(time.Now().Add(30 * time.Second))
	if r := b.PostForm("/sessions/mfa", url.Values{"code": {next[:3] + "-" + next[3:]}}); r.Status != http.StatusSeeOther || r.Location() != "/" {
		t.Fatalf("a right code: %d → %q %s", r.Status, r.Location(), r.Body)
	}
	if r := b.Get("/settings/security"); r.Status != http.StatusOK {
		t.Fatalf("signed in, the security page answered %d", r.Status)
	}

	replay := newBrowser()
	replay.PostForm("/sessions", url.Values{"email": {u.Email}, "password": {testkit.Password}})
	if r := replay.PostForm("/sessions/mfa", url.Values{"code": {next}}); r.Status != http.StatusUnprocessableEntity || !strings.Contains(r.TestID(t, "error-code"), "used already") {
		t.Fatalf("a replayed code: %d %s", r.Status, r.Body)
	}
	// A recovery code, typed in capitals, signs in once.
	if r := replay.PostForm("/sessions/mfa", url.Values{"code": {strings.ToUpper(recovery[3])}}); r.Status != http.StatusSeeOther {
		t.Fatalf("a recovery code: %d %s", r.Status, r.Body)
	}
	if r := replay.Get("/settings/security"); !strings.Contains(r.TestID(t, "mfa-status"), "9 recovery codes are left.") {
		t.Errorf("after a recovery code: %q", r.TestID(t, "mfa-status"))
	}
	again := newBrowser()
	again.PostForm("/sessions", url.Values{"email": {u.Email}, "password": {testkit.Password}})
	if r := again.PostForm("/sessions/mfa", url.Values{"code": {recovery[3]}}); r.Status != http.StatusUnprocessableEntity {
		t.Fatalf("a recovery code used twice: %d", r.Status)
	}
	var events []string
	if err := srv.DB.NewRaw(`SELECT event_type FROM sso_audit_logs WHERE user_id = ? AND event_type LIKE 'mfa%' ORDER BY created_at, id`, u.ID).Scan(ctx, &events); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(events, ","); got != "mfa_enabled,mfa_failed,mfa_failed,mfa_recovery_code_used,mfa_failed" {
		t.Errorf("audit: %s", got)
	}

	// Turning it off needs the password (or a code).
	if r := c.PostForm("/settings/mfa/totp/disable", url.Values{"password": {"not my password"}}); r.Status != http.StatusUnprocessableEntity {
		t.Errorf("off with a wrong password: %d", r.Status)
	}
	if r := c.PostForm("/settings/mfa/totp/disable", url.Values{"password": {testkit.Password}}); r.Status != http.StatusSeeOther {
		t.Fatalf("off: %d %s", r.Status, r.Body)
	}
	plain := newBrowser()
	if r := plain.PostForm("/sessions", url.Values{"email": {u.Email}, "password": {testkit.Password}}); r.Location() != "/" {
		t.Errorf("with TOTP off, the password signs in: %q", r.Location())
	}
}

// TestStepUpGuardsDisconnect is a user whose session gave no code in the last 10 minutes
// disconnecting an SSO account: the page asks for a code, nothing is disconnected until a
// right one, and then it is at once.
func TestStepUpGuardsDisconnect(t *testing.T) {
	t.Parallel()
	srv := apptest.StartServer(t, apptest.ServerOptions{})
	u := testkit.MustCreateUser(t, srv.DB, testkit.UserOpts{})
	id := mustAddIdentity(t, srv, u.ID, "corp", "corp-subject", u.Email, nil)
	c := apptest.NewClient(t, srv)
	c.SignIn(u.Email, testkit.Password)
	secret := apptest.MustEnrolTOTP(t, srv, u)

	// Nor can such a session change the second factors themselves.
	c.Get("/settings/security")
	if r := c.PostForm("/settings/mfa/recovery_codes", nil); r.Status != http.StatusOK || !r.Has(t, "step-up-form") || r.Has(t, "recovery-codes") {
		t.Errorf("new recovery codes without a code: %d, step-up %v", r.Status, r.Has(t, "step-up-form"))
	}
	opts := c.Do(http.MethodPost, "/settings/passkeys/options", strings.NewReader("{}"), map[string]string{
		"Content-Type": "application/json", "X-CSRF-Token": csrfOf(t, c)})
	var refusal struct{ Error string }
	opts.JSON(t, &refusal)
	if opts.Status != http.StatusForbidden || refusal.Error != "step_up_required" {
		t.Errorf("a passkey added without a code: %d %+v", opts.Status, refusal)
	}

	c.Get("/settings/security")
	path := "/settings/security/identities/" + id.String() + "/disconnect"
	r := c.PostForm(path, nil)
	if r.Status != http.StatusOK || !r.Has(t, "step-up-form") || !identityExists(t, srv, id) {
		t.Fatalf("without a code: %d, step-up form %v, identity kept %v", r.Status, r.Has(t, "step-up-form"), identityExists(t, srv, id))
	}
	if r := c.PostForm(path, url.Values{"step_up_code": {"000000"}}); r.Status != http.StatusUnprocessableEntity || !identityExists(t, srv, id) {
		t.Fatalf("with a wrong code: %d", r.Status)
	}
	code, _ := totp.GenerateCode(secret, time.Now())
	if r := c.PostForm(path, url.Values{"step_up_code": {code}}); r.Status != http.StatusSeeOther || identityExists(t, srv, id) {
		t.Fatalf("with a right code: %d, identity kept %v", r.Status, identityExists(t, srv, id))
	}
}

// TestPasskeysOffOnAnIPAddress is a Tally whose APP_URL is an IP address, which passkeys
// cannot be bound to: no passkey button, a page that says why, and a clear JSON refusal.
func TestPasskeysOffOnAnIPAddress(t *testing.T) {
	t.Parallel()
	srv := apptest.StartServer(t, apptest.ServerOptions{}) // http://127.0.0.1:<port>
	u := testkit.MustCreateUser(t, srv.DB, testkit.UserOpts{})
	c := apptest.NewClient(t, srv)
	if page := c.Get("/sessions/new"); page.Has(t, "passkey-sign-in") || strings.Contains(page.Body, "webauthn") {
		t.Error("the sign-in page offers passkeys it cannot use")
	}
	c.SignIn(u.Email, testkit.Password)
	if page := c.Get("/settings/passkeys"); !strings.Contains(page.TestID(t, "passkeys-off"), "APP_URL") || page.Has(t, "passkey-register-form") {
		t.Errorf("the passkeys page: %s", page.TestID(t, "passkeys-off"))
	}
	r := c.Do(http.MethodPost, "/settings/passkeys/options", strings.NewReader("{}"), map[string]string{
		"Content-Type": "application/json", "X-CSRF-Token": csrfOf(t, c)})
	var body struct{ Error, Message string }
	r.JSON(t, &body)
	if r.Status != http.StatusConflict || body.Error != "passkeys_off" || !strings.Contains(body.Message, "domain name") {
		t.Errorf("options: %d %+v", r.Status, body)
	}
}

// csrfOf is the CSRF token of the last page c saw.
func csrfOf(t *testing.T, c *testkit.Client) string {
	t.Helper()
	tok, _ := c.Get("/settings/security").Doc(t).Find(`meta[name="csrf-token"]`).Attr("content")
	return tok
}

// TestSecondFactorStepExpires is a right password whose code comes more than 5 minutes
// later: the half-signed-in state is gone, the code is not accepted, and the sign-in starts
// again.
func TestSecondFactorStepExpires(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	now := time.Now()
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	srv := apptest.StartServer(t, apptest.ServerOptions{Now: clock})
	u := testkit.MustCreateUser(t, srv.DB, testkit.UserOpts{})
	secret := apptest.MustEnrolTOTP(t, srv, u)

	c := apptest.NewClient(t, srv)
	if r := c.PostForm("/sessions", url.Values{"email": {u.Email}, "password": {testkit.Password}}); r.Location() != "/sessions/mfa" {
		t.Fatalf("password step: %d %q", r.Status, r.Location())
	}
	mu.Lock()
	now = now.Add(5*time.Minute + time.Second)
	mu.Unlock()
	code, _ := totp.GenerateCode(secret, time.Now())
	if r := c.PostForm("/sessions/mfa", url.Values{"code": {code}}); r.Status != http.StatusSeeOther || r.Location() != "/sessions/new" {
		t.Fatalf("a code after 5 minutes: %d → %q", r.Status, r.Location())
	}
	page := c.Get("/sessions/new")
	if !strings.Contains(page.TestID(t, "flash-error"), "more than 5 minutes") {
		t.Errorf("the sign-in page says %q", page.TestID(t, "flash-error"))
	}
	if r := c.Get("/"); r.Location() != "/sessions/new" {
		t.Errorf("after the expiry, GET / goes to %q", r.Location())
	}
}

// TestSSOLinkNeedsMoreThanAPasswordWithASecondFactor is an identity at a provider with the
// email of a user who has TOTP: the password alone does not connect it, or sign anyone in.
func TestSSOLinkNeedsMoreThanAPasswordWithASecondFactor(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	op := ssotestProvider(t)
	srv := apptest.StartServer(t, apptest.ServerOptions{Env: map[string]string{"AUTH_CONFIG_FILE": authFile(t, opYAML(op))}})
	u := testkit.MustCreateUser(t, srv.DB, testkit.UserOpts{Email: "ann@example.com"})
	apptest.MustEnrolTOTP(t, srv, u)
	op.SetUser(map[string]any{"sub": "ann-sso", "email": "ann@example.com", "email_verified": true})
	c := testkit.NewClient(t, srv.URL)
	if r := opLogin(t, c, op); r.Status != http.StatusSeeOther || r.Location() != "/sso/link" {
		t.Fatalf("provider sign-in: %d %q", r.Status, r.Location())
	}
	c.Get("/sso/link")
	r := c.PostForm("/sso/link", url.Values{"password": {testkit.Password}})
	if r.Status != http.StatusForbidden || !strings.Contains(r.TestID(t, "form-error"), "two-factor sign-in") {
		t.Fatalf("link with the password alone: %d %s", r.Status, r.TestID(t, "form-error"))
	}
	if got := c.Get("/"); got.Status == http.StatusOK {
		t.Error("signed in by the password alone")
	}
	var n int
	if err := srv.DB.NewRaw("SELECT count(*) FROM sso_identities WHERE user_id = ?", u.ID).Scan(ctx, &n); err != nil || n != 0 {
		t.Errorf("%d identities linked (%v)", n, err)
	}
}

// TestSecondFactorLimitCountsWrongAnswersOnly is the limit on codes: right codes never use
// it up, a family signing in behind one address is not held back, and someone who knows the
// password and guesses codes from their own address holds back only themselves, while the
// owner's right answer, from home, gets in and starts the count again.
func TestSecondFactorLimitCountsWrongAnswersOnly(t *testing.T) {
	t.Parallel()
	srv := apptest.StartServer(t, apptest.ServerOptions{Env: map[string]string{"TRUSTED_PROXIES": "127.0.0.1/32"}})
	// answer signs in as email, in a new browser at addr, with the password and code.
	answer := func(addr, email, code string) int {
		t.Helper()
		b := apptest.NewClient(t, srv)
		b.Headers = map[string]string{"X-Forwarded-For": addr}
		if r := b.PostForm("/sessions", url.Values{"email": {email}, "password": {testkit.Password}}); r.Location() != "/sessions/mfa" {
			t.Fatalf("password step of %s: %d → %q", email, r.Status, r.Location())
		}
		return b.PostForm("/sessions/mfa", url.Values{"code": {code}}).Status
	}

	// A family of six behind one router, each giving a right code.
	var family []*models.User
	var recovery [][]string
	for i := range 6 {
		var famID uuid.UUID
		if i > 0 {
			famID = family[0].FamilyID
		}
		u := testkit.MustCreateUser(t, srv.DB, testkit.UserOpts{FamilyID: famID})
		secret, codes := apptest.MustEnrolTOTPWithCodes(t, srv, u)
		code, err := totp.GenerateCode(secret, time.Now())
		if err != nil {
			t.Fatal(err)
		}
		family, recovery = append(family, u), append(recovery, codes)
		if got := answer("198.51.100.7", u.Email, code); got != http.StatusSeeOther {
			t.Fatalf("family member %d's right code from the shared address: %d", i+1, got)
		}
	}

	// Three wrong codes and a right one, twice over: the right ones take the count back.
	owner, home := family[0], "192.0.2.10"
	for round := range 2 {
		for range 3 {
			if got := answer(home, owner.Email, "000000"); got != http.StatusUnprocessableEntity {
				t.Fatalf("round %d, a wrong code: %d", round+1, got)
			}
		}
		if got := answer(home, owner.Email, recovery[0][round]); got != http.StatusSeeOther {
			t.Fatalf("round %d, the owner's right answer after three wrong ones: %d", round+1, got)
		}
	}

	// Someone with the password guesses from elsewhere: five wrong codes, then refused there.
	thief := "203.0.113.66"
	for i := range 5 {
		if got := answer(thief, owner.Email, fmt.Sprintf("%06d", i)); got != http.StatusUnprocessableEntity {
			t.Fatalf("guess %d: %d", i+1, got)
		}
	}
	if got := answer(thief, owner.Email, "123456"); got != http.StatusTooManyRequests {
		t.Fatalf("a sixth guess from the same address: %d, want 429", got)
	}
	// The owner, from home, is not held back.
	if got := answer(home, owner.Email, recovery[0][2]); got != http.StatusSeeOther {
		t.Fatalf("the owner's right answer while the thief is held back: %d", got)
	}
}

// TestStepUpNeverWritesThePasswordBack turns TOTP off with the password from a session whose
// last code is old: the step-up page carries no password, in any field or anywhere in its
// HTML, and its right code alone then turns TOTP off.
func TestStepUpNeverWritesThePasswordBack(t *testing.T) {
	t.Parallel()
	srv := apptest.StartServer(t, apptest.ServerOptions{})
	u := testkit.MustCreateUser(t, srv.DB, testkit.UserOpts{})
	c := apptest.NewClient(t, srv)
	c.SignIn(u.Email, testkit.Password)
	secret := apptest.MustEnrolTOTP(t, srv, u)
	c.Get("/settings/security")

	page := c.PostForm("/settings/mfa/totp/disable", url.Values{"password": {testkit.Password}})
	if page.Status != http.StatusOK || !page.Has(t, "step-up-form") {
		t.Fatalf("turning TOTP off from an old session: %d, step-up form %v", page.Status, page.Has(t, "step-up-form"))
	}
	if strings.Contains(page.Body, testkit.Password) || page.Doc(t).Find(`input[name="password"]`).Length() > 0 {
		t.Fatal("the step-up page writes the password back into the page")
	}
	// The browser posts the page's form as it is, with the code typed in.
	form := url.Values{}
	page.Doc(t).Find(`[data-testid="step-up-form"] input[type="hidden"]`).Each(func(_ int, in *goquery.Selection) {
		name, _ := in.Attr("name")
		value, _ := in.Attr("value")
		form.Add(name, value)
	})
	form.Set("step_up_code", func() string { s, _ := totp.GenerateCode(secret, time.Now()); return s }())
	if r := c.PostForm("/settings/mfa/totp/disable", form); r.Status != http.StatusSeeOther {
		t.Fatalf("the step-up's right code: %d %s", r.Status, r.Body)
	}
	if r := apptest.NewClient(t, srv).PostForm("/sessions", url.Values{"email": {u.Email}, "password": {testkit.Password}}); r.Location() != "/" {
		t.Fatalf("TOTP is still on: the password leads to %q", r.Location())
	}
}

// TestAKnownBrowserGetsPastTheCodeLimit is someone who knows the password guessing codes
// from four addresses until the owner's count is used up: a new browser is then held back,
// but the browsers the owner signed in from have counts of their own, so the owner's right
// code gets in at home, and wrong codes on their laptop hold back only the laptop.
func TestAKnownBrowserGetsPastTheCodeLimit(t *testing.T) {
	t.Parallel()
	srv := apptest.StartServer(t, apptest.ServerOptions{Env: map[string]string{"TRUSTED_PROXIES": "127.0.0.1/32"}})
	u := testkit.MustCreateUser(t, srv.DB, testkit.UserOpts{})
	_, recovery := apptest.MustEnrolTOTPWithCodes(t, srv, u)
	// answer signs in as u in browser b from addr, with the password and code.
	answer := func(b *testkit.Client, addr, code string) int {
		t.Helper()
		b.Headers = map[string]string{"X-Forwarded-For": addr}
		if r := b.PostForm("/sessions", url.Values{"email": {u.Email}, "password": {testkit.Password}}); r.Location() != "/sessions/mfa" {
			t.Fatalf("password step from %s: %d → %q", addr, r.Status, r.Location())
		}
		return b.PostForm("/sessions/mfa", url.Values{"code": {code}}).Status
	}
	home, laptop := apptest.NewClient(t, srv), apptest.NewClient(t, srv)
	for i, b := range []*testkit.Client{home, laptop} {
		if got := answer(b, fmt.Sprintf("192.0.2.%d", i+1), recovery[i]); got != http.StatusSeeOther {
			t.Fatalf("a first sign-in: %d", got)
		}
		b.PostForm("/sign_out", nil)
	}

	for addr := range 4 {
		for guess := range 5 {
			if got := answer(apptest.NewClient(t, srv), fmt.Sprintf("203.0.113.%d", addr+1), fmt.Sprintf("%06d", guess)); got != http.StatusUnprocessableEntity {
				t.Fatalf("guess %d from address %d: %d", guess+1, addr+1, got)
			}
		}
	}
	if got := answer(apptest.NewClient(t, srv), "198.51.100.1", recovery[2]); got != http.StatusTooManyRequests {
		t.Fatalf("the owner's right code from a new browser after 20 guesses: %d, want 429", got)
	}

	for guess := range 5 {
		if got := answer(laptop, "192.0.2.2", fmt.Sprintf("%06d", guess)); got != http.StatusUnprocessableEntity {
			t.Fatalf("wrong code %d on the laptop: %d", guess+1, got)
		}
	}
	if got := answer(laptop, "192.0.2.2", recovery[2]); got != http.StatusTooManyRequests {
		t.Fatalf("a sixth code on the laptop: %d, want 429", got)
	}
	if got := answer(home, "192.0.2.1", recovery[3]); got != http.StatusSeeOther || home.Get("/").Status != http.StatusOK {
		t.Fatalf("the owner's right code at home, while the strangers and the laptop are held back: %d", got)
	}
}

// TestStepUpNamesTheActionInTheUsersLanguage is a German user asked for their code before
// new recovery codes: the page names the action in German, and the audit log, which the API
// and the CSV read, in English.
func TestStepUpNamesTheActionInTheUsersLanguage(t *testing.T) {
	t.Parallel()
	srv := apptest.StartServer(t, apptest.ServerOptions{})
	u := testkit.MustCreateUser(t, srv.DB, testkit.UserOpts{})
	if _, err := srv.DB.NewRaw("UPDATE users SET language = 'de' WHERE id = ?", u.ID).Exec(context.Background()); err != nil {
		t.Fatal(err)
	}
	c := apptest.NewClient(t, srv)
	c.SignIn(u.Email, testkit.Password)
	apptest.MustEnrolTOTP(t, srv, u)
	c.Get("/settings/security")
	page := c.PostForm("/settings/mfa/recovery_codes", nil)
	if got := page.TestID(t, "step-up-what"); !strings.HasPrefix(got, "Um neue Wiederherstellungscodes zu erzeugen, bestätige") {
		t.Errorf("the step-up says %q", got)
	}
	c.PostForm("/settings/mfa/recovery_codes", url.Values{"step_up_code": {"000000"}})
	if got := testkitStrings(t, srv, "SELECT metadata->>'step_up' FROM sso_audit_logs WHERE user_id = ? AND event_type = 'mfa_failed'", u.ID); len(got) != 1 || got[0] != "make new recovery codes" {
		t.Errorf("the audit log names the action %v", got)
	}
}
