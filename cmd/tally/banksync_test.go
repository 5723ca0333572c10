package main

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"tally/app"
	"tally/banksync"
	"tally/banksync/fakesimplefin"
	"tally/config"
	"tally/internal/db"
	"tally/jobs"
	"tally/testkit"
)

// TestKilledWorkerMidSyncSyncsOnce kills a real worker process (SIGKILL) while its bank sync
// waits for the provider: nothing is written, and a new worker, with the default settings,
// runs the sync again within a minute and writes every transaction exactly once.
func TestKilledWorkerMidSyncSyncsOnce(t *testing.T) {
	bin := buildBinary(t)
	url := testkit.DatabaseURL(t)
	ctx := context.Background()
	d, err := db.Open(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()

	fake := fakesimplefin.NewTest(t)
	fake.AddConnection(fakesimplefin.Connection{ID: "CON-1", Name: "First Bank", OrgID: "first", OrgName: "First Bank"})
	fake.AddAccount(fakesimplefin.Account{ID: "ACT-1", ConnID: "CON-1", Name: "Everyday Checking", Currency: "USD",
		Balance: "1000.00", BalanceDate: time.Now()})
	const txns = 40
	for i := range txns {
		fake.AddTransaction("ACT-1", fakesimplefin.Transaction{ID: fmt.Sprintf("T-%d", i), Posted: time.Now().Add(-time.Duration(i+1) * time.Hour),
			Amount: fmt.Sprintf("-%d.25", i+1), Description: fmt.Sprintf("Shop %d", i)})
	}

	// Connect and link as the page does, with the secret the worker processes use.
	secret := strings.Repeat("s", 64)
	svc, err := app.NewBank(config.Config{SecretKeyBase: secret, BanksyncAllowInsecure: true}, d, testkit.DiscardLogger())
	if err != nil {
		t.Fatal(err)
	}
	u := testkit.MustCreateUser(t, d, testkit.UserOpts{})
	conn, err := svc.Connect(ctx, u.FamilyID, uuid.Nil, fake.NewSetupToken())
	if err != nil {
		t.Fatal(err)
	}
	var acct banksync.BankAccount
	if err := d.NewSelect().Model(&acct).Where("connection_id = ?", conn.ID).Scan(ctx); err != nil {
		t.Fatal(err)
	}
	typ, sub := banksync.Suggest(&acct)
	if err := svc.Link(ctx, u.FamilyID, conn.ID, []banksync.Choice{{BankAccountID: acct.ID, Action: "new", Type: typ, Subtype: sub}}); err != nil {
		t.Fatal(err)
	}

	// The provider holds the worker's first request for accounts until the worker is gone.
	requestsBefore := len(fake.Requests())
	fake.Inject(fakesimplefin.Fault{Endpoint: fakesimplefin.Accounts, Times: 1, Delay: 2 * time.Minute})
	queue, err := jobs.New(d, testkit.DiscardLogger(), jobs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if queued, err := (jobs.BankEnqueuer{Client: queue}).EnqueueSync(ctx, conn.ID); err != nil || !queued {
		t.Fatalf("queue the sync: %v (queued %v)", err, queued)
	}
	env := []string{"PATH=" + os.Getenv("PATH"), "DATABASE_URL=" + url, "SECRET_KEY_BASE=" + secret,
		"LOG_LEVEL=warn", "BANKSYNC_ALLOW_INSECURE=true", noRates}
	entries := func() int {
		var n int
		if err := d.NewRaw("SELECT count(*) FROM entries e JOIN accounts a ON a.id = e.account_id WHERE a.family_id = ? AND e.kind = 'transaction'", u.FamilyID).Scan(ctx, &n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	linked := entries()
	worker, _, _ := launch(t, bin, env, "worker")
	waitFor(t, 30*time.Second, "the worker asking the provider for transactions", func() bool {
		for _, r := range fake.Requests()[requestsBefore:] {
			if strings.HasSuffix(r.Path, string(fakesimplefin.Accounts)) {
				return true
			}
		}
		return false
	})
	kill(t, worker)
	// The sync adds the transactions (and the day's reported balance, a checkpoint).
	if n := entries(); n != linked {
		t.Fatalf("%d entries written by the killed worker", n-linked)
	}

	started := time.Now()
	launch(t, bin, env, "worker")
	waitFor(t, recoveryBound, "the sync finished by a new worker", func() bool {
		var state string
		_ = d.NewRaw("SELECT state FROM river_job WHERE kind = 'bank_sync' ORDER BY id LIMIT 1").Scan(ctx, &state)
		return state == "completed"
	})
	t.Logf("sync finished %s after the new worker started", time.Since(started).Round(time.Second))
	if n := entries(); n-linked != txns {
		t.Fatalf("%d entries from the sync after it was resumed, want exactly %d", n-linked, txns)
	}
	var status string
	var rescued int
	if err := d.NewRaw("SELECT status FROM bank_connections WHERE id = ?", conn.ID).Scan(ctx, &status); err != nil || status != "good" {
		t.Errorf("connection status %q (err %v), want good", status, err)
	}
	if err := d.NewRaw("SELECT count(*) FROM river_job WHERE kind = 'bank_sync' AND (metadata->>'tally:rescued')::int > 0").Scan(ctx, &rescued); err != nil || rescued != 1 {
		t.Errorf("%d syncs handed back by the rescuer (err %v), want 1", rescued, err)
	}
}
