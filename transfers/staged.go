package transfers

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/shopspring/decimal"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"

	"tally/internal/db"
	"tally/models"
)

// Proposal is a transfer MatchStaged proposes: its sides, the kinds they take, and for a side
// not written yet (staged), the kind it has without the transfer.
type Proposal struct {
	ID, In, Out         uuid.UUID
	InKind, OutKind     string
	InStaged, OutStaged bool
	InWas, OutWas       string
}

// Proposals are the transfers MatchStaged proposes for one family, to be written with Write
// once their staged sides are entries.
type Proposals struct {
	familyID uuid.UUID
	List     []Proposal
}

// StagedKinds are the kinds the staged sides of the proposals take, as parallel slices of
// transaction ids and kinds: the caller writes those transactions with them.
func (ps *Proposals) StagedKinds() (ids []uuid.UUID, kinds []string) {
	for _, p := range ps.List {
		if p.InStaged {
			ids, kinds = append(ids, p.In), append(kinds, p.InKind)
		}
		if p.OutStaged {
			ids, kinds = append(ids, p.Out), append(kinds, p.OutKind)
		}
	}
	return ids, kinds
}

// MatchStaged is Match for transactions not written yet, in tx: staged is a query (with args)
// of them, with the columns id, account_id, accountable_type (the account's), currency, amount,
// date and transaction_kind, each posted and unsplit as every new transaction is. It proposes
// what Match would propose once they were written, pairing them with one another and with the
// family's transactions, and writes nothing: the caller writes the staged transactions with
// their kinds (StagedKinds), then the transfers (Write). So a publish writes each of its
// entries once, rather than writing them and then the kinds of their transfers.
//
// A staged transaction is in no transfer and no rejected pair yet (both need the entry), so
// only the written side is checked for them. The staged query is read three times, each time
// in one pass whatever the planner believes of its rows: for the amounts the file has both
// ways (streamed, and counted here), for the amounts some written transaction of the family has the
// opposite of (a probe of entries_transfer_match_idx for each, and only when the family has
// any), and for the transactions of those amounts (a hashed filter). Those are paired here, in
// memory, each with the opposite amounts dated within MatchDays; and probed for in the
// family's transactions as Match does.
//
// oneAccount says every staged row goes to one account: no two of them can pair, so the
// amounts the file has both ways are not read.
func MatchStaged(ctx context.Context, tx db.Tx, familyID uuid.UUID, oneAccount bool, staged string, args ...any) (*Proposals, error) {
	from := `(` + staged + `) s WHERE s.amount <> 0 AND s.transaction_kind IN (` + transferKinds + `)`
	// The amounts (by currency) the file has both ways, and those (signed) some written
	// transaction of the family has the opposite of. The first are gathered here from the
	// rows' amounts as float8, which may take two amounts for one (a row too many is paired
	// with nothing) but never one for two: aggregated in SQL, the sizes spilled to disk.
	var both []float64
	if !oneAccount {
		var err error
		if both, err = bothWays(ctx, tx, tx.NewRaw(`SELECT s.currency, s.amount::float8 FROM `+from, args...).String()); err != nil {
			return nil, err
		}
	}
	var written []amountKey
	var some bool
	if err := tx.NewRaw(`SELECT EXISTS (SELECT 1 FROM entries o WHERE o.family_id = ? AND o.kind = 'transaction' AND o.parent_id IS NULL)`,
		familyID).Scan(ctx, &some); err != nil {
		return nil, fmt.Errorf("find transfers: %w", err)
	}
	if some {
		if err := tx.NewRaw(`SELECT k.currency, k.amount FROM (SELECT DISTINCT s.currency, s.amount FROM `+from+`) k
			CROSS JOIN LATERAL (SELECT 1 FROM entries o WHERE o.family_id = ? AND `+byAmount("o", "-k.amount")+`
				AND o.kind = 'transaction' AND o.parent_id IS NULL AND o.currency = k.currency ORDER BY o.amount LIMIT 1) o`,
			append(append([]any{}, args...), familyID)...).Scan(ctx, &written); err != nil && !db.IsNoRows(err) {
			return nil, fmt.Errorf("find transfers: %w", err)
		}
	}
	ps := &Proposals{familyID: familyID}
	if len(both) == 0 && len(written) == 0 {
		return ps, nil
	}
	amounts, has := make([]string, len(written)), make(map[string]bool, len(written))
	for i, k := range written {
		amounts[i], has[k.String()] = k.Amount.String(), true
	}
	// The rows of those amounts, whichever the currency (which the keys then check).
	var rows []stagedRow
	if err := tx.NewRaw(`SELECT s.id, s.account_id, s.accountable_type, s.currency, s.amount, s.date, s.transaction_kind
		FROM `+from+` AND (abs(s.amount)::float8 = ANY (?::float8[]) OR s.amount = ANY (?::numeric[]))`,
		append(append([]any{}, args...), pgdialect.Array(both), pgdialect.Array(amounts))...).Scan(ctx, &rows); err != nil && !db.IsNoRows(err) {
		return nil, fmt.Errorf("find transfers: %w", err)
	}
	candidates := pairStaged(rows)
	more, err := pairWritten(ctx, tx, familyID, rows, has)
	if err != nil {
		return nil, err
	}
	candidates = append(candidates, more...)
	slices.SortFunc(candidates, func(x, y stagedCandidate) int {
		return cmp.Or(cmpBool(x.plain(), y.plain()), cmp.Compare(x.gap(), y.gap()), x.first().Compare(y.first()),
			bytes.Compare(x.a.ID[:], y.a.ID[:]), bytes.Compare(x.b.ID[:], y.b.ID[:]))
	})
	used := map[uuid.UUID]bool{}
	for _, c := range candidates {
		a, b := c.a, c.b
		if used[a.ID] || used[b.ID] {
			continue
		}
		used[a.ID], used[b.ID] = true, true
		in, out, inStaged, outStaged := a, b, true, c.bStaged
		if a.Amount.IsPositive() {
			in, out, inStaged, outStaged = b, a, c.bStaged, true
		}
		p := Proposal{ID: uuid.Must(uuid.NewV7()), In: in.ID, Out: out.ID, InStaged: inStaged, OutStaged: outStaged,
			InKind: models.KindFundsMovement, OutKind: KindTo(out.Type, in.Type)}
		if inStaged {
			p.InWas = in.Kind
		}
		if outStaged {
			p.OutWas = out.Kind
		}
		ps.List = append(ps.List, p)
	}
	return ps, nil
}

// stagedRow is a transaction of a match over staged ones: staged, or written (a counterpart).
type stagedRow struct {
	ID        uuid.UUID       `bun:"id"`
	AccountID uuid.UUID       `bun:"account_id"`
	Type      string          `bun:"accountable_type"`
	Currency  string          `bun:"currency"`
	Amount    decimal.Decimal `bun:"amount"`
	Date      time.Time       `bun:"date"`
	Kind      string          `bun:"transaction_kind"`
}

// amountKey is an amount in a currency, as a map key by String.
type amountKey struct {
	Currency string          `bun:"currency"`
	Amount   decimal.Decimal `bun:"amount"`
}

func (k amountKey) String() string { return k.Currency + " " + k.Amount.String() }

// bothWays reads the currency and amount (float8) of each row of query and returns the sizes
// of the amounts that are there both ways in some currency.
func bothWays(ctx context.Context, tx db.Tx, query string) ([]float64, error) {
	type key struct {
		currency string
		size     float64
	}
	signs := map[key]uint8{}
	rows, err := tx.Pgx.Query(ctx, query)
	if err != nil {
		return nil, fmt.Errorf("find transfers: %w", err)
	}
	defer rows.Close()
	var currency string
	var amount float64
	for rows.Next() {
		if err := rows.Scan(&currency, &amount); err != nil {
			return nil, fmt.Errorf("find transfers: %w", err)
		}
		k, sign := key{currency, amount}, uint8(1)
		if amount < 0 {
			k.size, sign = -amount, 2
		}
		signs[k] |= sign
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("find transfers: %w", err)
	}
	var sizes []float64
	for k, s := range signs {
		if s == 3 {
			sizes = append(sizes, k.size)
		}
	}
	return sizes, nil
}

// size is the key of the row's amount's size, signed the key of its amount.
func (r *stagedRow) size() string   { return amountKey{r.Currency, r.Amount.Abs()}.String() }
func (r *stagedRow) signed() string { return amountKey{r.Currency, r.Amount}.String() }

// stagedCandidate is a possible transfer of the staged transaction a with b, staged or not, a
// the lower id of two staged ones.
type stagedCandidate struct {
	a, b    *stagedRow
	bStaged bool
}

// The order candidates are taken in, as Match's: a pair a rule marked first, then the closest
// dates, the earliest, and the ids.
func (c stagedCandidate) plain() bool {
	return c.a.Kind == models.KindStandard && c.b.Kind == models.KindStandard
}
func (c stagedCandidate) gap() time.Duration {
	return c.a.Date.Sub(c.b.Date).Abs()
}
func (c stagedCandidate) first() time.Time {
	if c.b.Date.Before(c.a.Date) {
		return c.b.Date
	}
	return c.a.Date
}

func cmpBool(x, y bool) int {
	switch {
	case x == y:
		return 0
	case !x:
		return -1
	}
	return 1
}

// pairStaged pairs the staged rows of each currency and size with the rows of the opposite
// amount in another account, dated within MatchDays: each pair once, from the lower id.
// Within a size the rows are walked by date, so that many rows of one amount are compared
// only with those of the days around them.
func pairStaged(rows []stagedRow) []stagedCandidate {
	type sides struct{ in, out []*stagedRow }
	groups := map[string]*sides{}
	for i := range rows {
		r := &rows[i]
		size := r.size()
		g := groups[size]
		if g == nil {
			g = &sides{}
			groups[size] = g
		}
		if r.Amount.IsPositive() {
			g.out = append(g.out, r)
		} else {
			g.in = append(g.in, r)
		}
	}
	byDate := func(x, y *stagedRow) int { return x.Date.Compare(y.Date) }
	window := time.Duration(MatchDays) * 24 * time.Hour
	var out []stagedCandidate
	for _, g := range groups {
		slices.SortFunc(g.in, byDate)
		slices.SortFunc(g.out, byDate)
		lo := 0
		for _, o := range g.out {
			for lo < len(g.in) && g.in[lo].Date.Before(o.Date.Add(-window)) {
				lo++
			}
			for _, in := range g.in[lo:] {
				if in.Date.After(o.Date.Add(window)) {
					break
				}
				if in.AccountID == o.AccountID {
					continue
				}
				a, b := o, in
				if bytes.Compare(in.ID[:], o.ID[:]) < 0 {
					a, b = in, o
				}
				out = append(out, stagedCandidate{a: a, b: b, bStaged: true})
			}
		}
	}
	return out
}

// pairWritten finds the family's transactions each staged row of the amounts has could
// pair with, as Match does: one probe of entries_transfer_match_idx for each row.
func pairWritten(ctx context.Context, tx bun.IDB, familyID uuid.UUID, rows []stagedRow, has map[string]bool) ([]stagedCandidate, error) {
	if len(has) == 0 {
		return nil, nil
	}
	var probe []*stagedRow
	var ids, accounts []uuid.UUID
	var currencies, amounts, dates []string
	for i := range rows {
		if r := &rows[i]; has[r.signed()] {
			probe = append(probe, r)
			ids, accounts, currencies = append(ids, r.ID), append(accounts, r.AccountID), append(currencies, r.Currency)
			amounts, dates = append(amounts, r.Amount.String()), append(dates, r.Date.Format(time.DateOnly))
		}
	}
	var found []struct {
		N int `bun:"n"`
		stagedRow
	}
	days := fmt.Sprint(MatchDays)
	if err := tx.NewRaw(`SELECT n.i - 1 AS n, o.id, o.account_id, oa.accountable_type, o.currency, o.amount, o.date, o.transaction_kind
		FROM unnest(?::uuid[], ?::uuid[], ?::text[], ?::numeric[], ?::date[]) WITH ORDINALITY AS n(id, account_id, currency, amount, date, i)
		CROSS JOIN LATERAL (SELECT o.id, o.account_id, o.currency, o.amount, o.date, o.transaction_kind FROM entries o
			WHERE o.family_id = ? AND `+byAmount("o", "-n.amount")+`
				AND o.date BETWEEN n.date - `+days+` AND n.date + `+days+`
				AND o.currency = n.currency AND o.account_id <> n.account_id AND `+matchable("o")+`
			ORDER BY o.amount OFFSET 0) o
		JOIN accounts oa ON oa.id = o.account_id`,
		pgdialect.Array(ids), pgdialect.Array(accounts), pgdialect.Array(currencies), pgdialect.Array(amounts), pgdialect.Array(dates),
		familyID).Scan(ctx, &found); err != nil && !db.IsNoRows(err) {
		return nil, fmt.Errorf("find transfers: %w", err)
	}
	out := make([]stagedCandidate, len(found))
	for i := range found {
		out[i] = stagedCandidate{a: probe[found[i].N], b: &found[i].stagedRow}
	}
	return out, nil
}

// Write records the proposals, once their staged sides are written with the kinds
// StagedKinds gave them, and gives their written sides their kinds. A transfer between two
// staged transactions is written by COPY: no one else can have paired a transaction this
// transaction has just written. One with a side written before is inserted as Match does,
// and one that a match running at the same time has taken that side for is dropped, its
// staged side set back to the kind it had without it. It returns how many transfers it wrote.
func (ps *Proposals) Write(ctx context.Context, tx db.Tx) (int, error) {
	if ps == nil {
		return 0, nil
	}
	var fresh [][]any
	var ids, ins, outs []uuid.UUID
	for _, p := range ps.List {
		if p.InStaged && p.OutStaged {
			fresh = append(fresh, []any{p.ID, ps.familyID, p.In, p.Out, StatusPending})
			continue
		}
		ids, ins, outs = append(ids, p.ID), append(ins, p.In), append(outs, p.Out)
	}
	if len(fresh) > 0 {
		if _, err := tx.Pgx.CopyFrom(ctx, pgx.Identifier{"transfers"}, []string{"id", "family_id", "inflow_entry_id", "outflow_entry_id", "status"},
			pgx.CopyFromRows(fresh)); err != nil {
			return 0, fmt.Errorf("propose transfers: %w", err)
		}
	}
	if len(ids) == 0 {
		return len(fresh), nil
	}
	made, err := insertPending(ctx, tx, ps.familyID, ids, ins, outs)
	if err != nil {
		return 0, err
	}
	if err := SetKinds(ctx, tx, made); err != nil {
		return 0, err
	}
	kept := make(map[uuid.UUID]bool, len(made))
	for _, id := range made {
		kept[id] = true
	}
	var back []uuid.UUID
	var was []string
	for _, p := range ps.List {
		switch {
		case kept[p.ID] || (p.InStaged && p.OutStaged):
		case p.InStaged:
			back, was = append(back, p.In), append(was, p.InWas)
		case p.OutStaged:
			back, was = append(back, p.Out), append(was, p.OutWas)
		}
	}
	if len(back) > 0 {
		if _, err := tx.NewRaw(`UPDATE entries e SET transaction_kind = k.kind, updated_at = now()
			FROM unnest(?::uuid[], ?::text[]) AS k(id, kind) WHERE e.id = k.id AND e.family_id = ?`,
			pgdialect.Array(back), pgdialect.Array(was), ps.familyID).Exec(ctx); err != nil {
			return 0, fmt.Errorf("drop transfers taken meanwhile: %w", err)
		}
	}
	return len(fresh) + len(made), nil
}

// insertPending proposes the transfers (ids, inflows, outflows), less those a match running
// at the same time (a sync beside an import) has taken a side of since: its pair stands. It
// returns the ids of the transfers it wrote.
func insertPending(ctx context.Context, idb bun.IDB, familyID uuid.UUID, ids, ins, outs []uuid.UUID) ([]uuid.UUID, error) {
	var made []uuid.UUID
	if err := idb.NewRaw(`INSERT INTO transfers (id, family_id, inflow_entry_id, outflow_entry_id, status)
		SELECT p.id, ?, p.inflow, p.outflow, ? FROM unnest(?::uuid[], ?::uuid[], ?::uuid[]) AS p(id, inflow, outflow)
		ON CONFLICT DO NOTHING RETURNING id`, familyID, StatusPending,
		pgdialect.Array(ids), pgdialect.Array(ins), pgdialect.Array(outs)).Scan(ctx, &made); err != nil && !db.IsNoRows(err) {
		return nil, fmt.Errorf("propose transfers: %w", err)
	}
	return made, nil
}
