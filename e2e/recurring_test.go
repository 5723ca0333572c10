package e2e

import (
	"context"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/google/uuid"

	"tally/app/apptest"
	"tally/recurring"
	"tally/testkit"
)

// TestRecurringPage is a person checking the series Tally found in the history: the weekly gym
// is confirmed and the streaming subscription ignored in place, the gym's amount is edited
// (a wrong amount is named under its field), and the confirmed gym shows on the dashboard's
// "Coming up" and in the checking account's forecast.
func TestRecurringPage(t *testing.T) {
	t.Parallel()
	ctx := newTab(t)
	srv := startServer(t, apptest.ServerOptions{NoWorker: true})
	bg := context.Background()
	u := testkit.MustCreateUser(t, srv.DB, testkit.UserOpts{})
	checking := testkit.MustCreateAccount(t, srv.DB, u.FamilyID, "Checking", "Depository", "100").ID
	today := time.Now().UTC().Truncate(24 * time.Hour)
	txn := func(date time.Time, amount, name string) {
		if _, err := srv.DB.NewRaw(`INSERT INTO entries (id, family_id, account_id, kind, date, amount, currency, name)
			VALUES (?, ?, ?, 'transaction', ?, ?::numeric, 'USD', ?)`, uuid.Must(uuid.NewV7()), u.FamilyID, checking,
			date.Format(time.DateOnly), amount, name).Exec(bg); err != nil {
			t.Fatal(err)
		}
	}
	for k := 1; k <= 10; k++ {
		txn(today.AddDate(0, 0, 3-7*k), "20", "Gym membership")
	}
	for k := 1; k <= 6; k++ {
		txn(today.AddDate(0, -k, 0), "12.99", "Streamflix")
	}
	// What the job after an import or a sync does.
	var svc recurring.Service
	if res, err := svc.Detect(bg, srv.DB, u.FamilyID, today); err != nil || res.Created != 2 {
		t.Fatalf("detect: %+v, %v", res, err)
	}

	step(t, "the proposed series are confirmed and ignored in place", func(t *testing.T) {
		signInAs(t, ctx, srv, u.Email)
		clickNav(t, ctx, "recurring")
		visible(t, ctx, "recurring-proposed")
		visible(t, ctx, "recurring-confirmed-empty")
		if n := count(t, ctx, "recurring-row"); n != 2 {
			t.Fatalf("%d series listed, want 2", n)
		}
		shot(t, ctx, "recurring-proposed")
		run(t, ctx, "confirm the gym", chromedp.Click(chromedp.CSS(`button[aria-label="Confirm Gym membership"]`)))
		run(t, ctx, "the gym's row turns confirmed", chromedp.WaitVisible(chromedp.CSS(`tr[data-status="confirmed"] button[aria-label="Ignore Gym membership"]`)))
		run(t, ctx, "ignore the streaming", chromedp.Click(chromedp.CSS(`button[aria-label="Ignore Streamflix"]`)))
		run(t, ctx, "the streaming's row turns ignored", chromedp.WaitVisible(chromedp.CSS(`tr[data-status="ignored"] button[aria-label="Confirm Streamflix"]`)))
		visit(t, ctx, srv.URL+"/recurring")
		visible(t, ctx, "recurring-proposed-empty")
		visible(t, ctx, "recurring-confirmed")
		visible(t, ctx, "recurring-ignored")
	})
	step(t, "the gym's amount is edited", func(t *testing.T) {
		run(t, ctx, "edit the gym", chromedp.Click(chromedp.CSS(`a[aria-label="Edit Gym membership"]`)))
		visible(t, ctx, "recurring-form")
		refill(t, ctx, "field-amount", "lots")
		click(t, ctx, "recurring-save")
		wantText(t, ctx, "error-amount", `"lots" is not a number: write it like 1250.00`)
		refill(t, ctx, "field-amount", "25")
		click(t, ctx, "recurring-save")
		waitText(t, ctx, "flash-success", "“Gym membership” saved.", 10*time.Second)
		if !pageContains(t, ctx, "$25.00") {
			t.Error("the page does not show the new amount")
		}
	})
	step(t, "the dashboard and the account's forecast show it", func(t *testing.T) {
		clickNav(t, ctx, "dashboard")
		visible(t, ctx, "coming-up")
		if n := count(t, ctx, "coming-up-bill"); n != 2 {
			t.Errorf("%d bills in the next 14 days, want the gym twice", n)
		}
		wantText(t, ctx, "coming-up-name", "Gym membership")
		shot(t, ctx, "coming-up")
		visit(t, ctx, srv.URL+"/accounts/"+checking.String())
		visible(t, ctx, "forecast")
		if n := count(t, ctx, "forecast-row"); n < 4 {
			t.Errorf("%d payments in the next 30 days, want the gym every week", n)
		}
		shot(t, ctx, "account-forecast")
	})
}
