package handlers_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"tally/app"
	"tally/app/apptest"
	"tally/banksync/fakesimplefin"
	"tally/jobs"
	"tally/models"
	"tally/testkit"
)

// bankEnv is a family admin signed in, and a fake provider with a checking account.
func bankEnv(t *testing.T) (*apptest.Server, *testkit.Client, *fakesimplefin.Server, *models.User) {
	t.Helper()
	fake := fakesimplefin.NewTest(t)
	fake.AddConnection(fakesimplefin.Connection{ID: "CON-1", Name: "First Bank", OrgID: "first", OrgName: "First Bank"})
	fake.AddAccount(fakesimplefin.Account{ID: "ACT-1", ConnID: "CON-1", Name: "Everyday Checking", Currency: "USD", Balance: "500.00", BalanceDate: time.Now()})
	fake.AddTransaction("ACT-1", fakesimplefin.Transaction{ID: "T1", Posted: time.Now().Add(-48 * time.Hour), Amount: "-19.99", Description: "Bookshop"})
	srv := apptest.StartServer(t, apptest.ServerOptions{Env: map[string]string{"BANKSYNC_ALLOW_INSECURE": "true"}})
	u := testkit.MustCreateUser(t, srv.DB, testkit.UserOpts{})
	c := testkit.NewClient(t, srv.URL)
	c.SignIn(u.Email, testkit.Password)
	return srv, c, fake, u
}

// waitForEntries polls until the family has n provider entries.
func waitForEntries(t *testing.T, srv *apptest.Server, n int) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		got := testkitStrings(t, srv, "SELECT name FROM entries WHERE source = 'simplefin' AND kind = 'transaction'")
		if len(got) == n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d synced entries after 20s, want %d", len(got), n)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// waitForSyncsToFinish polls until no bank sync job is queued or running.
func waitForSyncsToFinish(t *testing.T, srv *apptest.Server) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for len(testkitStrings(t, srv, "SELECT id::text FROM river_job WHERE kind = 'bank_sync' AND state NOT IN ('completed', 'discarded', 'cancelled')")) > 0 {
		if time.Now().After(deadline) {
			t.Fatal("a bank sync is still running after 20s")
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// bankConnectionState is what GET /api/v1/bank_connections/{id} says of a connection's syncs.
type bankConnectionState struct {
	Data struct {
		Status    string  `json:"status"`
		LastError *string `json:"last_error"`
		LastStats struct {
			Created  int      `json:"created"`
			Skipped  int      `json:"skipped"`
			Warnings []string `json:"warnings"`
		} `json:"last_stats"`
	} `json:"data"`
}

// bankConnectionNow reads the family's one connection through the API.
func bankConnectionNow(t *testing.T, srv *apptest.Server, c *testkit.Client, key string) bankConnectionState {
	t.Helper()
	var got bankConnectionState
	id := testkitStrings(t, srv, "SELECT id::text FROM bank_connections")[0]
	if r := c.API(http.MethodGet, "/api/v1/bank_connections/"+id, key, nil); r.Status != http.StatusOK {
		t.Fatalf("the connection through the API: %d %s", r.Status, r.Body)
	} else {
		r.JSON(t, &got)
	}
	return got
}

// TestAnAbsurdAmountIsSkippedAndAFailingSyncSaysSo is a bank sending a transaction of -1e30
// and a balance of as much: the sync skips them with a warning on the connection's page and in
// the API, and syncs the rest. A sync that fails then shows on the connection, its status and
// why, until one works again.
func TestAnAbsurdAmountIsSkippedAndAFailingSyncSaysSo(t *testing.T) {
	t.Parallel()
	srv, c, fake, u := bankEnv(t)
	key := testkit.MustCreateAPIKey(t, srv.DB, u.ID, models.ScopeRead)
	fake.AddTransaction("ACT-1", fakesimplefin.Transaction{ID: "T2", Posted: time.Now().Add(-24 * time.Hour), Amount: "-1e30", Description: "Glitch"})
	fake.AddAccount(fakesimplefin.Account{ID: "ACT-2", ConnID: "CON-1", Name: "Odd Savings", Currency: "USD", Balance: "-1e30", BalanceDate: time.Now()})
	c.Get("/settings/bank_connections")
	r := c.PostForm("/settings/bank_connections", url.Values{"setup_token": {fake.NewSetupToken()}})
	if r.Status != http.StatusSeeOther {
		t.Fatalf("connect: %d %s", r.Status, r.Body)
	}
	linkEveryAccount(t, c, r.Location())
	waitForEntries(t, srv, 1)
	waitForSyncsToFinish(t, srv)
	page := c.Get("/settings/bank_connections")
	if warnings := page.TestID(t, "bank-warnings"); !strings.Contains(warnings, "A transaction of -1000000000000000000000000000000") ||
		!strings.Contains(warnings, "The balance of Odd Savings") || page.TestID(t, "bank-status-badge") != "Connected" {
		t.Fatalf("the page: %q, %q", page.TestID(t, "bank-status-badge"), warnings)
	}
	if got := bankConnectionNow(t, srv, c, key).Data; got.Status != "good" || got.LastStats.Skipped != 2 || len(got.LastStats.Warnings) != 2 || got.LastStats.Created != 1 {
		t.Fatalf("the API: %+v", got)
	}

	// The provider fails: the connection says so, on the page and in the API.
	fake.Inject(fakesimplefin.Fault{Status: http.StatusBadGateway})
	id := testkitStrings(t, srv, "SELECT id::text FROM bank_connections")[0]
	c.PostForm("/settings/bank_connections/"+id+"/sync", nil)
	waitForSyncsToFinish(t, srv)
	page = c.Get("/settings/bank_connections")
	if page.TestID(t, "bank-status-badge") != "Sync failing" || !strings.Contains(page.TestID(t, "bank-error"), "could not be reached") {
		t.Fatalf("the page after a failed sync: %q, %q", page.TestID(t, "bank-status-badge"), page.TestID(t, "bank-error"))
	}
	if got := bankConnectionNow(t, srv, c, key).Data; got.Status != "failing" || got.LastError == nil {
		t.Fatalf("the API after a failed sync: %+v", got)
	}
	fake.ClearFaults()
	c.PostForm("/settings/bank_connections/"+id+"/sync", nil)
	waitForSyncsToFinish(t, srv)
	if got := bankConnectionNow(t, srv, c, key).Data; got.Status != "good" || got.LastError != nil {
		t.Fatalf("the API after a sync that worked: %+v", got)
	}
}

func TestConnectLinkSyncAndReconnectABank(t *testing.T) {
	t.Parallel()
	srv, c, fake, _ := bankEnv(t)
	c.Get("/settings/bank_connections")
	if r := c.PostForm("/settings/bank_connections", url.Values{"setup_token": {"not a token"}}); r.Status != http.StatusUnprocessableEntity ||
		!strings.Contains(r.TestID(t, "error-setup_token"), "not a setup token") {
		t.Fatalf("bad token: %d", r.Status)
	}
	token := fake.NewSetupToken()
	r := c.PostForm("/settings/bank_connections", url.Values{"setup_token": {token}})
	if r.Status != http.StatusSeeOther || !strings.HasSuffix(r.Location(), "/link") {
		t.Fatalf("connect: %d %s", r.Status, r.Body)
	}
	page := c.Get(r.Location())
	choice := page.Doc(t).Find(`[data-testid="link-choice"]`)
	name, _ := choice.Attr("name")
	if selected := choice.Find("option[selected]").AttrOr("value", ""); selected != "new:Depository" {
		t.Fatalf("suggested %q", selected)
	}
	if r := c.PostForm(r.Location(), url.Values{name: {"new:Depository"}}); r.Status != http.StatusSeeOther {
		t.Fatalf("link: %d", r.Status)
	}
	waitForEntries(t, srv, 1)
	if got := testkitStrings(t, srv, "SELECT name || ':' || balance FROM accounts WHERE source = 'simplefin'"); strings.Join(got, "") != "Everyday Checking:500.0000" {
		t.Fatalf("linked account %v", got)
	}
	// The same token again is refused with what to do.
	if r := c.PostForm("/settings/bank_connections", url.Values{"setup_token": {token}}); !strings.Contains(r.Body, "already used, has expired, or may be compromised") {
		t.Fatalf("reused token: %d", r.Status)
	}

	// The provider revokes the access: the next sync marks the connection, the page says so.
	access := testkitStrings(t, srv, "SELECT id::text FROM bank_connections")[0]
	ctx := context.Background()
	var accessURL string
	keysURL(t, srv, ctx, access, &accessURL)
	fake.RevokeAccess(accessURL)
	waitForSyncsToFinish(t, srv)
	if r := c.PostForm("/settings/bank_connections/"+access+"/sync", nil); r.Status != http.StatusSeeOther {
		t.Fatalf("sync now: %d", r.Status)
	}
	if !strings.Contains(c.Get("/settings/bank_connections").TestID(t, "flash-success"), "Sync started") {
		t.Fatal("sync now did not start a sync")
	}
	deadline := time.Now().Add(20 * time.Second)
	for testkitStrings(t, srv, "SELECT status FROM bank_connections")[0] != "needs_token" {
		if time.Now().After(deadline) {
			t.Fatal("the connection was not marked as needing a token")
		}
		time.Sleep(50 * time.Millisecond)
	}
	// The failure is logged, the access URL's credentials never are.
	au, _ := url.Parse(accessURL)
	pass, _ := au.User.Password()
	waitForSyncsToFinish(t, srv) // the worker logs the failure after recording it
	if logs := srv.Logs.String(); !strings.Contains(logs, "bank sync failed") || strings.Contains(logs, pass) || strings.Contains(logs, au.User.Username()) {
		t.Fatalf("the log lacks the failure or holds the access URL:\n%s", logs)
	}
	if !c.Get("/settings/bank_connections").Has(t, "reconnect") {
		t.Fatal("the page does not offer to reconnect")
	}
	if r := c.PostForm("/settings/bank_connections/"+access+"/reconnect", url.Values{"new_setup_token": {fake.NewSetupToken()}}); r.Status != http.StatusSeeOther {
		t.Fatalf("reconnect: %d", r.Status)
	}
	if got := testkitStrings(t, srv, "SELECT status || ':' || (SELECT count(*) FROM bank_accounts WHERE account_id IS NOT NULL) FROM bank_connections"); got[0] != "good:1" {
		t.Fatalf("after reconnecting: %v", got)
	}

	// Disconnecting keeps the account, as a manual one.
	if r := c.PostForm("/settings/bank_connections/"+access+"/delete", nil); r.Status != http.StatusSeeOther {
		t.Fatalf("disconnect: %d", r.Status)
	}
	if got := testkitStrings(t, srv, "SELECT name || ':' || coalesce(source, 'manual') FROM accounts"); strings.Join(got, "") != "Everyday Checking:manual" {
		t.Fatalf("after disconnecting: %v", got)
	}
}

// The family's connection (an admin's) is its admins' to see: a member's bank page does not
// list it, and another family reaches none of its routes.
func TestBankConnectionsAreTheFamilyAdminsAndTheirFamilysOnly(t *testing.T) {
	t.Parallel()
	srv, c, fake, admin := bankEnv(t)
	c.Get("/settings/bank_connections")
	c.PostForm("/settings/bank_connections", url.Values{"setup_token": {fake.NewSetupToken()}})
	id := testkitStrings(t, srv, "SELECT id::text FROM bank_connections")[0]
	member := testkit.MustCreateUser(t, srv.DB, testkit.UserOpts{Role: models.RoleMember, FamilyID: admin.FamilyID})
	m := testkit.NewClient(t, srv.URL)
	m.SignIn(member.Email, testkit.Password)
	if r := m.Get("/settings/bank_connections"); r.Status != http.StatusOK || r.Has(t, "bank-connection") {
		t.Fatalf("a member sees the family's bank connections: %d", r.Status)
	}
	notFound(t, m, http.MethodGet, "/settings/bank_connections/"+id+"/status")
	stranger := testkit.MustCreateUser(t, srv.DB, testkit.UserOpts{})
	s := testkit.NewClient(t, srv.URL)
	s.SignIn(stranger.Email, testkit.Password)
	s.Get("/settings/bank_connections")
	for _, path := range []string{"/link", "/status"} {
		if r := s.Get("/settings/bank_connections/" + id + path); r.Status != http.StatusNotFound {
			t.Errorf("another family GET %s: %d", path, r.Status)
		}
	}
	if r := s.PostForm("/settings/bank_connections/"+id+"/delete", nil); r.Status != http.StatusNotFound {
		t.Errorf("another family deleted the connection: %d", r.Status)
	}
	if n := testkitStrings(t, srv, "SELECT id::text FROM bank_connections"); len(n) != 1 {
		t.Fatal("the connection is gone")
	}
	if strings.Contains(c.Get("/settings/bank_connections").Body, "@127.0.0.1") {
		t.Fatal("the access URL is on the page")
	}
}

// keysURL decrypts a connection's access URL, as only the sync does.
func keysURL(t *testing.T, srv *apptest.Server, ctx context.Context, id string, out *string) {
	t.Helper()
	keys, err := app.EncryptionKeys(srv.Config)
	if err != nil {
		t.Fatal(err)
	}
	var stored string
	if err := srv.DB.NewRaw("SELECT access_url FROM bank_connections WHERE id = ?::uuid", id).Scan(ctx, &stored); err != nil {
		t.Fatal(err)
	}
	if *out, _, err = keys.Decrypt(stored, "bank_connections.access_url"); err != nil {
		t.Fatal(err)
	}
}

// The daily sync runs at the time the family chose, once a day: the schedule queues a
// connection whose time has come and that has not been tried since.
func TestRetimeTheDailySync(t *testing.T) {
	t.Parallel()
	srv, c, fake, _ := bankEnv(t)
	c.Get("/settings/bank_connections")
	r := c.PostForm("/settings/bank_connections", url.Values{"setup_token": {fake.NewSetupToken()}})
	page := c.Get(r.Location())
	name, _ := page.Doc(t).Find(`[data-testid="link-choice"]`).Attr("name")
	c.PostForm(r.Location(), url.Values{name: {"new:Depository"}})
	waitForEntries(t, srv, 1)
	waitForSyncsToFinish(t, srv)
	id := testkitStrings(t, srv, "SELECT id::text FROM bank_connections")[0]
	settings := "/settings/bank_connections/" + id + "/settings"

	if r := c.PostForm(settings, url.Values{"sync_time": {"25:00"}, "history_days": {"90"}}); r.Status != http.StatusSeeOther {
		t.Fatalf("a bad time: %d", r.Status)
	}
	if !strings.Contains(c.Get("/settings/bank_connections").TestID(t, "flash-error"), "time of day") {
		t.Fatal("a bad sync time was not refused with the reason")
	}
	if r := c.PostForm(settings, url.Values{"sync_time": {"00:00"}, "history_days": {"30"}, "include_pending": {"1"}}); r.Status != http.StatusSeeOther {
		t.Fatalf("settings: %d", r.Status)
	}
	if got := testkitStrings(t, srv, "SELECT sync_minute || ':' || history_days || ':' || include_pending FROM bank_connections"); got[0] != "0:30:true" {
		t.Fatalf("settings stored %v", got)
	}

	// Synced today after 00:00: not due. Last tried yesterday: due, once.
	schedule := func() {
		t.Helper()
		if _, err := srv.Jobs.Insert(context.Background(), jobs.BankScheduleArgs{}, nil); err != nil {
			t.Fatal(err)
		}
		for deadline := time.Now().Add(20 * time.Second); len(testkitStrings(t, srv,
			"SELECT id::text FROM river_job WHERE kind = 'bank_sync_schedule' AND state NOT IN ('completed', 'discarded', 'cancelled')")) > 0; {
			if time.Now().After(deadline) {
				t.Fatal("the schedule did not run")
			}
			time.Sleep(50 * time.Millisecond)
		}
		waitForSyncsToFinish(t, srv)
	}
	syncs := func() int {
		return len(testkitStrings(t, srv, "SELECT id::text FROM river_job WHERE kind = 'bank_sync'"))
	}
	before := syncs()
	schedule()
	if syncs() != before {
		t.Fatal("a connection synced today was synced again")
	}
	if _, err := srv.DB.NewRaw("UPDATE bank_connections SET last_attempt_at = now() - interval '1 day'").Exec(context.Background()); err != nil {
		t.Fatal(err)
	}
	schedule()
	schedule()
	if syncs() != before+1 {
		t.Fatalf("%d scheduled syncs, want 1", syncs()-before)
	}
}
