// Package transfers recognises money moving between a family's own accounts: a payment from
// checking to the credit card is one transfer, not spending in one account and income in the
// other.
//
// A transfer pairs an outflow (a positive amount, by the ledger rule) with an inflow in
// another account of the family. Match proposes pairs on its own for new transactions: the
// opposite amount in the same currency, within three days, neither side matched already, and
// the pair not rejected before. A person confirms a proposal, unlinks it (and it is never
// proposed again), or links two transactions by hand, in different currencies too. Both
// sides of a transfer count as neither spending nor income: the inflow is a funds movement,
// and the outflow is a card payment, a loan payment, an investment contribution or a funds
// movement, after the account the money went to.
package transfers

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"

	"tally/internal/apperr"
	"tally/internal/db"
	"tally/models"
)

// Statuses. Matching proposes (pending); a person confirms.
const (
	StatusPending   = "pending"
	StatusConfirmed = "confirmed"
)

// MatchDays is how far apart the two sides of a proposed transfer may be dated.
const MatchDays = 3

// ManualDays is how far apart two transactions a person links may be dated: a transfer abroad
// or a cheque can take weeks.
const ManualDays = 31

// transferKinds are the transaction kinds a side of a transfer may have, as an SQL list: a
// standard transaction or one of models.TransferKinds; a one-time expense is not matched.
var transferKinds = "'" + strings.Join(append([]string{models.KindStandard}, models.TransferKinds...), "', '") + "'"

// lockTransfer marks an entry's kind as set by hand (SQL): a rule's "mark as transfer" leaves
// alone what a person linked or unlinked.
const lockTransfer = `locked_fields = CASE WHEN 'transfer' = ANY (locked_fields) THEN locked_fields
	ELSE array_append(locked_fields, 'transfer') END`

// Transfer is a linked pair.
type Transfer struct {
	ID        uuid.UUID `bun:"id"`
	Status    string    `bun:"status"`
	Notes     string    `bun:"notes"`
	CreatedAt time.Time `bun:"created_at"`
	Inflow    Side      `bun:"in,embed:in_"`
	Outflow   Side      `bun:"out,embed:out_"`
}

// Side is one transaction of a transfer.
type Side struct {
	EntryID     uuid.UUID       `bun:"entry_id"`
	AccountID   uuid.UUID       `bun:"account_id"`
	AccountName string          `bun:"account_name"`
	Date        time.Time       `bun:"date"`
	Amount      decimal.Decimal `bun:"amount"`
	Currency    string          `bun:"currency"`
	Name        string          `bun:"name"`
	Kind        string          `bun:"kind"`
}

const selectTransfers = `SELECT t.id, t.status, t.notes, t.created_at,
	i.id AS in_entry_id, i.account_id AS in_account_id, ia.name AS in_account_name, i.date AS in_date, i.amount AS in_amount,
	i.currency AS in_currency, i.name AS in_name, i.transaction_kind AS in_kind,
	o.id AS out_entry_id, o.account_id AS out_account_id, oa.name AS out_account_name, o.date AS out_date, o.amount AS out_amount,
	o.currency AS out_currency, o.name AS out_name, o.transaction_kind AS out_kind
	FROM transfers t
	JOIN entries i ON i.id = t.inflow_entry_id JOIN accounts ia ON ia.id = i.account_id
	JOIN entries o ON o.id = t.outflow_entry_id JOIN accounts oa ON oa.id = o.account_id
	WHERE t.family_id = ?`

// Filter narrows List.
type Filter struct {
	Status    string      // pending or confirmed; empty for both
	AccountID *uuid.UUID  // transfers with a side in this account
	EntryIDs  []uuid.UUID // transfers with a side among these transactions
	Limit     int         // at most this many, newest first; 0 for 500
}

// List is the family's transfers whose two sides the viewer may see, newest first. One with
// a side in an account kept from the viewer is not theirs to see whole: the visible side's
// transaction says only that it is a transfer to a private account (ledger.TransferSide).
func List(ctx context.Context, idb bun.IDB, v models.Viewer, f Filter) ([]Transfer, error) {
	q, args := visibleTransfers(v)
	if f.Status != "" {
		q += " AND t.status = ?"
		args = append(args, f.Status)
	}
	if f.AccountID != nil {
		q += " AND ? IN (i.account_id, o.account_id)"
		args = append(args, *f.AccountID)
	}
	if f.EntryIDs != nil {
		q += " AND (t.inflow_entry_id IN (?) OR t.outflow_entry_id IN (?))"
		args = append(args, bun.In(f.EntryIDs), bun.In(f.EntryIDs))
	}
	if f.Limit <= 0 {
		f.Limit = 500
	}
	q += " ORDER BY greatest(i.date, o.date) DESC, t.id DESC LIMIT ?"
	args = append(args, f.Limit)
	out := []Transfer{}
	if err := idb.NewRaw(q, args...).Scan(ctx, &out); err != nil && !db.IsNoRows(err) {
		return nil, err
	}
	return out, nil
}

// visibleTransfers is selectTransfers of the viewer's family, narrowed to the transfers whose
// two sides the viewer may see, and its arguments.
func visibleTransfers(v models.Viewer) (string, []any) {
	in, inArgs := v.VisibleSQL("i.account_id")
	out, outArgs := v.VisibleSQL("o.account_id")
	args := append(append([]any{v.FamilyID}, inArgs...), outArgs...)
	return selectTransfers + " AND " + in + " AND " + out, args
}

// Get is one of the family's transfers whose two sides the viewer may see; any other, as
// another family's, is not found.
func Get(ctx context.Context, idb bun.IDB, v models.Viewer, id uuid.UUID) (*Transfer, error) {
	var t Transfer
	q, args := visibleTransfers(v)
	if err := idb.NewRaw(q+" AND t.id = ?", append(args, id)...).Scan(ctx, &t); err != nil {
		if db.IsNoRows(err) {
			return nil, apperr.New(apperr.NotFound, "Transfer not found")
		}
		return nil, err
	}
	return &t, nil
}

// Confirm marks a proposed transfer, one whose two sides the viewer may see, as right; its two
// transactions record the actor of ctx as their last change's maker.
func Confirm(ctx context.Context, idb bun.IDB, v models.Viewer, id uuid.UUID) (*Transfer, error) {
	t, err := Get(ctx, idb, v, id)
	if err != nil {
		return nil, err
	}
	if _, err := idb.NewRaw(`UPDATE transfers SET status = ?, updated_at = now() WHERE family_id = ? AND id = ?`,
		StatusConfirmed, v.FamilyID, id).Exec(ctx); err != nil {
		return nil, err
	}
	actor := models.ActorOf(ctx)
	if _, err := idb.NewRaw(`UPDATE entries SET updated_at = now(), `+models.SetActorSQL+` WHERE family_id = ? AND id IN (?, ?)`,
		actor.UserID, actor.ViaOrNil(), v.FamilyID, t.Inflow.EntryID, t.Outflow.EntryID).Exec(ctx); err != nil {
		return nil, err
	}
	return Get(ctx, idb, v, id)
}

// Unlink takes a transfer whose two sides the viewer may see apart: both transactions count
// as spending and income again, and the pair is remembered so that matching never proposes it
// again.
func Unlink(ctx context.Context, d *db.DB, v models.Viewer, id uuid.UUID) error {
	familyID := v.FamilyID
	return d.InTx(ctx, func(ctx context.Context, tx db.Tx) error {
		if _, err := Get(ctx, tx, v, id); err != nil {
			return err
		}
		var pair struct {
			In  uuid.UUID `bun:"inflow_entry_id"`
			Out uuid.UUID `bun:"outflow_entry_id"`
		}
		if err := tx.NewRaw(`DELETE FROM transfers WHERE family_id = ? AND id = ? RETURNING inflow_entry_id, outflow_entry_id`,
			familyID, id).Scan(ctx, &pair); err != nil {
			if db.IsNoRows(err) {
				return apperr.New(apperr.NotFound, "Transfer not found")
			}
			return err
		}
		if _, err := tx.NewRaw(`INSERT INTO rejected_transfers (id, family_id, inflow_entry_id, outflow_entry_id)
			VALUES (?, ?, ?, ?) ON CONFLICT (inflow_entry_id, outflow_entry_id) DO NOTHING`,
			uuid.Must(uuid.NewV7()), familyID, pair.In, pair.Out).Exec(ctx); err != nil {
			return err
		}
		actor := models.ActorOf(ctx)
		_, err := tx.NewRaw(`UPDATE entries SET transaction_kind = 'standard', `+lockTransfer+`, updated_at = now(), `+models.SetActorSQL+`
			WHERE family_id = ? AND id IN (?, ?)`, actor.UserID, actor.ViaOrNil(), familyID, pair.In, pair.Out).Exec(ctx)
		return err
	})
}

// Release ends the transfer the transaction entryID is a side of, if any, before the
// transaction goes: the other side becomes a standard transaction again, free to be matched.
// Unlike Unlink it records no rejected pair, since one side is leaving.
func Release(ctx context.Context, idb bun.IDB, familyID, entryID uuid.UUID) error {
	_, err := idb.NewRaw(`WITH t AS (
			DELETE FROM transfers WHERE family_id = ? AND ? IN (inflow_entry_id, outflow_entry_id)
			RETURNING CASE WHEN inflow_entry_id = ? THEN outflow_entry_id ELSE inflow_entry_id END AS other_id)
		UPDATE entries SET transaction_kind = 'standard', updated_at = now() FROM t WHERE entries.id = t.other_id AND entries.family_id = ?`,
		familyID, entryID, entryID, familyID).Exec(ctx)
	if err != nil {
		return fmt.Errorf("release transfer of %s: %w", entryID, err)
	}
	return nil
}

// Link makes two of the family's transactions one transfer, as a person says: one an outflow,
// the other an inflow in another account, dated within ManualDays. In one currency their
// amounts must be opposite; in two, each keeps its own amount. A pair rejected before is
// accepted again. The transfer is confirmed. A transaction in an account the viewer may not
// see is not found, as another family's.
func Link(ctx context.Context, d *db.DB, viewer models.Viewer, a, b uuid.UUID, notes string) (*Transfer, error) {
	familyID := viewer.FamilyID
	var id uuid.UUID
	err := d.InTx(ctx, func(ctx context.Context, tx db.Tx) error {
		var sides []struct {
			ID        uuid.UUID       `bun:"id"`
			AccountID uuid.UUID       `bun:"account_id"`
			Kind      string          `bun:"kind"`
			Date      time.Time       `bun:"date"`
			Amount    decimal.Decimal `bun:"amount"`
			Currency  string          `bun:"currency"`
			Split     bool            `bun:"split"`
			Linked    bool            `bun:"linked"`
		}
		// Locked so that a match running beside this cannot take either side.
		visible, args := viewer.VisibleSQL("e.account_id")
		if err := tx.NewRaw(`SELECT e.id, e.account_id, e.kind, e.date, e.amount, e.currency,
				EXISTS (SELECT 1 FROM entries c WHERE c.parent_id = e.id) AS split,
				EXISTS (SELECT 1 FROM transfers t WHERE e.id IN (t.inflow_entry_id, t.outflow_entry_id)) AS linked
			FROM entries e WHERE e.family_id = ? AND e.id IN (?, ?) AND `+visible+` ORDER BY e.id FOR UPDATE OF e`,
			append([]any{familyID, a, b}, args...)...).Scan(ctx, &sides); err != nil && !db.IsNoRows(err) {
			return err
		}
		found := map[uuid.UUID]int{}
		for i, s := range sides {
			found[s.ID] = i
		}
		v := &apperr.Validation{}
		models.CheckText(v, "notes", "Notes", notes, models.MaxNotes)
		r := &refusal{v: v}
		for _, f := range []struct {
			field string
			id    uuid.UUID
		}{{"from_transaction_id", a}, {"to_transaction_id", b}} {
			i, ok := found[f.id]
			switch {
			case !ok:
				r.add(Problem{Field: f.field, Reason: NotFound}, "is not a transaction of this family")
			case sides[i].Kind != "transaction":
				r.add(Problem{Field: f.field, Reason: NotATransaction}, "is a "+sides[i].Kind+", not a transaction")
			case sides[i].Split:
				r.add(Problem{Field: f.field, Reason: Split}, "is split into parts: link one of its parts")
			case sides[i].Linked:
				r.add(Problem{Field: f.field, Reason: Linked}, "is already one side of a transfer: unlink that first")
			}
		}
		if err := r.err(); err != nil {
			return err
		}
		to := Problem{Field: "to_transaction_id"}
		if a == b {
			to.Reason = Same
			return r.add(to, "is the same transaction as from_transaction_id").err()
		}
		x, y := sides[found[a]], sides[found[b]]
		if x.AccountID == y.AccountID {
			to.Reason = SameAccount
			return r.add(to, "is in the same account: a transfer moves money between two accounts").err()
		}
		if x.Amount.Sign() == y.Amount.Sign() || x.Amount.IsZero() {
			to.Reason = SameDirection
			return r.add(to, "must go the other way: one side of a transfer is money out, the other money in").err()
		}
		if x.Currency == y.Currency && !x.Amount.Equal(y.Amount.Neg()) {
			to.Reason = Amounts
			return r.add(to, fmt.Sprintf("has the amount %s %s, and from_transaction_id %s %s: in one currency a transfer's sides are opposite amounts",
				y.Amount.Abs().StringFixed(2), y.Currency, x.Amount.Abs().StringFixed(2), x.Currency)).err()
		}
		if gap := x.Date.Sub(y.Date).Abs(); gap > ManualDays*24*time.Hour {
			to.Reason, to.Days = TooFarApart, int(gap.Hours()/24)
			return r.add(to, fmt.Sprintf("is dated %d days from from_transaction_id; a transfer's sides are at most %d days apart",
				to.Days, ManualDays)).err()
		}
		in, out := x.ID, y.ID
		if x.Amount.IsPositive() {
			in, out = y.ID, x.ID
		}
		if _, err := tx.NewRaw(`DELETE FROM rejected_transfers WHERE family_id = ? AND inflow_entry_id = ? AND outflow_entry_id = ?`,
			familyID, in, out).Exec(ctx); err != nil {
			return err
		}
		id = uuid.Must(uuid.NewV7())
		if _, err := tx.NewRaw(`INSERT INTO transfers (id, family_id, inflow_entry_id, outflow_entry_id, status, notes)
			VALUES (?, ?, ?, ?, ?, ?)`, id, familyID, in, out, StatusConfirmed, notes).Exec(ctx); err != nil {
			return err
		}
		actor := models.ActorOf(ctx)
		if _, err := tx.NewRaw(`UPDATE entries SET `+lockTransfer+`, updated_at = now(), `+models.SetActorSQL+` WHERE id IN (?, ?)`,
			actor.UserID, actor.ViaOrNil(), in, out).Exec(ctx); err != nil {
			return err
		}
		return SetKinds(ctx, tx, []uuid.UUID{id})
	})
	if err != nil {
		return nil, err
	}
	return Get(ctx, d, viewer, id)
}

// Reason is why Link refused one side of a pair, or the pair.
type Reason string

// The reasons Link refuses a pair for.
const (
	NotFound        Reason = "not_found"       // no transaction of the family the viewer may see
	NotATransaction Reason = "not_transaction" // a valuation or a trade
	Split           Reason = "split"           // split into parts: one of them is linked
	Linked          Reason = "linked"          // already one side of a transfer
	Same            Reason = "same"            // the same transaction twice
	SameAccount     Reason = "same_account"    // both in one account
	SameDirection   Reason = "same_direction"  // both money out, or both money in
	Amounts         Reason = "amounts"         // in one currency, amounts that are not opposite
	TooFarApart     Reason = "too_far_apart"   // dated more than ManualDays apart
)

// Problem is one thing Link refused: a side (Field) or the pair, with why, in the API's
// English (Message) and as a Reason a page says in its reader's language.
type Problem struct {
	Field   string // from_transaction_id or to_transaction_id
	Reason  Reason
	Message string
	Days    int // TooFarApart: how many days apart the sides are
}

// Refusal is every Problem Link refused a pair for, in the order of its error's message. The
// Invalid error Link returns wraps it (errors.As finds it), so that a page can say each in
// its reader's words while the API says the error's English.
type Refusal struct {
	Problems []Problem
}

func (r *Refusal) Error() string {
	return fmt.Sprintf("transfer refused: %d problems", len(r.Problems))
}

// refusal collects Link's problems as field problems and as a Refusal.
type refusal struct {
	v *apperr.Validation
	Refusal
}

// add records p, msg following the field's name in its message.
func (r *refusal) add(p Problem, msg string) *refusal {
	p.Message = p.Field + " " + msg
	r.v.Add(p.Field, p.Message)
	r.Problems = append(r.Problems, p)
	return r
}

// err is the Invalid error of the problems, wrapping the Refusal; nil without any.
func (r *refusal) err() error {
	e := apperr.As(r.v.Err())
	if e == nil {
		return nil
	}
	e.Err = &r.Refusal
	return e
}

// SetKinds gives both sides of the transfers their kinds: the inflow a funds movement, the
// outflow after where the money went (KindTo).
func SetKinds(ctx context.Context, idb bun.IDB, ids []uuid.UUID) error {
	if len(ids) == 0 {
		return nil
	}
	// An array, not a list: a publish's match can name 23,000 transfers.
	return setKinds(ctx, idb, "t.id = ANY(?::uuid[])", pgdialect.Array(ids))
}

// SetImportKinds is SetKinds for the transfers an import brought.
func SetImportKinds(ctx context.Context, idb bun.IDB, importID uuid.UUID) error {
	return setKinds(ctx, idb, "t.import_id = ?", importID)
}

func setKinds(ctx context.Context, idb bun.IDB, where string, arg any) error {
	var pairs []struct {
		In   uuid.UUID `bun:"inflow_entry_id"`
		Out  uuid.UUID `bun:"outflow_entry_id"`
		From string    `bun:"src"`
		To   string    `bun:"dst"`
	}
	if err := idb.NewRaw(`SELECT t.inflow_entry_id, t.outflow_entry_id, src.accountable_type AS src, dst.accountable_type AS dst
		FROM transfers t
		JOIN entries ie ON ie.id = t.inflow_entry_id JOIN accounts dst ON dst.id = ie.account_id
		JOIN entries oe ON oe.id = t.outflow_entry_id JOIN accounts src ON src.id = oe.account_id
		WHERE `+where, arg).Scan(ctx, &pairs); err != nil && !db.IsNoRows(err) {
		return fmt.Errorf("set transfer kinds: %w", err)
	}
	if len(pairs) == 0 {
		return nil
	}
	ids, kinds := make([]uuid.UUID, 0, 2*len(pairs)), make([]string, 0, 2*len(pairs))
	for _, p := range pairs {
		ids = append(ids, p.In, p.Out)
		kinds = append(kinds, models.KindFundsMovement, KindTo(p.From, p.To))
	}
	if _, err := idb.NewRaw(`UPDATE entries e SET transaction_kind = k.kind, updated_at = now()
		FROM unnest(?::uuid[], ?::text[]) AS k(id, kind) WHERE e.id = k.id AND e.transaction_kind <> k.kind`,
		pgdialect.Array(ids), pgdialect.Array(kinds)).Exec(ctx); err != nil {
		return fmt.Errorf("set transfer kinds: %w", err)
	}
	return nil
}

// KindTo is the kind of money going out of an account of type from into one of type to: a
// loan payment, a card (or other debt) payment, an investment contribution from outside
// investments, or else a funds movement.
func KindTo(from, to string) string {
	switch {
	case to == "Loan":
		return models.KindLoanPayment
	case to == "CreditCard" || to == "OtherLiability":
		return models.KindCCPayment
	case (to == "Investment" || to == "Crypto") && from != "Investment" && from != "Crypto":
		return models.KindInvestmentContribution
	}
	return models.KindFundsMovement
}
