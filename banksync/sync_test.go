package banksync_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"tally/banksync"
	"tally/banksync/fakesimplefin"
	"tally/imports"
	"tally/internal/db"
	"tally/internal/secrets"
	"tally/jobs"
	"tally/ledger"
	"tally/models"
	"tally/testkit"
)

func TestMain(m *testing.M) { os.Exit(testkit.Main(m)) }

// env is a family, a fake provider with a checking account and a card, and the service.
type env struct {
	t      *testing.T
	db     *db.DB
	fake   *fakesimplefin.Server
	svc    *banksync.Service
	family uuid.UUID
	now    time.Time
}

var day = 24 * time.Hour

func newEnv(t *testing.T) *env {
	t.Helper()
	d := testkit.MustOpenDB(t)
	keys, err := secrets.New(strings.Repeat("k", 64))
	if err != nil {
		t.Fatal(err)
	}
	fake := fakesimplefin.NewTest(t)
	now := time.Date(2026, 11, 20, 15, 0, 0, 0, time.UTC)
	fake.SetNow(now)
	fake.SetRangeLimit(60, fakesimplefin.RangeReject) // Tally's own rule, enforced
	fake.AddConnection(fakesimplefin.Connection{ID: "CON-1", Name: "First Bank", OrgID: "first", OrgName: "First Bank"})
	fake.AddAccount(fakesimplefin.Account{ID: "ACT-CHK", ConnID: "CON-1", Name: "Everyday Checking", Currency: "USD", Balance: "1000.00", BalanceDate: now})
	fake.AddAccount(fakesimplefin.Account{ID: "ACT-CC", ConnID: "CON-1", Name: "Rewards Visa", Currency: "USD", Balance: "-250.00", AvailableBalance: "4750.00", BalanceDate: now})
	u := testkit.MustCreateUser(t, d, testkit.UserOpts{})
	e := &env{t: t, db: d, fake: fake, family: u.FamilyID, now: now,
		svc: &banksync.Service{DB: d, Keys: keys, Log: slog.New(slog.NewTextHandler(io.Discard, nil)), Now: func() time.Time { return now },
			Client: &banksync.Client{AllowInsecure: true, HTTP: &http.Client{Timeout: 5 * time.Second},
				Sleep: func(context.Context, time.Duration) error { return nil }}}}
	return e
}

func (e *env) tx(acct, id string, daysAgo int, amount, desc string, pending bool) {
	t := fakesimplefin.Transaction{ID: id, Amount: amount, Description: desc, TransactedAt: e.now.Add(-time.Duration(daysAgo) * day), Pending: pending}
	if !pending {
		t.Posted = t.TransactedAt
	}
	e.fake.AddTransaction(acct, t)
}

// connect claims a token and links both accounts to new Tally accounts.
func (e *env) connect() *banksync.Connection {
	e.t.Helper()
	ctx := context.Background()
	c, err := e.svc.Connect(ctx, e.family, uuid.Nil, e.fake.NewSetupToken())
	if err != nil {
		e.t.Fatal(err)
	}
	var accts []banksync.BankAccount
	if err := e.db.NewSelect().Model(&accts).Where("connection_id = ?", c.ID).Order("provider_account_id").Scan(ctx); err != nil {
		e.t.Fatal(err)
	}
	var choices []banksync.Choice
	for _, a := range accts {
		typ, sub := banksync.Suggest(&a)
		choices = append(choices, banksync.Choice{BankAccountID: a.ID, Action: "new", Type: typ, Subtype: sub})
	}
	if err := e.svc.Link(ctx, e.family, c.ID, choices); err != nil {
		e.t.Fatal(err)
	}
	return c
}

func (e *env) sync(c *banksync.Connection) *banksync.Stats {
	e.t.Helper()
	st, err := e.svc.Sync(context.Background(), c.ID)
	if err != nil {
		e.t.Fatalf("sync: %v", err)
	}
	return st
}

func (e *env) strings(q string, args ...any) []string {
	e.t.Helper()
	var out []string
	if err := e.db.NewRaw(q, args...).Scan(context.Background(), &out); err != nil {
		e.t.Fatalf("%s: %v", q, err)
	}
	return out
}

func TestConnectClaimsOnceAndStoresTheAccessURLEncrypted(t *testing.T) {
	e := newEnv(t)
	token := e.fake.NewSetupToken()
	c, err := e.svc.Connect(context.Background(), e.family, uuid.Nil, "  "+token[:20]+"\n"+token[20:]+"\n")
	if err != nil {
		t.Fatal(err)
	}
	stored := e.strings("SELECT access_url FROM bank_connections WHERE id = ?", c.ID)
	if len(stored) != 1 || !secrets.IsEncrypted(stored[0]) || strings.Contains(stored[0], "@") {
		t.Fatalf("access URL stored as %q", stored)
	}
	if got := e.strings("SELECT name || ':' || balance FROM bank_accounts WHERE connection_id = ? ORDER BY name", c.ID); strings.Join(got, ",") != "Everyday Checking:1000.0000,Rewards Visa:-250.0000" {
		t.Fatalf("discovered accounts %v", got)
	}
	_, err = e.svc.Connect(context.Background(), e.family, uuid.Nil, token)
	if err == nil || !strings.Contains(err.Error(), "already used, has expired, or may be compromised") {
		t.Fatalf("second claim: %v", err)
	}
}

func TestFirstSyncWindowsAndSignsAndIdempotence(t *testing.T) {
	e := newEnv(t)
	e.tx("ACT-CHK", "T1", 80, "-12.50", "Coffee", false)
	e.tx("ACT-CHK", "T2", 30, "2500.00", "Payroll", false)
	e.tx("ACT-CC", "T3", 3, "-40.00", "Groceries", false)
	c := e.connect()
	st := e.sync(c)
	if st.Created != 3 {
		t.Fatalf("first sync %+v", st)
	}
	// 90 days of history in windows of at most 60 days; no pending parameter when not asked.
	var windows int
	for _, r := range e.fake.Requests() {
		if r.Path != "/simplefin/accounts" || r.Query.Get("start-date") == "" {
			continue
		}
		windows++
		if _, ok := r.Query["pending"]; ok {
			t.Fatal("pending was sent though the connection does not ask for it")
		}
	}
	if windows != 2 {
		t.Fatalf("%d windowed requests, want 2 for 90 days", windows)
	}
	got := e.strings(`SELECT a.name || ':' || a.balance || ':' || e.name || ':' || e.amount FROM entries e JOIN accounts a ON a.id = e.account_id
		WHERE e.source = 'simplefin' AND e.kind = 'transaction' ORDER BY e.date`)
	want := []string{"Everyday Checking:1000.0000:Coffee:12.5000", "Everyday Checking:1000.0000:Payroll:-2500.0000", "Rewards Visa:250.0000:Groceries:40.0000"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("entries %v", got)
	}
	// Each account's reported balance of the day stays as a checkpoint, set against the walk.
	got = e.strings(`SELECT a.name || ':' || e.amount || ':' || v.kind FROM entries e JOIN accounts a ON a.id = e.account_id
		JOIN valuations v ON v.entry_id = e.id WHERE e.source = 'simplefin' ORDER BY a.name`)
	if want := []string{"Everyday Checking:1000.0000:checkpoint", "Rewards Visa:250.0000:checkpoint"}; strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("balances recorded %v", got)
	}
	// Nothing changed at the provider: the next sync writes no row, in one request that
	// reaches back a week before the last sync.
	before := e.strings("SELECT xmin::text FROM entries ORDER BY id")
	calls := len(e.fake.Requests())
	if st := e.sync(c); st.Created != 0 || st.Updated != 0 || st.Requests != 1 {
		t.Fatalf("second sync %+v", st)
	}
	reqs := e.fake.Requests()[calls:]
	if len(reqs) != 1 || reqs[0].Query.Get("start-date") != fmt.Sprint(e.now.Add(-7*day).Unix()) ||
		reqs[0].Query.Get("end-date") != fmt.Sprint(e.now.Add(day).Unix()) {
		t.Fatalf("the second sync asked %+v", reqs)
	}
	if after := e.strings("SELECT xmin::text FROM entries ORDER BY id"); strings.Join(after, ",") != strings.Join(before, ",") {
		t.Fatal("a sync with no changes rewrote entries")
	}
}

func TestPendingPostsIntoTheSameEntry(t *testing.T) {
	e := newEnv(t)
	c := e.connect()
	_, err := e.db.NewRaw("UPDATE bank_connections SET include_pending = true WHERE id = ?", c.ID).Exec(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	e.tx("ACT-CHK", "P1", 2, "-30.00", "Hardware store", true)
	e.sync(c)
	if got := e.strings("SELECT pending::text FROM entries WHERE source = 'simplefin' AND kind = 'transaction'"); strings.Join(got, ",") != "true" {
		t.Fatalf("pending entry %v", got)
	}
	posted := e.fake.Post("P1", e.now)
	st := e.sync(c)
	got := e.strings("SELECT external_id || ':' || pending || ':' || date FROM entries WHERE source = 'simplefin' AND kind = 'transaction'")
	if len(got) != 1 || got[0] != posted+":false:"+e.now.Add(-2*day).Format("2006-01-02") || st.PendingPosted != 1 {
		t.Fatalf("after posting: %v %+v", got, st)
	}
}

func TestRotatedIDsAndDroppedPending(t *testing.T) {
	e := newEnv(t)
	c := e.connect()
	e.db.NewRaw("UPDATE bank_connections SET include_pending = true WHERE id = ?", c.ID).Exec(context.Background())
	e.tx("ACT-CHK", "R1", 5, "-8.00", "Lunch", false)
	e.tx("ACT-CHK", "P9", 1, "-3.00", "Parking", true)
	e.sync(c)
	e.fake.RotateID("R1")
	e.fake.DeleteTransaction("P9")
	st := e.sync(c)
	if got := e.strings("SELECT name FROM entries WHERE source = 'simplefin' AND kind = 'transaction' ORDER BY name"); strings.Join(got, ",") != "Lunch" || st.Removed != 1 {
		t.Fatalf("after a rotation and a dropped pending: %v %+v", got, st)
	}
}

// TestProviderTextPastItsBoundsIsCut is a provider sending ids and texts longer than Tally
// stores: they are cut and the sync works, an id cut stays apart from another with the same
// beginning, and the next sync finds each again.
func TestProviderTextPastItsBoundsIsCut(t *testing.T) {
	e := newEnv(t)
	long := strings.Repeat("T", 5000)
	e.tx("ACT-CHK", long+"1", 2, "-5.00", strings.Repeat("d", 5000), false)
	e.tx("ACT-CHK", long+"2", 1, "-6.00", strings.Repeat("é", 5000), false)
	c := e.connect()
	if st := e.sync(c); st.Created != 2 {
		t.Fatalf("the first sync: %+v", st)
	}
	if st := e.sync(c); st.Created != 0 || st.Updated != 0 {
		t.Fatalf("the next sync wrote again: %+v", st)
	}
	got := e.strings(`SELECT count(DISTINCT external_id) || ':' || max(length(external_id)) || ':' || max(length(name)) FROM entries
		WHERE source = 'simplefin' AND kind = 'transaction'`)
	if got[0] != "2:255:255" {
		t.Fatalf("ids, their longest and the longest name: %v", got)
	}
}

// TestAWriteThatFailsShowsOnTheConnection is a sync whose writes the database refuses: the
// connection says it is failing and why, and the next sync that works makes it good again.
func TestAWriteThatFailsShowsOnTheConnection(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	e.tx("ACT-CHK", "T1", 1, "-4.00", "Poison", false)
	c := e.connect()
	if _, err := e.db.NewRaw(`CREATE FUNCTION refuse_poison() RETURNS trigger LANGUAGE plpgsql AS $$
		BEGIN IF NEW.name = 'Poison' THEN RAISE EXCEPTION 'refused'; END IF; RETURN NEW; END $$;
		CREATE TRIGGER refuse_poison BEFORE INSERT ON entries FOR EACH ROW EXECUTE FUNCTION refuse_poison()`).Exec(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := e.svc.Sync(ctx, c.ID); err == nil {
		t.Fatal("the sync succeeded")
	}
	if got := e.strings("SELECT status || ':' || coalesce(last_error, '-') || ':' || (last_attempt_at IS NOT NULL) FROM bank_connections"); !strings.HasPrefix(got[0], "failing:The sync could not save") ||
		!strings.HasSuffix(got[0], ":true") {
		t.Fatalf("after a refused write: %v", got)
	}
	if _, err := e.db.NewRaw("DROP TRIGGER refuse_poison ON entries").Exec(ctx); err != nil {
		t.Fatal(err)
	}
	if st := e.sync(c); st.Created != 1 {
		t.Fatalf("the next sync: %+v", st)
	}
	if got := e.strings("SELECT status || ':' || coalesce(last_error, '-') FROM bank_connections"); got[0] != "good:-" {
		t.Fatalf("after a sync that worked: %v", got)
	}
}

func TestProviderFailures(t *testing.T) {
	t.Run("403 needs a new token", func(t *testing.T) {
		e := newEnv(t)
		c := e.connect()
		e.fake.RevokeAccess(c.AccessURL)
		if _, err := e.svc.Sync(context.Background(), c.ID); err == nil {
			t.Fatal("a revoked connection synced")
		}
		calls := len(e.fake.Requests())
		if got := e.strings("SELECT status FROM bank_connections WHERE id = ?", c.ID); got[0] != banksync.StatusNeedsToken {
			t.Fatalf("status %v", got)
		}
		if st := e.sync(c); st.Requests != 0 || len(e.fake.Requests()) != calls {
			t.Fatal("a connection needing a token called the provider again")
		}
	})
	t.Run("429 pauses until tomorrow without retrying", func(t *testing.T) {
		e := newEnv(t)
		c := e.connect()
		e.fake.Inject(fakesimplefin.Fault{Endpoint: fakesimplefin.Accounts, Status: http.StatusTooManyRequests, Times: 1})
		calls := len(e.fake.Requests())
		if _, err := e.svc.Sync(context.Background(), c.ID); err == nil {
			t.Fatal("a rate-limited sync succeeded")
		}
		if len(e.fake.Requests()) != calls+1 {
			t.Fatalf("%d requests after a 429", len(e.fake.Requests())-calls)
		}
		if got := e.strings("SELECT paused_until::date::text FROM bank_connections WHERE id = ?", c.ID); got[0] != "2026-11-21" {
			t.Fatalf("paused until %v", got)
		}
	})
	t.Run("402 asks for payment without retrying", func(t *testing.T) {
		e := newEnv(t)
		c := e.connect()
		e.fake.Inject(fakesimplefin.Fault{Endpoint: fakesimplefin.Accounts, Status: http.StatusPaymentRequired, Times: 1})
		calls := len(e.fake.Requests())
		if _, err := e.svc.Sync(context.Background(), c.ID); !errors.Is(err, banksync.ErrPaymentRequired) {
			t.Fatalf("a 402 gave %v", err)
		}
		if len(e.fake.Requests()) != calls+1 {
			t.Fatalf("%d requests after a 402", len(e.fake.Requests())-calls)
		}
		if got := e.strings("SELECT status || ':' || last_error FROM bank_connections"); got[0] != "failing:"+banksync.MsgPaymentRequired {
			t.Fatalf("connection %v", got)
		}
	})
	for _, f := range []struct {
		name  string
		fault fakesimplefin.Fault
	}{
		{"connection resets", fakesimplefin.Fault{Reset: true}},
		{"timeouts", fakesimplefin.Fault{Delay: 10 * time.Second}},
	} {
		t.Run(f.name+" are retried three times, then recorded", func(t *testing.T) {
			e := newEnv(t)
			e.tx("ACT-CHK", "T1", 1, "-1.00", "Gum", false)
			c := e.connect()
			e.svc.Client.HTTP = &http.Client{Timeout: 300 * time.Millisecond, Transport: &http.Transport{DisableKeepAlives: true}}
			f.fault.Endpoint = fakesimplefin.Accounts
			e.fake.Inject(f.fault) // every request, until cleared
			calls := len(e.fake.Requests())
			if _, err := e.svc.Sync(context.Background(), c.ID); err == nil {
				t.Fatal("the sync succeeded against a dead provider")
			}
			if n := len(e.fake.Requests()) - calls; n != 3 {
				t.Fatalf("%d attempts, want 3", n)
			}
			got := e.strings("SELECT status || ':' || last_error || ':' || (SELECT count(*) FROM entries WHERE source = 'simplefin' AND kind = 'transaction') FROM bank_connections")
			if !strings.HasPrefix(got[0], "failing:The provider could not be reached") || !strings.HasSuffix(got[0], ":0") || strings.Contains(got[0], c.AccessURL) {
				t.Fatalf("after the failures: %v", got)
			}
			e.fake.ClearFaults()
			if st := e.sync(c); st.Created != 1 {
				t.Fatalf("the next sync: %+v", st)
			}
			if got := e.strings("SELECT status || ':' || coalesce(last_error, '-') FROM bank_connections"); got[0] != "good:-" {
				t.Fatalf("after a sync that worked: %v", got)
			}
		})
	}
	t.Run("an account the provider stops reporting is flagged", func(t *testing.T) {
		e := newEnv(t)
		e.tx("ACT-CC", "T1", 1, "-9.00", "Cinema", false)
		c := e.connect()
		e.sync(c)
		e.fake.AccountError("ACT-CC", "Try later") // an error: not flagged as gone
		e.sync(c)
		if got := e.strings("SELECT coalesce(error, '-') FROM bank_accounts WHERE provider_account_id = 'ACT-CC'"); got[0] != "Try later" {
			t.Fatalf("with an error entry: %v", got)
		}
		e.fake.ClearAccountError("ACT-CC")
		e.fake.RotateAccountID("ACT-CC") // the bank re-issues the card
		e.sync(c)
		got := e.strings("SELECT provider_account_id || ':' || coalesce(error, '-') || ':' || (account_id IS NOT NULL) FROM bank_accounts ORDER BY account_id IS NULL, provider_account_id")
		want := []string{"ACT-CC:" + banksync.MsgAccountGone + ":true", "ACT-CHK:-:true"}
		if len(got) != 3 || got[0] != want[0] || got[1] != want[1] || !strings.HasSuffix(got[2], ":-:false") {
			t.Fatalf("after the card's id changed: %v", got)
		}
		if n := e.strings("SELECT count(*)::text FROM entries WHERE source = 'simplefin' AND kind = 'transaction'"); n[0] != "1" {
			t.Fatalf("entries %v", n)
		}
	})
	t.Run("5xx is retried", func(t *testing.T) {
		e := newEnv(t)
		e.tx("ACT-CHK", "T1", 1, "-1.00", "Gum", false)
		c := e.connect()
		e.fake.Inject(fakesimplefin.Fault{Endpoint: fakesimplefin.Accounts, Status: http.StatusBadGateway, Times: 2})
		if st := e.sync(c); st.Created != 1 {
			t.Fatalf("after two 502s: %+v", st)
		}
	})
	t.Run("malformed JSON writes nothing", func(t *testing.T) {
		e := newEnv(t)
		e.tx("ACT-CHK", "T1", 70, "-1.00", "Old", false)
		e.tx("ACT-CHK", "T2", 1, "-2.00", "New", false)
		c := e.connect()
		// The second window's answer is cut: the first window's data is not written either.
		e.fake.Inject(fakesimplefin.Fault{Endpoint: fakesimplefin.Accounts, Times: 1})
		e.fake.Inject(fakesimplefin.Fault{Endpoint: fakesimplefin.Accounts, Body: `{"accounts": [`, Times: 3})
		if _, err := e.svc.Sync(context.Background(), c.ID); err == nil {
			t.Fatal("a sync with a malformed answer succeeded")
		}
		if n := e.strings("SELECT id::text FROM entries WHERE source = 'simplefin' AND kind = 'transaction'"); len(n) != 0 {
			t.Fatalf("%d entries written by a failed sync", len(n))
		}
	})
	t.Run("an account's error leaves the others syncing", func(t *testing.T) {
		e := newEnv(t)
		e.tx("ACT-CHK", "T1", 1, "-1.00", "Gum", false)
		c := e.connect()
		e.fake.AccountError("ACT-CC", "Connection to Card Co may need attention")
		st := e.sync(c)
		if st.Created != 1 || st.Errors == 0 {
			t.Fatalf("%+v", st)
		}
		if got := e.strings("SELECT coalesce(error, '') FROM bank_accounts WHERE provider_account_id = 'ACT-CC'"); !strings.Contains(got[0], "may need attention") {
			t.Fatalf("card error %v", got)
		}
		if got := e.strings("SELECT status FROM bank_connections WHERE id = ?", c.ID); got[0] != banksync.StatusGood {
			t.Fatalf("status %v", got)
		}
	})
}

func TestInvestmentHoldings(t *testing.T) {
	e := newEnv(t)
	vti := fakesimplefin.Holding{ID: "HOL-1", Currency: "USD", Symbol: "VTI", Description: "VANGUARD TOTAL STOCK MARKET ETF",
		Shares: "40", CostBasis: "9600.00", MarketValue: "11800.00"}
	fund := fakesimplefin.Holding{ID: "HOL-2", Description: "Target  Retirement 2050 Fund", Shares: "100", MarketValue: "2500.00"}
	e.fake.AddAccount(fakesimplefin.Account{ID: "ACT-INV", ConnID: "CON-1", Name: "Brokerage", Currency: "USD", Balance: "15534.50",
		AvailableBalance: "1234.50", BalanceDate: e.now, Holdings: []fakesimplefin.Holding{vti, fund}})
	c := e.connect()
	e.sync(c)
	holdings := func() string {
		return strings.Join(e.strings(`SELECT s.ticker || ':' || h.qty::float8 || ':' || h.price::float8 || ':' || h.amount::float8 || ':' ||
			h.currency || ':' || coalesce(h.cost_basis::float8::text, '-') || ':' || h.date
			FROM holdings h JOIN securities s ON s.id = h.security_id JOIN accounts a ON a.id = h.account_id
			WHERE a.accountable_type = 'Investment' ORDER BY s.ticker, h.date`), "|")
	}
	want := "TARGET RETIREMENT 2050 FUND:100:25:2500:USD:-:2026-11-20|VTI:40:295:11800:USD:9600:2026-11-20"
	if got := holdings(); got != want {
		t.Fatalf("holdings\n got %s\nwant %s", got, want)
	}
	before := e.strings("SELECT xmin::text FROM holdings ORDER BY id")
	if st := e.sync(c); st.Created != 0 || st.Updated != 0 || st.Removed != 0 {
		t.Fatalf("a sync with the same positions wrote %+v", st)
	}
	if after := e.strings("SELECT xmin::text FROM holdings ORDER BY id"); strings.Join(after, ",") != strings.Join(before, ",") {
		t.Fatal("a sync with the same positions rewrote holdings")
	}
	// The fund is sold the same day and VTI moves: today's snapshot follows.
	vti.MarketValue = "12000.00"
	e.fake.SetHoldings("ACT-INV", []fakesimplefin.Holding{vti})
	if st := e.sync(c); st.Updated != 1 || st.Removed != 1 {
		t.Fatalf("after a sale %+v", st)
	}
	if got := holdings(); got != "VTI:40:300:12000:USD:9600:2026-11-20" {
		t.Fatalf("after a sale: %s", got)
	}
}

// crashAfter ends a sync's database session right after its first write of entries, as a
// worker killed half way through would leave it: PostgreSQL rolls the transaction back.
// (Cancelling the sync's context there instead raced inside pgx, which then wrote its
// goodbye to the server from two goroutines at once and panicked.)
type crashAfter struct {
	armed atomic.Bool
	db    *db.DB
	err   error
}

func (h *crashAfter) BeforeQuery(ctx context.Context, _ *bun.QueryEvent) context.Context { return ctx }

func (h *crashAfter) AfterQuery(_ context.Context, ev *bun.QueryEvent) {
	if strings.HasPrefix(strings.TrimSpace(ev.Query), "INSERT INTO entries") && h.armed.CompareAndSwap(true, false) {
		// The sync's session is the one idle in its transaction between two statements.
		var killed []bool
		h.err = h.db.NewRaw(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity
			WHERE datname = current_database() AND state = 'idle in transaction' AND pid <> pg_backend_pid()`).Scan(context.Background(), &killed)
		if h.err == nil && len(killed) != 1 {
			h.err = fmt.Errorf("%d sessions were idle in a transaction, want the sync's alone", len(killed))
		}
	}
}

func TestACrashMidSyncWritesNothingAndTheNextSyncCompletes(t *testing.T) {
	e := newEnv(t)
	c := e.connect()
	e.tx("ACT-CHK", "C1", 3, "-12.00", "Cinema", false)
	e.tx("ACT-CC", "C2", 2, "-40.00", "Groceries", false)
	e.fake.SetBalance("ACT-CHK", "900.00", "")
	hook := &crashAfter{db: e.db}
	hook.armed.Store(true)
	e.db.AddQueryHook(hook)

	if _, err := e.svc.Sync(context.Background(), c.ID); err == nil {
		t.Fatal("the interrupted sync returned no error")
	}
	if hook.armed.Load() {
		t.Fatal("the sync never wrote entries: the crash was not where it should be")
	}
	if hook.err != nil {
		t.Fatal(hook.err)
	}
	if got := e.strings(`SELECT count(*)::text || ':' || coalesce(max(last_synced_at)::text, 'never') FROM entries, bank_connections
		WHERE entries.source = 'simplefin'`); got[0] != "0:never" {
		t.Fatalf("an interrupted sync left %v", got)
	}
	if got := e.strings("SELECT balance::text FROM accounts WHERE name = 'Everyday Checking'"); got[0] == "900.0000" {
		t.Fatal("an interrupted sync moved a balance")
	}

	st := e.sync(c)
	if got := e.strings("SELECT name FROM entries WHERE source = 'simplefin' AND kind = 'transaction' ORDER BY name"); strings.Join(got, ",") != "Cinema,Groceries" || st.Created != 2 {
		t.Fatalf("the next sync wrote %v %+v", got, st)
	}
	if got := e.strings("SELECT balance::text FROM accounts WHERE name = 'Everyday Checking'"); got[0] != "900.0000" {
		t.Fatalf("balance after the next sync %v", got)
	}
}

// A day of the scheduled sync and a user pressing "Sync now" again and again stays within
// the provider's 24 requests, and the page's message says why syncing stopped.
func TestADayOfSyncsStaysWithinTheRequestBudget(t *testing.T) {
	e := newEnv(t)
	c := e.connect()
	e.tx("ACT-CHK", "B1", 1, "-5.00", "Bakery", false)
	e.fake.SetQuota(0, 0) // the budget is Tally's, not the fake's
	start := len(e.fake.Requests())
	var err error
	for range 40 {
		_, err = e.svc.Sync(context.Background(), c.ID)
	}
	if !errors.Is(err, banksync.ErrOverBudget) {
		t.Fatalf("the 40th sync of the day: %v", err)
	}
	if n := len(e.fake.Requests()) - start; n > banksync.DailyRequestBudget {
		t.Fatalf("%d requests in a day, the budget is %d", n, banksync.DailyRequestBudget)
	}
	if got := e.strings("SELECT last_error || ':' || requests_today FROM bank_connections"); got[0] != banksync.MsgOverBudget+":24" {
		t.Fatalf("connection %v", got)
	}
	// The next day the budget is whole again.
	e.now = e.now.Add(day)
	e.svc.Now = func() time.Time { return e.now }
	if _, err := e.svc.Sync(context.Background(), c.ID); err != nil {
		t.Fatalf("the next day: %v", err)
	}
}

// GET /info decides the shape: a v1-only provider is asked without version=2 and its answers
// (v1 errors included) are read the same way.
func TestProtocolVersionFromInfo(t *testing.T) {
	for _, v := range []struct {
		versions []string
		want     string
	}{{[]string{"1.0"}, ""}, {[]string{"1.0", "2.0"}, "2"}} {
		t.Run(strings.Join(v.versions, ","), func(t *testing.T) {
			e := newEnv(t)
			e.fake.SetVersions(v.versions...)
			e.tx("ACT-CHK", "T1", 2, "-7.00", "Bakery", false)
			e.tx("ACT-CC", "T2", 2, "-9.00", "Cinema", false)
			c := e.connect()
			e.fake.AccountError("ACT-CC", "Connection to First Bank may need attention")
			if st := e.sync(c); st.Created != 1 || st.Errors != 1 {
				t.Fatalf("sync %+v", st)
			}
			for _, r := range e.fake.Requests() {
				if r.Path == "/simplefin/accounts" && r.Query.Get("version") != v.want {
					t.Fatalf("asked version %q of a provider offering %v", r.Query.Get("version"), v.versions)
				}
			}
			if got := e.strings("SELECT coalesce(error, '-') FROM bank_accounts ORDER BY provider_account_id"); strings.Join(got, "|") != "Connection to First Bank may need attention|-" {
				t.Fatalf("account errors %v", got)
			}
		})
	}
}

// A disconnect while a sync reads the provider: the sync writes nothing into the accounts,
// which are manual now.
func TestDisconnectDuringASync(t *testing.T) {
	e := newEnv(t)
	c := e.connect()
	e.tx("ACT-CHK", "D1", 1, "-3.00", "Tea", false)
	e.fake.Inject(fakesimplefin.Fault{Endpoint: fakesimplefin.Accounts, Delay: 500 * time.Millisecond, Times: 1})
	before := len(e.fake.Requests())
	done := make(chan error, 1)
	go func() {
		_, err := e.svc.Sync(context.Background(), c.ID)
		done <- err
	}()
	// Wait until the sync is waiting on the provider.
	for len(e.fake.Requests()) == before {
		time.Sleep(5 * time.Millisecond)
	}
	if err := e.svc.Delete(context.Background(), e.family, c.ID); err != nil {
		t.Fatalf("disconnect: %v", err)
	}
	if err := <-done; !errors.Is(err, banksync.ErrConnectionGone) {
		t.Fatalf("the sync of a disconnected connection: %v", err)
	}
	if got := e.strings("SELECT count(*)::text FROM entries WHERE source = 'simplefin' AND kind = 'transaction'"); got[0] != "0" {
		t.Fatalf("entries written after the disconnect: %v", got)
	}
	if got := e.strings("SELECT count(*)::text FROM accounts WHERE source IS NOT NULL"); got[0] != "0" {
		t.Fatalf("accounts still the provider's: %v", got)
	}
}

// TestRulesRunOnSync checks that the family's rules run over what the bank sends: a
// transaction is renamed and categorised, and the next sync of the same transactions, which
// still carry the bank's name, changes nothing.
func TestRulesRunOnSync(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	shopping := uuid.Must(uuid.NewV7())
	if _, err := e.db.NewRaw("INSERT INTO categories (id, family_id, name) VALUES (?, ?, 'Shopping')", shopping, e.family).Exec(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := e.db.NewRaw(`INSERT INTO rules (id, family_id, name, active, conditions, actions) VALUES (?, ?, 'Amazon', true, ?, ?)`,
		uuid.Must(uuid.NewV7()), e.family, `[{"condition_type":"transaction_name","operator":"like","value":"amzn mktp"}]`,
		`[{"action_type":"set_transaction_name","value":"Amazon"},{"action_type":"set_transaction_category","value":"`+shopping.String()+`"}]`).Exec(ctx); err != nil {
		t.Fatal(err)
	}
	e.tx("ACT-CHK", "T-1", 2, "-23.99", "AMZN MKTP US*2K4", false)
	e.tx("ACT-CHK", "T-2", 3, "-5.00", "Kiosk", false)
	c := e.connect()
	listing := func() []string {
		return e.strings(`SELECT e.name || ' | ' || coalesce(e.original_name, '-') || ' | ' || coalesce(c.name, '-') FROM entries e
			LEFT JOIN categories c ON c.id = e.category_id WHERE e.family_id = ? AND e.kind = 'transaction' ORDER BY e.name`, e.family)
	}
	if st := e.sync(c); st.Created != 2 {
		t.Fatalf("first sync: %+v", st)
	}
	want := []string{"Amazon | AMZN MKTP US*2K4 | Shopping", "Kiosk | - | -"}
	if got := listing(); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("after the first sync:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if st := e.sync(c); st.Created != 0 || st.Updated != 0 {
		t.Errorf("the second sync of the same transactions wrote %+v", st)
	}
	if got := listing(); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("after the second sync:\n%s", strings.Join(got, "\n"))
	}
}

// TestSyncAppliesTheBanksCorrectedName has the bank correct the descriptions of two synced
// transactions under their ids: the one nobody renamed takes the bank's new name, and the one
// a person renamed keeps its name and notes, with the bank's new text beside them; the sync
// after that changes nothing.
func TestSyncAppliesTheBanksCorrectedName(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	e.tx("ACT-CHK", "T-1", 2, "-23.10", "UBER *TRIP", false)
	e.tx("ACT-CHK", "T-2", 2, "-8.00", "LYFT *RIDE", false)
	c := e.connect()
	e.sync(c)
	listing := func() string {
		return strings.Join(e.strings(`SELECT e.external_id || ' ' || e.name || ' | ' || coalesce(e.original_name, '-') || ' | ' || e.notes
			FROM entries e WHERE e.family_id = ? AND e.kind = 'transaction' ORDER BY e.external_id`, e.family), "\n")
	}
	id := uuid.MustParse(e.strings("SELECT id::text FROM entries WHERE external_id = 'T-1'")[0])
	if _, err := ledger.Update(ctx, e.db, models.FamilyViewer(e.family), id, ledger.Patch{Name: new("Uber to the airport"), Notes: new("Trip to Berlin")}); err != nil {
		t.Fatal(err)
	}
	e.fake.Describe("T-1", "UBER TRIP HELP.UBER.COM")
	e.fake.Describe("T-2", "LYFT RIDE SAN FRANCISCO")
	if st := e.sync(c); st.Updated != 2 {
		t.Errorf("the corrections updated %d transactions, want 2", st.Updated)
	}
	want := "T-1 Uber to the airport | UBER TRIP HELP.UBER.COM | Trip to Berlin\nT-2 LYFT RIDE SAN FRANCISCO | - | "
	if got := listing(); got != want {
		t.Errorf("after the corrections:\n%s\nwant\n%s", got, want)
	}
	if st := e.sync(c); st.Updated != 0 {
		t.Errorf("the sync after the corrections updated %d transactions", st.Updated)
	}
}

// TestTransferAcrossImportAndSync pairs the two sides of transfers that come from different
// sources: money out of the synced checking account that lands in a savings account whose
// statements are imported as CSV (the import matches it), and money the other way, imported
// first and synced after (the sync matches it).
func TestTransferAcrossImportAndSync(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	svc, _, err := jobs.NewImports(e.db, testkit.DiscardLogger(), imports.DefaultLimits, jobs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	savings := testkit.MustCreateAccount(t, e.db, e.family, "Savings", "Depository", "").ID.String()
	user := e.strings("SELECT id::text FROM users WHERE family_id = ?", e.family)[0]
	publish := func(csv string) uuid.UUID {
		t.Helper()
		df := "%Y-%m-%d"
		det, err := svc.Create(ctx, imports.Request{FamilyID: e.family, UserID: uuid.MustParse(user), DateFormat: &df, Publish: true,
			AccountID: &savings, Upload: imports.Upload{Content: []byte(csv), Present: true}})
		if err != nil {
			t.Fatal(err)
		}
		if err := svc.RunPublish(ctx, det.ID); err != nil {
			t.Fatal(err)
		}
		return det.ID
	}
	pairs := func() []string {
		return e.strings(`SELECT o.name || ' → ' || i.name || ' | ' || o.transaction_kind || ' / ' || i.transaction_kind || ' | ' || t.status
			FROM transfers t JOIN entries o ON o.id = t.outflow_entry_id JOIN entries i ON i.id = t.inflow_entry_id
			WHERE t.family_id = ? ORDER BY o.date`, e.family)
	}

	e.tx("ACT-CHK", "T-1", 3, "-300.00", "ONLINE TRANSFER TO SAVINGS", false)
	e.tx("ACT-CHK", "T-2", 3, "-300.00", "RENT SPLIT TO ROOMMATE", false) // same amount, another day's counterpart
	c := e.connect()
	e.sync(c)
	if got := pairs(); len(got) != 0 {
		t.Fatalf("a transfer before its other side arrived: %q", got)
	}
	imported := publish("date,amount,name\n2026-11-18,300.00,FROM CHECKING\n2026-11-19,-45.50,TO CHECKING\n")
	want := []string{"ONLINE TRANSFER TO SAVINGS → FROM CHECKING | funds_movement / funds_movement | pending"}
	if got := pairs(); len(got) != 1 || !(got[0] == want[0] || got[0] == strings.Replace(want[0], "ONLINE TRANSFER TO SAVINGS", "RENT SPLIT TO ROOMMATE", 1)) {
		t.Fatalf("after the import: %q, want one of the 300.00 outflows paired with FROM CHECKING", got)
	}

	e.tx("ACT-CHK", "T-3", 0, "45.50", "TRANSFER FROM SAVINGS", false)
	e.sync(c)
	if got := pairs(); len(got) != 2 || got[1] != "TO CHECKING → TRANSFER FROM SAVINGS | funds_movement / funds_movement | pending" {
		t.Fatalf("after the second sync: %q", got)
	}
	// A third sync of the same transactions leaves the pairs as they are.
	e.sync(c)
	if got := pairs(); len(got) != 2 {
		t.Errorf("after the third sync: %q", got)
	}

	// Reverting the import takes its transfers apart: the bank's sides count as before.
	if err := svc.Revert(ctx, e.family, imported); err != nil {
		t.Fatal(err)
	}
	if err := svc.RunRevert(ctx, imported); err != nil {
		t.Fatal(err)
	}
	if got := pairs(); len(got) != 0 {
		t.Errorf("after the revert: %q", got)
	}
	if got := e.strings(`SELECT DISTINCT transaction_kind FROM entries WHERE family_id = ? AND kind = 'transaction'`, e.family); strings.Join(got, ",") != "standard" {
		t.Errorf("kinds after the revert: %q", got)
	}
}

// recorder is a Notifier that keeps the events it hears.
type recorder struct{ events []recordedEvent }

type recordedEvent struct {
	Type string
	Data any
}

func (r *recorder) Emit(_ context.Context, _ db.Tx, _ uuid.UUID, eventType string, data any) error {
	r.events = append(r.events, recordedEvent{eventType, data})
	return nil
}

// TestASyncThatMakesABalanceDifferSaysSo is a bank that reports a higher balance the next day
// without sending the transaction that explains it: the earlier day's reported balance, walked
// back from the new one, now differs, and one balance.differs event says so, once.
func TestASyncThatMakesABalanceDifferSaysSo(t *testing.T) {
	e := newEnv(t)
	clock := e.now
	e.svc.Now = func() time.Time { return clock }
	rec := &recorder{}
	e.svc.Events = rec
	c := e.connect()
	differences := func() []models.DifferenceEvent {
		var out []models.DifferenceEvent
		for _, ev := range rec.events {
			if ev.Type == models.EventBalanceDiffers {
				out = append(out, ev.Data.(models.DifferenceEvent))
			}
		}
		return out
	}
	e.sync(c)
	if d := differences(); len(d) != 0 {
		t.Fatalf("differences after the first sync: %+v", d)
	}
	clock = clock.Add(24 * time.Hour)
	e.fake.SetNow(clock)
	e.fake.SetBalance("ACT-CHK", "1100.00", "")
	e.sync(c)
	d := differences()
	if len(d) != 1 || len(d[0].Checkpoints) != 1 {
		t.Fatalf("differences after the second sync: %+v", d)
	}
	if cp := d[0].Checkpoints[0]; cp.Date != "2026-11-20" || cp.BankBalance.String() != "1000" || cp.TallyBalance.String() != "1100" ||
		cp.Difference.String() != "-100" || cp.Source != banksync.Source || d[0].ImportID != nil {
		t.Errorf("the checkpoint %+v", cp)
	}
	e.sync(c)
	if n := len(differences()); n != 1 {
		t.Errorf("%d difference events after a third sync that changed nothing, want the one", n)
	}
}

// TestSyncGivesTransactionsTheirMerchants has the bank send card payments, a subscription
// and a transfer: each payment gets the merchant its text names, a merchant the family has is
// found by its name, a text a person gave a merchant by hand gets that one, and a transfer
// gets none. The next sync finds the merchants it made and makes no more, and a merchant a
// person set on a synced transaction stays.
func TestSyncGivesTransactionsTheirMerchants(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	netflix := uuid.Must(uuid.NewV7())
	if _, err := e.db.NewRaw("INSERT INTO merchants (id, family_id, name) VALUES (?, ?, 'Netflix')", netflix, e.family).Exec(ctx); err != nil {
		t.Fatal(err)
	}
	e.tx("ACT-CC", "T-1", 5, "-4.50", "SQ *BLUE BOTTLE COFFEE", false)
	e.tx("ACT-CC", "T-2", 4, "-5.25", "SQ *BLUE BOTTLE COFFEE", false)
	e.tx("ACT-CC", "T-3", 3, "-15.49", "NETFLIX.COM LOS GATOS CA", false)
	e.tx("ACT-CHK", "T-4", 3, "-200.00", "Transfer 123", false)
	c := e.connect()
	e.sync(c)
	listing := func() string {
		return strings.Join(e.strings(`SELECT e.external_id || ' ' || coalesce(m.name, '-') FROM entries e LEFT JOIN merchants m ON m.id = e.merchant_id
			WHERE e.family_id = ? AND e.kind = 'transaction' ORDER BY e.external_id`, e.family), "\n")
	}
	if got, want := listing(), "T-1 Blue Bottle Coffee\nT-2 Blue Bottle Coffee\nT-3 Netflix\nT-4 -"; got != want {
		t.Fatalf("after the first sync:\n%s\nwant\n%s", got, want)
	}
	// A person files one coffee under the café's own merchant, by hand.
	cafe := uuid.Must(uuid.NewV7())
	if _, err := e.db.NewRaw("INSERT INTO merchants (id, family_id, name) VALUES (?, ?, 'The corner café')", cafe, e.family).Exec(ctx); err != nil {
		t.Fatal(err)
	}
	id := uuid.MustParse(e.strings("SELECT id::text FROM entries WHERE external_id = 'T-2'")[0])
	if _, err := ledger.Update(ctx, e.db, models.FamilyViewer(e.family), id, ledger.Patch{Merchant: &ledger.Ref{ID: &cafe}}); err != nil {
		t.Fatal(err)
	}
	e.tx("ACT-CC", "T-5", 1, "-4.75", "SQ *BLUE BOTTLE COFFEE", false)
	e.tx("ACT-CC", "T-6", 1, "-15.49", "NETFLIX.COM LOS GATOS CA", false)
	e.sync(c)
	if got, want := listing(), "T-1 Blue Bottle Coffee\nT-2 The corner café\nT-3 Netflix\nT-4 -\nT-5 The corner café\nT-6 Netflix"; got != want {
		t.Errorf("after the second sync:\n%s\nwant\n%s", got, want)
	}
	if n := e.strings("SELECT count(*)::text FROM merchants WHERE family_id = ?", e.family); n[0] != "3" {
		t.Errorf("%s merchants, want the 2 the family had and the 1 the first sync made", n[0])
	}
}
