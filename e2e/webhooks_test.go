package e2e

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"tally/app/apptest"
	"tally/models"
	"tally/testkit"
	"tally/webhooks/webhookstest"
)

// TestWebhooksPage is a family admin adding a webhook on Settings › Webhooks: the secret is
// shown once, an import's event arrives at the receiver signed with it, and its delivery is
// listed on the endpoint's page, where it can be sent again.
func TestWebhooksPage(t *testing.T) {
	t.Parallel()
	ctx := newTab(t)
	srv := startServer(t, apptest.ServerOptions{Env: map[string]string{"WEBHOOKS_ALLOW_INSECURE": "true"}})
	u := testkit.MustCreateUser(t, srv.DB, testkit.UserOpts{})
	acct := testkit.MustCreateAccount(t, srv.DB, u.FamilyID, "Girokonto", "Depository", "")
	key := testkit.MustCreateAPIKey(t, srv.DB, u.ID, models.ScopeReadWrite)
	rcv := webhookstest.New(t)
	var secret string

	step(t, "open the webhooks page from the sidebar", func(t *testing.T) {
		signInAs(t, ctx, srv, u.Email)
		clickNav(t, ctx, "webhooks")
		visible(t, ctx, "webhooks-empty")
		wantPath(t, ctx, "/settings/webhooks")
	})
	step(t, "a private address is refused on its field", func(t *testing.T) {
		fill(t, ctx, "field-url", "https://10.0.0.7/hooks")
		click(t, ctx, "webhook-create")
		visible(t, ctx, "error-url")
		if got := text(t, ctx, "error-url"); !strings.Contains(got, "private") {
			t.Fatalf("error %q", got)
		}
	})
	step(t, "added, its secret is shown once", func(t *testing.T) {
		run(t, ctx, "clear the URL", chromedp.Clear(testID("field-url")))
		fill(t, ctx, "field-url", rcv.URL)
		fill(t, ctx, "field-description", "Home automation")
		click(t, ctx, "webhook-create")
		visible(t, ctx, "new-webhook")
		secret = inputValue(t, ctx, "webhook-secret")
		if !strings.HasPrefix(secret, "whsec_") {
			t.Fatalf("secret %q", secret)
		}
		rcv.SetSecret(secret)
		if n := count(t, ctx, "webhook-row"); n != 1 {
			t.Fatalf("%d endpoints listed", n)
		}
		wantText(t, ctx, "webhook-status", "Active")
		shot(t, ctx, "webhook-created")

		visit(t, ctx, srv.URL+"/settings/webhooks")
		visible(t, ctx, "webhook-row")
		if count(t, ctx, "new-webhook") != 0 || pageContains(t, ctx, secret) {
			t.Fatal("the secret is shown again")
		}
	})
	step(t, "an import's event arrives, signed, and its delivery is listed", func(t *testing.T) {
		r := apptest.NewClient(t, srv).API(http.MethodPost, "/api/v1/imports", key, map[string]any{
			"account_id": acct.ID, "date_format": "%Y-%m-%d", "publish": true,
			"raw_file_content": "date,amount,name\n2026-03-01,-3.20,Coffee\n"})
		if r.Status != http.StatusCreated {
			t.Fatalf("import: %d %s", r.Status, r.Body)
		}
		got := rcv.WaitFor(t, 1, 20*time.Second)[0]
		if got.SignatureErr != nil || got.Payload.Type != "import.completed" {
			t.Fatalf("the receiver got %s (%v)", got.Body, got.SignatureErr)
		}
		// The page lists the delivery once the worker has recorded the answer.
		deadline := time.Now().Add(20 * time.Second)
		for status := ""; status != "succeeded"; {
			if err := srv.DB.NewRaw("SELECT coalesce(max(status), '') FROM webhook_deliveries").Scan(context.Background(), &status); err != nil {
				t.Fatal(err)
			}
			if time.Now().After(deadline) {
				t.Fatalf("the delivery is %q after 20s", status)
			}
			time.Sleep(50 * time.Millisecond)
		}
		click(t, ctx, "webhook-url")
		visible(t, ctx, "delivery-row")
		wantText(t, ctx, "delivery-event", "import.completed")
		wantText(t, ctx, "delivery-status", "Succeeded")
		wantText(t, ctx, "delivery-response", "200")
		shot(t, ctx, "webhook-deliveries")
	})
	step(t, "sent again, with the same event id", func(t *testing.T) {
		click(t, ctx, "delivery-redeliver")
		visible(t, ctx, "flash-success")
		got := rcv.WaitFor(t, 2, 20*time.Second)
		if got[1].EventID() != got[0].EventID() || got[1].SignatureErr != nil {
			t.Fatalf("redelivered %s, first %s (%v)", got[1].EventID(), got[0].EventID(), got[1].SignatureErr)
		}
		if n := count(t, ctx, "delivery-row"); n != 2 {
			t.Fatalf("%d deliveries listed", n)
		}
	})
	step(t, "paused", func(t *testing.T) {
		click(t, ctx, "webhook-pause")
		visible(t, ctx, "webhook-resume")
		wantText(t, ctx, "webhook-status", "Paused")
	})
}
