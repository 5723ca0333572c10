package transfers

import (
	"context"
	"fmt"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"

	"tally/internal/db"
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
// only the written side is checked for them. The staged transactions are copied into a table
// of their own and analyzed, and two staged sides are joined by hash on currency, opposite
// amount and each of the days within MatchDays (never on amount alone, which pairs each
// amount's transactions each with each). A written side is probed through
// entries_transfer_match_idx as in Match, for the amounts some written transaction of the
// family has the opposite of.
func MatchStaged(ctx context.Context, tx db.Tx, familyID uuid.UUID, staged string, args ...any) (*Proposals, error) {
	// The staged transactions a transfer can have, in a table of their own with statistics:
	// a query over an import's staged rows is estimated at a few rows (its conditions on the
	// rows' extra data have no statistics), and the join of a few rows with themselves was
	// planned as a loop over the rows for each row.
	if _, err := tx.NewRaw(`DROP TABLE IF EXISTS staged_transfers;
		CREATE TEMP TABLE staged_transfers ON COMMIT DROP AS SELECT s.id, s.account_id, s.accountable_type, s.currency, s.amount, s.date,
			s.transaction_kind FROM (`+staged+`) s WHERE s.amount <> 0 AND s.transaction_kind IN (`+transferKinds+`);
		ANALYZE staged_transfers`, args...).Exec(ctx); err != nil {
		return nil, fmt.Errorf("stage transfers: %w", err)
	}
	q := `WITH x AS MATERIALIZED (SELECT k.currency, k.amount FROM (SELECT DISTINCT currency, amount FROM staged_transfers) k
			CROSS JOIN LATERAL (SELECT 1 FROM entries o WHERE o.family_id = ? AND ` + byAmount("o", "-k.amount") + `
				AND o.kind = 'transaction' AND o.parent_id IS NULL AND o.currency = k.currency ORDER BY o.amount LIMIT 1) o)
		SELECT a, b, a_out, a_type, b_type, a_kind, b_kind, b_staged FROM (
		SELECT n.id AS a, o.id AS b, n.amount > 0 AS a_out, n.accountable_type AS a_type, o.accountable_type AS b_type,
			n.transaction_kind AS a_kind, o.transaction_kind AS b_kind, true AS b_staged,
			n.transaction_kind = 'standard' AND o.transaction_kind = 'standard' AS plain, abs(n.date - o.date) AS gap,
			least(n.date, o.date) AS first
		FROM (SELECT n.*, n.date + d.days AS day FROM staged_transfers n
			CROSS JOIN generate_series(-` + fmt.Sprint(MatchDays) + `, ` + fmt.Sprint(MatchDays) + `) AS d(days) OFFSET 0) n
		JOIN staged_transfers o ON o.currency = n.currency AND o.amount = -n.amount AND o.date = n.day
		WHERE o.account_id <> n.account_id AND n.id < o.id
		UNION ALL
		SELECT n.id, o.id, n.amount > 0, n.accountable_type, o.accountable_type, n.transaction_kind, o.transaction_kind, false,
			n.transaction_kind = 'standard' AND o.transaction_kind = 'standard', abs(n.date - o.date), least(n.date, o.date)
		FROM staged_transfers n JOIN x ON x.currency = n.currency AND x.amount = n.amount
		CROSS JOIN LATERAL (SELECT o.id, o.date, o.transaction_kind, oa.accountable_type FROM entries o
			JOIN accounts oa ON oa.id = o.account_id
			WHERE o.family_id = ? AND ` + byAmount("o", "-n.amount") + `
				AND o.date BETWEEN n.date - ` + fmt.Sprint(MatchDays) + ` AND n.date + ` + fmt.Sprint(MatchDays) + `
				AND o.currency = n.currency AND o.account_id <> n.account_id AND ` + matchable("o") + `
				ORDER BY o.amount OFFSET 0) o) c
		ORDER BY plain, gap, first, a, b`
	var candidates []struct {
		A       uuid.UUID `bun:"a"`
		B       uuid.UUID `bun:"b"`
		AOut    bool      `bun:"a_out"`
		AType   string    `bun:"a_type"`
		BType   string    `bun:"b_type"`
		AKind   string    `bun:"a_kind"`
		BKind   string    `bun:"b_kind"`
		BStaged bool      `bun:"b_staged"`
	}
	if err := tx.NewRaw(q, familyID, familyID).Scan(ctx, &candidates); err != nil && !db.IsNoRows(err) {
		return nil, fmt.Errorf("find transfers: %w", err)
	}
	ps := &Proposals{familyID: familyID}
	used := map[uuid.UUID]bool{}
	for _, c := range candidates {
		if used[c.A] || used[c.B] {
			continue
		}
		used[c.A], used[c.B] = true, true
		p := Proposal{ID: uuid.Must(uuid.NewV7()), In: c.A, Out: c.B, InStaged: true, OutStaged: c.BStaged,
			InWas: c.AKind, OutWas: c.BKind, InKind: "funds_movement", OutKind: KindTo(c.BType, c.AType)}
		if c.AOut {
			p.In, p.Out, p.InStaged, p.OutStaged = c.B, c.A, c.BStaged, true
			p.InWas, p.OutWas, p.OutKind = c.BKind, c.AKind, KindTo(c.AType, c.BType)
		}
		if !p.InStaged {
			p.InWas = ""
		}
		if !p.OutStaged {
			p.OutWas = ""
		}
		ps.List = append(ps.List, p)
	}
	return ps, nil
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
