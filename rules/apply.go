package rules

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/uptrace/bun"

	"tally/internal/db"
	"tally/models"
)

// Load reads a family's rules in their order.
func Load(ctx context.Context, idb bun.IDB, familyID uuid.UUID) ([]Rule, error) {
	var rows []row
	if err := idb.NewRaw("SELECT "+rowColumns+" FROM rules WHERE family_id = ? ORDER BY position, created_at, id", familyID).Scan(ctx, &rows); err != nil && !db.IsNoRows(err) {
		return nil, err
	}
	out := make([]Rule, len(rows))
	for i, r := range rows {
		out[i] = r.rule()
	}
	return out, nil
}

// Scope is the transactions a run covers: one import's, a list, or all of a family's.
type Scope struct {
	ImportID *uuid.UUID
	EntryIDs []uuid.UUID
	All      bool
}

// Runner runs a family's rules inside a caller's transaction.
type Runner struct {
	Log *slog.Logger
}

// Compiled loads and compiles the family's active rules. Rules that cannot run (an imported
// rule with an action Tally does not have, say) are left out and logged; the rest run.
func (r Runner) Compiled(ctx context.Context, idb bun.IDB, familyID uuid.UUID) (*Set, error) {
	all, err := Load(ctx, idb, familyID)
	if err != nil {
		return nil, err
	}
	set := &Set{}
	if set.accountTypes, err = accountTypes(ctx, idb, familyID); err != nil {
		return nil, err
	}
	for _, rule := range all {
		if !rule.Active {
			continue
		}
		c, err := compileRule(rule, &set.texts)
		if err != nil {
			if r.Log != nil {
				r.Log.WarnContext(ctx, "rule left out: it cannot run", "rule_id", rule.ID, "error", err.Error())
			}
			continue
		}
		set.rules = append(set.rules, c)
	}
	return set, nil
}

// accountTypes are the types of the family's accounts, by id.
func accountTypes(ctx context.Context, idb bun.IDB, familyID uuid.UUID) (map[uuid.UUID]string, error) {
	var accounts []struct {
		ID   uuid.UUID `bun:"id"`
		Type string    `bun:"accountable_type"`
	}
	if err := idb.NewRaw("SELECT id, accountable_type FROM accounts WHERE family_id = ?", familyID).Scan(ctx, &accounts); err != nil && !db.IsNoRows(err) {
		return nil, err
	}
	types := make(map[uuid.UUID]string, len(accounts))
	for _, a := range accounts {
		types[a.ID] = a.Type
	}
	return types, nil
}

// Run applies the family's active rules to its transactions in scope, in tx, and returns how
// many it changed.
func (r Runner) Run(ctx context.Context, tx db.Tx, familyID uuid.UUID, scope Scope) (int, error) {
	set, err := r.Compiled(ctx, tx, familyID)
	if err != nil {
		return 0, err
	}
	return set.Run(ctx, tx, familyID, scope)
}

// Columns are what Stage's query must select, in this order.
// The amount is in ten-thousandths, (amount * 10000)::bigint, as rules compare it.
const Columns = "id, account_id, date, (amount * 10000)::bigint, currency, name, notes, category_id, merchant_id, tag_ids, excluded, locked_fields, original_name"

// Run applies s to the family's transactions in scope, in tx: one query reads them, and one
// statement writes the ones that changed. It returns how many changed.
func (s *Set) Run(ctx context.Context, tx db.Tx, familyID uuid.UUID, scope Scope) (int, error) {
	if s.Len() == 0 || (scope.ImportID == nil && len(scope.EntryIDs) == 0 && !scope.All) {
		return 0, nil
	}
	q := `SELECT ` + Columns + ` FROM entries WHERE family_id = $1 AND kind = 'transaction'`
	args := []any{familyID}
	switch {
	case scope.ImportID != nil:
		q += " AND import_id = $2"
		args = append(args, *scope.ImportID)
	case len(scope.EntryIDs) > 0:
		q += " AND id = ANY($2)"
		args = append(args, scope.EntryIDs)
	}
	n, err := s.Stage(ctx, tx, q, args...)
	if err != nil || n == 0 {
		return 0, err
	}
	tag, err := tx.Pgx.Exec(ctx, writeResults, familyID)
	if err != nil {
		return 0, fmt.Errorf("write rule changes: %w", err)
	}
	return int(tag.RowsAffected()), nil
}

// writeResults writes rule_results to the family ($1) entries.
const writeResults = `UPDATE entries e SET name = coalesce(c.name, e.name),
	original_name = coalesce(c.original_name, e.original_name), category_id = coalesce(c.category_id, e.category_id),
	merchant_id = coalesce(c.merchant_id, e.merchant_id), tag_ids = coalesce(c.tag_ids, e.tag_ids),
	excluded = coalesce(c.excluded, e.excluded), transaction_kind = coalesce(c.transaction_kind, e.transaction_kind),
	updated_at = now(), updated_by = NULL, updated_via = '` + models.ViaRule + `'
	FROM rule_results c WHERE e.id = c.id AND e.family_id = $1`

// Stage applies s to the transactions query selects (Columns, in order), before or after they
// are written, and puts the ones it changed into the temporary table rule_results (id, name,
// original_name, category_id, merchant_id, tag_ids, excluded, transaction_kind), dropped at
// commit. A column is
// NULL where the rules left the field as it was (rules never clear a field). It returns how
// many it changed; with none, the table is not made.
func (s *Set) Stage(ctx context.Context, tx db.Tx, query string, args ...any) (int, error) {
	rows, err := tx.Pgx.Query(ctx, query, args...)
	if err != nil {
		return 0, fmt.Errorf("read transactions for rules: %w", err)
	}
	var changed [][]any
	for rows.Next() {
		t, err := scanTxn(rows)
		if err != nil {
			rows.Close()
			return 0, fmt.Errorf("read transactions for rules: %w", err)
		}
		before := t
		if s.Apply(&t) {
			changed = append(changed, resultRow(&before, &t))
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return 0, fmt.Errorf("read transactions for rules: %w", err)
	}
	if len(changed) == 0 {
		return 0, nil
	}
	if _, err := tx.Pgx.Exec(ctx, `DROP TABLE IF EXISTS rule_results;
		CREATE TEMP TABLE rule_results (id uuid PRIMARY KEY, name text, original_name text, category_id uuid, merchant_id uuid,
			tag_ids uuid[], excluded boolean, transaction_kind text) ON COMMIT DROP`); err != nil {
		return 0, err
	}
	if _, err := tx.Pgx.CopyFrom(ctx, pgx.Identifier{"rule_results"},
		[]string{"id", "name", "original_name", "category_id", "merchant_id", "tag_ids", "excluded", "transaction_kind"}, pgx.CopyFromRows(changed)); err != nil {
		return 0, fmt.Errorf("write rule changes: %w", err)
	}
	if _, err := tx.Pgx.Exec(ctx, "ANALYZE rule_results"); err != nil {
		return 0, err
	}
	return len(changed), nil
}

func optionalID(u pgtype.UUID) *uuid.UUID {
	if !u.Valid {
		return nil
	}
	id := uuid.UUID(u.Bytes)
	return &id
}

// resultRow is a rule_results row: the fields the rules changed from before to after, NULL
// for the others.
func resultRow(before, after *Txn) []any {
	row := []any{after.ID, nil, nil, nil, nil, nil, nil, nil}
	if after.Name != before.Name {
		row[1], row[2] = after.Name, after.OriginalName
	}
	if after.CategoryID != before.CategoryID {
		row[3] = after.CategoryID
	}
	if after.MerchantID != before.MerchantID {
		row[4] = after.MerchantID
	}
	if len(after.TagIDs) != len(before.TagIDs) {
		row[5] = after.TagIDs
	}
	if after.Excluded != before.Excluded {
		row[6] = after.Excluded
	}
	if after.Kind != before.Kind {
		row[7] = after.Kind
	}
	return row
}

// scanTxn reads a row of Columns. Amount stays zero: the rules read the units. Ids are read
// as bytes, in pgx's binary format: through uuid.UUID's sql.Scanner they would come as text.
func scanTxn(rows pgx.Rows) (Txn, error) {
	t := Txn{haveUnits: true}
	var category, merchant pgtype.UUID
	var tags [][16]byte
	if err := rows.Scan((*[16]byte)(&t.ID), (*[16]byte)(&t.AccountID), &t.Date, &t.units, &t.Currency, &t.Name, &t.Notes,
		&category, &merchant, &tags, &t.Excluded, &t.Locked, &t.OriginalName); err != nil {
		return t, err
	}
	t.CategoryID, t.MerchantID = optionalID(category), optionalID(merchant)
	if len(tags) > 0 {
		t.TagIDs = make([]uuid.UUID, len(tags))
		for i, b := range tags {
			t.TagIDs[i] = b
		}
	}
	return t, nil
}
