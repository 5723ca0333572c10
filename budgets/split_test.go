package budgets_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/google/uuid"

	"tally/budgets"
	"tally/models"
	"tally/reports"
	"tally/testkit"
)

// part writes a part of the split transaction parent: category "" for none.
func (h *household) part(t *testing.T, parent uuid.UUID, amount, category string) uuid.UUID {
	t.Helper()
	var cat *uuid.UUID
	if category != "" {
		cat = &h.cats[category].ID
	}
	id := uuid.Must(uuid.NewV7())
	h.exec(t, `INSERT INTO entries (id, family_id, account_id, kind, date, amount, currency, name, category_id, parent_id, excluded, transaction_kind)
		SELECT ?, family_id, account_id, 'transaction', date, ?, currency, 'part', ?, id, excluded, transaction_kind FROM entries WHERE id = ?`,
		id, amount, cat, parent)
	return id
}

// spentByCategory is each category's own spent of the month (a group's less its
// subcategories'), by name, "-" for none, leaving out those that spent nothing.
func spentByCategory(m *budgets.Month) map[string]string {
	out := map[string]string{}
	for _, c := range m.Categories {
		own, name := c.Spent, "-"
		if c.ID != nil {
			name = c.Name
			for _, k := range m.Categories {
				if k.ParentID != nil && *k.ParentID == *c.ID {
					own = own.Sub(k.Spent)
				}
			}
		}
		if !own.IsZero() {
			out[name] = own.StringFixed(2)
		}
	}
	return out
}

// reportByCategory is the spending report's month, by category name ("-" for none).
func (h *household) reportByCategory(t *testing.T, m string) map[string]string {
	t.Helper()
	list, err := reports.MonthSpending(context.Background(), h.d, models.FamilyViewer(h.fam.ID), month(m))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, s := range list {
		for _, c := range s.Categories {
			name := "-"
			if c.CategoryID != nil {
				name = c.Name[strings.LastIndex(c.Name, " ")+1:] // "Food › Groceries" is Groceries
			}
			if !c.Amount.IsZero() {
				out[name] = c.Amount.StringFixed(2)
			}
		}
	}
	return out
}

// totalsAreARecompute checks the family's category_month_totals, account by account, against
// a sum of its entries by the rule itself, written without the split mark: transactions with no parts and
// the parts, not excluded, not transfers.
func (h *household) totalsAreARecompute(t *testing.T) {
	t.Helper()
	var kept, recomputed []string
	if err := h.d.NewRaw(`SELECT concat_ws('|', account_id, category_id, currency, month, outflow, inflow) FROM category_month_totals
		WHERE family_id = ? AND (outflow <> 0 OR inflow <> 0) ORDER BY 1`, h.fam.ID).Scan(context.Background(), &kept); err != nil {
		t.Fatal(err)
	}
	if err := h.d.NewRaw(`SELECT concat_ws('|', account_id, category_id, currency, month, outflow::numeric(19, 4), inflow::numeric(19, 4)) FROM (
			SELECT account_id, coalesce(category_id, '00000000-0000-0000-0000-000000000000') AS category_id, currency,
				date_trunc('month', date)::date AS month, coalesce(sum(amount) FILTER (WHERE amount > 0), 0) AS outflow,
				coalesce(sum(amount) FILTER (WHERE amount <= 0), 0) AS inflow
			FROM entries e WHERE family_id = ? AND kind = 'transaction' AND NOT excluded
				AND transaction_kind NOT IN ('funds_movement', 'cc_payment', 'loan_payment', 'investment_contribution')
				AND NOT EXISTS (SELECT 1 FROM entries p WHERE p.parent_id = e.id)
			GROUP BY 1, 2, 3, 4) x
		WHERE outflow <> 0 OR inflow <> 0
		ORDER BY 1`, h.fam.ID).Scan(context.Background(), &recomputed); err != nil {
		t.Fatal(err)
	}
	if strings.Join(kept, "\n") != strings.Join(recomputed, "\n") {
		t.Errorf("category_month_totals\n%s\nrecomputed from entries\n%s", strings.Join(kept, "\n"), strings.Join(recomputed, "\n"))
	}
}

// TestSplitCountsUnderItsParts splits a transaction filed under Food across Groceries and
// Rent: the budget month and the spending report count each part under its own category and
// the transaction nowhere, as Actual and YNAB do; excluding the split excludes its parts; and
// through edits of a part, of the transaction, unsplitting, splitting in one statement and
// deleting, the kept totals stay a recompute from the entries.
func TestSplitCountsUnderItsParts(t *testing.T) {
	d := testkit.MustOpenDB(t)
	h := newHousehold(t, d)
	s := &budgets.Service{DB: d}
	h.spend(t, "2026-10-02", "20", "Groceries")
	split := h.spend(t, "2026-10-20", "100", "Food")
	groceries := h.part(t, split, "70", "Groceries")
	rent := h.part(t, split, "30", "Rent")
	check := func(t *testing.T, want string) {
		t.Helper()
		h.totalsAreARecompute(t)
		got, report := spentByCategory(h.month(t, s, "2026-10", "2026-11-15")), h.reportByCategory(t, "2026-10")
		if f := format(got); f != want {
			t.Errorf("the budget's spent: %s, want %s", f, want)
		}
		if f := format(report); f != want {
			t.Errorf("the spending report: %s, want %s", f, want)
		}
	}
	check(t, "Groceries 90.00, Rent 30.00")
	if b := h.month(t, s, "2026-10", "2026-11-15"); b.Spent.StringFixed(2) != "120.00" {
		t.Errorf("the month's spent is %s, want 120.00: the split counts once", b.Spent)
	}

	t.Run("a part's category and amount", func(t *testing.T) {
		h.exec(t, `UPDATE entries SET category_id = ? WHERE id = ?`, h.cats["Insurance"].ID, rent)
		h.exec(t, `UPDATE entries SET amount = CASE WHEN id = ? THEN 60 ELSE 40 END WHERE id IN (?, ?)`, groceries, groceries, rent)
		check(t, "Groceries 80.00, Insurance 40.00")
	})
	t.Run("the transaction's category, exclusion and kind", func(t *testing.T) {
		h.exec(t, `UPDATE entries SET category_id = ? WHERE id = ?`, h.cats["Salary"].ID, split)
		check(t, "Groceries 80.00, Insurance 40.00")
		h.exec(t, `UPDATE entries SET excluded = true WHERE id = ?`, split)
		check(t, "Groceries 20.00")
		h.exec(t, `UPDATE entries SET excluded = false WHERE id = ?`, split)
		check(t, "Groceries 80.00, Insurance 40.00")
		h.exec(t, `UPDATE entries SET excluded = true WHERE id = ?`, rent)
		check(t, "Groceries 80.00")
		h.exec(t, `UPDATE entries SET transaction_kind = 'funds_movement' WHERE id = ?`, split)
		check(t, "Groceries 20.00")
		h.exec(t, `UPDATE entries SET transaction_kind = 'standard', excluded = false WHERE id IN (?, ?)`, split, rent)
		check(t, "Groceries 80.00, Insurance 40.00")
	})
	t.Run("unsplit, then split again in one statement", func(t *testing.T) {
		h.exec(t, `DELETE FROM entries WHERE parent_id = ?`, split)
		check(t, "Groceries 20.00, Salary 100.00")
		h.exec(t, `WITH parent AS (INSERT INTO entries (id, family_id, account_id, kind, date, amount, currency, name, category_id)
				VALUES (?, ?, ?, 'transaction', '2026-10-21', -50, 'USD', 'refund', ?) RETURNING id, family_id, account_id)
			INSERT INTO entries (id, family_id, account_id, kind, date, amount, currency, name, category_id, parent_id)
			SELECT gen_random_uuid(), family_id, account_id, 'transaction', '2026-10-21', x.amount, 'USD', 'part', x.cat, id
			FROM parent, (VALUES (-20::numeric, ?::uuid), (-30, ?::uuid)) x(amount, cat)`,
			uuid.Must(uuid.NewV7()), h.fam.ID, h.acct.ID, h.cats["Rent"].ID, h.cats["Groceries"].ID, h.cats["Restaurants"].ID)
		check(t, "Restaurants -30.00, Salary 100.00") // Groceries: 20 spent, 20 back
		h.part(t, split, "100", "Rent")
		check(t, "Rent 100.00, Restaurants -30.00")
	})
	t.Run("a transaction moved to another account", func(t *testing.T) {
		savings := testkit.MustCreateAccount(t, d, h.fam.ID, "Savings", "Depository", "0")
		h.exec(t, `UPDATE entries SET account_id = ? WHERE parent_id = ? OR id = ?`, savings.ID, split, split)
		check(t, "Rent 100.00, Restaurants -30.00")
		h.exec(t, `UPDATE entries SET account_id = ? WHERE parent_id = ? OR id = ?`, h.acct.ID, split, split)
		check(t, "Rent 100.00, Restaurants -30.00")
	})
	t.Run("deleting split transactions takes their parts", func(t *testing.T) {
		h.exec(t, `DELETE FROM entries WHERE family_id = ? AND parent_id IS NULL AND date >= '2026-10-20'`, h.fam.ID)
		check(t, "Groceries 20.00")
		var left int
		if err := d.NewRaw(`SELECT count(*) FROM category_month_totals WHERE family_id = ? AND (outflow <> 0 OR inflow <> 0)`, h.fam.ID).
			Scan(context.Background(), &left); err != nil || left != 1 {
			t.Errorf("%d month totals left (%v), want Groceries' alone", left, err)
		}
	})
}

// format writes figures by name as "Name amount, ..." in the order of the names.
func format(m map[string]string) string {
	var parts []string
	for name, v := range m {
		parts = append(parts, name+" "+v)
	}
	slices.Sort(parts)
	return strings.Join(parts, ", ")
}
