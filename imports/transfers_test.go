package imports_test

import (
	"context"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"tally/imports"
	"tally/internal/db"
	"tally/models"
	"tally/rules"
	"tally/testkit"
	"tally/transfers"
)

// TestPublishProposesTheTransfersMatchWould publishes a file of transfers, which are matched
// on its staged rows before they are written, and checks that it proposes the transfers, and
// writes the kinds, that transfers.Match proposes over the same transactions once written: a
// pair within the file, pairs with the family's transactions (one of them taken by a closer
// date in the file), a loan and a card payment, a pair a rule marked first, ties settled by
// id, and no pair four days apart, in one account, or with a row that is a duplicate.
func TestPublishProposesTheTransfersMatchWould(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	im := newImporter(t)
	fam := im.user.FamilyID
	checking, savings := im.account("Checking"), im.account("Savings")
	visa := testkit.MustCreateAccount(t, im.d, fam, "Visa", "CreditCard", "0").ID
	testkit.MustCreateAccount(t, im.d, fam, "Car loan", "Loan", "0")
	// The family's transactions before the file (positive is money out).
	for _, e := range []struct {
		account uuid.UUID
		date    string
		amount  string
		name    string
	}{
		{visa, "2025-03-12", "-250", "PAYMENT THANK YOU"},
		{savings, "2025-03-08", "-75", "FROM CHECKING (far)"},
		{checking, "2025-03-25", "99", "GYM"},
	} {
		if _, err := im.d.NewRaw(`INSERT INTO entries (id, family_id, account_id, kind, date, amount, currency, name)
			VALUES (?, ?, ?, 'transaction', ?::date, ?::numeric, 'USD', ?)`, uuid.Must(uuid.NewV7()), fam, e.account, e.date, e.amount, e.name).Exec(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := rules.Create(ctx, im.d, models.FamilyViewer(fam), rules.Input{Name: new("Rent share"),
		Conditions: &[]rules.Condition{{Type: "transaction_name", Operator: "like", Value: "rent share"}},
		Actions:    &[]rules.Action{{Type: "mark_as_transfer", Value: savings.String()}}}); err != nil {
		t.Fatal(err)
	}
	d := im.upload("date,amount,name,account\n"+
		"2025-03-10,-250.00,VISA PAYMENT,Checking\n"+
		"2025-03-05,-75.00,TO SAVINGS,Checking\n"+
		"2025-03-06,75.00,FROM CHECKING (near),Savings\n"+
		"2025-03-15,-410.55,AUTO LOAN,Checking\n"+
		"2025-03-15,410.55,PAYMENT RECEIVED,Car loan\n"+
		"2025-03-18,100.00,CARD PAYMENT RECEIVED,Visa\n"+
		"2025-03-18,-100.00,CARD PAYMENT,Checking\n"+
		"2025-03-01,-60.00,LATE OUT,Checking\n"+
		"2025-03-05,60.00,LATE IN,Savings\n"+
		"2025-03-03,-12.00,SHOP,Checking\n"+
		"2025-03-04,12.00,SHOP REFUND,Checking\n"+
		"2025-03-20,-30.00,COFFEE,Checking\n"+
		"2025-03-20,-30.00,RENT SHARE,Checking\n"+
		"2025-03-20,30.00,FROM FLATMATE,Savings\n"+
		"2025-03-25,-99.00,GYM,Checking\n"+
		"2025-03-26,99.00,GYM REFUND,Savings\n"+
		"2025-03-28,-5.00,X1,Checking\n"+
		"2025-03-28,-5.00,X2,Checking\n"+
		"2025-03-28,5.00,Y1,Savings\n"+
		"2025-03-29,5.00,Y2,Savings\n", nil)
	afterwards := &queryCounter{match: "SELECT k.account_id, k.currency, k.amount"}
	im.d.AddQueryHook(afterwards)
	if status := im.publish(d.ID); status != imports.StatusComplete {
		got, _ := imports.Get(ctx, im.d, fam, d.ID)
		t.Fatalf("the publish ended %s: %v", status, *got.Error)
	}
	if afterwards.n.Load() > 0 {
		t.Error("the publish matched transfers over its written entries, not its staged rows")
	}
	staged, stagedKinds := transferState(t, im.d, fam)
	want := []string{
		"AUTO LOAN → PAYMENT RECEIVED", "CARD PAYMENT → CARD PAYMENT RECEIVED", "GYM → GYM REFUND", "RENT SHARE → FROM FLATMATE",
		"TO SAVINGS → FROM CHECKING (near)", "VISA PAYMENT → PAYMENT THANK YOU", "X1 → Y1", "X2 → Y2"}
	if !slices.Equal(staged, want) {
		t.Errorf("the publish proposed\n %q\nwant\n %q", staged, want)
	}
	for _, k := range []string{"AUTO LOAN: loan_payment", "CARD PAYMENT: cc_payment", "CARD PAYMENT RECEIVED: funds_movement",
		"COFFEE: standard", "PAYMENT THANK YOU: funds_movement", "VISA PAYMENT: cc_payment"} {
		if !slices.Contains(stagedKinds, k) {
			t.Errorf("the kinds written are %q, without %q", stagedKinds, k)
		}
	}

	// The same transactions matched as other callers match them: written, then matched.
	if err := im.d.InTx(ctx, func(ctx context.Context, tx db.Tx) error {
		if _, err := tx.NewRaw(`DELETE FROM transfers WHERE family_id = ?`, fam).Exec(ctx); err != nil {
			return err
		}
		if _, err := tx.NewRaw(`UPDATE entries SET transaction_kind = 'standard' WHERE family_id = ?`, fam).Exec(ctx); err != nil {
			return err
		}
		if _, err := (rules.Runner{}).Run(ctx, tx, fam, rules.Scope{ImportID: &d.ID}); err != nil {
			return err
		}
		_, err := transfers.Match(ctx, tx, fam, transfers.Scope{ImportID: &d.ID})
		return err
	}); err != nil {
		t.Fatal(err)
	}
	matched, matchedKinds := transferState(t, im.d, fam)
	if !slices.Equal(staged, matched) {
		t.Errorf("the publish proposed\n %q\nMatch proposes\n %q", staged, matched)
	}
	if !slices.Equal(stagedKinds, matchedKinds) {
		t.Errorf("the publish wrote the kinds\n %q\nMatch sets\n %q", stagedKinds, matchedKinds)
	}
}

// TestPublishIntoOneAccountPairsWithTheOthers publishes a file into one account: its rows pair
// with the transactions of the family's other accounts, never with one another (a refund and
// its payment in one account are no transfer). Such a publish skips the search for pairs
// within the file (MatchStaged's oneAccount); this holds that nothing is lost by it.
func TestPublishIntoOneAccountPairsWithTheOthers(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	im := newImporter(t)
	fam := im.user.FamilyID
	checking, savings := im.account("Checking"), im.account("Savings")
	// Money that arrived in savings (positive is money out).
	if _, err := im.d.NewRaw(`INSERT INTO entries (id, family_id, account_id, kind, date, amount, currency, name)
		VALUES (?, ?, ?, 'transaction', '2025-03-06', -75, 'USD', 'FROM CHECKING')`, uuid.Must(uuid.NewV7()), fam, savings).Exec(ctx); err != nil {
		t.Fatal(err)
	}
	d := im.upload("date,amount,name\n2025-03-05,-75.00,TO SAVINGS\n2025-03-10,-20.00,SHOP\n2025-03-11,20.00,SHOP REFUND\n", &checking)
	if status := im.publish(d.ID); status != imports.StatusComplete {
		t.Fatalf("the publish ended %s", status)
	}
	if got, _ := transferState(t, im.d, fam); !slices.Equal(got, []string{"TO SAVINGS → FROM CHECKING"}) {
		t.Errorf("the publish proposed %q, want the one with savings", got)
	}
}

// queryCounter counts the queries bun runs whose SQL contains match.
type queryCounter struct {
	match string
	n     atomic.Int32
}

func (c *queryCounter) BeforeQuery(ctx context.Context, _ *bun.QueryEvent) context.Context {
	return ctx
}

func (c *queryCounter) AfterQuery(_ context.Context, ev *bun.QueryEvent) {
	if strings.Contains(ev.Query, c.match) {
		c.n.Add(1)
	}
}

// transferState is the family's transfers, "outflow → inflow", and its transactions' kinds,
// "name: kind", each sorted.
func transferState(t *testing.T, d *db.DB, familyID uuid.UUID) (pairs, kinds []string) {
	t.Helper()
	list, err := transfers.List(context.Background(), d, models.FamilyViewer(familyID), transfers.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tr := range list {
		if tr.Status != transfers.StatusPending {
			t.Errorf("transfer %s → %s is %s, not proposed", tr.Outflow.Name, tr.Inflow.Name, tr.Status)
		}
		pairs = append(pairs, tr.Outflow.Name+" → "+tr.Inflow.Name)
	}
	if err := d.NewRaw(`SELECT name || ': ' || transaction_kind FROM entries WHERE family_id = ? AND kind = 'transaction'`, familyID).
		Scan(context.Background(), &kinds); err != nil {
		t.Fatal(err)
	}
	slices.Sort(pairs)
	slices.Sort(kinds)
	return pairs, kinds
}
