package handlers_test

import (
	"context"

	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"tally/app"
	"tally/app/apptest"
	"tally/banksync"
	"tally/banksync/fakeenablebanking"
	"tally/models"
	"tally/testkit"
)

// europeEnv is a family admin signed in to a Tally whose Enable Banking is the fake, with a
// German bank of two accounts and a bank that approves in its app.
func europeEnv(t *testing.T) (*apptest.Server, *testkit.Client, *fakeenablebanking.Server, *models.User) {
	t.Helper()
	fake := fakeenablebanking.NewTest(t)
	fake.AddASPSP(fakeenablebanking.ASPSP{Name: "Testbank", Country: "DE"})
	fake.AddASPSP(fakeenablebanking.ASPSP{Name: "App Bank", Country: "DE", Decoupled: true})
	today := time.Now().UTC().Format(time.DateOnly)
	fake.AddAccount("Testbank", fakeenablebanking.Account{Key: "giro", IBAN: "DE89370400440532013000", Name: "Girokonto", Currency: "EUR",
		Balances: map[string]string{"CLBD": "1000.00"},
		Transactions: []fakeenablebanking.Transaction{
			{EntryReference: "E1", Amount: "12.50", Indicator: "DBIT", Status: "BOOK", BookingDate: today, Creditor: &fakeenablebanking.Party{Address: []string{"Bäckerei Schmidt"}}},
			{Amount: "-30.00", Status: "PDNG", Creditor: &fakeenablebanking.Party{Name: "Tankstelle Nord"}},
		}})
	fake.AddAccount("Testbank", fakeenablebanking.Account{Key: "savings", IBAN: "DE02120300000000202051", Name: "Tagesgeld", Currency: "EUR",
		Balances: map[string]string{"ITBD": "5000.00"}})
	fake.AddAccount("App Bank", fakeenablebanking.Account{Key: "app", IBAN: "DE44500105175407324931", Name: "Konto", Currency: "EUR",
		Balances: map[string]string{"CLBD": "50.00"},
		Transactions: []fakeenablebanking.Transaction{{EntryReference: "A1", Amount: "5.00", Indicator: "DBIT", Status: "BOOK", BookingDate: today,
			Creditor: &fakeenablebanking.Party{Name: "Kiosk"}}}})
	srv := apptest.StartServer(t, apptest.ServerOptions{Env: map[string]string{"BANKSYNC_ALLOW_INSECURE": "true", "WEBHOOKS_ALLOW_INSECURE": "true",
		"ENABLE_BANKING_APP_ID": fake.AppID, "ENABLE_BANKING_PRIVATE_KEY": fake.PrivateKeyPEM(), "ENABLE_BANKING_API_URL": fake.URL,
		"TRUSTED_PROXIES": "127.0.0.1/32"}})
	u := testkit.MustCreateUser(t, srv.DB, testkit.UserOpts{})
	c := apptest.NewClient(t, srv)
	c.SignIn(u.Email, testkit.Password)
	return srv, c, fake, u
}

// atTheBank approves at the fake's page (not decoupled) and returns the callback's path and
// query, where the bank sends the browser back.
func atTheBank(t *testing.T, srv *apptest.Server, c *testkit.Client, authURL string) string {
	t.Helper()
	u, _ := url.Parse(authURL)
	r := c.At(u.Scheme+"://"+u.Host).PostForm(u.Path, url.Values{"decision": {"approve"}})
	back, ok := strings.CutPrefix(r.Location(), srv.URL)
	if r.Status != http.StatusFound || !ok || !strings.HasPrefix(back, banksync.CallbackPath+"?") {
		t.Fatalf("the bank answered %d to %q", r.Status, r.Location())
	}
	return back
}

// confirmAtCallback opens the callback where the bank sent the browser back and confirms the
// household its page names, as the person does; it returns the confirmation's answer.
func confirmAtCallback(t *testing.T, c *testkit.Client, back string) *testkit.Response {
	t.Helper()
	page := c.Get(back)
	if page.Status != http.StatusOK || !page.Has(t, "eb-confirm") {
		t.Fatalf("the callback's page: %d %s", page.Status, page.Body)
	}
	form := page.Doc(t).Find(`[data-testid="eb-consent-form"]`)
	values := url.Values{}
	form.Find(`input[type="hidden"]`).Each(func(_ int, in *goquery.Selection) { values.Set(in.AttrOr("name", ""), in.AttrOr("value", "")) })
	return c.PostForm(form.AttrOr("action", ""), values)
}

// nameHousehold gives the user and their family names a person recognises.
func nameHousehold(t *testing.T, srv *apptest.Server, u *models.User, family, first, last string) {
	t.Helper()
	if _, err := srv.DB.NewRaw("UPDATE families SET name = ? WHERE id = ?", family, u.FamilyID).Exec(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, err := srv.DB.NewRaw("UPDATE users SET first_name = ?, last_name = ? WHERE id = ?", first, last, u.ID).Exec(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// consentAudits lists the bank_consent audit events as "user|ip|user agent|family|signed in".
func consentAudits(t *testing.T, srv *apptest.Server) []string {
	t.Helper()
	return testkitStrings(t, srv, `SELECT coalesce(user_id::text, 'none') || '|' || coalesce(ip_address, '') || '|' || coalesce(user_agent, '') || '|' ||
		(metadata->>'family_id') || '|' || (metadata->>'signed_in') FROM sso_audit_logs WHERE event_type = 'bank_consent' ORDER BY created_at`)
}

// TestABankApprovalInAnotherHouseholdsBrowserIsRefused is a family admin sending the bank's
// link to Alice, who approves at her bank while signed in to her own household: her browser
// is refused at the callback, and nothing is used up (no session at the provider, no
// connection), so that the admin who started it can still finish it in their household.
func TestABankApprovalInAnotherHouseholdsBrowserIsRefused(t *testing.T) {
	t.Parallel()
	srv, bob, fake, starter := europeEnv(t)
	nameHousehold(t, srv, starter, "The Bergers", "Bob", "Berger")
	alice := apptest.NewClient(t, srv)
	alice.SignIn(testkit.MustCreateUser(t, srv.DB, testkit.UserOpts{}).Email, testkit.Password)

	bob.Get("/settings/bank_connections/europe?country=DE")
	r := bob.PostForm("/settings/bank_connections/europe", url.Values{"country": {"DE"}, "aspsp": {"Testbank"}})
	back := atTheBank(t, srv, alice, r.Location())
	q, _ := url.ParseQuery(back[strings.Index(back, "?")+1:])
	for name, page := range map[string]*testkit.Response{"the page": alice.Get(back),
		"a confirmation": alice.PostForm(banksync.CallbackPath, url.Values{"state": {q.Get("state")}, "code": {q.Get("code")}})} {
		if page.Status != http.StatusForbidden || !strings.Contains(page.TestID(t, "eb-callback-error"), "another household") ||
			page.TestID(t, "eb-household") != "The Bergers" || !strings.HasPrefix(page.TestID(t, "eb-starter"), "Bob Berger (") {
			t.Fatalf("%s in Alice's browser: %d %s", name, page.Status, page.Body)
		}
	}
	if got := testkitStrings(t, srv, "SELECT (used_at IS NULL)::text || ':' || (SELECT count(*) FROM bank_connections) FROM bank_authorizations"); got[0] != "true:0" {
		t.Fatalf("after Alice's browser, the authorisation (unused) and the connections: %v", got)
	}
	if len(fake.SessionStatuses()) != 0 {
		t.Fatal("a session was opened at the provider")
	}

	// Bob finishes it: the connection is his household's.
	if done := confirmAtCallback(t, bob, back); done.Status != http.StatusSeeOther || !strings.HasSuffix(done.Location(), "/link") {
		t.Fatalf("Bob's confirmation: %d %s", done.Status, done.Location())
	}
	if got := testkitStrings(t, srv, "SELECT family_id::text FROM bank_connections"); len(got) != 1 || got[0] != starter.FamilyID.String() {
		t.Fatalf("connections %v", got)
	}
}

// TestTheBankCallbackNamesTheHouseholdBeforeReadingTheBank is the person back from the bank:
// the page names the household that gets the access and who started it, nothing is read from
// the bank until they confirm, and the audit log records who completed it and from where.
func TestTheBankCallbackNamesTheHouseholdBeforeReadingTheBank(t *testing.T) {
	t.Parallel()
	srv, c, fake, u := europeEnv(t)
	nameHousehold(t, srv, u, "The Bergers", "Bob", "Berger")
	c.Headers = map[string]string{"X-Forwarded-For": "198.51.100.4", "User-Agent": "Bob's laptop"}
	c.Get("/settings/bank_connections/europe?country=DE")
	r := c.PostForm("/settings/bank_connections/europe", url.Values{"country": {"DE"}, "aspsp": {"Testbank"}})
	back := atTheBank(t, srv, c, r.Location())
	before := len(fake.Requests())
	page := c.Get(back)
	if page.Status != http.StatusOK || page.TestID(t, "eb-household") != "The Bergers" || page.TestID(t, "eb-starter") != "Bob Berger ("+u.Email+")" ||
		!strings.Contains(page.TestID(t, "eb-confirm"), "The Bergers") {
		t.Fatalf("the callback's page: %d %s", page.Status, page.Body)
	}
	if n := len(fake.Requests()); n != before || len(testkitStrings(t, srv, "SELECT id::text FROM bank_connections")) != 0 {
		t.Fatalf("the page read the bank (%d requests) or made a connection before the person confirmed", n-before)
	}
	if done := confirmAtCallback(t, c, back); done.Status != http.StatusSeeOther || !strings.HasSuffix(done.Location(), "/link") {
		t.Fatalf("confirmed: %d %s", done.Status, done.Location())
	}
	if got := consentAudits(t, srv); strings.Join(got, ",") != u.ID.String()+"|198.51.100.4|Bob's laptop|"+u.FamilyID.String()+"|true" {
		t.Fatalf("audit %v", got)
	}
}

// TestABankApprovalFinishesOnAPhoneWithoutASession is the admin starting on the desktop and
// approving at the bank on a phone that has no Tally session: the phone's page names the
// household and who started it, and confirming there puts the connection in that household.
func TestABankApprovalFinishesOnAPhoneWithoutASession(t *testing.T) {
	t.Parallel()
	srv, c, _, u := europeEnv(t)
	nameHousehold(t, srv, u, "The Bergers", "Bob", "Berger")
	c.Get("/settings/bank_connections/europe?country=DE")
	r := c.PostForm("/settings/bank_connections/europe", url.Values{"country": {"DE"}, "aspsp": {"Testbank"}})
	phone := testkit.NewClient(t, srv.URL)
	phone.Headers = map[string]string{"X-Forwarded-For": "203.0.113.9", "User-Agent": "Bob's phone"}
	back := atTheBank(t, srv, phone, r.Location())
	if page := phone.Get(back); page.TestID(t, "eb-household") != "The Bergers" || !strings.HasPrefix(page.TestID(t, "eb-starter"), "Bob Berger") {
		t.Fatalf("the phone's page: %d %s", page.Status, page.Body)
	}
	if done := confirmAtCallback(t, phone, back); done.Status != http.StatusOK || !done.Has(t, "eb-callback-ok") || done.TestID(t, "eb-household") != "The Bergers" {
		t.Fatalf("the phone's confirmation: %d %s", done.Status, done.Body)
	}
	if got := testkitStrings(t, srv, "SELECT family_id::text || ':' || status FROM bank_connections"); strings.Join(got, ",") != u.FamilyID.String()+":good" {
		t.Fatalf("connections %v", got)
	}
	if got := consentAudits(t, srv); strings.Join(got, ",") != "none|203.0.113.9|Bob's phone|"+u.FamilyID.String()+"|false" {
		t.Fatalf("audit %v", got)
	}
	// The desktop goes on to link the accounts.
	if link := c.Get("/settings/bank_connections"); !link.Has(t, "link-accounts") {
		t.Fatal("the desktop does not offer to link the new connection's accounts")
	}
}

// linkEveryAccount links each account the link page at path offers as it suggests.
func linkEveryAccount(t *testing.T, c *testkit.Client, path string) {
	t.Helper()
	values := url.Values{}
	c.Get(path).Doc(t).Find(`[data-testid="link-choice"]`).Each(func(_ int, s *goquery.Selection) {
		values.Set(s.AttrOr("name", ""), s.Find("option[selected]").AttrOr("value", ""))
	})
	if r := c.PostForm(path, values); r.Status != http.StatusSeeOther {
		t.Fatalf("link: %d", r.Status)
	}
}

// TestBankTextIsBounded sends a bank's name past a name's bound (255 characters) every way it
// comes in: from an API client and the page's form it is refused, naming the field, and
// nothing is stored; a bank of that name in the provider's list is not offered. The names, ids
// and IBAN the provider sends past their bounds are cut, and the syncs still work.
func TestBankTextIsBounded(t *testing.T) {
	t.Parallel()
	srv, c, fake, u := europeEnv(t)
	long := "Bank " + strings.Repeat("x", 4995)
	fake.AddASPSP(fakeenablebanking.ASPSP{Name: long, Country: "DE"})
	key := testkit.MustCreateAPIKey(t, srv.DB, u.ID, models.ScopeReadWrite)
	if r := c.API(http.MethodPost, "/api/v1/bank_connections", key, map[string]any{"provider": "enable_banking", "country": "DE", "aspsp": long}); r.Status != http.StatusUnprocessableEntity ||
		!strings.Contains(r.Body, `"aspsp":["Bank can be at most 255 characters long"]`) {
		t.Fatalf("the API: %d %.300s", r.Status, r.Body)
	}
	page := c.Get("/settings/bank_connections/europe?country=DE")
	page.Doc(t).Find(`[data-testid="eb-banks"] option`).Each(func(_ int, o *goquery.Selection) {
		if len(o.AttrOr("value", "")) > 255 {
			t.Errorf("the page offers a bank named with %d characters", len(o.AttrOr("value", "")))
		}
	})
	if r := c.PostForm("/settings/bank_connections/europe", url.Values{"country": {"DE"}, "aspsp": {long}}); r.Status != http.StatusUnprocessableEntity ||
		!strings.Contains(r.TestID(t, "error-aspsp"), "can be at most 255 characters") {
		t.Fatalf("the form: %d %q", r.Status, r.TestID(t, "error-aspsp"))
	}
	if n := testkitStrings(t, srv, "SELECT count(*)::text FROM bank_authorizations"); n[0] != "0" {
		t.Fatalf("%s authorisations stored", n[0])
	}

	// What the provider sends: an account's name, key (its identification hash) and IBAN, and
	// a transaction's reference, name and text, each 5,000 characters.
	fake.AddAccount("Testbank", fakeenablebanking.Account{Key: strings.Repeat("k", 5000), IBAN: "DE" + strings.Repeat("9", 4998),
		Name: strings.Repeat("N", 5000), Currency: "EUR", Balances: map[string]string{"CLBD": "7.00"},
		Transactions: []fakeenablebanking.Transaction{{EntryReference: strings.Repeat("r", 5000), Amount: "7.00", Indicator: "DBIT", Status: "BOOK",
			BookingDate: time.Now().UTC().Format(time.DateOnly), Creditor: &fakeenablebanking.Party{Name: strings.Repeat("c", 5000)},
			Remittance: []string{strings.Repeat("m", 5000)}}}})
	r := c.PostForm("/settings/bank_connections/europe", url.Values{"country": {"DE"}, "aspsp": {"Testbank"}})
	r = confirmAtCallback(t, c, atTheBank(t, srv, c, r.Location()))
	linkEveryAccount(t, c, r.Location())
	waitForEBEntries(t, srv, 3)
	waitForSyncsToFinish(t, srv)
	id := testkitStrings(t, srv, "SELECT id::text FROM bank_connections")[0]
	c.PostForm("/settings/bank_connections/"+id+"/sync", nil)
	waitForSyncsToFinish(t, srv)
	got := testkitStrings(t, srv, `SELECT c.status || ':' || (SELECT count(*) FROM entries WHERE source = 'enable_banking' AND kind = 'transaction') || ':' ||
		(SELECT max(greatest(length(name), length(account_key), length(coalesce(iban, '')))) FROM bank_accounts) || ':' ||
		(SELECT max(greatest(length(external_id), length(name), length(notes))) FROM entries WHERE source = 'enable_banking') FROM bank_connections c`)
	if got[0] != "good:3:255:255" {
		t.Fatalf("status, entries after two syncs, the longest texts of the accounts and the entries: %v", got)
	}
}

// TestAnAbsurdAmountFromAEuropeanBankIsSkipped is Enable Banking sending a transaction of
// -1e30 and a balance of 1e30: both are left out with a warning, the rest syncs, and a sync the
// bank refuses then shows on the connection.
func TestAnAbsurdAmountFromAEuropeanBankIsSkipped(t *testing.T) {
	t.Parallel()
	srv, c, fake, u := europeEnv(t)
	key := testkit.MustCreateAPIKey(t, srv.DB, u.ID, models.ScopeRead)
	fake.AddTransactions("giro", fakeenablebanking.Transaction{EntryReference: "E9", Amount: "-1e30", Status: "BOOK",
		BookingDate: time.Now().UTC().Format(time.DateOnly), Creditor: &fakeenablebanking.Party{Name: "Glitch"}})
	fake.SetBalance("savings", "ITBD", "1e30")
	c.Get("/settings/bank_connections/europe?country=DE")
	r := c.PostForm("/settings/bank_connections/europe", url.Values{"country": {"DE"}, "aspsp": {"Testbank"}})
	r = confirmAtCallback(t, c, atTheBank(t, srv, c, r.Location()))
	linkEveryAccount(t, c, r.Location())
	waitForEBEntries(t, srv, 2)
	waitForSyncsToFinish(t, srv)
	if got := bankConnectionNow(t, srv, c, key).Data; got.Status != "good" || got.LastStats.Skipped != 2 || got.LastStats.Created != 2 ||
		!strings.Contains(strings.Join(got.LastStats.Warnings, " "), "A transaction of -1000000000000000000000000000000") {
		t.Fatalf("the API: %+v", got)
	}
	if n := c.Get("/settings/bank_connections").Doc(t).Find(`[data-testid="bank-warning"]`).Length(); n != 2 {
		t.Fatalf("the page shows %d warnings", n)
	}

	// The bank refuses the next read: the connection says so until it is read again.
	fake.RateLimit(1)
	id := testkitStrings(t, srv, "SELECT id::text FROM bank_connections")[0]
	c.PostForm("/settings/bank_connections/"+id+"/sync", nil)
	waitForSyncsToFinish(t, srv)
	if got := bankConnectionNow(t, srv, c, key).Data; got.Status != "failing" || got.LastError == nil || !strings.Contains(*got.LastError, "slow down") {
		t.Fatalf("the API after a refused read: %+v", got)
	}
	if p := c.Get("/settings/bank_connections"); p.TestID(t, "bank-error") == "" {
		t.Fatal("the page does not say why the sync failed")
	}
}

func waitForStatus(t *testing.T, srv *apptest.Server, want string) {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); testkitStrings(t, srv, "SELECT status FROM bank_connections")[0] != want; time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the connection's status is not %s", want)
		}
	}
}

func TestConnectAEuropeanBankLinkSyncAndRenew(t *testing.T) {
	t.Parallel()
	srv, c, fake, u := europeEnv(t)
	ctx := context.Background()
	// A statement import knows the current account's IBAN: the link page preselects it.
	known := testkit.MustCreateAccount(t, srv.DB, u.FamilyID, "Giro from statements", "Depository", "")
	if _, err := srv.DB.NewRaw("INSERT INTO account_identifiers (family_id, key, account_id) VALUES (?, 'iban:DE89370400440532013000', ?)",
		u.FamilyID, known.ID).Exec(ctx); err != nil {
		t.Fatal(err)
	}

	// A webhook hears of the syncs, as for SimpleFIN.
	rcv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	t.Cleanup(rcv.Close)
	key := testkit.MustCreateAPIKey(t, srv.DB, u.ID, models.ScopeReadWrite)
	if r := c.API(http.MethodPost, "/api/v1/webhooks", key, map[string]any{"url": rcv.URL, "events": []string{"bank_sync.completed", "bank_sync.failed"}}); r.Status != http.StatusCreated {
		t.Fatalf("webhook: %d %s", r.Status, r.Body)
	}

	page := c.Get("/settings/bank_connections/europe?country=DE")
	if page.Status != http.StatusOK || page.Doc(t).Find(`[data-testid="eb-banks"] option[value="Testbank"]`).Length() != 1 {
		t.Fatalf("the bank list: %d", page.Status)
	}
	if r := c.PostForm("/settings/bank_connections/europe", url.Values{"country": {"DE"}, "aspsp": {"Nobank"}, "days": {"abc"}}); r.Status != http.StatusUnprocessableEntity ||
		!r.Has(t, "error-aspsp") || !r.Has(t, "error-days") {
		t.Fatalf("a bank not listed and bad days: %d", r.Status)
	}
	r := c.PostForm("/settings/bank_connections/europe", url.Values{"country": {"DE"}, "aspsp": {"Testbank"}, "days": {"30"}})
	if r.Status != http.StatusSeeOther || !strings.HasPrefix(r.Location(), fake.URL+"/fake/authorize/") {
		t.Fatalf("start: %d %s", r.Status, r.Location())
	}
	back := atTheBank(t, srv, c, r.Location())
	r = confirmAtCallback(t, c, back)
	if r.Status != http.StatusSeeOther || !strings.HasSuffix(r.Location(), "/link") {
		t.Fatalf("callback: %d %s %s", r.Status, r.Location(), r.Body)
	}
	// The state works once.
	if again := c.Get(back); !strings.Contains(c.Get(again.Location()).TestID(t, "flash-error"), "not one Tally is waiting for") {
		t.Fatal("a used state was taken again")
	}
	link := c.Get(r.Location())
	values := url.Values{}
	choices := link.Doc(t).Find(`[data-testid="link-choice"]`)
	if choices.Length() != 2 {
		t.Fatalf("%d accounts to link", choices.Length())
	}
	if got := choices.Eq(0).Find("option[selected]").AttrOr("value", ""); got != "existing:"+known.ID.String() {
		t.Fatalf("the known IBAN's account is not preselected: %q", got)
	}
	choices.Each(func(i int, s *goquery.Selection) {
		name, _ := s.Attr("name")
		values.Set(name, s.Find("option[selected]").AttrOr("value", ""))
	})
	if r := c.PostForm(r.Location(), values); r.Status != http.StatusSeeOther {
		t.Fatalf("link: %d", r.Status)
	}
	waitForEBEntries(t, srv, 2)
	if got := testkitStrings(t, srv, "SELECT name || ':' || amount || ':' || pending FROM entries WHERE source = 'enable_banking' AND kind = 'transaction' ORDER BY name"); strings.Join(got, ",") != "Bäckerei Schmidt:12.5000:false,Tankstelle Nord:30.0000:true" {
		t.Fatalf("synced %v", got)
	}
	if p := c.Get("/settings/bank_connections"); !strings.Contains(p.TestID(t, "bank-requests"), "of 4 (PSD2)") || p.TestID(t, "bank-consent-end") == "" {
		t.Fatalf("the page lacks the reads or the consent's end")
	}

	// The consent ends: the next sync asks for renewal; renewing keeps the accounts.
	waitForSyncsToFinish(t, srv)
	fake.ExpireSessions()
	id := testkitStrings(t, srv, "SELECT id::text FROM bank_connections")[0]
	c.PostForm("/settings/bank_connections/"+id+"/sync", nil)
	waitForStatus(t, srv, banksync.StatusNeedsRenewal)
	waitForSyncsToFinish(t, srv)
	if !c.Get("/settings/bank_connections").Has(t, "renew") {
		t.Fatal("the page does not offer to renew")
	}
	r = c.PostForm("/settings/bank_connections/"+id+"/renew", nil)
	r = confirmAtCallback(t, c, atTheBank(t, srv, c, r.Location()))
	if r.Status != http.StatusSeeOther || r.Location() != "/settings/bank_connections" {
		t.Fatalf("renewal callback: %d %s", r.Status, r.Location())
	}
	waitForSyncsToFinish(t, srv)
	if got := testkitStrings(t, srv, "SELECT status || ':' || (SELECT count(*) FROM bank_accounts WHERE account_id IS NOT NULL) || ':' || (SELECT count(*) FROM entries WHERE source = 'enable_banking' AND kind = 'transaction') FROM bank_connections"); got[0] != "good:2:2" {
		t.Fatalf("after renewing: %v", got)
	}
	if got := testkitStrings(t, srv, "SELECT type || ':' || (data->>'status') FROM webhook_events ORDER BY created_at"); strings.Join(got, ",") !=
		"bank_sync.completed:good,bank_sync.failed:needs_renewal,bank_sync.completed:good" {
		t.Fatalf("webhook events %v", got)
	}
	// The session id and the key are nowhere in the logs or on the page.
	keys, err := app.EncryptionKeys(srv.Config)
	if err != nil {
		t.Fatal(err)
	}
	stored := testkitStrings(t, srv, "SELECT session_id FROM bank_connections")[0]
	session, _, err := keys.Decrypt(stored, "bank_connections.session_id")
	if err != nil || session == stored {
		t.Fatalf("the session id is not stored encrypted: %v", err)
	}
	pemBody := strings.Split(fake.PrivateKeyPEM(), "\n")[1]
	if logs := srv.Logs.String(); strings.Contains(logs, session) || strings.Contains(logs, pemBody) || strings.Contains(c.Get("/settings/bank_connections").Body, session) {
		t.Fatal("the session id or the key is in the logs or on the page")
	}
}

func TestADecoupledBankCompletesFromAnotherDevice(t *testing.T) {
	t.Parallel()
	srv, c, fake, _ := europeEnv(t)
	c.Get("/settings/bank_connections/europe?country=DE")
	r := c.PostForm("/settings/bank_connections/europe", url.Values{"country": {"DE"}, "aspsp": {"App Bank"}})
	if r.Status != http.StatusSeeOther || !strings.HasPrefix(r.Location(), "/settings/bank_connections/authorizations/") {
		t.Fatalf("start: %d %s", r.Status, r.Location())
	}
	waiting := r.Location()
	page := c.Get(waiting)
	authURL, _ := page.Doc(t).Find(`[data-testid="eb-open-bank"]`).Attr("href")
	if !page.Has(t, "eb-decoupled") || authURL == "" {
		t.Fatal("the waiting page does not say to approve in the app")
	}
	if r := c.Do(http.MethodGet, waiting, nil, map[string]string{"HX-Request": "true"}); r.Status != http.StatusNoContent {
		t.Fatalf("polled before approval: %d", r.Status)
	}
	// The person opens the bank's page on a phone, approves in the app; the phone, never
	// signed in to Tally, is sent back and completes the connection by its state.
	u, _ := url.Parse(authURL)
	phone := testkit.NewClient(t, u.Scheme+"://"+u.Host)
	if r := phone.Get(u.Path); r.Status != http.StatusOK || !r.Has(t, "fake-decoupled") {
		t.Fatalf("the bank's page before approval: %d", r.Status)
	}
	fake.ApproveInApp(u.Path[strings.LastIndex(u.Path, "/")+1:])
	r = phone.Get(u.Path)
	back, _ := strings.CutPrefix(r.Location(), srv.URL)
	if done := confirmAtCallback(t, phone.At(srv.URL), back); done.Status != http.StatusOK || !done.Has(t, "eb-callback-ok") {
		t.Fatalf("the phone's callback: %d", done.Status)
	}
	// The page that waited moves on to linking.
	if r := c.Do(http.MethodGet, waiting, nil, map[string]string{"HX-Request": "true"}); !strings.HasSuffix(r.Header.Get("HX-Redirect"), "/link") {
		t.Fatalf("polled after approval: %d %v", r.Status, r.Header)
	}
	if got := testkitStrings(t, srv, "SELECT aspsp_name || ':' || status FROM bank_connections"); strings.Join(got, "") != "App Bank:good" {
		t.Fatalf("connections %v", got)
	}
}

func TestBankConnectionsAPI(t *testing.T) {
	t.Parallel()
	srv, c, fake, u := europeEnv(t)
	key := testkit.MustCreateAPIKey(t, srv.DB, u.ID, models.ScopeReadWrite)
	r := c.API(http.MethodPost, "/api/v1/bank_connections", key, map[string]any{"provider": "enable_banking", "country": "DE", "aspsp": "Testbank", "days": 5000})
	if r.Status != http.StatusUnprocessableEntity || !strings.Contains(r.Body, `"days"`) {
		t.Fatalf("bad days: %d %s", r.Status, r.Body)
	}
	var created struct {
		Data struct {
			AuthorizationURL string `json:"authorization_url"`
			Decoupled        bool   `json:"decoupled"`
		} `json:"data"`
	}
	r = c.API(http.MethodPost, "/api/v1/bank_connections", key, map[string]any{"provider": "enable_banking", "country": "DE", "aspsp": "Testbank"})
	r.JSON(t, &created)
	if r.Status != http.StatusCreated || !strings.HasPrefix(created.Data.AuthorizationURL, fake.URL) || created.Data.Decoupled {
		t.Fatalf("create: %d %s", r.Status, r.Body)
	}
	// The person approves in a browser that is not signed in.
	browser := testkit.NewClient(t, srv.URL)
	if done := confirmAtCallback(t, browser, atTheBank(t, srv, browser, created.Data.AuthorizationURL)); !done.Has(t, "eb-callback-ok") {
		t.Fatalf("callback: %d", done.Status)
	}
	var list struct {
		Data []struct {
			ID       string `json:"id"`
			Provider string `json:"provider"`
			Status   string `json:"status"`
			Accounts []struct {
				UID       string  `json:"uid"`
				IBAN      *string `json:"iban"`
				AccountID *string `json:"account_id"`
			} `json:"accounts"`
			ConsentExpiresAt *string `json:"consent_expires_at"`
		} `json:"data"`
	}
	c.API(http.MethodGet, "/api/v1/bank_connections", key, nil).JSON(t, &list)
	if len(list.Data) != 1 || list.Data[0].Provider != "enable_banking" || len(list.Data[0].Accounts) != 2 || list.Data[0].ConsentExpiresAt == nil {
		t.Fatalf("list %+v", list)
	}
	conn := list.Data[0]
	path := "/api/v1/bank_connections/" + conn.ID
	uid := conn.Accounts[0].UID
	if r := c.API(http.MethodPatch, path+"/accounts/"+url.PathEscape(uid), key, map[string]any{"link": "maybe"}); r.Status != http.StatusUnprocessableEntity {
		t.Fatalf("bad link: %d", r.Status)
	}
	if r := c.API(http.MethodPatch, path+"/accounts/"+url.PathEscape(uid), key, map[string]any{"link": "new"}); r.Status != http.StatusOK ||
		!strings.Contains(r.Body, `"account_id":"`) {
		t.Fatalf("link new: %d %s", r.Status, r.Body)
	}
	if r := c.API(http.MethodPatch, path+"/accounts/"+url.PathEscape(conn.Accounts[1].UID), key, map[string]any{"link": nil}); r.Status != http.StatusOK ||
		!strings.Contains(r.Body, `"skipped":true`) {
		t.Fatalf("link null: %d %s", r.Status, r.Body)
	}
	if r := c.API(http.MethodPost, path+"/sync", key, nil); r.Status != http.StatusAccepted {
		t.Fatalf("sync: %d %s", r.Status, r.Body)
	}
	waitForEBEntries(t, srv, 2)
	var renewal struct {
		Data struct {
			AuthorizationURL string `json:"authorization_url"`
		} `json:"data"`
	}
	r = c.API(http.MethodPost, path+"/renew", key, nil)
	r.JSON(t, &renewal)
	if r.Status != http.StatusCreated || !strings.Contains(r.Body, `"connection_id":"`+conn.ID) {
		t.Fatalf("renew: %d %s", r.Status, r.Body)
	}
	// The person denies it at the bank: nothing changes, and the page says so.
	bank, _ := url.Parse(renewal.Data.AuthorizationURL)
	denied := browser.At(bank.Scheme+"://"+bank.Host).PostForm(bank.Path, url.Values{"decision": {"deny"}})
	back, _ := strings.CutPrefix(denied.Location(), srv.URL)
	if r := browser.Get(back); r.Status != http.StatusUnprocessableEntity || !strings.Contains(r.TestID(t, "eb-callback-error"), "did not give access") {
		t.Fatalf("a denied renewal: %d", r.Status)
	}

	// Another family's key and a member's key.
	stranger := testkit.MustCreateUser(t, srv.DB, testkit.UserOpts{})
	if r := c.API(http.MethodGet, path, testkit.MustCreateAPIKey(t, srv.DB, stranger.ID, models.ScopeReadWrite), nil); r.Status != http.StatusNotFound {
		t.Fatalf("another family: %d", r.Status)
	}
	// A member's key does not reach the family's connection, which is its admins': 404 as
	// another family's.
	member := testkit.MustCreateUser(t, srv.DB, testkit.UserOpts{Role: models.RoleMember, FamilyID: u.FamilyID})
	if r := c.API(http.MethodGet, path, testkit.MustCreateAPIKey(t, srv.DB, member.ID, models.ScopeReadWrite), nil); r.Status != http.StatusNotFound {
		t.Fatalf("a member: %d", r.Status)
	}

	waitForSyncsToFinish(t, srv)
	if r := c.API(http.MethodDelete, path, key, nil); r.Status != http.StatusNoContent {
		t.Fatalf("delete: %d", r.Status)
	}
	for _, st := range fake.SessionStatuses() {
		if st == "AUTHORIZED" {
			t.Fatal("a session is still open at the provider")
		}
	}
}

// waitForEBEntries polls until the family has n Enable Banking transactions.
func waitForEBEntries(t *testing.T, srv *apptest.Server, n int) {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); len(testkitStrings(t, srv, "SELECT id::text FROM entries WHERE source = 'enable_banking' AND kind = 'transaction'")) != n; time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("not %d synced entries after 20s", n)
		}
	}
}

// TestAnEndedConsentShowsWhatIsTrue is a consent the bank ends before its end date, then one
// past its end date: the connections page and the API stop saying it runs until that date,
// and say it ended (needs renewal) or when it expired.
func TestAnEndedConsentShowsWhatIsTrue(t *testing.T) {
	t.Parallel()
	srv, c, fake, u := europeEnv(t)
	key := testkit.MustCreateAPIKey(t, srv.DB, u.ID, models.ScopeRead)
	c.Get("/settings/bank_connections/europe?country=DE")
	r := c.PostForm("/settings/bank_connections/europe", url.Values{"country": {"DE"}, "aspsp": {"Testbank"}})
	r = confirmAtCallback(t, c, atTheBank(t, srv, c, r.Location()))
	linkEveryAccount(t, c, r.Location())
	waitForEBEntries(t, srv, 2)
	waitForSyncsToFinish(t, srv)
	id := testkitStrings(t, srv, "SELECT id::text FROM bank_connections")[0]
	consent := func() (page, state string) {
		t.Helper()
		var got struct {
			Data struct {
				ConsentState *string `json:"consent_state"`
			} `json:"data"`
		}
		c.API(http.MethodGet, "/api/v1/bank_connections/"+id, key, nil).JSON(t, &got)
		if got.Data.ConsentState != nil {
			state = *got.Data.ConsentState
		}
		return c.Get("/settings/bank_connections").Doc(t).Find(`[data-testid="bank-status"]`).Text(), state
	}
	if page, state := consent(); !strings.Contains(page, "Consent until") || state != banksync.ConsentActive {
		t.Fatalf("a running consent: %q, %q", page, state)
	}

	fake.ExpireSessions()
	c.PostForm("/settings/bank_connections/"+id+"/sync", nil)
	waitForStatus(t, srv, banksync.StatusNeedsRenewal)
	waitForSyncsToFinish(t, srv)
	if page, state := consent(); strings.Contains(page, "Consent until") || !strings.Contains(page, "Consent ended at the bank: needs renewal") || state != banksync.ConsentEnded {
		t.Fatalf("a consent the bank ended: %q, %q", page, state)
	}

	if _, err := srv.DB.NewRaw("UPDATE bank_connections SET consent_expires_at = now() - interval '2 days'").Exec(context.Background()); err != nil {
		t.Fatal(err)
	}
	if page, state := consent(); strings.Contains(page, "Consent until") || !strings.Contains(page, "Consent expired on") || state != banksync.ConsentExpired {
		t.Fatalf("a consent past its end: %q, %q", page, state)
	}
}

// TestAnAccountTheBankNoLongerServesAsksForRenewal is a linked account the bank answers 404
// for: the connection asks for a renewal, naming the account and saying why, rather than
// calling it a network problem; and neither the next "Sync now" nor the daily schedule spends
// the day's PSD2 reads on it.
func TestAnAccountTheBankNoLongerServesAsksForRenewal(t *testing.T) {
	t.Parallel()
	srv, c, fake, u := europeEnv(t)
	key := testkit.MustCreateAPIKey(t, srv.DB, u.ID, models.ScopeRead)
	c.Get("/settings/bank_connections/europe?country=DE")
	r := c.PostForm("/settings/bank_connections/europe", url.Values{"country": {"DE"}, "aspsp": {"Testbank"}})
	r = confirmAtCallback(t, c, atTheBank(t, srv, c, r.Location()))
	linkEveryAccount(t, c, r.Location())
	waitForEBEntries(t, srv, 2)
	waitForSyncsToFinish(t, srv)
	id := testkitStrings(t, srv, "SELECT id::text FROM bank_connections")[0]

	fake.RemoveAccount("savings")
	c.PostForm("/settings/bank_connections/"+id+"/sync", nil)
	waitForSyncsToFinish(t, srv)
	got := bankConnectionNow(t, srv, c, key).Data
	if got.Status != banksync.StatusNeedsRenewal || got.LastError == nil || !strings.Contains(*got.LastError, `"Tagesgeld"`) ||
		!strings.Contains(*got.LastError, "Renew the consent") || strings.Contains(*got.LastError, "could not be reached") {
		t.Fatalf("after a 404 for an account: %s %v", got.Status, got.LastError)
	}
	if p := c.Get("/settings/bank_connections"); !strings.Contains(p.TestID(t, "renew-why"), `"Tagesgeld"`) || !p.Has(t, "renew-submit") {
		t.Fatalf("the page does not say why to renew: %q", p.TestID(t, "renew-why"))
	}

	reads := len(fake.Requests())
	c.PostForm("/settings/bank_connections/"+id+"/sync", nil)
	waitForSyncsToFinish(t, srv)
	if _, err := srv.DB.NewRaw("UPDATE bank_connections SET last_attempt_at = now() - interval '2 days'").Exec(context.Background()); err != nil {
		t.Fatal(err)
	}
	if due, err := (&banksync.Service{DB: srv.DB}).Due(context.Background()); err != nil || len(due) != 0 {
		t.Fatalf("the schedule would sync it again: %v %v", due, err)
	}
	if n := len(fake.Requests()); n != reads {
		t.Fatalf("%d more requests to the bank after it said the account is gone", n-reads)
	}
}

// TestABankConnectionInTroubleShowsOutsideSettings is a consent that ended, then syncs that
// failed for a day: the dashboard and the page of each account linked to the connection say
// so, with the renewal (or the way to why) at hand for an admin and whom to ask for a member;
// a manual account's page and a failure of an hour say nothing.
func TestABankConnectionInTroubleShowsOutsideSettings(t *testing.T) {
	t.Parallel()
	srv, c, fake, u := europeEnv(t)
	ctx := context.Background()
	manual := testkit.MustCreateAccount(t, srv.DB, u.FamilyID, "Cash", "Depository", "50")
	c.Get("/settings/bank_connections/europe?country=DE")
	r := c.PostForm("/settings/bank_connections/europe", url.Values{"country": {"DE"}, "aspsp": {"Testbank"}})
	r = confirmAtCallback(t, c, atTheBank(t, srv, c, r.Location()))
	linkEveryAccount(t, c, r.Location())
	waitForEBEntries(t, srv, 2)
	waitForSyncsToFinish(t, srv)
	id := testkitStrings(t, srv, "SELECT id::text FROM bank_connections")[0]
	linked := testkitStrings(t, srv, "SELECT account_id::text FROM bank_accounts WHERE account_id IS NOT NULL ORDER BY name")
	if c.Get("/").Has(t, "bank-trouble") {
		t.Fatal("the dashboard shows a connection that syncs")
	}

	fake.ExpireSessions()
	c.PostForm("/settings/bank_connections/"+id+"/sync", nil)
	waitForStatus(t, srv, banksync.StatusNeedsRenewal)
	waitForSyncsToFinish(t, srv)
	for _, path := range []string{"/", "/accounts/" + linked[0], "/accounts/" + linked[1]} {
		p := c.Get(path)
		if !strings.Contains(p.TestID(t, "bank-trouble"), "needs renewal") || !strings.Contains(p.TestID(t, "bank-trouble-action"), "Renew at Testbank") {
			t.Fatalf("%s does not ask for the renewal: %q", path, p.TestID(t, "bank-trouble"))
		}
	}
	if c.Get("/accounts/"+manual.ID.String()).Has(t, "bank-trouble") {
		t.Fatal("a manual account's page shows the bank connection")
	}
	// The dashboard's button starts the renewal at the bank.
	dash := c.Get("/").Doc(t)
	action := dash.Find(`[data-testid="bank-trouble"] form`).AttrOr("action", "")
	if r := c.PostForm(action, nil); r.Status != http.StatusSeeOther || !strings.HasPrefix(r.Location(), fake.URL+"/fake/authorize/") {
		t.Fatalf("renew from the dashboard: %d %s", r.Status, r.Location())
	}
	member := testkit.MustCreateUser(t, srv.DB, testkit.UserOpts{Role: models.RoleMember, FamilyID: u.FamilyID})
	mc := apptest.NewClient(t, srv)
	mc.SignIn(member.Email, testkit.Password)
	if p := mc.Get("/"); !strings.Contains(p.TestID(t, "bank-trouble"), "Ask an admin") || p.Has(t, "bank-trouble-action") {
		t.Fatalf("a member's dashboard: %q", p.TestID(t, "bank-trouble"))
	}

	// Syncs that fail: news after a day, not after an hour.
	set := func(ago string) {
		if _, err := srv.DB.NewRaw("UPDATE bank_connections SET status = 'failing', last_error = 'The provider could not be reached: timeout.', last_synced_at = now() - ?::interval",
			ago).Exec(ctx); err != nil {
			t.Fatal(err)
		}
	}
	set("1 hour")
	if c.Get("/").Has(t, "bank-trouble") {
		t.Fatal("a failure of an hour is on the dashboard")
	}
	set("25 hours")
	p := c.Get("/accounts/" + linked[0])
	if !strings.Contains(p.TestID(t, "bank-trouble"), "has not synced for more than a day") || p.TestID(t, "bank-trouble-why") != "The provider could not be reached: timeout." ||
		p.TestID(t, "bank-trouble-action") != "See why" {
		t.Fatalf("a day of failures on the account's page: %q", p.TestID(t, "bank-trouble"))
	}
}

// A member connects their own European bank through the pages: the approval comes back to
// them, they link its accounts (private to them) and renew the consent, while the family's
// admin does not reach it. A viewer's bank page only reads: no way to connect is offered, and
// every change answers 403, on the pages and through the API.
func TestAMemberConnectsAEuropeanBankAndAViewerOnlyReads(t *testing.T) {
	t.Parallel()
	srv, admin, fake, u := europeEnv(t)
	member := testkit.MustCreateUser(t, srv.DB, testkit.UserOpts{Role: models.RoleMember, FamilyID: u.FamilyID})
	mc := apptest.NewClient(t, srv)
	mc.SignIn(member.Email, testkit.Password)
	if page := mc.Get("/settings/bank_connections/europe?country=DE"); page.Status != http.StatusOK {
		t.Fatalf("a member's European banks: %d", page.Status)
	}
	r := mc.PostForm("/settings/bank_connections/europe", url.Values{"country": {"DE"}, "aspsp": {"Testbank"}})
	if r.Status != http.StatusSeeOther || !strings.HasPrefix(r.Location(), fake.URL+"/fake/authorize/") {
		t.Fatalf("a member starts: %d %s", r.Status, r.Location())
	}
	r = confirmAtCallback(t, mc, atTheBank(t, srv, mc, r.Location()))
	if r.Status != http.StatusSeeOther || !strings.HasSuffix(r.Location(), "/link") {
		t.Fatalf("the member's callback: %d %s", r.Status, r.Location())
	}
	linkEveryAccount(t, mc, r.Location())
	waitForEBEntries(t, srv, 2)
	waitForSyncsToFinish(t, srv)
	conn := testkitStrings(t, srv, "SELECT id::text FROM bank_connections WHERE user_id = ?", member.ID)
	if len(conn) != 1 {
		t.Fatalf("the member's connection is not theirs: %v", testkitStrings(t, srv, "SELECT coalesce(user_id::text, 'family') FROM bank_connections"))
	}
	if got := testkitStrings(t, srv, "SELECT DISTINCT private::text || ':' || (owner_id = ?)::text FROM accounts WHERE source = 'enable_banking'", member.ID); !slices.Equal(got, []string{"true:true"}) {
		t.Errorf("the accounts the member's bank brought: %v, want private to them", got)
	}
	base := "/settings/bank_connections/" + conn[0]
	if r := mc.PostForm(base+"/renew", nil); r.Status != http.StatusSeeOther || !strings.HasPrefix(r.Location(), fake.URL+"/fake/authorize/") {
		t.Errorf("the member renews: %d %s", r.Status, r.Location())
	}
	notFound(t, admin, http.MethodGet, base+"/status")
	notFound(t, admin, http.MethodPost, base+"/renew")

	viewer := testkit.MustCreateUser(t, srv.DB, testkit.UserOpts{Role: models.RoleViewer, FamilyID: u.FamilyID})
	vc := apptest.NewClient(t, srv)
	vc.SignIn(viewer.Email, testkit.Password)
	page := vc.Get("/settings/bank_connections")
	if page.Status != http.StatusOK || page.Has(t, "connect-form") || page.Has(t, "add-europe") || page.Has(t, "bank-connection") {
		t.Fatalf("a viewer's bank page: %d", page.Status)
	}
	for _, path := range []string{"/settings/bank_connections", "/settings/bank_connections/europe", base + "/sync", base + "/delete"} {
		if r := vc.PostForm(path, url.Values{"setup_token": {"x"}, "country": {"DE"}, "aspsp": {"Testbank"}}); r.Status != http.StatusForbidden {
			t.Errorf("a viewer POST %s: %d", path, r.Status)
		}
	}
	key := testkit.MustCreateAPIKey(t, srv.DB, viewer.ID, models.ScopeReadWrite)
	if r := vc.API(http.MethodPost, "/api/v1/bank_connections", key, map[string]any{"provider": "enable_banking", "country": "DE", "aspsp": "Testbank"}); r.Status != http.StatusForbidden {
		t.Errorf("a viewer's key connects: %d %s", r.Status, r.Body)
	}
	if r := vc.API(http.MethodGet, "/api/v1/bank_connections", key, nil); r.Status != http.StatusOK || strings.Contains(r.Body, conn[0]) {
		t.Errorf("a viewer's key lists: %d %s", r.Status, r.Body)
	}
}
