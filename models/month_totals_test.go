package models_test

import (
	"context"
	"slices"
	"testing"

	"tally/models"
	"tally/testkit"
)

// TestMonthTotalsFollowEntries changes entries every way the app does (many rows in one
// statement, amounts and dates across months, another account, pending, split parts, trades,
// deletes, a deleted account) and checks after each that account_month_totals holds what
// summing the entries gives.
func TestMonthTotalsFollowEntries(t *testing.T) {
	ctx := context.Background()
	d := testkit.MustOpenDB(t)
	u := testkit.MustCreateUser(t, d, testkit.UserOpts{})
	a := testkit.MustCreateAccount(t, d, u.FamilyID, "Checking", "Depository", "")
	b := testkit.MustCreateAccount(t, d, u.FamilyID, "Savings", "Depository", "")
	check := func(step string) {
		t.Helper()
		var kept, summed []string
		if err := d.NewRaw(`SELECT account_id || ' ' || month || ' ' || amount || ' ' || posted FROM account_month_totals
			WHERE account_id IN (?, ?) AND (amount <> 0 OR posted <> 0) ORDER BY 1`, a.ID, b.ID).Scan(ctx, &kept); err != nil {
			t.Fatal(err)
		}
		if err := d.NewRaw(`SELECT account_id || ' ' || date_trunc('month', date)::date || ' ' || sum(amount)::numeric(19,4) || ' ' ||
				coalesce(sum(amount) FILTER (WHERE NOT pending), 0)::numeric(19,4)
			FROM entries WHERE account_id IN (?, ?) AND kind = 'transaction' AND parent_id IS NULL
			GROUP BY account_id, date_trunc('month', date) HAVING sum(amount) <> 0 OR coalesce(sum(amount) FILTER (WHERE NOT pending), 0) <> 0
			ORDER BY 1`, a.ID, b.ID).Scan(ctx, &summed); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(kept, summed) {
			t.Fatalf("%s: the totals\n%v\ndo not match the entries\n%v", step, kept, summed)
		}
	}
	exec := func(step, query string, args ...any) {
		t.Helper()
		if _, err := d.NewRaw(query, args...).Exec(ctx); err != nil {
			t.Fatalf("%s: %v", step, err)
		}
		check(step)
	}

	exec("many rows in one statement", `INSERT INTO entries (id, family_id, account_id, kind, date, amount, currency, name, pending)
		SELECT gen_random_uuid(), ?, CASE WHEN i % 2 = 0 THEN ?::uuid ELSE ?::uuid END, CASE WHEN i % 7 = 0 THEN 'trade' ELSE 'transaction' END,
			date '2026-01-15' + i, i, 'USD', 'n' || i, i % 5 = 0
		FROM generate_series(1, 120) AS i`, u.FamilyID, a.ID, b.ID)
	exec("split parts", `INSERT INTO entries (id, family_id, account_id, kind, date, amount, currency, name, parent_id)
		SELECT gen_random_uuid(), family_id, account_id, 'transaction', date, amount / 2, currency, 'part', id
		FROM entries WHERE account_id = ? AND kind = 'transaction' AND parent_id IS NULL ORDER BY date LIMIT 3`, a.ID)
	exec("amounts change", `UPDATE entries SET amount = amount * 3 WHERE account_id = ? AND name LIKE 'n1%'`, a.ID)
	exec("dates move across months", `UPDATE entries SET date = date + 40 WHERE account_id = ? AND amount < 30`, b.ID)
	exec("another account", `UPDATE entries SET account_id = ? WHERE account_id = ? AND name LIKE 'n3%'`, b.ID, a.ID)
	exec("pending posts", `UPDATE entries SET pending = NOT pending WHERE family_id = ? AND date < '2026-03-01'`, u.FamilyID)
	exec("names only", `UPDATE entries SET name = upper(name) WHERE family_id = ?`, u.FamilyID)
	exec("deletes", `DELETE FROM entries WHERE family_id = ? AND amount::int % 3 = 0`, u.FamilyID)
	if _, err := models.DeleteAccount(ctx, d, u, models.FamilyViewer(u.FamilyID), b.ID, b.Name); err != nil {
		t.Fatal(err)
	}
	check("a deleted account")
	var left int
	if err := d.NewRaw("SELECT count(*) FROM account_month_totals WHERE account_id = ?", b.ID).Scan(ctx, &left); err != nil || left != 0 {
		t.Errorf("%d totals of a deleted account are left (%v)", left, err)
	}
}
