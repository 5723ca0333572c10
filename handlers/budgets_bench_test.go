package handlers_test

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun/dialect/pgdialect"

	"tally/app/apptest"
	"tally/models"
	"tally/reports"
	"tally/testkit"
)

// seedBudgets gives the family 80 categories (10 parents of 7 subcategories each, and 10 on
// their own), every one carrying over both ways, n transactions over the ten years before
// month spread over them, and a budget for each of the 120 months with a line per category:
// all written by the database itself.
func seedBudgets(tb testing.TB, srv *apptest.Server, familyID uuid.UUID, month reports.Month, n int) []uuid.UUID {
	tb.Helper()
	ctx := context.Background()
	acct := testkit.MustCreateAccount(tb, srv.DB, familyID, "Checking", "Depository", "1000")
	var cats []uuid.UUID
	for p := range 20 {
		parent := uuid.Must(uuid.NewV7())
		cats = append(cats, parent)
		if _, err := srv.DB.NewRaw(`INSERT INTO categories (id, family_id, name, budget_rollover) VALUES (?, ?, ?, 'both')`,
			parent, familyID, fmt.Sprintf("Category %02d", p)).Exec(ctx); err != nil {
			tb.Fatal(err)
		}
		if p >= 10 {
			continue
		}
		for k := range 7 {
			id := uuid.Must(uuid.NewV7())
			cats = append(cats, id)
			if _, err := srv.DB.NewRaw(`INSERT INTO categories (id, family_id, parent_id, name, budget_rollover) VALUES (?, ?, ?, ?, 'both')`,
				id, familyID, parent, fmt.Sprintf("Category %02d.%d", p, k)).Exec(ctx); err != nil {
				tb.Fatal(err)
			}
		}
	}
	last := month.Next().First()
	if _, err := srv.DB.NewRaw(`INSERT INTO entries (id, family_id, account_id, kind, date, amount, currency, name, category_id, source)
		SELECT gen_random_uuid(), ?0, ?1, 'transaction', ?2::date - 1 - (i % 3650), ((i % 9000) - 800) / 100.0, 'USD', 'Shop ' || (i % 997),
			CASE WHEN i % 20 = 0 THEN NULL ELSE (?3::uuid[])[1 + i % 80] END, 'manual'
		FROM generate_series(1, ?4) AS i`, familyID, acct.ID, last, pgdialect.Array(cats), n).Exec(ctx); err != nil {
		tb.Fatal(err)
	}
	if _, err := srv.DB.NewRaw(`
		WITH months AS (SELECT gen_random_uuid() AS id, (date_trunc('month', ?1::date) - make_interval(months => m))::date AS start
			FROM generate_series(0, 119) AS m),
		b AS (INSERT INTO budgets (id, family_id, start_date, end_date, budgeted_spending, expected_income, currency)
			SELECT id, ?0, start, (start + interval '1 month' - interval '1 day')::date, 0, 5000, 'USD' FROM months RETURNING id)
		INSERT INTO budget_categories (id, family_id, budget_id, category_id, budgeted_spending, currency)
		SELECT gen_random_uuid(), ?0, b.id, c, 40 + (abs(hashtext(c::text)) % 400), 'USD' FROM b, unnest(?2::uuid[]) AS c`,
		familyID, month.First(), pgdialect.Array(cats)).Exec(ctx); err != nil {
		tb.Fatal(err)
	}
	if _, err := srv.DB.NewRaw("ANALYZE entries; ANALYZE category_month_totals; ANALYZE budgets; ANALYZE budget_categories").Exec(ctx); err != nil {
		tb.Fatal(err)
	}
	return cats
}

// BenchmarkBudgetMonth answers a month's budget for a family of 500,000 transactions, 80
// categories all carrying over both ways and ten years of budgets: the page, GET
// /api/v1/budgets/{month}, and the PATCH that sets one category's rollover and answers its
// carry computed over the ten years, each through the real router as the median of seven.
// The goals are 100, 100 and 150 ms on this machine; it prints each as a share of its goal
// and fails past it.
func BenchmarkBudgetMonth(b *testing.B) {
	srv := apptest.StartServer(b, apptest.ServerOptions{NoWorker: true})
	u := testkit.MustCreateUser(b, srv.DB, testkit.UserOpts{})
	key := testkit.MustCreateAPIKey(b, srv.DB, u.ID, models.ScopeReadWrite)
	month := reports.MonthOf(u.Family.Today())
	seedStart := time.Now()
	cats := seedBudgets(b, srv, u.FamilyID, month, benchFamilyTransactions)
	seeded := time.Since(seedStart)
	c := apptest.NewClient(b, srv)
	c.SignIn(u.Email, testkit.Password)
	median := func(do func() int) time.Duration {
		var times []time.Duration
		for range 7 {
			start := time.Now()
			if status := do(); status != http.StatusOK {
				b.Fatalf("status %d", status)
			}
			times = append(times, time.Since(start))
		}
		slices.Sort(times)
		return times[len(times)/2]
	}
	path := "/budgets/" + month.String()
	api := "/api/v1/budgets/" + month.String()
	// Another member, kept from a private account of u's that holds 400,000 transactions of
	// the same ten years: their budget leaves those out, at the same cost.
	private := testkit.MustCreateAccount(b, srv.DB, u.FamilyID, "Private", "Depository", "0")
	if _, err := srv.DB.NewRaw(`UPDATE accounts SET private = true, owner_id = ? WHERE id = ?`, u.ID, private.ID).Exec(b.Context()); err != nil {
		b.Fatal(err)
	}
	if _, err := srv.DB.NewRaw(`INSERT INTO entries (id, family_id, account_id, kind, date, amount, currency, name, category_id, source)
		SELECT gen_random_uuid(), ?0, ?1, 'transaction', ?2::date - 1 - (i % 3650), ((i % 7000) - 500) / 100.0, 'USD', 'Private ' || (i % 97),
			(?3::uuid[])[1 + i % 80], 'manual'
		FROM generate_series(1, 400000) AS i`, u.FamilyID, private.ID, month.Next().First(), pgdialect.Array(cats)).Exec(b.Context()); err != nil {
		b.Fatal(err)
	}
	if _, err := srv.DB.NewRaw("ANALYZE entries; ANALYZE category_month_totals").Exec(b.Context()); err != nil {
		b.Fatal(err)
	}
	other := testkit.MustCreateUser(b, srv.DB, testkit.UserOpts{FamilyID: u.FamilyID, Role: models.RoleMember})
	otherKey := testkit.MustCreateAPIKey(b, srv.DB, other.ID, models.ScopeRead)
	rollovers := []string{"surplus", "both"}
	i := 0
	for b.Loop() {
		page := median(func() int { return c.Get(path).Status })
		get := median(func() int { return c.API(http.MethodGet, api, key, nil).Status })
		patch := median(func() int {
			i++
			return c.API(http.MethodPatch, api+"/categories/"+cats[0].String(), key, map[string]any{"rollover": rollovers[i%2]}).Status
		})
		kept := median(func() int { return c.API(http.MethodGet, api, otherKey, nil).Status })
		for _, m := range []struct {
			name  string
			took  time.Duration
			bound time.Duration
		}{{"page", page, 100 * time.Millisecond}, {"api", get, 100 * time.Millisecond}, {"rollover", patch, 150 * time.Millisecond},
			{"api-without-private", kept, 100 * time.Millisecond}} {
			ratio := float64(m.took) / float64(m.bound)
			b.ReportMetric(ratio, m.name+"/goal")
			fmt.Printf("budget of 500,000 transactions, 80 categories carrying over, 120 months: %s %v, %.2f of its %v goal\n",
				m.name, m.took.Round(time.Millisecond), ratio, m.bound)
			if ratio > 1 {
				b.Errorf("%s took %v, past its goal of %v", m.name, m.took, m.bound)
			}
		}
		fmt.Printf("(the data was written in %v)\n", seeded.Round(time.Millisecond))
	}
}
