package handlers_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"
	"github.com/uptrace/bun/dialect/pgdialect"

	"tally/app/apptest"
	"tally/models"
	"tally/testkit"
)

// benchFamilyTransactions is the size of the family the cursor benchmark walks.
const benchFamilyTransactions = 500_000

// seedTransactions gives the family n transactions over four accounts in three currencies
// (USD, EUR and a GBP card), each with a balance typed today, and about three years, written
// by the database itself, with ten years of the ECB's daily rates: the benchmark measures
// reading them.
func seedTransactions(tb testing.TB, srv *apptest.Server, familyID uuid.UUID, n int) {
	tb.Helper()
	ctx := context.Background()
	var accts []uuid.UUID
	var currencies []string
	for i, a := range []struct{ typ, currency string }{{"Depository", "USD"}, {"Depository", "EUR"}, {"CreditCard", "GBP"}, {"Investment", "USD"}} {
		acct, err := models.CreateAccount(ctx, srv.DB, familyID, models.AccountInput{Name: fmt.Sprintf("Account %d", i), AccountableType: a.typ,
			Currency: a.currency, Balance: testkit.Ptr(decimal.NewFromInt(1000))})
		if err != nil {
			tb.Fatal(err)
		}
		accts, currencies = append(accts, acct.ID), append(currencies, a.currency)
	}
	_, err := srv.DB.NewRaw(`INSERT INTO entries (id, family_id, account_id, kind, date, amount, currency, name, notes, source)
		SELECT gen_random_uuid(), ?, (?::uuid[])[1 + i % 4], 'transaction', date '2026-11-01' - (i % 1100),
			((i % 5000) - 1000) / 100.0, (?::text[])[1 + i % 4], 'Merchant ' || (i % 997), '', 'manual'
		FROM generate_series(1, ?) AS i`, familyID, pgdialect.Array(accts), pgdialect.Array(currencies), n).Exec(ctx)
	if err != nil {
		tb.Fatal(err)
	}
	if _, err := srv.DB.NewRaw(`INSERT INTO exchange_rates (id, family_id, date, base, quote, rate, source)
		SELECT gen_random_uuid(), NULL, d::date, 'EUR', q, CASE q WHEN 'USD' THEN 1.05 ELSE 0.85 END + (extract(doy FROM d) / 3650.0), 'ecb'
		FROM generate_series(current_date - 3650, current_date, interval '1 day') AS d, unnest(ARRAY['USD', 'GBP']) AS q
		WHERE extract(isodow FROM d) < 6`).Exec(ctx); err != nil {
		tb.Fatal(err)
	}
	if _, err := srv.DB.NewRaw("ANALYZE entries; ANALYZE exchange_rates").Exec(ctx); err != nil {
		tb.Fatal(err)
	}
}

// BenchmarkTransactionCursor walks a 500,000-transaction family through GET
// /api/v1/transactions, 500 a page, from the first page to the last (1,000 requests through
// the real router), and reports the last page's time against the first's: a cursor page is
// read straight off the index, so the ratio stays near 1 however deep the walk (the goal is
// within 1.5). Each of the two is the median of five fetches of that page.
func BenchmarkTransactionCursor(b *testing.B) {
	srv := apptest.StartServer(b, apptest.ServerOptions{NoWorker: true})
	u := testkit.MustCreateUser(b, srv.DB, testkit.UserOpts{})
	key := testkit.MustCreateAPIKey(b, srv.DB, u.ID, models.ScopeRead)
	seedTransactions(b, srv, u.FamilyID, benchFamilyTransactions)
	c := apptest.NewClient(b, srv)

	page := func(cursor string) (next string, rows int, took time.Duration) {
		start := time.Now()
		r := c.API(http.MethodGet, "/api/v1/transactions?per_page=500&cursor="+url.QueryEscape(cursor), key, nil)
		took = time.Since(start)
		if r.Status != http.StatusOK {
			b.Fatalf("page: %d %s", r.Status, r.Body)
		}
		var p transactionPage
		r.JSON(b, &p)
		if p.Meta.NextCursor != nil {
			next = *p.Meta.NextCursor
		}
		return next, len(p.Data), took
	}
	median := func(cursor string) time.Duration {
		var times []time.Duration
		for range 5 {
			_, _, took := page(cursor)
			times = append(times, took)
		}
		slices.Sort(times)
		return times[len(times)/2]
	}

	for b.Loop() {
		walkStart := time.Now()
		cursor, last, total, pages := "", "", 0, 0
		for {
			next, n, _ := page(cursor)
			total, pages = total+n, pages+1
			if next == "" {
				break
			}
			last, cursor = next, next
		}
		walk := time.Since(walkStart)
		if total != benchFamilyTransactions {
			b.Fatalf("walked %d transactions, want %d", total, benchFamilyTransactions)
		}
		first, final := median(""), median(last)
		ratio := float64(final) / float64(first)
		b.ReportMetric(ratio, "last/first")
		b.ReportMetric(float64(total)/walk.Seconds(), "rows/s")
		fmt.Printf("cursor walk of %d transactions in %d pages: %v; first page %v, last page %v, ratio %.2f (goal ≤ 1.5)\n",
			total, pages, walk.Round(time.Millisecond), first.Round(time.Microsecond), final.Round(time.Microsecond), ratio)
	}
}

// BenchmarkTransactionsPage answers /transactions for a person of a 500,000-transaction
// family with a search and two filters, and the dashboard, through the real router with a
// signed-in session: the goals are 150 ms and 100 ms on this machine. Each is the median of
// seven requests.
func BenchmarkTransactionsPage(b *testing.B) {
	srv := apptest.StartServer(b, apptest.ServerOptions{NoWorker: true})
	u := testkit.MustCreateUser(b, srv.DB, testkit.UserOpts{})
	seedTransactions(b, srv, u.FamilyID, benchFamilyTransactions)
	var acct string
	if err := srv.DB.NewRaw("SELECT id::text FROM accounts WHERE family_id = ? ORDER BY name LIMIT 1", u.FamilyID).Scan(context.Background(), &acct); err != nil {
		b.Fatal(err)
	}
	c := apptest.NewClient(b, srv)
	c.SignIn(u.Email, testkit.Password)
	median := func(path string) time.Duration {
		var times []time.Duration
		for range 7 {
			start := time.Now()
			r := c.Get(path)
			times = append(times, time.Since(start))
			if r.Status != http.StatusOK {
				b.Fatalf("%s: %d", path, r.Status)
			}
		}
		slices.Sort(times)
		return times[len(times)/2]
	}
	search := "/transactions?q=merchant+12&account_id=" + acct + "&start_date=2025-01-01"
	for b.Loop() {
		list, dash, all := median(search), median("/"), median("/?range=all")
		b.ReportMetric(float64(list.Microseconds())/1000, "search-ms")
		b.ReportMetric(float64(dash.Microseconds())/1000, "dashboard-ms")
		b.ReportMetric(float64(all.Microseconds())/1000, "dashboard-all-ms")
		fmt.Printf("500,000 transactions in 3 currencies, 10 years of daily rates: /transactions with a search and two filters %v (goal 150 ms), "+
			"dashboard %v (goal 100 ms), dashboard charting all of it %v\n",
			list.Round(time.Millisecond), dash.Round(time.Millisecond), all.Round(time.Millisecond))
	}
}
