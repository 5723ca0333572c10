package handlers_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"tally/app/apptest"
	"tally/banksync/fakesimplefin"
	"tally/testkit"
)

// waitForSeries polls until the family has a series, and returns each as "name interval
// status".
func waitForSeries(t *testing.T, srv *apptest.Server, familyID uuid.UUID) []string {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		got := testkitStrings(t, srv, "SELECT name || ' ' || interval || ' ' || status FROM recurring_transactions WHERE family_id = ? ORDER BY name", familyID)
		if len(got) > 0 {
			return got
		}
		if time.Now().After(deadline) {
			t.Fatalf("no series found 20s on\n%s", srv.Logs)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestAPublishedImportQueuesTheDetectionOfItsSeries publishes eight weekly gym payments with
// no worker running: the publish queues a detection of the import's transactions, in its own
// transaction, and the import is complete while nothing is found yet; once a worker runs, the
// job proposes the gym.
func TestAPublishedImportQueuesTheDetectionOfItsSeries(t *testing.T) {
	t.Parallel()
	e := newImportEnv(t, apptest.ServerOptions{NoWorker: true})
	acct := testkit.MustCreateAccount(t, e.srv.DB, e.user.FamilyID, "Checking", "Depository", "1000")
	today := time.Now().UTC().Truncate(24 * time.Hour)
	csv := "date,amount,name\n"
	for k := 8; k >= 1; k-- {
		csv += today.AddDate(0, 0, -7*k).Format(time.DateOnly) + ",-20.00,Gym membership\n"
	}
	var imp importBody
	e.create(t, map[string]any{"raw_file_content": csv, "date_format": "%Y-%m-%d", "account_id": acct.ID.String(), "publish": true},
		http.StatusCreated).JSON(t, &imp)
	ctx := context.Background()
	if err := e.srv.Imports.RunPublish(ctx, uuid.MustParse(imp.Data.ID)); err != nil {
		t.Fatal(err)
	}
	queued := e.strings(t, `SELECT args->>'family_id' FROM river_job WHERE kind = 'recurring_detect' AND state = 'available' AND args->>'import_id' = ?`, imp.Data.ID)
	if len(queued) != 1 || queued[0] != e.user.FamilyID.String() {
		t.Fatalf("detections queued for the import: %v, want one for the family", queued)
	}
	if n := e.count(t, "SELECT count(*) FROM recurring_transactions WHERE family_id = ?", e.user.FamilyID); n != 0 {
		t.Fatalf("%d series before any worker ran", n)
	}
	// The import is complete with its rows: the detection it started is follow-up work, which
	// its time to complete does not wait for.
	if status := e.strings(t, "SELECT status FROM imports WHERE id = ?", imp.Data.ID); len(status) != 1 || status[0] != "complete" {
		t.Fatalf("the import is %v before its detection ran, want complete", status)
	}

	if err := e.srv.Jobs.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		stop, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		e.srv.Jobs.Stop(stop)
	})
	if got := waitForSeries(t, e.srv, e.user.FamilyID); strings.Join(got, ",") != "Gym membership weekly proposed" {
		t.Fatalf("series %v, want the gym proposed", got)
	}
}

// TestABankSyncQueuesTheDetectionOfItsSeries links a bank whose checking account paid a gym
// five Mondays running: the sync that follows the link queues a detection of the accounts it
// wrote to, and the worker's run of it proposes the gym.
func TestABankSyncQueuesTheDetectionOfItsSeries(t *testing.T) {
	t.Parallel()
	fake := fakesimplefin.NewTest(t)
	fake.AddConnection(fakesimplefin.Connection{ID: "CON-1", Name: "First Bank", OrgID: "first", OrgName: "First Bank"})
	fake.AddAccount(fakesimplefin.Account{ID: "ACT-1", ConnID: "CON-1", Name: "Everyday Checking", Currency: "USD", Balance: "500.00", BalanceDate: time.Now()})
	for k := 1; k <= 5; k++ {
		fake.AddTransaction("ACT-1", fakesimplefin.Transaction{ID: fmt.Sprint("GYM-", k), Posted: time.Now().AddDate(0, 0, 3-7*k),
			Amount: "-20.00", Description: "Gym membership"})
	}
	srv := apptest.StartServer(t, apptest.ServerOptions{Env: map[string]string{"BANKSYNC_ALLOW_INSECURE": "true"}})
	u := testkit.MustCreateUser(t, srv.DB, testkit.UserOpts{})
	c := testkit.NewClient(t, srv.URL)
	c.SignIn(u.Email, testkit.Password)

	c.Get("/settings/bank_connections")
	r := c.PostForm("/settings/bank_connections", url.Values{"setup_token": {fake.NewSetupToken()}})
	if r.Status != http.StatusSeeOther {
		t.Fatalf("connect: %d %s", r.Status, r.Body)
	}
	page := c.Get(r.Location())
	name, _ := page.Doc(t).Find(`[data-testid="link-choice"]`).Attr("name")
	if r := c.PostForm(r.Location(), url.Values{name: {"new:Depository"}}); r.Status != http.StatusSeeOther {
		t.Fatalf("link: %d", r.Status)
	}

	if got := waitForSeries(t, srv, u.FamilyID); strings.Join(got, ",") != "Gym membership weekly proposed" {
		t.Fatalf("series %v, want the gym proposed", got)
	}
	account := testkitStrings(t, srv, "SELECT id::text FROM accounts WHERE family_id = ?", u.FamilyID)
	jobs := testkitStrings(t, srv, `SELECT args->'account_ids'->>0 FROM river_job WHERE kind = 'recurring_detect' AND args->>'family_id' = ?`, u.FamilyID.String())
	if len(account) != 1 || len(jobs) != 1 || jobs[0] != account[0] {
		t.Fatalf("detections %v, want one of the synced account %v", jobs, account)
	}
}
