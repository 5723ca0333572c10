package e2e

import (
	"context"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"tally/app/apptest"
	"tally/models"
	"tally/testkit"
)

// TestTransactionSaysWhoChangedIt is Ben, a member of Jana's household, renaming a
// transaction Jana added: its form then says he changed it, on which day in his date style,
// and the list's "Changed by" filter finds it under his name.
func TestTransactionSaysWhoChangedIt(t *testing.T) {
	t.Parallel()
	ctx := newTab(t)
	srv := startServer(t, apptest.ServerOptions{NoWorker: true})
	bg := context.Background()
	jana := testkit.MustCreateUser(t, srv.DB, testkit.UserOpts{})
	ben := testkit.MustCreateUser(t, srv.DB, testkit.UserOpts{FamilyID: jana.FamilyID, Role: models.RoleMember})
	if _, err := srv.DB.NewRaw(`UPDATE users SET first_name = CASE WHEN id = ? THEN 'Jana' ELSE 'Ben' END, last_name = 'Novak',
		date_format = '%d.%m.%Y' WHERE family_id = ?`, jana.ID, jana.FamilyID).Exec(bg); err != nil {
		t.Fatal(err)
	}
	checking := testkit.MustCreateAccount(t, srv.DB, jana.FamilyID, "Checking", "Depository", "")
	for _, name := range []string{"Bakery", "Pharmacy"} {
		if _, err := srv.DB.NewRaw(`INSERT INTO entries (id, family_id, account_id, kind, date, amount, currency, name, source, updated_by, updated_via)
			VALUES (gen_random_uuid(), ?, ?, 'transaction', '2026-03-01', 4.5, 'USD', ?, 'manual', ?, 'member')`,
			jana.FamilyID, checking.ID, name, jana.ID).Exec(bg); err != nil {
			t.Fatal(err)
		}
	}
	bakery := rowID(t, srv, jana.FamilyID, "Bakery")
	// changedOn is the day of the bakery's last change, as Ben writes dates.
	changedOn := func(t *testing.T) string {
		t.Helper()
		var at time.Time
		if err := srv.DB.NewRaw("SELECT updated_at FROM entries WHERE id = ?", bakery).Scan(bg, &at); err != nil {
			t.Fatal(err)
		}
		return at.UTC().Format("02.01.2006")
	}
	open := func(t *testing.T) {
		t.Helper()
		run(t, ctx, "open the bakery's form", chromedp.Click(`[data-id="`+bakery+`"] [data-testid="tx-name"]`))
		visible(t, ctx, "tx-edit-form")
	}

	step(t, "the form says Jana added it", func(t *testing.T) {
		signInAs(t, ctx, srv, ben.Email)
		visit(t, ctx, srv.URL+"/transactions")
		open(t)
		wantText(t, ctx, "tx-changed-by", "Changed by Jana Novak, "+changedOn(t))
	})
	step(t, "Ben renames it, and the form says so", func(t *testing.T) {
		run(t, ctx, "clear the name", chromedp.Clear(testID("tx-field-name")))
		fill(t, ctx, "tx-field-name", "Bread")
		click(t, ctx, "tx-save")
		visible(t, ctx, "tx-saved")
		open(t)
		wantText(t, ctx, "tx-changed-by", "Changed by Ben Novak, "+changedOn(t))
	})
	step(t, "the list's filter finds what Ben changed", func(t *testing.T) {
		visit(t, ctx, srv.URL+"/transactions")
		choose(t, ctx, "field-changed_by", ben.ID.String())
		click(t, ctx, "tx-apply")
		waitText(t, ctx, "tx-count", "1", actionTimeout)
		wantText(t, ctx, "tx-name", "Bread")
	})
}
