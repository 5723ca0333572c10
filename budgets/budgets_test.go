package budgets_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"
	"github.com/uptrace/bun"

	"tally/budgets"
	"tally/internal/apperr"
	"tally/internal/db"
	"tally/models"
	"tally/reports"
	"tally/testkit"
)

func TestMain(m *testing.M) { os.Exit(testkit.Main(m)) }

// household is a family for a budget test: its categories by name and an account.
type household struct {
	d    *db.DB
	u    *models.User
	fam  *models.Family
	acct *models.Account
	cats map[string]*models.Category
}

func newHousehold(t *testing.T, d *db.DB) *household {
	t.Helper()
	u := testkit.MustCreateUser(t, d, testkit.UserOpts{})
	h := &household{d: d, u: u, fam: u.Family, acct: testkit.MustCreateAccount(t, d, u.FamilyID, "Checking", "Depository", ""),
		cats: map[string]*models.Category{}}
	for _, c := range []struct{ name, class, parent string }{
		{"Food", models.CategoryExpense, ""}, {"Groceries", "", "Food"}, {"Restaurants", "", "Food"},
		{"Rent", models.CategoryExpense, ""}, {"Insurance", models.CategoryExpense, ""}, {"Salary", models.CategoryIncome, ""},
	} {
		in := models.CategoryInput{Name: &c.name}
		if c.parent != "" {
			p := &h.cats[c.parent].ID
			in.ParentID = &p
		} else {
			in.Classification = &c.class
		}
		cat, err := models.CreateCategory(context.Background(), d, u.FamilyID, in)
		if err != nil {
			t.Fatal(err)
		}
		h.cats[c.name] = cat
	}
	return h
}

// spend writes a transaction and returns its id: category "" for none, kind "" for standard.
func (h *household) spend(t *testing.T, date, amount, category string, opts ...string) uuid.UUID {
	t.Helper()
	var cat *uuid.UUID
	if category != "" {
		cat = &h.cats[category].ID
	}
	kind, currency, excluded := "standard", "USD", false
	for _, o := range opts {
		switch {
		case o == "excluded":
			excluded = true
		case len(o) == 3 && strings.ToUpper(o) == o:
			currency = o
		default:
			kind = o
		}
	}
	id := uuid.Must(uuid.NewV7())
	if _, err := h.d.NewRaw(`INSERT INTO entries (id, family_id, account_id, kind, date, amount, currency, name, category_id, transaction_kind, excluded)
		VALUES (?, ?, ?, 'transaction', ?, ?, ?, 'spend', ?, ?, ?)`,
		id, h.fam.ID, h.acct.ID, date, amount, currency, cat, kind, excluded).Exec(context.Background()); err != nil {
		t.Fatal(err)
	}
	return id
}

func (h *household) exec(t *testing.T, query string, args ...any) {
	t.Helper()
	if _, err := h.d.NewRaw(query, args...).Exec(context.Background()); err != nil {
		t.Fatal(err)
	}
}

func month(s string) reports.Month {
	m, err := reports.ParseMonth("month", s)
	if err != nil {
		panic(err)
	}
	return m
}

func dec(s string) decimal.Decimal { return decimal.RequireFromString(s) }

func day(s string) time.Time {
	d, err := time.Parse(time.DateOnly, s)
	if err != nil {
		panic(err)
	}
	return d
}

// figures writes a month's categories as "Name budgeted/spent/carried/available", one per
// category in the page's order, with "-" for no category.
func figures(m *budgets.Month) string {
	var parts []string
	for _, c := range m.Categories {
		name := c.Name
		if c.ID == nil {
			name = "-"
		}
		parts = append(parts, fmt.Sprintf("%s %s/%s/%s/%s", name, c.Budgeted.StringFixed(2), c.Spent.StringFixed(2),
			c.Carried.StringFixed(2), c.Available.StringFixed(2)))
	}
	return strings.Join(parts, ", ")
}

func (h *household) month(t *testing.T, s *budgets.Service, m string, today string) *budgets.Month {
	t.Helper()
	got, err := s.Month(context.Background(), h.fam, models.FamilyViewer(h.fam.ID), month(m), day(today))
	if err != nil {
		t.Fatal(err)
	}
	return got
}

func (h *household) put(t *testing.T, s *budgets.Service, m string, income string, lines ...any) {
	t.Helper()
	var plan budgets.Plan
	if income != "" {
		v := dec(income)
		plan.ExpectedIncome = &v
	}
	for i := 0; i < len(lines); i += 2 {
		plan.Lines = append(plan.Lines, budgets.Line{CategoryID: h.cats[lines[i].(string)].ID, Budgeted: dec(lines[i+1].(string))})
	}
	if err := s.Put(context.Background(), h.fam, month(m), plan); err != nil {
		t.Fatal(err)
	}
}

// TestSpentAgreesWithTheSpendingReport writes every kind of transaction the spending report
// tells apart (refunds, income, transfers of every kind, excluded ones, split parts, another
// currency at the family's own rate, no category) and checks that the budget's spent is the
// report's, category by category and in total, for each month, also after transactions are
// edited, recategorised and deleted. Both convert by reports.MonthConverter.
func TestSpentAgreesWithTheSpendingReport(t *testing.T) {
	ctx := context.Background()
	d := testkit.MustOpenDB(t)
	h := newHousehold(t, d)
	other := newHousehold(t, d)
	h.exec(t, `INSERT INTO exchange_rates (id, family_id, date, base, quote, rate, source) VALUES (gen_random_uuid(), ?, '2026-01-01', 'EUR', 'USD', 1.1, 'family')`, h.fam.ID)
	h.spend(t, "2026-10-01", "100", "Groceries")
	h.spend(t, "2026-10-12", "-30", "Groceries") // a refund
	h.spend(t, "2026-10-05", "40.25", "Restaurants")
	h.spend(t, "2026-10-05", "60", "Food")
	h.spend(t, "2026-10-06", "25", "")
	h.spend(t, "2026-10-08", "-1000", "")
	h.spend(t, "2026-10-09", "-3000", "Salary")
	h.spend(t, "2026-10-09", "15", "Salary") // money out in an income category is spending
	for _, kind := range models.TransferKinds {
		h.spend(t, "2026-10-10", "500", "Groceries", kind)
	}
	h.spend(t, "2026-10-10", "-70", "Rent", "one_time")
	h.spend(t, "2026-10-13", "999", "Groceries", "excluded")
	h.spend(t, "2026-10-14", "12.34", "Groceries", "EUR")
	split := h.spend(t, "2026-10-20", "60", "Food")
	h.exec(t, `INSERT INTO entries (id, family_id, account_id, kind, date, amount, currency, name, category_id, parent_id)
		VALUES (gen_random_uuid(), ?, ?, 'transaction', '2026-10-20', 60, 'USD', 'part', ?, ?)`, h.fam.ID, h.acct.ID, h.cats["Rent"].ID, split)
	h.spend(t, "2026-09-30", "80", "Groceries")
	// Both reckon an amount in the family's currency as it is, finer than a cent, beside
	// another currency as alone.
	h.spend(t, "2026-09-15", "0.125", "Groceries")
	h.spend(t, "2026-09-16", "1", "Restaurants", "EUR")
	h.spend(t, "2026-11-01", "7", "Rent")
	other.spend(t, "2026-10-03", "777", "Groceries")
	s := &budgets.Service{DB: d}

	check := func(t *testing.T, m string) {
		t.Helper()
		list, err := reports.MonthSpending(ctx, d, models.FamilyViewer(h.fam.ID), month(m))
		if err != nil {
			t.Fatal(err)
		}
		list, _, err = reports.InCurrency(ctx, d, h.fam.ID, h.fam.Currency, list, day("2026-11-15"))
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]decimal.Decimal{}
		var total decimal.Decimal
		if len(list) > 0 {
			for _, c := range list[0].Categories {
				key := "-"
				if c.CategoryID != nil {
					key = c.CategoryID.String()
				}
				want[key] = c.Amount
			}
			total = list[0].Total
		}
		b := h.month(t, s, m, "2026-11-15")
		if !b.Spent.Equal(total) {
			t.Errorf("%s: budget spent %s, spending report %s", m, b.Spent, total)
		}
		for _, c := range b.Categories {
			key, own := "-", c.Spent
			if c.ID != nil {
				key = c.ID.String()
				for _, k := range b.Categories { // a parent's spent holds its subcategories'
					if k.ParentID != nil && *k.ParentID == *c.ID {
						own = own.Sub(k.Spent)
					}
				}
			}
			if !own.Equal(want[key]) {
				t.Errorf("%s: %s spent %s, spending report %s", m, c.Name, own, want[key])
			}
			delete(want, key)
		}
		for key, v := range want {
			if !v.IsZero() {
				t.Errorf("%s: the spending report has %s for %s, the budget no row", m, v, key)
			}
		}
	}
	for _, m := range []string{"2026-09", "2026-10", "2026-11"} {
		check(t, m)
	}
	if got := h.month(t, s, "2026-10", "2026-11-15"); got.Spent.StringFixed(2) != "213.82" || got.Income.StringFixed(2) != "4000.00" {
		t.Errorf("October spent %s and income %s, want 213.82 (13.57 of it EUR) and 4000.00", got.Spent, got.Income)
	}

	t.Run("edits of past transactions move the figures at once", func(t *testing.T) {
		h.exec(t, `UPDATE entries SET amount = amount + 1 WHERE family_id = ? AND date = '2026-10-01'`, h.fam.ID)
		h.exec(t, `UPDATE entries SET category_id = ? WHERE family_id = ? AND date = '2026-10-06'`, h.cats["Insurance"].ID, h.fam.ID)
		h.exec(t, `UPDATE entries SET excluded = true WHERE family_id = ? AND date = '2026-10-05' AND amount = 60`, h.fam.ID)
		h.exec(t, `UPDATE entries SET transaction_kind = 'funds_movement' WHERE family_id = ? AND date = '2026-10-09' AND amount = 15`, h.fam.ID)
		h.exec(t, `DELETE FROM entries WHERE family_id = ? AND date = '2026-10-12'`, h.fam.ID)
		h.exec(t, `UPDATE entries SET date = '2026-10-30' WHERE family_id = ? AND date = '2026-11-01'`, h.fam.ID)
		h.exec(t, `UPDATE categories SET classification = 'income' WHERE id = ?`, h.cats["Rent"].ID)
		for _, m := range []string{"2026-09", "2026-10", "2026-11"} {
			check(t, m)
		}
	})
	t.Run("a deleted family leaves no totals", func(t *testing.T) {
		other.exec(t, `DELETE FROM families WHERE id = ?`, other.fam.ID)
		var n int
		if err := d.NewRaw(`SELECT count(*) FROM category_month_totals WHERE family_id = ?`, other.fam.ID).Scan(ctx, &n); err != nil || n != 0 {
			t.Errorf("%d rows left, %v", n, err)
		}
	})
}

// TestGroupsAndTotals checks that a parent's figures hold its subcategories' without counting
// any money twice, and the month's totals: left to budget against the expected income, or the
// income received when none is set, going negative when over-planned.
func TestGroupsAndTotals(t *testing.T) {
	d := testkit.MustOpenDB(t)
	h := newHousehold(t, d)
	s := &budgets.Service{DB: d}
	h.spend(t, "2026-11-02", "120", "Groceries")
	h.spend(t, "2026-11-03", "30", "Food")
	h.spend(t, "2026-11-04", "900", "Rent")
	h.spend(t, "2026-11-05", "-2500", "Salary")
	h.put(t, s, "2026-11", "", "Food", "500", "Groceries", "300", "Rent", "900")

	got := h.month(t, s, "2026-11", "2026-11-10")
	want := "Food 500.00/150.00/0.00/350.00, Groceries 300.00/120.00/0.00/180.00, Restaurants 0.00/0.00/0.00/0.00, " +
		"Insurance 0.00/0.00/0.00/0.00, Rent 900.00/900.00/0.00/0.00"
	if f := figures(got); f != want {
		t.Errorf("categories\n got %s\nwant %s", f, want)
	}
	if got.Budgeted.StringFixed(2) != "1400.00" || got.Spent.StringFixed(2) != "1050.00" || got.LeftToSpend.StringFixed(2) != "350.00" ||
		got.LeftToBudget.StringFixed(2) != "1100.00" {
		t.Errorf("budgeted %s, spent %s, left to spend %s, left to budget %s (from income %s)", got.Budgeted, got.Spent, got.LeftToSpend, got.LeftToBudget, got.Income)
	}

	// Subcategories budgeted beyond their parent's line make the group's budget.
	h.put(t, s, "2026-11", "1000", "Food", "100", "Groceries", "300", "Restaurants", "50", "Rent", "900")
	got = h.month(t, s, "2026-11", "2026-11-10")
	if food := got.Category(h.cats["Food"].ID); food.Budgeted.StringFixed(2) != "350.00" || food.Line.StringFixed(2) != "100.00" {
		t.Errorf("Food's group budget %s (line %s), want 350 from its subcategories", food.Budgeted, food.Line)
	}
	if got.Budgeted.StringFixed(2) != "1250.00" || got.LeftToBudget.StringFixed(2) != "-250.00" {
		t.Errorf("budgeted %s, left to budget %s: want 1250 and -250 against an expected 1000", got.Budgeted, got.LeftToBudget)
	}
	var total decimal.Decimal
	if err := d.NewRaw(`SELECT budgeted_spending FROM budgets WHERE family_id = ?`, h.fam.ID).Scan(context.Background(), &total); err != nil || total.StringFixed(2) != "1250.00" {
		t.Errorf("the stored budgeted_spending is %s (%v), want 1250.00", total, err)
	}
}

// TestRollover follows a category through months under each setting: off starts fresh,
// surplus carries only what was left, both carries an overspend as a negative; the carry is
// computed, so a setting changed or a past transaction edited moves it at once.
func TestRollover(t *testing.T) {
	d := testkit.MustOpenDB(t)
	h := newHousehold(t, d)
	s := &budgets.Service{DB: d}
	for _, m := range []string{"2026-08", "2026-09", "2026-10", "2026-11"} {
		h.put(t, s, m, "", "Groceries", "100", "Rent", "900")
	}
	h.spend(t, "2026-07-15", "500", "Groceries") // before the first budget: never carried
	h.spend(t, "2026-08-15", "60", "Groceries")  // 40 left
	late := h.spend(t, "2026-09-15", "150", "Groceries")
	h.spend(t, "2026-10-15", "70", "Groceries")
	carried := func(t *testing.T, setting, want string) {
		t.Helper()
		if err := s.SetCategory(context.Background(), h.fam, month("2026-11"), h.cats["Groceries"].ID, budgets.Change{Rollover: &setting}); err != nil {
			t.Fatal(err)
		}
		got := h.month(t, s, "2026-11", "2026-11-20").Category(h.cats["Groceries"].ID)
		if got.Carried.StringFixed(2) != want || got.Rollover != setting {
			t.Errorf("%s: carried %s, want %s", setting, got.Carried, want)
		}
	}
	carried(t, budgets.RolloverOff, "0.00")
	// Surplus: Aug leaves 40, Sep 100+40-150 = -10 → 0, Oct 100-70 = 30.
	carried(t, budgets.RolloverSurplus, "30.00")
	// Both: 40, then -10, then 100-10-70 = 20.
	carried(t, budgets.RolloverBoth, "20.00")
	h.exec(t, `UPDATE entries SET amount = 100 WHERE id = ?`, late)
	// Both, with September at 100: 40, 40, 70.
	carried(t, budgets.RolloverBoth, "70.00")
	// Food's own rollover is off, but its group holds what Groceries carries.
	if food := h.month(t, s, "2026-11", "2026-11-20").Category(h.cats["Food"].ID); food.Carried.StringFixed(2) != "70.00" {
		t.Errorf("Food carries %s, want its subcategory's 70", food.Carried)
	}
}

// TestCarryWalksTheMonthsThatHoldSomething is a family that budgeted groceries in 1970-01 and
// again in 2026-12, with spending in 1970-01 and 1999-07 alone between: reading 2026-12 walks
// those two months, not the 683 of the calendar, and carries across the empty years what each
// setting carries, a surplus unchanged and under both an overspend too.
func TestCarryWalksTheMonthsThatHoldSomething(t *testing.T) {
	d := testkit.MustOpenDB(t)
	h := newHousehold(t, d)
	s := &budgets.Service{DB: d}
	h.put(t, s, "1970-01", "", "Groceries", "100")
	h.put(t, s, "2026-12", "", "Groceries", "50")
	first := h.spend(t, "1970-01-15", "30", "Groceries")
	h.spend(t, "1999-07-04", "10", "Groceries")
	groceries := h.cats["Groceries"].ID
	carried := func(t *testing.T, setting, want string) {
		t.Helper()
		if err := s.SetCategory(context.Background(), h.fam, month("2026-12"), groceries, budgets.Change{Rollover: &setting}); err != nil {
			t.Fatal(err)
		}
		m, walked, err := s.MonthWalked(context.Background(), h.fam, month("2026-12"), day("2026-12-15"))
		if err != nil {
			t.Fatal(err)
		}
		if got := m.Category(groceries); got.Carried.StringFixed(2) != want || got.Available.StringFixed(2) != dec(want).Add(dec("50")).StringFixed(2) {
			t.Errorf("%s: carried %s, available %s; want %s carried", setting, got.Carried, got.Available, want)
		}
		// One category carries: it walks 1970-01 and 1999-07, the months before 2026-12 that hold something.
		if walked != 2 {
			t.Errorf("%s: the carry walked %d months, want the 2 that hold a line or spending", setting, walked)
		}
	}
	// 100 - 30 = 70 left in 1970, less 10 in 1999: 60, whichever way it carries.
	carried(t, budgets.RolloverSurplus, "60.00")
	carried(t, budgets.RolloverBoth, "60.00")
	// 150 spent in 1970: 50 over, and 10 more in 1999.
	h.exec(t, `UPDATE entries SET amount = 150 WHERE id = ?`, first)
	carried(t, budgets.RolloverSurplus, "0.00")
	carried(t, budgets.RolloverBoth, "-60.00")
}

// TestPutIsAllOrNone sends a month with one good line and problems on every other field, and
// finds every problem named and nothing written.
func TestPutIsAllOrNone(t *testing.T) {
	d := testkit.MustOpenDB(t)
	h := newHousehold(t, d)
	other := newHousehold(t, d)
	s := &budgets.Service{DB: d}
	h.put(t, s, "2026-11", "100", "Rent", "900")
	neg := dec("-1")
	err := s.Put(context.Background(), h.fam, month("2026-11"), budgets.Plan{ExpectedIncome: &neg, Lines: []budgets.Line{
		{CategoryID: h.cats["Rent"].ID, Budgeted: dec("800")},
		{CategoryID: other.cats["Rent"].ID, Budgeted: dec("10")},
		{CategoryID: h.cats["Food"].ID, Budgeted: dec("10.123")},
		{CategoryID: h.cats["Rent"].ID, Budgeted: dec("1")},
	}})
	e := apperr.As(err)
	if e == nil || e.Code != apperr.Invalid {
		t.Fatalf("err %v, want a validation error", err)
	}
	for _, f := range []string{"expected_income", "categories[1].category_id", "categories[2].budgeted", "categories[3].category_id"} {
		if len(e.Fields[f]) == 0 {
			t.Errorf("no problem on %s: %v", f, e.Fields)
		}
	}
	got := h.month(t, s, "2026-11", "2026-11-10")
	if rent := got.Category(h.cats["Rent"].ID); rent.Budgeted.StringFixed(2) != "900.00" || got.ExpectedIncome.StringFixed(2) != "100.00" {
		t.Errorf("the refused PUT changed the month: rent %s, income %s", rent.Budgeted, got.ExpectedIncome)
	}
	// A PUT replaces the month: a category it leaves out has no amount.
	h.put(t, s, "2026-11", "", "Food", "50")
	if got := h.month(t, s, "2026-11", "2026-11-10"); got.ExpectedIncome != nil || !got.Category(h.cats["Rent"].ID).Budgeted.IsZero() {
		t.Errorf("after a PUT of Food alone: income %v, rent %s", got.ExpectedIncome, got.Category(h.cats["Rent"].ID).Budgeted)
	}
}

// TestMoveAndUndo moves money between two categories, refuses a move beyond what is
// budgeted, another family's category and a second undo, and undoes the move.
func TestMoveAndUndo(t *testing.T) {
	ctx := context.Background()
	d := testkit.MustOpenDB(t)
	h := newHousehold(t, d)
	other := newHousehold(t, d)
	s := &budgets.Service{DB: d}
	h.put(t, s, "2026-11", "", "Groceries", "300", "Rent", "900")
	mv, err := s.Move(ctx, h.fam, h.u.ID, month("2026-11"), budgets.MoveInput{From: h.cats["Rent"].ID, To: h.cats["Insurance"].ID, Amount: dec("45"), Reason: "premium went up"})
	if err != nil {
		t.Fatal(err)
	}
	got := h.month(t, s, "2026-11", "2026-11-10")
	if got.Category(h.cats["Rent"].ID).Budgeted.StringFixed(2) != "855.00" || got.Category(h.cats["Insurance"].ID).Budgeted.StringFixed(2) != "45.00" ||
		got.Budgeted.StringFixed(2) != "1200.00" {
		t.Errorf("after the move: %s; budgeted %s", figures(got), got.Budgeted)
	}
	moves, err := s.Moves(ctx, h.fam.ID, month("2026-11"))
	if err != nil || len(moves) != 1 || moves[0].Reason != "premium went up" || moves[0].ByName != h.u.Email || moves[0].FromName != "Rent" {
		t.Errorf("moves %+v, %v", moves, err)
	}
	for name, in := range map[string]budgets.MoveInput{
		"amount":           {From: h.cats["Groceries"].ID, To: h.cats["Rent"].ID, Amount: dec("300.01")},
		"to_category_id":   {From: h.cats["Groceries"].ID, To: other.cats["Rent"].ID, Amount: dec("1")},
		"from_category_id": {From: other.cats["Rent"].ID, To: h.cats["Rent"].ID, Amount: dec("1")},
	} {
		if _, err := s.Move(ctx, h.fam, h.u.ID, month("2026-11"), in); len(apperr.As(err).Fields[name]) == 0 {
			t.Errorf("%s: %v, want a problem with it", name, err)
		}
	}
	if err := s.UndoMove(ctx, other.fam, other.u.ID, month("2026-11"), mv.ID); apperr.CodeOf(err) != apperr.NotFound {
		t.Errorf("another family undid the move: %v", err)
	}
	if err := s.UndoMove(ctx, h.fam, h.u.ID, month("2026-11"), mv.ID); err != nil {
		t.Fatal(err)
	}
	if err := s.UndoMove(ctx, h.fam, h.u.ID, month("2026-11"), mv.ID); apperr.CodeOf(err) != apperr.Conflict {
		t.Errorf("a second undo: %v", err)
	}
	got = h.month(t, s, "2026-11", "2026-11-10")
	if got.Category(h.cats["Rent"].ID).Budgeted.StringFixed(2) != "900.00" || !got.Category(h.cats["Insurance"].ID).Budgeted.IsZero() {
		t.Errorf("after the undo: %s", figures(got))
	}
}

// TestFill fills a month from the months before by each strategy, and a goal.
func TestFill(t *testing.T) {
	ctx := context.Background()
	d := testkit.MustOpenDB(t)
	h := newHousehold(t, d)
	s := &budgets.Service{DB: d}
	h.put(t, s, "2026-10", "3000", "Rent", "900", "Groceries", "250")
	for i, m := range []string{"2025-11", "2025-12", "2026-01", "2026-02", "2026-03", "2026-04", "2026-05", "2026-06", "2026-07", "2026-08", "2026-09", "2026-10"} {
		h.spend(t, m+"-10", fmt.Sprint(100+10*i), "Groceries")
		h.spend(t, m+"-11", "20", "Restaurants")
	}
	h.spend(t, "2026-10-12", "-500", "Rent") // a refund bigger than the month's rent: zero, not negative
	fill := func(t *testing.T, f budgets.Fill) *budgets.Month {
		t.Helper()
		if err := s.Fill(ctx, h.fam, models.FamilyViewer(h.fam.ID), month("2026-11"), f, day("2026-11-03")); err != nil {
			t.Fatal(err)
		}
		return h.month(t, s, "2026-11", "2026-11-03")
	}
	line := func(m *budgets.Month, name string) string { return m.Category(h.cats[name].ID).Line.StringFixed(2) }

	got := fill(t, budgets.Fill{Strategy: budgets.FillLastBudget})
	if line(got, "Rent") != "900.00" || line(got, "Groceries") != "250.00" || got.ExpectedIncome.StringFixed(2) != "3000.00" {
		t.Errorf("last_budget: rent %s, groceries %s, income %v", line(got, "Rent"), line(got, "Groceries"), got.ExpectedIncome)
	}
	got = fill(t, budgets.Fill{Strategy: budgets.FillLastSpent})
	if line(got, "Groceries") != "210.00" || line(got, "Food") != "230.00" || line(got, "Rent") != "0.00" {
		t.Errorf("last_spent: groceries %s, food %s, rent %s", line(got, "Groceries"), line(got, "Food"), line(got, "Rent"))
	}
	got = fill(t, budgets.Fill{Strategy: budgets.FillAverage3})
	if line(got, "Groceries") != "200.00" || line(got, "Food") != "220.00" {
		t.Errorf("average_3: groceries %s, food %s", line(got, "Groceries"), line(got, "Food"))
	}
	got = fill(t, budgets.Fill{Strategy: budgets.FillAverage12, CategoryID: &h.cats["Groceries"].ID})
	if line(got, "Groceries") != "155.00" || line(got, "Food") != "220.00" {
		t.Errorf("average_12 of Groceries alone: groceries %s, food %s (unchanged)", line(got, "Groceries"), line(got, "Food"))
	}
	by := month("2027-10")
	got = fill(t, budgets.Fill{Strategy: budgets.FillGoal, CategoryID: &h.cats["Insurance"].ID, Target: testkit.Ptr(dec("600")), By: &by})
	if ins := got.Category(h.cats["Insurance"].ID); ins.Line.StringFixed(2) != "50.00" || ins.Rollover != budgets.RolloverSurplus {
		t.Errorf("a goal of 600 by 2027-10 in 12 months: %s a month, rollover %s", ins.Line, ins.Rollover)
	}
	for field, f := range map[string]budgets.Fill{
		"strategy": {Strategy: "median"},
		"target":   {Strategy: budgets.FillGoal, CategoryID: &h.cats["Insurance"].ID, By: &by},
		"by":       {Strategy: budgets.FillGoal, CategoryID: &h.cats["Insurance"].ID, Target: testkit.Ptr(dec("1")), By: testkit.Ptr(month("2026-10"))},
	} {
		if err := s.Fill(ctx, h.fam, models.FamilyViewer(h.fam.ID), month("2026-11"), f, day("2026-11-03")); len(apperr.As(err).Fields[field]) == 0 {
			t.Errorf("%s: %v, want a problem with it", field, err)
		}
	}
}

// bills is the recurring series a budget test expects, by category: a stand-in for the seam
// with the recurring series, whose real implementation lives elsewhere.
type bills map[uuid.UUID]budgets.Expected

func (b bills) ExpectedByCategory(context.Context, bun.IDB, models.Viewer, reports.Month, time.Time) (map[uuid.UUID]budgets.Expected, error) {
	return b, nil
}

// TestForecast checks the month's end at this pace: spent, plus the bills to come, plus the
// variable spending at its pace so far; and the statuses it gives.
func TestForecast(t *testing.T) {
	d := testkit.MustOpenDB(t)
	h := newHousehold(t, d)
	s := &budgets.Service{DB: d, Bills: bills{
		h.cats["Groceries"].ID: {Paid: dec("30"), Upcoming: dec("45")},
		h.cats["Rent"].ID:      {Upcoming: dec("900")},
		h.cats["Salary"].ID:    {Upcoming: dec("-3000")},
	}}
	h.put(t, s, "2026-11", "", "Groceries", "500", "Rent", "900", "Insurance", "100")
	h.spend(t, "2026-11-02", "30", "Groceries") // the series' payment
	h.spend(t, "2026-11-05", "180", "Groceries")
	h.spend(t, "2026-11-06", "95", "Insurance")
	got := h.month(t, s, "2026-11", "2026-11-10")
	g := got.Category(h.cats["Groceries"].ID)
	// 210 spent, 45 to come, 180 variable in 10 days of 30: 360 more.
	if g.Forecast.StringFixed(2) != "615.00" || g.Upcoming.StringFixed(2) != "45.00" || g.Status != budgets.StatusNear {
		t.Errorf("Groceries: forecast %s, upcoming %s, status %s; want 615.00, 45.00, near", g.Forecast, g.Upcoming, g.Status)
	}
	if food := got.Category(h.cats["Food"].ID); food.Upcoming.StringFixed(2) != "45.00" {
		t.Errorf("Food's upcoming %s, want its subcategory's 45", food.Upcoming)
	}
	if r := got.Category(h.cats["Rent"].ID); r.Forecast.StringFixed(2) != "900.00" || r.Status != budgets.StatusOnTrack {
		t.Errorf("Rent: forecast %s, status %s", r.Forecast, r.Status)
	}
	if got.Bills.StringFixed(2) != "945.00" {
		t.Errorf("bills still to come %s, want 945 (income is not a bill)", got.Bills)
	}
	h.spend(t, "2026-11-07", "10", "Insurance")
	if ins := h.month(t, s, "2026-11", "2026-11-10").Category(h.cats["Insurance"].ID); ins.Status != budgets.StatusOver {
		t.Errorf("Insurance spent 105 of 100: %s", ins.Status)
	}
	if past := h.month(t, s, "2026-11", "2026-12-02").Category(h.cats["Groceries"].ID); past.Forecast.StringFixed(2) != "210.00" {
		t.Errorf("a month that is over ends at what it spent: %s", past.Forecast)
	}
}
