package banksync_test

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"tally/banksync"
	"tally/banksync/fakeenablebanking"
	"tally/config"
	"tally/internal/apperr"
	"tally/internal/db"
	"tally/internal/mail"
	"tally/internal/secrets"
	"tally/models"
	"tally/testkit"
)

// ebEnv is a family, a fake Enable Banking with a German bank (two accounts) and a decoupled
// one, and the service pointed at it.
type ebEnv struct {
	t      *testing.T
	db     *db.DB
	fake   *fakeenablebanking.Server
	svc    *banksync.Service
	family uuid.UUID
	user   uuid.UUID
	now    time.Time
	outbox *outbox
}

// outbox keeps the mail the service sends.
type outbox struct{ messages []mail.Message }

func (o *outbox) Send(_ context.Context, m mail.Message) error {
	o.messages = append(o.messages, m)
	return nil
}

func ebDay(t time.Time, daysAgo int) string { return t.AddDate(0, 0, -daysAgo).Format(time.DateOnly) }

func newEBEnv(t *testing.T) *ebEnv {
	t.Helper()
	d := testkit.MustOpenDB(t)
	keys, err := secrets.New(strings.Repeat("k", 64))
	if err != nil {
		t.Fatal(err)
	}
	fake := fakeenablebanking.NewTest(t)
	fake.SetPageSize(2)
	fake.AddASPSP(fakeenablebanking.ASPSP{Name: "Testbank", Country: "DE"})
	fake.AddASPSP(fakeenablebanking.ASPSP{Name: "App Bank", Country: "DE", Decoupled: true})
	now := time.Now().UTC().Truncate(time.Second)
	e := &ebEnv{t: t, db: d, fake: fake, now: now, outbox: &outbox{}}
	u := testkit.MustCreateUser(t, d, testkit.UserOpts{})
	e.family, e.user = u.FamilyID, u.ID
	client := &banksync.Client{AllowInsecure: true, HTTP: &http.Client{Timeout: 5 * time.Second}, Sleep: func(context.Context, time.Duration) error { return nil }}
	e.svc = &banksync.Service{DB: d, Keys: keys, Log: slog.New(slog.NewTextHandler(io.Discard, nil)), Now: func() time.Time { return e.now },
		Client: client, AppURL: "http://tally.test", Mailer: e.outbox,
		EB: &banksync.EBClient{BaseURL: fake.URL, AppID: fake.AppID, Key: testKey(t, fake), Transport: client}}
	return e
}

// testKey is the fake's application key, as Tally reads it from its configuration.
func testKey(t *testing.T, fake *fakeenablebanking.Server) *rsa.PrivateKey {
	t.Helper()
	env := map[string]string{"ENABLE_BANKING_APP_ID": fake.AppID, "ENABLE_BANKING_PRIVATE_KEY": fake.PrivateKeyPEM(),
		"EXCHANGE_RATES_URL": "none"}
	cfg, err := config.Load(func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	return cfg.EnableBankingKey.Key
}

// fieldErrors are an error's per-field problems.
func fieldErrors(err error) map[string][]string {
	if e := apperr.As(err); e != nil {
		return e.Fields
	}
	return nil
}

// approve plays the person at the bank: open the authorisation URL, approve (or, at a
// decoupled bank, approve in its app), and return where the bank sends the browser back.
func (e *ebEnv) approve(authURL string, decoupled bool) url.Values {
	e.t.Helper()
	browser := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := browser.Get(authURL)
	if err != nil {
		e.t.Fatal(err)
	}
	resp.Body.Close()
	if decoupled {
		if resp.StatusCode != http.StatusOK {
			e.t.Fatalf("the decoupled bank's page answered %d before approval", resp.StatusCode)
		}
		e.fake.ApproveInApp(authURL[strings.LastIndex(authURL, "/")+1:])
		resp, err = browser.Get(authURL)
	} else {
		resp, err = browser.PostForm(authURL, url.Values{"decision": {"approve"}})
	}
	if err != nil {
		e.t.Fatal(err)
	}
	resp.Body.Close()
	loc, err := url.Parse(resp.Header.Get("Location"))
	if err != nil || resp.StatusCode != http.StatusFound || !strings.HasPrefix(loc.String(), "http://tally.test"+banksync.CallbackPath) {
		e.t.Fatalf("the bank sent the browser to %q (%d)", loc, resp.StatusCode)
	}
	return loc.Query()
}

// connect starts, approves and completes a connection to bank, and links every account as a
// new one.
func (e *ebEnv) connect(bank string, decoupled bool) uuid.UUID {
	e.t.Helper()
	ctx := context.Background()
	a, err := e.svc.Start(ctx, e.family, e.user, banksync.StartInput{Country: "DE", ASPSP: bank, Days: 90})
	if err != nil {
		e.t.Fatal(err)
	}
	if a.Decoupled != decoupled {
		e.t.Fatalf("decoupled %v, want %v", a.Decoupled, decoupled)
	}
	back := e.approve(a.AuthorizationURL, decoupled)
	done, err := e.svc.Complete(ctx, back.Get("state"), back.Get("code"), "", banksync.Completer{})
	if err != nil {
		e.t.Fatal(err)
	}
	v, err := e.svc.Get(ctx, e.family, *done.ConnectionID)
	if err != nil {
		e.t.Fatal(err)
	}
	var choices []banksync.Choice
	for _, ba := range v.Accounts {
		choices = append(choices, banksync.Choice{BankAccountID: ba.ID, Action: "new", Type: "Depository", Subtype: "checking"})
	}
	if err := e.svc.Link(ctx, e.family, v.ID, choices); err != nil {
		e.t.Fatal(err)
	}
	return v.ID
}

func (e *ebEnv) sync(id uuid.UUID) *banksync.Stats {
	e.t.Helper()
	st, err := e.svc.Sync(context.Background(), id)
	if err != nil {
		e.t.Fatalf("sync: %v", err)
	}
	return st
}

// entries lists the family's Enable Banking entries as "name|amount|notes|date|pending",
// sorted.
func (e *ebEnv) entries() []string {
	e.t.Helper()
	var out []string
	if err := e.db.NewRaw(`SELECT name || '|' || amount || '|' || notes || '|' || date || '|' || pending FROM entries
		WHERE family_id = ? AND source = 'enable_banking' AND kind = 'transaction' ORDER BY 1`, e.family).Scan(context.Background(), &out); err != nil {
		e.t.Fatal(err)
	}
	return out
}

// germanBank is the Done-means dataset: a current account of five transactions (three pages
// of two) in every shape the banks send, and a savings account.
func (e *ebEnv) germanBank() {
	n := e.now
	e.fake.AddAccount("Testbank", fakeenablebanking.Account{Key: "giro", IBAN: "DE89370400440532013000", Name: "Girokonto", Currency: "EUR",
		Balances: map[string]string{"CLAV": "1200.00", "CLBD": "1000.00"}, BalanceDate: ebDay(n, 0)})
	e.fake.AddAccount("Testbank", fakeenablebanking.Account{Key: "savings", IBAN: "DE02120300000000202051", Name: "Tagesgeld", Currency: "EUR",
		Balances: map[string]string{"ITBD": "5000.00"}})
	e.fake.AddTransactions("giro",
		// Unsigned, money out: the creditor names it.
		fakeenablebanking.Transaction{EntryReference: "E1", Amount: "12.50", Indicator: "DBIT", Status: "BOOK", BookingDate: ebDay(n, 10),
			Creditor: &fakeenablebanking.Party{Name: "Bäckerei Schmidt"}, Remittance: []string{"Brot und Brötchen"}},
		// Unsigned, money in: the debtor's name only in its postal address.
		fakeenablebanking.Transaction{EntryReference: "E2", Amount: "2500.00", Indicator: "CRDT", Status: "BOOK", BookingDate: ebDay(n, 9),
			Debtor: &fakeenablebanking.Party{Address: []string{"ACME GmbH", "Hauptstr. 1", "10115 Berlin"}}, Remittance: []string{"Gehalt", "November"}},
		// Pending without any date or id, signed.
		fakeenablebanking.Transaction{Amount: "-30.00", Status: "PDNG", Creditor: &fakeenablebanking.Party{Name: "Tankstelle Nord"}},
		// Booked with a transaction id and a value date only; the creditor in its address.
		fakeenablebanking.Transaction{TransactionID: "T4", Amount: "45.00", Indicator: "DBIT", Status: "BOOK", ValueDate: ebDay(n, 5),
			Creditor: &fakeenablebanking.Party{Address: []string{"Stadtwerke Berlin"}}},
		// Pending with its id and the day it happened.
		fakeenablebanking.Transaction{EntryReference: "E5", Amount: "9.99", Indicator: "DBIT", Status: "PDNG", TransactionDate: ebDay(n, 1),
			Creditor: &fakeenablebanking.Party{Name: "Streaming AG"}},
	)
	e.fake.AddTransactions("savings", fakeenablebanking.Transaction{EntryReference: "S1", Amount: "100.00", Indicator: "CRDT", Status: "BOOK",
		BookingDate: ebDay(n, 3), Debtor: &fakeenablebanking.Party{Name: "Girokonto"}})
}

func TestEnableBankingSyncsAGermanBankExactly(t *testing.T) {
	t.Parallel()
	e := newEBEnv(t)
	e.germanBank()
	ctx := context.Background()
	id := e.connect("Testbank", false)

	st := e.sync(id)
	n := e.now
	want := []string{
		"ACME GmbH|-2500.0000|Gehalt November|" + ebDay(n, 9) + "|false",
		"Bäckerei Schmidt|12.5000|Brot und Brötchen|" + ebDay(n, 10) + "|false",
		"Girokonto|-100.0000||" + ebDay(n, 3) + "|false",
		"Stadtwerke Berlin|45.0000||" + ebDay(n, 5) + "|false",
		"Streaming AG|9.9900||" + ebDay(n, 1) + "|true",
		"Tankstelle Nord|30.0000||" + ebDay(n, 0) + "|true",
	}
	if got := e.entries(); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("entries after the first sync:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if st.Created != 6 {
		t.Fatalf("stats %+v", st)
	}
	// Three pages for the current account, the continuation key sent back encoded.
	var pages []string
	for _, r := range e.fake.Requests() {
		if strings.HasSuffix(r.Path, "/transactions") {
			pages = append(pages, r.Query.Get("continuation_key"))
		}
	}
	if len(pages) != 4 || pages[1] == "" || !strings.HasPrefix(pages[1], "page 2+/=") || !strings.HasPrefix(pages[2], "page 4") {
		t.Fatalf("transaction requests with keys %q: want three pages (one account) and one (the other)", pages)
	}
	// The booked balance (CLBD before CLAV; ITBD when there is no CLBD) is the account's, and
	// a checkpoint.
	var balances []string
	if err := e.db.NewRaw(`SELECT a.name || ':' || a.balance || ':' || (SELECT count(*) FROM valuations v JOIN entries x ON x.id = v.entry_id
		WHERE x.account_id = a.id AND x.source = 'enable_banking') FROM accounts a WHERE a.family_id = ? ORDER BY a.name`, e.family).Scan(ctx, &balances); err != nil {
		t.Fatal(err)
	}
	if strings.Join(balances, " ") != "Girokonto:1000.0000:1 Tagesgeld:5000.0000:1" {
		t.Fatalf("balances %v", balances)
	}

	// A second sync adds nothing.
	e.now = e.now.Add(time.Hour)
	if st := e.sync(id); st.Created != 0 || st.Updated != 0 || st.Removed != 0 {
		t.Fatalf("a second sync changed things: %+v", st)
	}
	if got := e.entries(); len(got) != 6 {
		t.Fatalf("%d entries after the second sync", len(got))
	}

	// The pending entries post: each is booked in place, on the day it happened.
	var before []string
	_ = e.db.NewRaw("SELECT id::text FROM entries WHERE family_id = ? AND pending ORDER BY id", e.family).Scan(ctx, &before)
	e.fake.Update("giro", func(tx *fakeenablebanking.Transaction) bool { return tx.Status == "PDNG" }, func(tx *fakeenablebanking.Transaction) {
		tx.Status, tx.BookingDate = "BOOK", ebDay(n, 0)
		if tx.EntryReference == "" {
			tx.EntryReference = "E3"
		}
	})
	e.now = e.now.Add(time.Hour)
	if st := e.sync(id); st.PendingPosted != 1 || st.Created != 0 {
		t.Fatalf("posting the pending entries: %+v", st)
	}
	var after []string
	_ = e.db.NewRaw("SELECT id::text FROM entries WHERE family_id = ? AND id::text IN (?) AND NOT pending ORDER BY id", e.family, bun.In(before)).Scan(ctx, &after)
	if len(before) != 2 || strings.Join(after, ",") != strings.Join(before, ",") {
		t.Fatalf("pending %v became %v: not booked in place", before, after)
	}
	if got := e.entries(); !strings.Contains(strings.Join(got, "\n"), "Streaming AG|9.9900||"+ebDay(n, 1)+"|false") || len(got) != 6 {
		t.Fatalf("after posting:\n%s", strings.Join(got, "\n"))
	}

	// The consent ends: the sync marks the connection, and renewing keeps every account.
	e.fake.ExpireSessions()
	e.now = e.now.Add(time.Hour)
	if _, err := e.svc.Sync(ctx, id); !errors.Is(err, banksync.ErrSessionExpired) {
		t.Fatalf("sync of an expired consent: %v", err)
	}
	v, _ := e.svc.Get(ctx, e.family, id)
	if v.Status != banksync.StatusNeedsRenewal || v.LastError == nil || *v.LastError != banksync.MsgNeedsRenewal {
		t.Fatalf("after expiry: %s %v", v.Status, v.LastError)
	}
	var linkedBefore []string
	_ = e.db.NewRaw("SELECT account_id::text FROM bank_accounts WHERE connection_id = ? ORDER BY 1", id).Scan(ctx, &linkedBefore)
	a, err := e.svc.Renew(ctx, e.family, e.user, id)
	if err != nil {
		t.Fatal(err)
	}
	back := e.approve(a.AuthorizationURL, false)
	if _, err := e.svc.Complete(ctx, back.Get("state"), back.Get("code"), "", banksync.Completer{}); err != nil {
		t.Fatal(err)
	}
	// The bank list was asked for once: the renewal read it from the day's copy.
	lists := 0
	for _, r := range e.fake.Requests() {
		if r.Path == "/aspsps" {
			lists++
		}
	}
	if lists != 1 {
		t.Fatalf("%d requests for the bank list, want 1 a day", lists)
	}
	// The state works once.
	if _, err := e.svc.Complete(ctx, back.Get("state"), back.Get("code"), "", banksync.Completer{}); err == nil || !strings.Contains(err.Error(), "not one Tally is waiting for") {
		t.Fatalf("a used state: %v", err)
	}
	var linkedAfter []string
	_ = e.db.NewRaw("SELECT account_id::text FROM bank_accounts WHERE connection_id = ? ORDER BY 1", id).Scan(ctx, &linkedAfter)
	if len(linkedAfter) != 2 || strings.Join(linkedAfter, ",") != strings.Join(linkedBefore, ",") {
		t.Fatalf("linked accounts %v became %v", linkedBefore, linkedAfter)
	}
	e.fake.AddTransactions("giro", fakeenablebanking.Transaction{EntryReference: "E6", Amount: "-3.20", Status: "BOOK", BookingDate: ebDay(n, 0),
		Creditor: &fakeenablebanking.Party{Name: "Kiosk"}})
	e.now = e.now.Add(24 * time.Hour) // today's four reads are spent (the failed one counts)
	if st := e.sync(id); st.Created != 1 {
		t.Fatalf("the renewed connection's sync: %+v", st)
	}
	if got := e.entries(); len(got) != 7 {
		t.Fatalf("%d entries after renewing: the history was not kept", len(got))
	}

	// Four unattended reads a day: the fifth waits for tomorrow.
	for range 3 {
		e.sync(id)
	}
	if _, err := e.svc.Sync(ctx, id); !errors.Is(err, banksync.ErrOverReadLimit) {
		t.Fatalf("a fifth sync in a day: %v", err)
	}

	// Disconnecting closes the session at the provider.
	if err := e.svc.Delete(ctx, e.family, id); err != nil {
		t.Fatal(err)
	}
	open := 0
	for _, st := range e.fake.SessionStatuses() {
		if st == "AUTHORIZED" {
			open++
		}
	}
	if open != 0 {
		t.Fatalf("%d sessions still open after disconnecting", open)
	}
}

func TestEnableBankingDecoupledBankAndFaults(t *testing.T) {
	t.Parallel()
	e := newEBEnv(t)
	e.fake.AddAccount("App Bank", fakeenablebanking.Account{Key: "app", IBAN: "DE44500105175407324931", Name: "Konto", Currency: "EUR",
		Balances: map[string]string{"CLBD": "50.00"}})
	e.fake.AddTransactions("app", fakeenablebanking.Transaction{EntryReference: "A1", Amount: "-5.00", Status: "BOOK", BookingDate: ebDay(e.now, 2),
		Creditor: &fakeenablebanking.Party{Name: "Bäcker"}})
	id := e.connect("App Bank", true)

	// The bank answers 429: the connection pauses until the next day.
	e.fake.RateLimit(1)
	if _, err := e.svc.Sync(context.Background(), id); err == nil {
		t.Fatal("a 429 did not fail the sync")
	}
	v, _ := e.svc.Get(context.Background(), e.family, id)
	if v.PausedUntil == nil || !v.PausedUntil.After(e.now) {
		t.Fatalf("paused until %v", v.PausedUntil)
	}
	if st := e.sync(id); st.Created != 0 {
		t.Fatal("a paused connection synced")
	}
	e.now = e.now.Add(24 * time.Hour)
	if st := e.sync(id); st.Created != 1 {
		t.Fatalf("after the pause: %+v", st)
	}
	if got := e.entries(); len(got) != 1 || !strings.HasPrefix(got[0], "Bäcker|5.0000|") {
		t.Fatalf("entries %v", got)
	}

	// The consent notices: 7 days before its end, then a day before, each once.
	if _, err := e.db.NewRaw("UPDATE bank_connections SET consent_expires_at = ? WHERE id = ?", e.now.Add(6*24*time.Hour), id).Exec(context.Background()); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if _, err := e.svc.SendConsentNotices(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	if len(e.outbox.messages) != 1 || !strings.Contains(e.outbox.messages[0].Subject, "in 7 days") {
		t.Fatalf("%d notices after the first week's runs", len(e.outbox.messages))
	}
	// The family reads Tally in German now: so does its next notice.
	if _, err := e.db.NewRaw("UPDATE families SET language = 'de' WHERE id = (SELECT family_id FROM bank_connections WHERE id = ?)", id).Exec(context.Background()); err != nil {
		t.Fatal(err)
	}
	e.now = e.now.Add(5*24*time.Hour + time.Hour)
	for range 2 {
		if _, err := e.svc.SendConsentNotices(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	if len(e.outbox.messages) != 2 || e.outbox.messages[1].Subject != "Deine Zustimmung bei der Bank für Tally endet morgen" ||
		!strings.Contains(e.outbox.messages[1].Body, "Tally liest App Bank über eine Zustimmung") {
		t.Fatalf("%d notices after the last day's runs, the last %+v", len(e.outbox.messages), e.outbox.messages[len(e.outbox.messages)-1])
	}
}

func TestEnableBankingRefusesAWrongKeyAndBadChoices(t *testing.T) {
	t.Parallel()
	e := newEBEnv(t)
	other, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	wrong := *e.svc.EB
	wrong.Key = other
	if _, err := wrong.ASPSPs(context.Background(), "DE"); err == nil || !strings.Contains(err.Error(), "401") {
		t.Fatalf("a JWT signed with another key: %v", err)
	}
	_, err = e.svc.Start(context.Background(), e.family, e.user, banksync.StartInput{Country: "XX", ASPSP: "", Days: 5000})
	fields := fieldErrors(err)
	if len(fields["country"]) == 0 || len(fields["aspsp"]) == 0 || len(fields["days"]) == 0 {
		t.Fatalf("bad choices: %v", err)
	}
	_, err = e.svc.Start(context.Background(), e.family, e.user, banksync.StartInput{Country: "DE", ASPSP: "No Such Bank"})
	if len(fieldErrors(err)["aspsp"]) == 0 {
		t.Fatalf("an unknown bank: %v", err)
	}
}

// The consent notice is written in its admin's language: their own, else their family's.
func TestConsentNoticeIsInTheAdminsLanguage(t *testing.T) {
	t.Parallel()
	e := newEBEnv(t)
	e.fake.AddAccount("Testbank", fakeenablebanking.Account{Key: "giro", IBAN: "DE89370400440532013000", Name: "Giro", Currency: "EUR",
		Balances: map[string]string{"CLBD": "10.00"}})
	id := e.connect("Testbank", false)
	ctx := context.Background()
	if _, err := e.db.NewRaw("UPDATE families SET language = 'de' WHERE id = ?", e.family).Exec(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := e.db.NewRaw("UPDATE bank_connections SET consent_expires_at = ? WHERE id = ?", e.now.Add(6*24*time.Hour), id).Exec(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := e.svc.SendConsentNotices(ctx); err != nil {
		t.Fatal(err)
	}
	if len(e.outbox.messages) != 1 {
		t.Fatalf("%d notices", len(e.outbox.messages))
	}
	m := e.outbox.messages[0]
	if m.Subject != "Deine Zustimmung bei der Bank für Tally endet in 7 Tagen" ||
		!strings.Contains(m.Body, "erneuere sie vorher unter Einstellungen › Bankverbindungen:\n\nhttp://tally.test/settings/bank_connections\n") {
		t.Errorf("a German family's notice:\n%s\n\n%s", m.Subject, m.Body)
	}

	// An admin who chose English on their profile reads the next one in English.
	if _, err := e.db.NewRaw("UPDATE users SET language = 'en' WHERE id = ?", e.user).Exec(ctx); err != nil {
		t.Fatal(err)
	}
	e.now = e.now.Add(5*24*time.Hour + time.Hour)
	if _, err := e.svc.SendConsentNotices(ctx); err != nil {
		t.Fatal(err)
	}
	if len(e.outbox.messages) != 2 || e.outbox.messages[1].Subject != "Your bank's consent for Tally ends tomorrow" {
		t.Fatalf("the English admin's notices: %+v", e.outbox.messages)
	}
}

// A member's own connection's consent notice goes to them alone: the family's admins do not
// learn of it (it is their bank access, and its accounts are private to them).
func TestConsentNoticeOfAMembersOwnConnectionGoesToThem(t *testing.T) {
	t.Parallel()
	e := newEBEnv(t)
	e.fake.AddAccount("Testbank", fakeenablebanking.Account{Key: "giro", IBAN: "DE89370400440532013000", Name: "Giro", Currency: "EUR",
		Balances: map[string]string{"CLBD": "10.00"}})
	id := e.connect("Testbank", false)
	member := testkit.MustCreateUser(t, e.db, testkit.UserOpts{FamilyID: e.family, Role: models.RoleMember})
	ctx := context.Background()
	if _, err := e.db.NewRaw("UPDATE bank_connections SET user_id = ?, consent_expires_at = ? WHERE id = ?", member.ID, e.now.Add(6*24*time.Hour), id).Exec(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := e.svc.SendConsentNotices(ctx); err != nil {
		t.Fatal(err)
	}
	var to []string
	for _, m := range e.outbox.messages {
		to = append(to, m.To)
	}
	if len(to) != 1 || to[0] != member.Email {
		t.Fatalf("the notice of %s's own connection went to %v", member.Email, to)
	}
}
