package e2e

import (
	"context"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/google/uuid"

	"tally/app/apptest"
	"tally/testkit"
	"tally/transfers"
)

// TestTransfersPages is a person checking the transfers Tally proposed: a card payment is
// confirmed on the transfers page, unlinked from the account page (and not proposed again), a
// transfer between currencies is linked by hand, and a rule is made from a transaction that
// marks such payments as transfers to the card from then on.
func TestTransfersPages(t *testing.T) {
	t.Parallel()
	ctx := newTab(t)
	srv := startServer(t, apptest.ServerOptions{})
	bg := context.Background()
	u := testkit.MustCreateUser(t, srv.DB, testkit.UserOpts{})
	checking := testkit.MustCreateAccount(t, srv.DB, u.FamilyID, "Checking", "Depository", "").ID
	card := testkit.MustCreateAccount(t, srv.DB, u.FamilyID, "Visa", "CreditCard", "").ID
	euro := testkit.MustCreateAccount(t, srv.DB, u.FamilyID, "Euro savings", "Depository", "").ID
	txn := func(account uuid.UUID, day int, amount, currency, name string) uuid.UUID {
		id := uuid.Must(uuid.NewV7())
		if _, err := srv.DB.NewRaw(`INSERT INTO entries (id, family_id, account_id, kind, date, amount, currency, name)
			VALUES (?, ?, ?, 'transaction', ?, ?::numeric, ?, ?)`, id, u.FamilyID, account,
			time.Date(2026, 3, day, 0, 0, 0, 0, time.UTC), amount, currency, name).Exec(bg); err != nil {
			t.Fatal(err)
		}
		return id
	}
	autopay := txn(checking, 1, "250", "USD", "VISA AUTOPAY")
	txn(card, 2, "-250", "USD", "PAYMENT THANK YOU")
	sepa := txn(euro, 10, "100", "EUR", "SEPA OUT")
	txn(checking, 12, "-108.12", "USD", "INCOMING WIRE")
	// What an import or a sync does with new transactions.
	if n, err := transfers.Match(bg, srv.DB, u.FamilyID, transfers.Scope{EntryIDs: []uuid.UUID{autopay, sepa}}); err != nil || n != 1 {
		t.Fatalf("match: %d, %v", n, err)
	}

	step(t, "the proposed card payment is confirmed", func(t *testing.T) {
		signInAs(t, ctx, srv, u.Email)
		clickNav(t, ctx, "transfers")
		visible(t, ctx, "transfers-proposed")
		wantText(t, ctx, "transfer-from", "Checking")
		wantText(t, ctx, "transfer-to", "Visa")
		visible(t, ctx, "transfers-confirmed-empty")
		shot(t, ctx, "transfers-proposed")
		click(t, ctx, "transfer-confirm")
		waitText(t, ctx, "flash-success", "Transfer confirmed.", 10*time.Second)
		visible(t, ctx, "transfers-proposed-empty")
		visible(t, ctx, "transfers-confirmed")
	})
	step(t, "the account page shows it, and unlinks it", func(t *testing.T) {
		visit(t, ctx, srv.URL+"/accounts/"+checking.String())
		wantText(t, ctx, "entry-transfer", "Card payment to Visa")
		click(t, ctx, "transfer-unlink")
		waitText(t, ctx, "flash-success", "Unlinked: the two transactions count as spending and income again, and Tally will not pair them again.", 10*time.Second)
		wantPath(t, ctx, "/accounts/"+checking.String())
		if n := count(t, ctx, "entry-transfer"); n != 0 {
			t.Errorf("%d transfer labels after unlinking", n)
		}
		if n, err := transfers.Match(bg, srv.DB, u.FamilyID, transfers.Scope{EntryIDs: []uuid.UUID{autopay}}); err != nil || n != 0 {
			t.Errorf("the unlinked pair was proposed again: %d, %v", n, err)
		}
	})
	step(t, "a transfer between currencies is linked by hand", func(t *testing.T) {
		visit(t, ctx, srv.URL+"/accounts/"+euro.String())
		click(t, ctx, "entry-link-transfer")
		visible(t, ctx, "transfer-candidates")
		wantText(t, ctx, "candidate-name", "INCOMING WIRE") // the nearest date first
		run(t, ctx, "link with the wire", chromedp.Click(chromedp.CSS(`button[aria-label="Link with INCOMING WIRE"]`)))
		waitText(t, ctx, "flash-success", "Linked: Euro savings to Checking is a transfer.", 10*time.Second)
		wantText(t, ctx, "entry-transfer", "Transfer to Checking")
		shot(t, ctx, "transfer-linked")
	})
	step(t, "a rule made from the card payment", func(t *testing.T) {
		visit(t, ctx, srv.URL+"/accounts/"+checking.String())
		run(t, ctx, "make a rule from the autopay", chromedp.Click(chromedp.CSS(`a[href="/settings/rules/new?from=`+autopay.String()+`"]`)))
		visible(t, ctx, "rule-form")
		if got := inputValue(t, ctx, "field-cond_0_value"); got != "VISA AUTOPAY" {
			t.Errorf("the condition starts as %q", got)
		}
		waitText(t, ctx, "preview-count", "1 existing transaction matches.", 10*time.Second)
		choose(t, ctx, "field-action_transfer", card.String())
		click(t, ctx, "rule-save")
		waitText(t, ctx, "flash-success", "The rule is saved. It runs on every new transaction.", 10*time.Second)
		wantText(t, ctx, "rule-actions", "Then a transfer with Visa")
	})
}
