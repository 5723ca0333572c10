package transfers

import (
	"context"
	"fmt"
	"strings"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"

	"tally/internal/db"
)

// Scope is the new transactions a match looks at: one import's, or a list.
type Scope struct {
	ImportID *uuid.UUID
	EntryIDs []uuid.UUID
}

// matchable is what a transaction on either side of a proposed transfer must be: a posted,
// unsplit transaction of a kind a transfer can have, in no transfer yet (SQL, for the alias x).
// Each look at another table is a subquery the planner cannot turn into an anti-join (OFFSET
// 0), and so is a probe of that table's unique or partial index for the row at hand: as
// anti-joins they were planned from statistics, and a publish handed back after a crash, on a
// database too young for transfers to have been analyzed, read the whole table (the dead
// transfers of its first attempt) for every candidate: 3.8 s where the first attempt took 0.5.
func matchable(x string) string {
	return fmt.Sprintf(`%[1]s.kind = 'transaction' AND %[1]s.parent_id IS NULL AND NOT %[1]s.pending
		AND %[1]s.transaction_kind IN (`+transferKinds+`)
		AND NOT EXISTS (SELECT 1 FROM transfers t WHERE t.inflow_entry_id = %[1]s.id OFFSET 0)
		AND NOT EXISTS (SELECT 1 FROM transfers t WHERE t.outflow_entry_id = %[1]s.id OFFSET 0)
		AND NOT EXISTS (SELECT 1 FROM entries c WHERE c.parent_id = %[1]s.id OFFSET 0)`, x)
}

// byAmount is x.amount = amount (SQL), for a probe that must go through
// entries_transfer_match_idx. The statistics can take entries for empty: after a publish's
// first attempt was rolled back, or an import reverted, and the dead rows analyzed, before a
// publish writes its rows again. Every index on family then costs as little as another, and
// the planner took entries_family_date_idx, which reads all of the family's transactions for
// each key. So the amount is a range of one value, not an equality, and the probe asks for
// its rows in amount order (ORDER BY x.amount): only the index on family, amount and date
// gives that order without a sort, which decides between indexes that cost the same, and
// its range is the narrowest when they do not.
func byAmount(x, amount string) string {
	return fmt.Sprintf("%[1]s.amount >= %[2]s AND %[1]s.amount <= %[2]s", x, amount)
}

// Match proposes transfers for the family's transactions in scope, in tx: each finds the
// transaction in another of the family's accounts with the opposite amount in the same
// currency, dated within MatchDays, that is in no transfer and was never rejected with it.
// A transaction a rule marked as a transfer pairs first, then the closest dates, and a
// transaction joins one transfer at most. It returns how many transfers it proposed.
//
// A large import must not pay for a self-join of its rows, and its rows are too new for the
// planner's statistics, which still take the family for empty: so every lookup of a row's
// counterpart is a LATERAL subquery the planner cannot flatten (LIMIT, OFFSET 0), and so
// probes the index on family, amount and date with the row's own values whatever it believes
// (see byAmount for how that index is the one chosen).
// A first query finds the amounts (per account and currency) whose opposite exists in another
// account at all, one probe per distinct amount, and most often ends the match; only the
// transactions of those amounts look for their counterparts.
func Match(ctx context.Context, tx bun.IDB, familyID uuid.UUID, scope Scope) (int, error) {
	var where string
	var arg any
	switch {
	case scope.ImportID != nil:
		where, arg = "n.import_id = ?", *scope.ImportID
	case len(scope.EntryIDs) > 0:
		where, arg = "n.id IN (?)", bun.In(scope.EntryIDs)
	default:
		return 0, nil
	}
	var keys []struct {
		AccountID uuid.UUID       `bun:"account_id"`
		Currency  string          `bun:"currency"`
		Amount    decimal.Decimal `bun:"amount"`
	}
	if err := tx.NewRaw(`SELECT k.account_id, k.currency, k.amount FROM (
			SELECT DISTINCT n.amount, n.account_id, n.currency FROM entries n
			WHERE n.family_id = ? AND `+where+` AND n.kind = 'transaction' AND n.parent_id IS NULL AND n.amount <> 0) k
		CROSS JOIN LATERAL (SELECT 1 FROM entries o WHERE o.family_id = ? AND `+byAmount("o", "-k.amount")+`
			AND o.kind = 'transaction' AND o.parent_id IS NULL AND o.currency = k.currency AND o.account_id <> k.account_id
			ORDER BY o.amount LIMIT 1) o`,
		familyID, arg, familyID).Scan(ctx, &keys); err != nil && !db.IsNoRows(err) {
		return 0, fmt.Errorf("find transfers: %w", err)
	}
	if len(keys) == 0 {
		return 0, nil
	}
	accounts, currencies, amounts := make([]uuid.UUID, len(keys)), make([]string, len(keys)), make([]string, len(keys))
	for i, k := range keys {
		accounts[i], currencies[i], amounts[i] = k.AccountID, k.Currency, k.Amount.String()
	}
	// The scope, and the account of a key's own side, are tested as coalesce(…, false), which
	// no index can answer: a probe through entries_import_id_idx or entries_account_date_idx
	// would read all of the import's or the account's transactions for each key.
	inScope := "coalesce(" + where + ", false)"
	q := `SELECT n.id AS a, o.id AS b, n.amount > 0 AS a_out
		FROM unnest(?::uuid[], ?::text[], ?::numeric[]) AS k(account_id, currency, amount)
		CROSS JOIN LATERAL (SELECT n.id, n.date, n.amount, n.transaction_kind FROM entries n
			WHERE n.family_id = ? AND ` + byAmount("n", "k.amount") + ` AND coalesce(n.account_id = k.account_id, false)
				AND n.currency = k.currency AND ` + inScope + ` AND ` + matchable("n") + ` ORDER BY n.amount OFFSET 0) n
		CROSS JOIN LATERAL (SELECT o.id, o.date, o.transaction_kind FROM entries o
			WHERE o.family_id = ? AND ` + byAmount("o", "-n.amount") + `
				AND o.date BETWEEN n.date - ` + fmt.Sprint(MatchDays) + ` AND n.date + ` + fmt.Sprint(MatchDays) + `
				AND o.currency = k.currency AND o.account_id <> k.account_id AND ` + matchable("o") + `
				AND NOT (` + strings.Replace(inScope, "n.", "o.", 1) + ` AND o.id < n.id) ORDER BY o.amount OFFSET 0) o
		WHERE NOT EXISTS (SELECT 1 FROM rejected_transfers r WHERE (r.inflow_entry_id = n.id AND r.outflow_entry_id = o.id)
				OR (r.inflow_entry_id = o.id AND r.outflow_entry_id = n.id) OFFSET 0)
		ORDER BY n.transaction_kind = 'standard' AND o.transaction_kind = 'standard', abs(n.date - o.date),
			least(n.date, o.date), n.id, o.id`
	// A pair of two transactions in scope is found from both sides: only from the lower id.
	args := []any{pgdialect.Array(accounts), pgdialect.Array(currencies), pgdialect.Array(amounts), familyID, arg, familyID, arg}
	var candidates []struct {
		A    uuid.UUID `bun:"a"`
		B    uuid.UUID `bun:"b"`
		AOut bool      `bun:"a_out"`
	}
	if err := tx.NewRaw(q, args...).Scan(ctx, &candidates); err != nil && !db.IsNoRows(err) {
		return 0, fmt.Errorf("find transfers: %w", err)
	}
	used := map[uuid.UUID]bool{}
	var ids, ins, outs []uuid.UUID
	for _, c := range candidates {
		if used[c.A] || used[c.B] {
			continue
		}
		used[c.A], used[c.B] = true, true
		in, out := c.A, c.B
		if c.AOut {
			in, out = c.B, c.A
		}
		ids, ins, outs = append(ids, uuid.Must(uuid.NewV7())), append(ins, in), append(outs, out)
	}
	if len(ids) == 0 {
		return 0, nil
	}
	made, err := insertPending(ctx, tx, familyID, ids, ins, outs)
	if err != nil {
		return 0, err
	}
	return len(made), SetKinds(ctx, tx, made)
}
