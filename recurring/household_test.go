package recurring_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"sort"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"
	"github.com/uptrace/bun/dialect/pgdialect"

	"tally/internal/db"
	"tally/models"
	"tally/testkit"
)

func TestMain(m *testing.M) { os.Exit(testkit.Main(m)) }

// txn is one transaction of a generated history.
type txn struct {
	account  int // index into the household's accounts
	date     time.Time
	amount   decimal.Decimal
	name     string
	merchant string // "" for none
	category string // "" for none
}

// truth is a series the generated history holds, as detection should find it.
type truth struct {
	account  int
	group    string // the merchant's name, or "n:" and the transactions' folded name
	interval string
}

func day(s string) time.Time {
	d, err := time.Parse(time.DateOnly, s)
	if err != nil {
		panic(err)
	}
	return d
}

func money(cents int64) decimal.Decimal { return decimal.New(cents, -2) }

// workday moves a Saturday or Sunday to the Monday after, as a standing order is booked.
func workday(d time.Time) time.Time {
	switch d.Weekday() {
	case time.Saturday:
		return d.AddDate(0, 0, 2)
	case time.Sunday:
		return d.AddDate(0, 0, 1)
	}
	return d
}

func lastWorkday(y int, m time.Month) time.Time {
	d := time.Date(y, m+1, 0, 0, 0, 0, 0, time.UTC)
	for d.Weekday() == time.Saturday || d.Weekday() == time.Sunday {
		d = d.AddDate(0, 0, -1)
	}
	return d
}

// household generates two years of a household's transactions up to today (checking is
// account 0, the card account 1): the series of truths, everyday spending, and near misses
// that look like series and are not. It is the same for the same seed.
func household(seed uint64, today time.Time) ([]txn, []truth) {
	rng := rand.New(rand.NewPCG(seed, 7))
	start := today.AddDate(-2, 0, 0)
	var out []txn
	add := func(t txn) {
		if !t.date.After(today) && !t.date.Before(start) {
			out = append(out, t)
		}
	}
	months := func(fn func(y int, m time.Month)) {
		for d := time.Date(start.Year(), start.Month(), 1, 0, 0, 0, 0, time.UTC); !d.After(today); d = d.AddDate(0, 1, 0) {
			fn(d.Year(), d.Month())
		}
	}
	// The series.
	months(func(y int, m time.Month) {
		add(txn{0, workday(time.Date(y, m, 1, 0, 0, 0, 0, time.UTC)), money(120000), "Rent flat 3B " + fmt.Sprint(int(m)), "", "Rent & mortgage"})
		add(txn{0, lastWorkday(y, m), money(-320000), fmt.Sprintf("ACME Corp salary %02d/%d", int(m), y), "", "Salary"})
		add(txn{1, time.Date(y, m, 15, 0, 0, 0, 0, time.UTC), money(1549), "NETFLIX.COM", "Netflix", "Subscriptions"})
		add(txn{0, workday(time.Date(y, m, 20, 0, 0, 0, 0, time.UTC)), money(8000 + rng.Int64N(1500)), "City Power", "City Power", "Energy & utilities"})
		if int(m)%3 == 1 {
			add(txn{0, workday(time.Date(y, m, 10, 0, 0, 0, 0, time.UTC)), money(12000 + rng.Int64N(1000)), "Water works", "Water Works", "Energy & utilities"})
		}
		if m == time.March {
			add(txn{0, workday(time.Date(y, m, 3, 0, 0, 0, 0, time.UTC)), money(64000), "Car insurance", "Safe Drive", "Insurance"})
		}
		// A magazine cancelled half a year ago: a series no longer.
		if time.Date(y, m, 1, 0, 0, 0, 0, time.UTC).Before(today.AddDate(0, -6, 0)) {
			add(txn{1, time.Date(y, m, 5, 0, 0, 0, 0, time.UTC), money(999), "Old Magazine", "Old Magazine", "Subscriptions"})
		}
		// Near miss: a phone plan whose bill swings by a third, outside a fixed tolerance.
		add(txn{1, time.Date(y, m, 8, 0, 0, 0, 0, time.UTC), money(3000 + rng.Int64N(3000)), "Mobile Co", "Mobile Co", "Phone"})
	})
	for d := start; !d.After(today); d = d.AddDate(0, 0, 1) {
		switch d.Weekday() {
		case time.Monday:
			add(txn{1, d, money(1200), "Gym membership", "Fit Gym", "Sport"})
		case time.Friday:
			if days := int(d.Sub(start).Hours() / 24); (days/7)%2 == 0 {
				add(txn{0, d, money(4500), "Piano lessons", "", "Education"})
			}
		}
		// Everyday spending: groceries most days, coffee, restaurants, of varying amounts.
		if rng.IntN(10) < 6 {
			add(txn{1, d, money(1500 + rng.Int64N(12000)), "SUPERMARKT 0042", "Supermarkt", "Groceries"})
		}
		if rng.IntN(10) < 5 {
			add(txn{1, d, money(250 + rng.Int64N(400)), "Corner Coffee", "Corner Coffee", "Cafés"})
		}
		if rng.IntN(10) < 1 {
			add(txn{1, d, money(2000 + rng.Int64N(8000)), "Trattoria", "Trattoria", "Restaurants"})
		}
	}
	// Near misses: a donation of one amount at no interval, a concert paid twice a month
	// apart, and a one-off gift card at Netflix's merchant.
	for d := start.AddDate(0, 0, 3); d.Before(today); d = d.AddDate(0, 0, 17+rng.IntN(60)) {
		add(txn{0, d, money(5000), "Charity donation", "", "Gifts"})
	}
	add(txn{1, today.AddDate(0, -3, 0), money(8000), "Concert tickets", "Ticket Shop", "Fun"})
	add(txn{1, today.AddDate(0, -2, 0), money(8000), "Concert tickets", "Ticket Shop", "Fun"})
	add(txn{1, today.AddDate(0, -4, -2), money(2500), "NETFLIX.COM gift card", "Netflix", "Subscriptions"})

	truths := []truth{
		{0, "n:rent flat b", models.IntervalMonthly},
		{0, "n:acme corp salary", models.IntervalMonthlyLastWorkingDay},
		{1, "Netflix", models.IntervalMonthly},
		{0, "City Power", models.IntervalMonthly},
		{0, "Water Works", models.IntervalQuarterly},
		{0, "Safe Drive", models.IntervalYearly},
		{1, "Fit Gym", models.IntervalWeekly},
		{0, "n:piano lessons", models.IntervalBiweekly},
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].date.Before(out[j].date) })
	return out, truths
}

// key is the group of a truth in the family: its merchant's, or its name's.
func (f *family) key(tr truth) string {
	if id, ok := f.merchants[tr.group]; ok {
		return "m:" + id.String()
	}
	return tr.group
}

// family is a family with the household's two accounts, its merchants and categories.
type family struct {
	user       *models.User
	accounts   []*models.Account
	merchants  map[string]uuid.UUID
	categories map[string]uuid.UUID
}

func mustFamily(t testing.TB, d *db.DB) *family {
	t.Helper()
	u := testkit.MustCreateUser(t, d, testkit.UserOpts{})
	f := &family{user: u, merchants: map[string]uuid.UUID{}, categories: map[string]uuid.UUID{}}
	f.accounts = []*models.Account{
		testkit.MustCreateAccount(t, d, u.FamilyID, "Checking", "Depository", "1000"),
		testkit.MustCreateAccount(t, d, u.FamilyID, "Card account", "Depository", "500"),
	}
	return f
}

// mustHousehold makes a family and writes into its accounts the household of seed up to
// today; it returns the family with the transactions and the series they hold.
func mustHousehold(t testing.TB, d *db.DB, seed uint64, today time.Time) (*family, []txn, []truth) {
	t.Helper()
	f := mustFamily(t, d)
	txns, truths := household(seed, today)
	f.mustInsert(t, d, txns, nil)
	return f, txns, truths
}

// mustInsert writes the transactions into the family's accounts, each created_at since, making
// the merchants and categories they name; it returns the entries' ids.
func (f *family) mustInsert(t testing.TB, d *db.DB, txns []txn, importID *uuid.UUID) []uuid.UUID {
	t.Helper()
	ctx := context.Background()
	var ids, accts, merchants, categories []uuid.UUID
	var dates, amounts, names []string
	for _, x := range txns {
		var m, c uuid.UUID
		if x.merchant != "" {
			if m = f.merchants[x.merchant]; m == uuid.Nil {
				mm, err := models.CreateMerchant(ctx, d, models.FamilyViewer(f.user.FamilyID), models.MerchantInput{Name: &x.merchant})
				if err != nil {
					t.Fatal(err)
				}
				m, f.merchants[x.merchant] = mm.ID, mm.ID
			}
		}
		if x.category != "" {
			if c = f.categories[x.category]; c == uuid.Nil {
				cls := models.CategoryExpense
				if x.amount.IsNegative() {
					cls = models.CategoryIncome
				}
				cc, err := models.CreateCategory(ctx, d, f.user.FamilyID, models.CategoryInput{Name: &x.category, Classification: &cls})
				if err != nil {
					t.Fatal(err)
				}
				c, f.categories[x.category] = cc.ID, cc.ID
			}
		}
		ids = append(ids, uuid.Must(uuid.NewV7()))
		accts, merchants, categories = append(accts, f.accounts[x.account].ID), append(merchants, m), append(categories, c)
		dates, amounts, names = append(dates, x.date.Format(time.DateOnly)), append(amounts, x.amount.String()), append(names, x.name)
	}
	if _, err := d.NewRaw(`INSERT INTO entries (id, family_id, account_id, kind, date, amount, currency, name, merchant_id, category_id, import_id)
		SELECT x.id, ?, x.account, 'transaction', x.date::date, x.amount::numeric, 'USD', x.name,
			nullif(x.merchant, '00000000-0000-0000-0000-000000000000'), nullif(x.category, '00000000-0000-0000-0000-000000000000'), ?
		FROM unnest(?::uuid[], ?::uuid[], ?::text[], ?::text[], ?::text[], ?::uuid[], ?::uuid[]) AS x(id, account, date, amount, name, merchant, category)`,
		f.user.FamilyID, importID, pgdialect.Array(ids), pgdialect.Array(accts), pgdialect.Array(dates), pgdialect.Array(amounts),
		pgdialect.Array(names), pgdialect.Array(merchants), pgdialect.Array(categories)).Exec(ctx); err != nil {
		t.Fatal(err)
	}
	return ids
}
