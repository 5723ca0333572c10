package transfers_test

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"tally/internal/apperr"
	"tally/internal/db"
	"tally/models"
	"tally/testkit"
	"tally/transfers"
)

func TestMain(m *testing.M) { os.Exit(testkit.Main(m)) }

type family struct {
	t  *testing.T
	d  *db.DB
	id uuid.UUID
}

func newFamily(t *testing.T, d *db.DB) *family {
	return &family{t: t, d: d, id: testkit.MustCreateUser(t, d, testkit.UserOpts{}).FamilyID}
}

func (f *family) account(name, typ string) uuid.UUID {
	return testkit.MustCreateAccount(f.t, f.d, f.id, name, typ, "").ID
}

// txn writes a transaction: amount positive for money out, dated 2026-03-<day>.
func (f *family) txn(account uuid.UUID, day int, amount, currency, name string) uuid.UUID {
	f.t.Helper()
	id := uuid.Must(uuid.NewV7())
	if _, err := f.d.NewRaw(`INSERT INTO entries (id, family_id, account_id, kind, date, amount, currency, name)
		VALUES (?, ?, ?, 'transaction', make_date(2026, 3, ?), ?::numeric, ?, ?)`, id, f.id, account, day, amount, currency, name).
		Exec(context.Background()); err != nil {
		f.t.Fatal(err)
	}
	return id
}

func (f *family) match(ids ...uuid.UUID) int {
	f.t.Helper()
	n, err := transfers.Match(context.Background(), f.d, f.id, transfers.Scope{EntryIDs: ids})
	if err != nil {
		f.t.Fatal(err)
	}
	return n
}

// kinds are the transaction kinds of ids, in order.
func (f *family) kinds(ids ...uuid.UUID) []string {
	f.t.Helper()
	out := make([]string, len(ids))
	for i, id := range ids {
		if err := f.d.NewRaw("SELECT transaction_kind FROM entries WHERE id = ?", id).Scan(context.Background(), &out[i]); err != nil {
			f.t.Fatal(err)
		}
	}
	return out
}

// pairs are the family's transfers as "outflow name → inflow name (status)".
func (f *family) pairs() []string {
	f.t.Helper()
	list, err := transfers.List(context.Background(), f.d, models.FamilyViewer(f.id), transfers.Filter{})
	if err != nil {
		f.t.Fatal(err)
	}
	var out []string
	for _, t := range list {
		out = append(out, t.Outflow.Name+" → "+t.Inflow.Name+" ("+t.Status+")")
	}
	return out
}

func want(t *testing.T, what string, got, want []string) {
	t.Helper()
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("%s: got %q, want %q", what, got, want)
	}
}

// TestMatchProposes checks what is and is not proposed: the opposite amount in another
// account in the same currency within three days, the closest date first, each transaction in
// one transfer, and the kinds after the account the money went to.
func TestMatchProposes(t *testing.T) {
	d := testkit.MustOpenDB(t)
	f := newFamily(t, d)
	checking, savings := f.account("Checking", "Depository"), f.account("Savings", "Depository")
	card, loan := f.account("Visa", "CreditCard"), f.account("Car loan", "Loan")
	brokerage := f.account("Brokerage", "Investment")

	cardOut := f.txn(checking, 10, "250.00", "USD", "VISA PAYMENT")
	cardIn := f.txn(card, 12, "-250.00", "USD", "PAYMENT THANK YOU")
	loanOut := f.txn(checking, 15, "410.55", "USD", "AUTO LOAN")
	loanIn := f.txn(loan, 15, "-410.55", "USD", "PAYMENT RECEIVED")
	investOut := f.txn(checking, 20, "1000", "USD", "TO BROKERAGE")
	investIn := f.txn(brokerage, 21, "-1000", "USD", "DEPOSIT")
	// Two savings deposits of 75 could take the 75 out of checking: the one a day away does,
	// not the one three days away.
	moveOut := f.txn(checking, 5, "75", "USD", "TO SAVINGS")
	far := f.txn(savings, 8, "-75", "USD", "FROM CHECKING (far)")
	near := f.txn(savings, 6, "-75", "USD", "FROM CHECKING (near)")
	// Not transfers: four days apart, another currency, the same account, still pending.
	late := f.txn(checking, 1, "60", "USD", "LATE OUT")
	lateIn := f.txn(savings, 5, "-60", "USD", "LATE IN")
	eur := f.txn(checking, 2, "30", "USD", "USD OUT")
	eurIn := f.txn(savings, 2, "-30", "EUR", "EUR IN")
	refund := f.txn(checking, 3, "12", "USD", "SHOP")
	refundIn := f.txn(checking, 4, "-12", "USD", "SHOP REFUND")
	pendOut := f.txn(checking, 7, "44", "USD", "PENDING OUT")
	pendIn := f.txn(savings, 7, "-44", "USD", "PENDING IN")
	if _, err := d.NewRaw("UPDATE entries SET pending = true WHERE id = ?", pendIn).Exec(context.Background()); err != nil {
		t.Fatal(err)
	}

	if n := f.match(cardOut, loanOut, investOut, moveOut, late, eur, refund, pendOut); n != 4 {
		t.Errorf("proposed %d transfers, want 4", n)
	}
	want(t, "transfers", f.pairs(), []string{
		"TO BROKERAGE → DEPOSIT (pending)", "AUTO LOAN → PAYMENT RECEIVED (pending)",
		"VISA PAYMENT → PAYMENT THANK YOU (pending)", "TO SAVINGS → FROM CHECKING (near) (pending)"})
	want(t, "kinds", f.kinds(cardOut, cardIn, loanOut, loanIn, investOut, investIn, moveOut, near, far),
		[]string{"cc_payment", "funds_movement", "loan_payment", "funds_movement", "investment_contribution", "funds_movement",
			"funds_movement", "funds_movement", "standard"})
	want(t, "kinds left alone", f.kinds(late, lateIn, eur, eurIn, refund, refundIn, pendOut, pendIn),
		[]string{"standard", "standard", "standard", "standard", "standard", "standard", "standard", "standard"})

	// Matching again proposes nothing new: every side is taken or has no counterpart.
	if n := f.match(cardOut, cardIn, moveOut, far, near, late, lateIn); n != 0 {
		t.Errorf("a second match proposed %d transfers", n)
	}
}

// TestUnlinkedPairIsNotProposedAgain unlinks a proposal and matches again, as the next import
// or sync would.
func TestUnlinkedPairIsNotProposedAgain(t *testing.T) {
	ctx := context.Background()
	d := testkit.MustOpenDB(t)
	f := newFamily(t, d)
	checking, savings := f.account("Checking", "Depository"), f.account("Savings", "Depository")
	out := f.txn(checking, 1, "500", "USD", "RENT SHARE")
	in := f.txn(savings, 1, "-500", "USD", "SALARY PART")
	if n := f.match(out); n != 1 {
		t.Fatalf("proposed %d, want 1", n)
	}
	list, _ := transfers.List(ctx, d, models.FamilyViewer(f.id), transfers.Filter{Status: transfers.StatusPending})
	if len(list) != 1 {
		t.Fatalf("%d pending transfers, want 1", len(list))
	}
	if err := transfers.Unlink(ctx, d, models.FamilyViewer(f.id), list[0].ID); err != nil {
		t.Fatal(err)
	}
	want(t, "kinds after unlinking", f.kinds(out, in), []string{"standard", "standard"})
	var locked []string
	if err := d.NewRaw("SELECT DISTINCT unnest(locked_fields) FROM entries WHERE id IN (?, ?)", out, in).Scan(ctx, &locked); err != nil {
		t.Fatal(err)
	}
	want(t, "fields set by hand after unlinking", locked, []string{"transfer"})
	if n := f.match(out, in); n != 0 {
		t.Errorf("the unlinked pair was proposed again (%d)", n)
	}
	// A third transaction that fits is still proposed with either side.
	other := f.txn(savings, 2, "-500", "USD", "ANOTHER 500")
	if n := f.match(other); n != 1 {
		t.Errorf("proposed %d for a new counterpart, want 1", n)
	}
	want(t, "transfers", f.pairs(), []string{"RENT SHARE → ANOTHER 500 (pending)"})

	// Linking the rejected pair by hand is allowed once the other transfer is gone.
	list, _ = transfers.List(ctx, d, models.FamilyViewer(f.id), transfers.Filter{})
	if err := transfers.Unlink(ctx, d, models.FamilyViewer(f.id), list[0].ID); err != nil {
		t.Fatal(err)
	}
	if _, err := transfers.Link(ctx, d, models.FamilyViewer(f.id), out, in, ""); err != nil {
		t.Fatal(err)
	}
	want(t, "transfers", f.pairs(), []string{"RENT SHARE → SALARY PART (confirmed)"})
}

// TestLinkByHand links in two currencies, confirms, and refuses what is not a transfer, naming
// the field.
func TestLinkByHand(t *testing.T) {
	ctx := context.Background()
	d := testkit.MustOpenDB(t)
	f := newFamily(t, d)
	checking, card := f.account("Checking", "Depository"), f.account("Visa", "CreditCard")
	abroad := f.account("Euro account", "Depository")
	eurOut := f.txn(abroad, 3, "100.00", "EUR", "SEPA OUT")
	usdIn := f.txn(checking, 9, "-108.12", "USD", "WIRE IN")

	tr, err := transfers.Link(ctx, d, models.FamilyViewer(f.id), usdIn, eurOut, "moving savings home")
	if err != nil {
		t.Fatal(err)
	}
	if tr.Status != transfers.StatusConfirmed || tr.Outflow.EntryID != eurOut || tr.Inflow.EntryID != usdIn ||
		tr.Outflow.Amount.String() != "100" || tr.Outflow.Currency != "EUR" || tr.Inflow.Amount.String() != "-108.12" || tr.Inflow.Currency != "USD" {
		t.Errorf("linked %+v", tr)
	}
	want(t, "kinds", f.kinds(eurOut, usdIn), []string{"funds_movement", "funds_movement"})

	other := newFamily(t, d)
	strangers := other.txn(other.account("Theirs", "Depository"), 3, "-100", "EUR", "THEIRS")
	a := f.txn(checking, 1, "80", "USD", "A")
	b := f.txn(card, 1, "-79.99", "USD", "B")
	c := f.txn(card, 1, "80", "USD", "C")
	e := f.txn(checking, 2, "-80", "USD", "E")
	late := f.txn(card, 31, "-80", "USD", "LATE")
	if _, err := d.NewRaw("UPDATE entries SET date = date + 40 WHERE id = ?", late).Exec(ctx); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name     string
		from, to uuid.UUID
		field    string
		says     string
	}{
		{"another family's", a, strangers, "to_transaction_id", "not a transaction of this family"},
		{"amounts that differ", a, b, "to_transaction_id", "79.99 USD"},
		{"the same direction", a, c, "to_transaction_id", "must go the other way"},
		{"the same account", a, e, "to_transaction_id", "same account"},
		{"already linked", eurOut, a, "from_transaction_id", "already one side of a transfer"},
		{"too far apart", a, late, "to_transaction_id", "at most 31 days apart"},
		{"itself", a, a, "to_transaction_id", "same transaction"},
	} {
		_, err := transfers.Link(ctx, d, models.FamilyViewer(f.id), tc.from, tc.to, "")
		e := apperr.As(err)
		if e == nil || e.Code != apperr.Invalid || len(e.Fields[tc.field]) == 0 || !strings.Contains(e.Fields[tc.field][0], tc.says) {
			t.Errorf("%s: got %v (fields %v), want %s saying %q", tc.name, err, e, tc.field, tc.says)
		}
	}

	// Confirm and Get are the family's own: another family's transfer is not found.
	if _, err := transfers.Confirm(ctx, d, models.FamilyViewer(other.id), tr.ID); !apperr.Is(err, apperr.NotFound) {
		t.Errorf("another family confirmed the transfer: %v", err)
	}
	if err := transfers.Unlink(ctx, d, models.FamilyViewer(other.id), tr.ID); !apperr.Is(err, apperr.NotFound) {
		t.Errorf("another family unlinked the transfer: %v", err)
	}
	if got := f.pairs(); len(got) != 1 {
		t.Errorf("transfers after refusals: %q", got)
	}
}

// TestConcurrentMatchesTakeEachSideOnce runs two matches that want the same transaction in
// two database transactions at once, as an import and a sync can: the second waits for the
// first, and drops its pair instead of failing.
func TestConcurrentMatchesTakeEachSideOnce(t *testing.T) {
	ctx := context.Background()
	d := testkit.MustOpenDB(t)
	f := newFamily(t, d)
	checking, savings, card := f.account("Checking", "Depository"), f.account("Savings", "Depository"), f.account("Visa", "CreditCard")
	f.txn(checking, 1, "90", "USD", "OUT")
	in1 := f.txn(savings, 1, "-90", "USD", "IN 1")
	in2 := f.txn(card, 1, "-90", "USD", "IN 2")

	matched, release := make(chan int), make(chan struct{})
	firstDone := make(chan error)
	go func() {
		firstDone <- d.InTx(ctx, func(ctx context.Context, tx db.Tx) error {
			n, err := transfers.Match(ctx, tx, f.id, transfers.Scope{EntryIDs: []uuid.UUID{in1}})
			matched <- n
			<-release // hold the transaction open while the second match runs
			return err
		})
	}()
	if n := <-matched; n != 1 {
		t.Fatalf("first match proposed %d, want 1", n)
	}
	second := make(chan int)
	go func() {
		var n int
		err := d.InTx(ctx, func(ctx context.Context, tx db.Tx) error {
			var err error
			n, err = transfers.Match(ctx, tx, f.id, transfers.Scope{EntryIDs: []uuid.UUID{in2}})
			return err
		})
		if err != nil {
			t.Error(err)
		}
		second <- n
	}()
	time.Sleep(200 * time.Millisecond) // let the second reach the first's uncommitted transfer
	close(release)
	if err := <-firstDone; err != nil {
		t.Fatal(err)
	}
	if n := <-second; n != 0 {
		t.Errorf("the second match proposed %d with a side the first took", n)
	}
	want(t, "transfers", f.pairs(), []string{"OUT → IN 1 (pending)"})
}

// TestStagedProposalTakenMeanwhileIsDropped matches transactions not written yet against one
// another and the family's, writes them with the kinds proposed, and only then the transfers,
// after a match in another transaction (a sync beside the import) took the written side of
// one: that pair is dropped and its staged side is a standard transaction again, while the
// pair of two staged transactions stands.
func TestStagedProposalTakenMeanwhileIsDropped(t *testing.T) {
	ctx := context.Background()
	d := testkit.MustOpenDB(t)
	f := newFamily(t, d)
	checking, savings, card := f.account("Checking", "Depository"), f.account("Savings", "Depository"), f.account("Visa", "CreditCard")
	f.txn(checking, 1, "90", "USD", "OUT")
	staged := []struct {
		id      uuid.UUID
		account uuid.UUID
		day     int
		amount  string
		name    string
	}{
		{uuid.Must(uuid.NewV7()), savings, 1, "-90", "STAGED IN"},
		{uuid.Must(uuid.NewV7()), checking, 2, "40", "STAGED OUT"},
		{uuid.Must(uuid.NewV7()), card, 3, "-40", "STAGED CARD"},
	}
	var rows []string
	var args []any
	for _, s := range staged {
		rows = append(rows, "(?::uuid, ?::uuid, make_date(2026, 3, ?), ?::numeric)")
		args = append(args, s.id, s.account, s.day, s.amount)
	}
	if err := d.InTx(ctx, func(ctx context.Context, tx db.Tx) error {
		ps, err := transfers.MatchStaged(ctx, tx, f.id, false, `SELECT s.id, s.account_id, a.accountable_type, 'USD' AS currency, s.amount,
			s.date, 'standard' AS transaction_kind FROM (VALUES `+strings.Join(rows, ", ")+`) AS s(id, account_id, date, amount)
			JOIN accounts a ON a.id = s.account_id`, args...)
		if err != nil {
			return err
		}
		ids, kinds := ps.StagedKinds()
		if len(ps.List) != 2 || len(ids) != 3 {
			t.Fatalf("proposed %+v, want two transfers with three staged sides", ps.List)
		}
		// Meanwhile a sync's match takes OUT for a transaction of its own.
		in2 := f.txn(card, 1, "-90", "USD", "SYNCED IN")
		if n := f.match(in2); n != 1 {
			t.Fatalf("the sync's match proposed %d, want 1", n)
		}
		kind := map[uuid.UUID]string{}
		for i, id := range ids {
			kind[id] = kinds[i]
		}
		for _, s := range staged {
			if _, err := tx.NewRaw(`INSERT INTO entries (id, family_id, account_id, kind, date, amount, currency, name, transaction_kind)
				VALUES (?, ?, ?, 'transaction', make_date(2026, 3, ?), ?::numeric, 'USD', ?, ?)`,
				s.id, f.id, s.account, s.day, s.amount, s.name, kind[s.id]).Exec(ctx); err != nil {
				return err
			}
		}
		n, err := ps.Write(ctx, tx)
		if err == nil && n != 1 {
			t.Errorf("wrote %d transfers, want 1", n)
		}
		return err
	}); err != nil {
		t.Fatal(err)
	}
	want(t, "transfers", f.pairs(), []string{"STAGED OUT → STAGED CARD (pending)", "OUT → SYNCED IN (pending)"})
	want(t, "kinds", f.kinds(staged[0].id, staged[1].id, staged[2].id), []string{"standard", "cc_payment", "funds_movement"})
}
