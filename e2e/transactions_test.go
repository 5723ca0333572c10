package e2e

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/google/uuid"

	"tally/app/apptest"
	"tally/models"
	"tally/rules"
	"tally/testkit"
)

// TestAddATransactionByHand is a person adding transactions on an account page: the form
// names what is wrong and keeps what was typed, the family's rule categorises a purchase, a
// category chosen by hand beats the rule, and a card payment entered on both accounts is
// proposed as a transfer.
func TestAddATransactionByHand(t *testing.T) {
	t.Parallel()
	ctx := newTab(t)
	srv := startServer(t, apptest.ServerOptions{})
	bg := context.Background()
	u := testkit.MustCreateUser(t, srv.DB, testkit.UserOpts{})
	checking := testkit.MustCreateAccount(t, srv.DB, u.FamilyID, "Checking", "Depository", "1000").ID
	card := testkit.MustCreateAccount(t, srv.DB, u.FamilyID, "Visa", "CreditCard", "300").ID
	// The accounts were opened a month ago: their balances are as of then.
	if _, err := srv.DB.NewRaw("UPDATE entries SET date = date - 30 WHERE family_id = ? AND kind = 'valuation'", u.FamilyID).Exec(bg); err != nil {
		t.Fatal(err)
	}
	groceries, dining := uuid.New(), uuid.New()
	for id, name := range map[uuid.UUID]string{groceries: "Groceries", dining: "Dining"} {
		if _, err := srv.DB.NewRaw("INSERT INTO categories (id, family_id, name) VALUES (?, ?, ?)", id, u.FamilyID, name).Exec(bg); err != nil {
			t.Fatal(err)
		}
	}
	name, match := "Grocers", "all"
	conds := []rules.Condition{{Type: "transaction_name", Operator: "like", Value: "grocer"}}
	acts := []rules.Action{{Type: "set_transaction_category", Value: groceries.String()}}
	if _, err := rules.Create(bg, srv.DB, models.FamilyViewer(u.FamilyID), rules.Input{Name: &name, Match: &match, Conditions: &conds, Actions: &acts}); err != nil {
		t.Fatal(err)
	}
	today := time.Now().Format(time.DateOnly)
	rowWith := func(t *testing.T, name string) string {
		t.Helper()
		for _, row := range strings.Split(text(t, ctx, "entries-table"), "\n") {
			if strings.Contains(row, name) {
				return row
			}
		}
		t.Fatalf("no row of %q in %q", name, text(t, ctx, "entries-table"))
		return ""
	}

	step(t, "a form with a mistake says what is wrong and keeps the rest", func(t *testing.T) {
		signInAs(t, ctx, srv, u.Email)
		visit(t, ctx, srv.URL+"/accounts/"+checking.String())
		click(t, ctx, "add-transaction")
		visible(t, ctx, "transaction-form")
		if got := inputValue(t, ctx, "field-date"); got != today {
			t.Errorf("date starts at %q, want today %s", got, today)
		}
		fill(t, ctx, "field-name", "CORNER GROCER")
		fill(t, ctx, "field-amount", "12.50 USD")
		click(t, ctx, "save-transaction")
		visible(t, ctx, "error-amount")
		if got := text(t, ctx, "error-amount"); got != `Amount: "12.50 USD" is not a number: write it like 1250.00` {
			t.Errorf("the amount's error says %q", got)
		}
		if got := inputValue(t, ctx, "field-name"); got != "CORNER GROCER" {
			t.Errorf("the description became %q", got)
		}
		var n int
		if err := srv.DB.NewRaw("SELECT count(*) FROM entries WHERE family_id = ? AND kind = 'transaction'", u.FamilyID).Scan(bg, &n); err != nil || n != 0 {
			t.Errorf("%d transactions after a refused form (%v)", n, err)
		}
	})
	step(t, "the rule categorises it, and the balance follows", func(t *testing.T) {
		run(t, ctx, "clear the amount", chromedp.Clear(testID("field-amount")))
		fill(t, ctx, "field-amount", "12.50")
		click(t, ctx, "save-transaction")
		waitText(t, ctx, "flash-success", "Transaction “CORNER GROCER” added.", 10*time.Second)
		wantPath(t, ctx, "/accounts/"+checking.String())
		if row := rowWith(t, "CORNER GROCER"); !strings.Contains(row, "Groceries") {
			t.Errorf("the grocer's row is %q, want the rule's category Groceries", row)
		}
		wantText(t, ctx, "account-balance", "$987.50")
	})
	step(t, "a category chosen by hand is kept", func(t *testing.T) {
		click(t, ctx, "add-transaction")
		fill(t, ctx, "field-name", "GROCER CAFE")
		fill(t, ctx, "field-amount", "8")
		choose(t, ctx, "field-category_id", dining.String())
		click(t, ctx, "save-transaction")
		waitText(t, ctx, "flash-success", "Transaction “GROCER CAFE” added.", 10*time.Second)
		if row := rowWith(t, "GROCER CAFE"); !strings.Contains(row, "Dining") || strings.Contains(row, "Groceries") {
			t.Errorf("the cafe's row is %q, want Dining as chosen", row)
		}
	})
	step(t, "a card payment on both accounts is proposed as a transfer", func(t *testing.T) {
		visit(t, ctx, srv.URL+"/accounts/"+card.String()+"/transactions/new")
		fill(t, ctx, "field-name", "PAYMENT THANK YOU")
		fill(t, ctx, "field-amount", "200")
		choose(t, ctx, "field-direction", "in")
		click(t, ctx, "save-transaction")
		waitText(t, ctx, "flash-success", "Transaction “PAYMENT THANK YOU” added.", 10*time.Second)
		wantText(t, ctx, "account-balance", "$100.00")

		visit(t, ctx, srv.URL+"/accounts/"+checking.String()+"/transactions/new")
		fill(t, ctx, "field-name", "VISA AUTOPAY")
		fill(t, ctx, "field-amount", "200")
		click(t, ctx, "save-transaction")
		waitText(t, ctx, "flash-success", "Transaction “VISA AUTOPAY” added. It looks like a transfer: confirm it on the Transfers page.", 10*time.Second)
		wantText(t, ctx, "entry-transfer", "Card payment to Visa")
		shot(t, ctx, "transaction-added-transfer")
	})
}
