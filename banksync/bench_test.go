package banksync_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/shopspring/decimal"

	"tally/banksync"
	"tally/banksync/fakesimplefin"
	"tally/internal/db"
	"tally/internal/secrets"
	"tally/testkit"
)

// The shape of the bank sync benchmark: three linked accounts with 20,000 posted transactions
// each, spread over nearly two years of history (read in 60-day windows).
const (
	benchSyncAccounts    = 3
	benchSyncPerAccount  = 20_000
	benchSyncHistoryDays = 700
)

// benchSyncTransactions is an account's posted transactions, newest first, all inside the
// history window ending at now.
func benchSyncTransactions(acct string, now time.Time) []fakesimplefin.Transaction {
	txs := make([]fakesimplefin.Transaction, benchSyncPerAccount)
	span := time.Duration(benchSyncHistoryDays-1) * day
	for i := range txs {
		posted := now.Add(-span / benchSyncPerAccount * time.Duration(i)).Truncate(time.Second)
		amount := fmt.Sprintf("-%d.%02d", 1+i%500, i%100)
		if i%15 == 0 {
			amount = fmt.Sprintf("%d.00", 1000+i%2000)
		}
		txs[i] = fakesimplefin.Transaction{
			ID: fmt.Sprintf("TRN-%s-%06d", acct, i), Posted: posted, TransactedAt: posted, Amount: amount,
			Payee: fmt.Sprintf("Merchant %d", i%1000), Description: fmt.Sprintf("POS PURCHASE %d #%04d", i%1000, i%7919),
		}
	}
	return txs
}

// BenchmarkBankSync measures a first sync of 3 accounts × 20,000 transactions from the fake
// provider (HTTP, JSON decoding and writing), against the physical limit of the same work: a
// bare COPY of the same rows into a table shaped like entries, in the same run. Then it
// measures a re-sync with nothing changed at the provider, against the first sync. It reports
// both ratios and rows per second.
func BenchmarkBankSync(b *testing.B) {
	ctx := context.Background()
	url := testkit.DatabaseURL(b)
	d, err := db.Open(ctx, url)
	if err != nil {
		b.Fatal(err)
	}
	defer d.Close()
	keys, err := secrets.New(strings.Repeat("k", 64))
	if err != nil {
		b.Fatal(err)
	}
	now := time.Date(2026, 11, 20, 15, 0, 0, 0, time.UTC)
	fake := fakesimplefin.NewTest(b)
	fake.SetNow(now)
	fake.SetRangeLimit(60, fakesimplefin.RangeReject) // Tally's own rule, enforced
	fake.SetQuota(0, 0)                               // a benchmark is not a day's traffic
	fake.AddConnection(fakesimplefin.Connection{ID: "CON-1", Name: "First Bank", OrgID: "first", OrgName: "First Bank"})
	specs := []fakesimplefin.Account{
		{ID: "ACT-CHK", Name: "Everyday Checking", Balance: "1000.00"},
		{ID: "ACT-CC", Name: "Rewards Visa", Balance: "-250.00", AvailableBalance: "4750.00"},
		{ID: "ACT-SAV", Name: "High-Yield Savings", Balance: "25000.00"},
	}
	txs := map[string][]fakesimplefin.Transaction{}
	for _, a := range specs {
		a.ConnID, a.Currency, a.BalanceDate = "CON-1", "USD", now
		a.Transactions = benchSyncTransactions(a.ID, now)
		txs[a.ID] = a.Transactions
		fake.AddAccount(a)
	}
	total := benchSyncAccounts * benchSyncPerAccount

	u := testkit.MustCreateUser(b, d, testkit.UserOpts{})
	svc := &banksync.Service{DB: d, Keys: keys, Log: slog.New(slog.NewTextHandler(io.Discard, nil)), Now: func() time.Time { return now },
		Client: &banksync.Client{AllowInsecure: true, HTTP: &http.Client{Timeout: time.Minute},
			Sleep: func(context.Context, time.Duration) error { return nil }}}
	c, err := svc.Connect(ctx, u.FamilyID, uuid.Nil, fake.NewSetupToken())
	if err != nil {
		b.Fatal(err)
	}
	var bas []banksync.BankAccount
	if err := d.NewSelect().Model(&bas).Where("connection_id = ?", c.ID).Order("provider_account_id").Scan(ctx); err != nil {
		b.Fatal(err)
	}
	var choices []banksync.Choice
	for _, a := range bas {
		typ, sub := banksync.Suggest(&a)
		choices = append(choices, banksync.Choice{BankAccountID: a.ID, Action: "new", Type: typ, Subtype: sub})
	}
	if err := svc.Link(ctx, u.FamilyID, c.ID, choices); err != nil {
		b.Fatal(err)
	}
	if _, err := d.NewRaw("UPDATE bank_connections SET history_days = ? WHERE id = ?", benchSyncHistoryDays, c.ID).Exec(ctx); err != nil {
		b.Fatal(err)
	}
	if err := d.NewSelect().Model(&bas).Where("connection_id = ?", c.ID).Order("provider_account_id").Scan(ctx); err != nil {
		b.Fatal(err)
	}
	linked := map[string]uuid.UUID{}
	for _, a := range bas {
		if a.AccountID == nil {
			b.Fatalf("%s is not linked", a.ProviderAccountID)
		}
		linked[a.ProviderAccountID] = *a.AccountID
	}
	if len(linked) != benchSyncAccounts {
		b.Fatalf("%d linked accounts, want %d", len(linked), benchSyncAccounts)
	}

	copyTime := bareSyncCopy(b, url, u.FamilyID, linked, txs)
	b.Logf("%s bare copy of %d rows %s", time.Now().Format(time.TimeOnly), total, copyTime)

	count := func() int {
		var n int
		if err := d.NewRaw("SELECT count(*) FROM entries WHERE family_id = ? AND source = ? AND kind = 'transaction'",
			u.FamilyID, banksync.Source).Scan(ctx, &n); err != nil {
			b.Fatal(err)
		}
		return n
	}

	b.ResetTimer()
	var first, again time.Duration
	for i := range b.N {
		if i > 0 {
			// Undo the previous round, outside the measurement: the next sync is a first one.
			b.StopTimer()
			for _, q := range []string{"DELETE FROM entries WHERE family_id = ? AND source = 'simplefin'",
				"UPDATE bank_connections SET last_synced_at = NULL, requests_today = 0 WHERE family_id = ?"} {
				if _, err := d.NewRaw(q, u.FamilyID).Exec(ctx); err != nil {
					b.Fatal(err)
				}
			}
			b.StartTimer()
		}
		start := time.Now()
		st, err := svc.Sync(ctx, c.ID)
		if err != nil {
			b.Fatalf("first sync: %v", err)
		}
		took := time.Since(start)
		first += took
		b.StopTimer()
		if n := count(); n != total || st.Created != total {
			b.Fatalf("first sync: %d entries, stats %+v; want %d", n, st, total)
		}
		b.Logf("%s first sync %s: %+v", time.Now().Format(time.TimeOnly), took.Round(time.Millisecond), *st)

		// Nothing changed at the provider: the re-sync writes nothing.
		start = time.Now()
		st, err = svc.Sync(ctx, c.ID)
		if err != nil {
			b.Fatalf("re-sync: %v", err)
		}
		took = time.Since(start)
		again += took
		if st.Created != 0 || st.Updated != 0 {
			b.Fatalf("re-sync with no changes: %+v", st)
		}
		if n := count(); n != total {
			b.Fatalf("re-sync: %d entries, want %d", n, total)
		}
		b.Logf("%s re-sync %s: %+v", time.Now().Format(time.TimeOnly), took.Round(time.Millisecond), *st)
		b.StartTimer()
	}
	b.StopTimer()
	per, resync := first/time.Duration(b.N), again/time.Duration(b.N)
	b.Logf("of the first sync, reading the provider (HTTP, the fake's answers, JSON decoding) takes about %s", benchSyncFetch(b, svc, fake, now))
	// A re-sync reads only the days since the last one (with an overlap). For scale, the worst
	// case of no changes: the whole history read again (as when last_synced_at is lost).
	if _, err := d.NewRaw("UPDATE bank_connections SET last_synced_at = NULL, requests_today = 0 WHERE id = ?", c.ID).Exec(ctx); err != nil {
		b.Fatal(err)
	}
	start := time.Now()
	st, err := svc.Sync(ctx, c.ID)
	if err != nil {
		b.Fatalf("full re-sync: %v", err)
	}
	full := time.Since(start)
	if st.Created != 0 || st.Updated != 0 || count() != total {
		b.Fatalf("full re-sync with no changes: %+v", st)
	}
	b.Logf("a re-sync of the whole %d days with no changes (not the target's case): %s = %.0f%% of the first; %+v",
		benchSyncHistoryDays, full.Round(time.Millisecond), full.Seconds()/per.Seconds()*100, *st)

	ratio, share := per.Seconds()/copyTime.Seconds(), resync.Seconds()/per.Seconds()
	b.ReportMetric(float64(total)/per.Seconds(), "rows/s")
	b.ReportMetric(ratio, "x-copy")
	b.ReportMetric(share*100, "resync-%")
	b.ReportMetric(float64(resync.Nanoseconds()), "resync-ns")
	fmt.Printf("bank sync: %d transactions in %s (%.0f rows/s); bare COPY %s; first sync ratio %.2fx (target <= 3x); re-sync with no changes %s = %.1f%% of the first (target < 15%%)\n",
		total, per.Round(time.Millisecond), float64(total)/per.Seconds(), copyTime.Round(time.Millisecond), ratio,
		resync.Round(time.Millisecond), share*100)
}

// benchSyncFetch times reading the first sync's windows from the provider alone, as Sync
// reads them (60 days each, oldest first, to a day past now): the part of a sync that is not
// the database's.
func benchSyncFetch(b *testing.B, svc *banksync.Service, fake *fakesimplefin.Server, now time.Time) time.Duration {
	access, err := svc.Client.Claim(context.Background(), fake.NewSetupToken())
	if err != nil {
		b.Fatal(err)
	}
	ids := []string{"ACT-CC", "ACT-CHK", "ACT-SAV"}
	start := time.Now()
	n := 0
	to := now.Add(24 * time.Hour)
	for from := now.Add(-benchSyncHistoryDays * day); from.Before(to); from = from.Add(60 * day) {
		end := from.Add(60 * day)
		if end.After(to) {
			end = to
		}
		set, err := svc.Client.Accounts(context.Background(), access, banksync.Query{Start: &from, End: &end, Accounts: ids})
		if err != nil {
			b.Fatal(err)
		}
		for _, a := range set.Accounts {
			n += len(a.Transactions)
		}
	}
	if n != benchSyncAccounts*benchSyncPerAccount {
		b.Fatalf("read %d transactions, want %d", n, benchSyncAccounts*benchSyncPerAccount)
	}
	return time.Since(start).Round(time.Millisecond)
}

// bareSyncCopy times COPY of the rows the first sync writes (the same ids, dates, amounts,
// names and provenance, into the same accounts) into a table with entries' columns, indexes,
// checks and foreign keys: the least work that stores them.
func bareSyncCopy(b *testing.B, url string, familyID uuid.UUID, linked map[string]uuid.UUID, txs map[string][]fakesimplefin.Transaction) time.Duration {
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Close(ctx)
	for _, q := range []string{
		`CREATE TABLE copy_entries (LIKE entries INCLUDING ALL)`,
		`ALTER TABLE copy_entries ADD FOREIGN KEY (account_id, family_id) REFERENCES accounts (id, family_id)`,
		`ALTER TABLE copy_entries ADD FOREIGN KEY (category_id) REFERENCES categories (id)`,
		`ALTER TABLE copy_entries ADD FOREIGN KEY (merchant_id) REFERENCES merchants (id)`,
		`ALTER TABLE copy_entries ADD FOREIGN KEY (parent_id) REFERENCES copy_entries (id)`,
	} {
		if _, err := conn.Exec(ctx, q); err != nil {
			b.Fatal(err)
		}
	}
	fam := pgtype.UUID{Bytes: familyID, Valid: true}
	var data [][]any
	for acct, list := range txs {
		account := pgtype.UUID{Bytes: linked[acct], Valid: true}
		for _, t := range list {
			var amount pgtype.Numeric
			if err := amount.Scan(decimal.RequireFromString(t.Amount).Neg().String()); err != nil {
				b.Fatal(err)
			}
			name := t.Payee + " - " + t.Description // the name Sync gives it
			data = append(data, []any{pgtype.UUID{Bytes: uuid.Must(uuid.NewV7()), Valid: true}, fam, account, "transaction",
				time.Date(t.Posted.Year(), t.Posted.Month(), t.Posted.Day(), 0, 0, 0, 0, time.UTC), amount, "USD", name, "",
				false, t.ID, banksync.Source})
		}
	}
	start := time.Now()
	if _, err := conn.CopyFrom(ctx, pgx.Identifier{"copy_entries"},
		[]string{"id", "family_id", "account_id", "kind", "date", "amount", "currency", "name", "notes", "pending", "external_id", "source"},
		pgx.CopyFromRows(data)); err != nil {
		b.Fatal(err)
	}
	return time.Since(start)
}
