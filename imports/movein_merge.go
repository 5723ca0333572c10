package imports

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"
	"github.com/uptrace/bun"

	"tally/imports/movein"
	"tally/imports/native"
	"tally/models"
)

// moveInMerge is what a move-in's publish finds the family holding already, so that the
// budget merges into it: an account of the same name whose balance the budget's carries on
// (accountContinuity) is the account (as categories, merchants and budget months are by the
// native import), and a transaction, a split part, a
// transfer, a series or a rule an earlier move-in of the same budget brought is that one. So
// importing the same export again adds nothing, and a newer one adds only what is new.
type moveInMerge struct {
	accounts  map[string]existingAccount // by name
	entries   map[string]uuid.UUID       // external_id → entry, of the source's entries
	transfers map[[2]uuid.UUID]uuid.UUID // (inflow, outflow) → transfer
	sides     map[uuid.UUID]bool         // the entries that are a side of a transfer
	series    map[string]uuid.UUID       // by name
	rules     map[string]uuid.UUID       // by name
	// flows are the budget's transactions by its account's id, and names its accounts'
	// names: what tells whether an account of the family's carries on, and what a budget's
	// account that does not is named instead.
	flows map[string][]datedAmount
	names map[string]bool
	// held are, by account, date and amount, the entries a merged account holds from
	// elsewhere (a statement import, a bank, a person): the budget's transaction of the same
	// day and amount is that entry, not another, so the account's balance carries on.
	held map[heldKey][]uuid.UUID
}

type heldKey struct {
	account uuid.UUID
	date    string
	amount  string
}

type existingAccount struct {
	ID       uuid.UUID `bun:"id"`
	Name     string    `bun:"name"`
	Type     string    `bun:"accountable_type"`
	Currency string    `bun:"currency"`
}

// loadMoveInMerge reads what the family holds that a move-in from source may merge into.
// Each list is the family's, so its cost is bounded by what the family holds.
func (w *nativeWriter) loadMoveInMerge(ctx context.Context, source string) error {
	m := &moveInMerge{accounts: map[string]existingAccount{}, entries: map[string]uuid.UUID{},
		transfers: map[[2]uuid.UUID]uuid.UUID{}, series: map[string]uuid.UUID{}, rules: map[string]uuid.UUID{},
		held: map[heldKey][]uuid.UUID{}, sides: map[uuid.UUID]bool{}}
	var err error
	if m.accounts, err = familyAccounts(ctx, w.tx, w.im.FamilyID); err != nil {
		return err
	}
	type pair struct {
		Key string    `bun:"k"`
		ID  uuid.UUID `bun:"id"`
	}
	var rows []pair
	if err := w.tx.NewRaw("SELECT external_id AS k, id FROM entries WHERE family_id = ? AND source = ? AND external_id IS NOT NULL",
		w.im.FamilyID, source).Scan(ctx, &rows); err != nil {
		return err
	}
	for _, r := range rows {
		m.entries[r.Key] = r.ID
	}
	var transfers []struct {
		ID  uuid.UUID `bun:"id"`
		In  uuid.UUID `bun:"inflow_entry_id"`
		Out uuid.UUID `bun:"outflow_entry_id"`
	}
	if err := w.tx.NewRaw("SELECT id, inflow_entry_id, outflow_entry_id FROM transfers WHERE family_id = ?", w.im.FamilyID).Scan(ctx, &transfers); err != nil {
		return err
	}
	for _, t := range transfers {
		m.transfers[[2]uuid.UUID{t.In, t.Out}] = t.ID
		m.sides[t.In], m.sides[t.Out] = true, true
	}
	for table, into := range map[string]map[string]uuid.UUID{"recurring_transactions": m.series, "rules": m.rules} {
		rows = rows[:0]
		if err := w.tx.NewRaw("SELECT name AS k, id FROM ? WHERE family_id = ? AND name IS NOT NULL", bun.Ident(table), w.im.FamilyID).Scan(ctx, &rows); err != nil {
			return err
		}
		for _, r := range rows {
			into[r.Key] = r.ID
		}
	}
	w.merge = m
	return nil
}

// familyAccounts are the family's accounts by name, the first made of each name.
func familyAccounts(ctx context.Context, db bun.IDB, familyID uuid.UUID) (map[string]existingAccount, error) {
	var list []existingAccount
	if err := db.NewRaw("SELECT id, name, accountable_type, currency FROM accounts WHERE family_id = ? ORDER BY created_at",
		familyID).Scan(ctx, &list); err != nil {
		return nil, err
	}
	out := make(map[string]existingAccount, len(list))
	for _, a := range list {
		if _, dup := out[a.Name]; !dup {
			out[a.Name] = a
		}
	}
	return out, nil
}

// datedAmount is one transaction of a budget's account: its day and amount, in the ledger's sign.
type datedAmount struct {
	date   time.Time
	amount decimal.Decimal
}

// continuity is whether a budget's account carries on the family's account of its name, and
// the balances that say so: on Day, the family's balance and the budget's.
type continuity struct {
	Continues      bool
	Day            time.Time
	Family, Source decimal.Decimal
}

// accountContinuity tells whether the budget's account, of transactions flows, carries on
// the family's account a, so that they are one account: on the last day both have
// transactions for (the earlier of their last transactions' days), the balance Tally shows
// for a equals the balance the budget's transactions make up to that day, to the cent. Where
// the histories overlap, that is their last common day; where the family's ends before the
// budget's begins, the budget has nothing by then, so only a family's account that closed at
// zero carries on (one at another balance would be counted twice, once as its balance and once
// as the budget's opening); where the budget's ends first, the family's balance then is its
// walk back from its anchor. An account either side without transactions has nothing to count
// twice, and carries on.
func accountContinuity(ctx context.Context, db bun.IDB, familyID uuid.UUID, a existingAccount, flows []datedAmount) (continuity, error) {
	var last *time.Time
	if err := db.NewRaw(`SELECT max(date) FROM entries WHERE account_id = ? AND kind = 'transaction' AND parent_id IS NULL`,
		a.ID).Scan(ctx, &last); err != nil {
		return continuity{}, err
	}
	if last == nil || len(flows) == 0 {
		return continuity{Continues: true}, nil
	}
	day := flows[0].date
	for _, f := range flows {
		if f.date.After(day) {
			day = f.date
		}
	}
	if last.Before(day) {
		day = *last
	}
	var sum decimal.Decimal
	for _, f := range flows {
		if !f.date.After(day) {
			sum = sum.Add(f.amount)
		}
	}
	c := continuity{Day: day, Source: sum.Neg()}
	if typ, _ := models.AccountTypeByName(a.Type); typ.Liability {
		c.Source = sum // money out raises what a liability owes
	}
	balances, err := models.DailyBalances(ctx, db, models.FamilyViewer(familyID), a.ID, day, day)
	if err != nil {
		return continuity{}, err
	}
	if len(balances) > 0 {
		c.Family = balances[0].Balance
	}
	places := int32(models.CurrencyDecimals(a.Currency))
	c.Continues = c.Family.Round(places).Equal(c.Source.Round(places))
	return c, nil
}

// nameBeside is the name a budget's account is kept under beside the family's account of its
// name, which it does not carry on: the source's name after it, numbered if that is taken.
func nameBeside(name, source string, taken func(string) bool) string {
	out := fmt.Sprintf("%s (%s)", name, sourceName(source))
	for i := 2; taken(out); i++ {
		out = fmt.Sprintf("%s (%s %d)", name, sourceName(source), i)
	}
	return out
}

// accountsBeside names, for the dry run, the budget's accounts of a name the family has
// whose balance does not carry on the family's: each is made anew beside it, under the name
// the publish gives it. It reads the budget's transactions, so it runs before their
// conversion lets them go.
func (s *Service) accountsBeside(ctx context.Context, familyID uuid.UUID, b *movein.Budget) ([]movein.Notice, error) {
	theirs, err := familyAccounts(ctx, s.DB, familyID)
	if err != nil {
		return nil, err
	}
	// Only the accounts of a name the family has are compared: their transactions, not the
	// whole ledger's, are gathered.
	flows, names := map[string][]datedAmount{}, map[string]bool{}
	for _, a := range b.Accounts {
		names[a.Name] = true
		if _, ok := theirs[a.Name]; ok {
			flows[a.ID] = []datedAmount{}
		}
	}
	if len(flows) > 0 {
		for _, t := range b.Transactions {
			if f, ok := flows[t.AccountID]; ok {
				flows[t.AccountID] = append(f, datedAmount{t.Date, t.Amount.Decimal()})
			}
		}
	}
	var notices []movein.Notice
	for _, a := range b.Accounts {
		have, ok := theirs[a.Name]
		if !ok {
			continue
		}
		c, err := accountContinuity(ctx, s.DB, familyID, have, flows[a.ID])
		if err != nil {
			return nil, err
		}
		if c.Continues {
			continue
		}
		name := nameBeside(a.Name, b.Source, func(n string) bool { _, t := theirs[n]; return t || names[n] })
		places := int32(models.CurrencyDecimals(have.Currency))
		names[name] = true
		notices = append(notices, movein.Notice{What: movein.Renamed, Entity: movein.EntityAccount, ID: a.ID, Name: a.Name,
			Reason: fmt.Sprintf("your account %q has a balance of %s on %s, and %s's %s: its balance does not carry on yours, so it is kept apart as %q rather than merged",
				a.Name, c.Family.StringFixed(places), c.Day.Format(time.DateOnly), sourceName(b.Source), c.Source.StringFixed(places), name)})
	}
	return notices, nil
}

// mergeAccount maps an Account record to the family's account of its name, if it has one and
// the budget's account carries on its balance; one that does not is made anew, named beside it.
func (w *nativeWriter) mergeAccount(ctx context.Context, r *native.Record) (bool, error) {
	if w.merge == nil {
		return false, nil
	}
	a, ok := w.merge.accounts[r.String("name")]
	if !ok {
		return false, nil
	}
	c, err := accountContinuity(ctx, w.tx, w.im.FamilyID, a, w.merge.flows[r.SourceID])
	if err != nil {
		return false, err
	}
	if !c.Continues {
		r.Data["name"] = nameBeside(a.Name, moveInSources[w.im.Type], func(n string) bool {
			_, theirs := w.merge.accounts[n]
			return theirs || w.merge.names[n]
		})
		w.merge.names[r.String("name")] = true
		return false, nil
	}
	typ, _ := models.AccountTypeByName(a.Type)
	w.mapID("Account", r.SourceID, a.ID)
	// Its balance is what its entries make it once the budget's are added; it gets no
	// opening balance of the import's.
	w.accounts[a.ID] = &nativeAccount{typ: typ, currency: a.Currency, skipOpening: true, balance: decimal.Zero}
	w.link("accounts", a.ID, "merged")
	return true, w.loadHeld(ctx, a.ID, moveInSources[w.im.Type])
}

// noteFlows keeps, for a move-in, its budget's transactions by account and its accounts'
// names, before the accounts are written.
func (w *nativeWriter) noteFlows(accounts, transactions []*native.Record) {
	if w.merge == nil {
		return
	}
	w.merge.flows, w.merge.names = map[string][]datedAmount{}, map[string]bool{}
	for _, r := range accounts {
		w.merge.names[r.String("name")] = true
	}
	for _, r := range transactions {
		date, okDate := r.Date("date")
		amount, okAmount := r.Decimal("amount")
		if id := r.ID("account_id"); okDate && okAmount {
			w.merge.flows[id] = append(w.merge.flows[id], datedAmount{date, amount})
		}
	}
}

// loadHeld reads the entries the family's account holds from elsewhere than the source, once
// the account is merged.
func (w *nativeWriter) loadHeld(ctx context.Context, account uuid.UUID, source string) error {
	var rows []struct {
		ID     uuid.UUID       `bun:"id"`
		Date   time.Time       `bun:"date"`
		Amount decimal.Decimal `bun:"amount"`
	}
	if err := w.tx.NewRaw(`SELECT id, date, amount FROM entries WHERE account_id = ? AND kind = 'transaction' AND parent_id IS NULL
		AND source IS DISTINCT FROM ? ORDER BY date, created_at, id`, account, source).Scan(ctx, &rows); err != nil {
		return err
	}
	for _, r := range rows {
		k := heldKey{account, r.Date.Format(time.DateOnly), r.Amount.String()}
		w.merge.held[k] = append(w.merge.held[k], r.ID)
	}
	return nil
}

// takeHeld finds the entry a merged account holds already for a transaction of the budget,
// and takes it, so that no two transactions are the same entry.
func (w *nativeWriter) takeHeld(account uuid.UUID, date time.Time, amount decimal.Decimal) (uuid.UUID, bool) {
	k := heldKey{account, date.Format(time.DateOnly), amount.String()}
	ids := w.merge.held[k]
	if len(ids) == 0 {
		return uuid.Nil, false
	}
	w.merge.held[k] = ids[1:]
	return ids[0], true
}

// mergeTransaction maps a Transaction record, and its split parts, to the entries an earlier
// move-in made of them, if it did, or to the entry of its day and amount a merged account
// holds from elsewhere.
func (w *nativeWriter) mergeTransaction(r *native.Record, account uuid.UUID, date time.Time, amount decimal.Decimal) bool {
	if w.merge == nil {
		return false
	}
	id, ok := w.merge.entries[r.String("external_id")]
	if !ok {
		if id, ok = w.takeHeld(account, date, amount); !ok {
			return false
		}
	}
	w.mapID("Transaction", r.SourceID, id)
	for _, s := range r.SplitLines() {
		if part, ok := w.merge.entries[native.IDOf(s, "id")]; ok {
			w.mapID("Transaction", native.IDOf(s, "id"), part)
		}
	}
	w.link("transactions", id, "merged")
	return true
}

// mergeTransfer reports whether the family has the transfer between in and out already, or
// one side of it is a side of another transfer (an entry of a merged account that the family
// paired otherwise): that one is skipped, and the read-back names it.
func (w *nativeWriter) mergeTransfer(in, out uuid.UUID) bool {
	if w.merge == nil {
		return false
	}
	if id, ok := w.merge.transfers[[2]uuid.UUID{in, out}]; ok {
		w.link("transfers", id, "merged")
		return true
	}
	if w.merge.sides[in] || w.merge.sides[out] {
		w.skip("transfers")
		return true
	}
	return false
}

// mergeNamed maps a series or a rule to the family's of its name, if it has one.
func (w *nativeWriter) mergeNamed(kind, entity string, byName func(*moveInMerge) map[string]uuid.UUID, r *native.Record) bool {
	if w.merge == nil {
		return false
	}
	id, ok := byName(w.merge)[r.String("name")]
	if ok {
		w.mapID(kind, r.SourceID, id)
		w.link(entity, id, "merged")
	}
	return ok
}

// moveInSources are the sources of the move-in types, as their entries record them.
var moveInSources = map[Type]string{ActualImport: movein.SourceActual, YnabImport: movein.SourceYNAB}

// partExternalID is a split part's id as its entry's external id, for a move-in: a later
// move-in of the same budget finds the part by it (a transfer may name it). A NativeImport's
// parts keep none, as Sure's.
func (w *nativeWriter) partExternalID(s map[string]any) string {
	if w.merge == nil {
		return ""
	}
	return native.IDOf(s, "id")
}

// partSource is the source a move-in's split part records, with its external id.
func (w *nativeWriter) partSource(r *native.Record) string {
	if w.merge == nil {
		return ""
	}
	return r.String("source")
}
