package merchants

import (
	"context"
	"fmt"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/uptrace/bun/dialect/pgdialect"

	"tally/internal/db"
)

// Derive gives each of texts (a family's new transactions' bank texts) its merchant, in the
// temporary tables import_merchants (the text, its derived name, and its merchant: the one
// chosen by hand for it, else its derived name's) and import_merchant_names (each derived name
// and its merchant), which last to the end of tx; Of reads a text's merchant from the first. It reports whether any text names a
// merchant (else the tables are not made). It is set-based: the names are derived here, then a
// statement for each way of finding the merchant, in this order:
//  1. the merchant a person chose by hand for a transaction with the same text, the latest;
//  2. the family's merchant known by the derived name: the name it was created from
//     (merchant_names, which a rename keeps), or its own name, whatever the case and accents;
//     else the one whose name starts the derived one, word for word ("REWE" for "REWE Markt
//     Grünwald"), the longest;
//  3. a new merchant of the derived name, the import's when importID is set (its revert
//     removes it unused).
//
// Steps 2 and 3 work on the distinct derived names (import_merchant_names), folded once each.
// Rules run after, and a merchant a rule sets wins.
func Derive(ctx context.Context, tx db.Tx, familyID uuid.UUID, importID *uuid.UUID, texts []string) (bool, error) {
	var named [][]any
	var names []string
	seen := map[string]bool{}
	for _, t := range texts {
		m := Name(t)
		if m == "" {
			continue
		}
		named = append(named, []any{t, m})
		if !seen[m] {
			seen[m] = true
			names = append(names, m)
		}
	}
	if len(named) == 0 {
		return false, nil
	}
	if _, err := tx.Pgx.Exec(ctx, `CREATE TEMP TABLE import_merchants (name text PRIMARY KEY, merchant text NOT NULL, merchant_id uuid) ON COMMIT DROP;
		CREATE TEMP TABLE import_merchant_names (merchant text PRIMARY KEY, key text NOT NULL, merchant_id uuid) ON COMMIT DROP`); err != nil {
		return false, err
	}
	if _, err := tx.Pgx.CopyFrom(ctx, pgx.Identifier{"import_merchants"}, []string{"name", "merchant"}, pgx.CopyFromRows(named)); err != nil {
		return false, fmt.Errorf("derived merchants: %w", err)
	}
	for _, step := range []struct {
		what, sql string
		args      []any
	}{
		{"derived names", `INSERT INTO import_merchant_names (merchant, key) SELECT m, search_fold(m) FROM unnest(?::text[]) AS m;
			ANALYZE import_merchants; ANALYZE import_merchant_names`, []any{pgdialect.Array(names)}},
		{"merchants chosen by hand", `
			UPDATE import_merchants x SET merchant_id = h.merchant_id
			FROM (SELECT DISTINCT ON (coalesce(e.original_name, e.name)) coalesce(e.original_name, e.name) AS name, e.merchant_id
				FROM entries e
				WHERE e.family_id = ? AND e.kind = 'transaction' AND e.merchant_id IS NOT NULL AND 'merchant' = ANY (e.locked_fields)
				ORDER BY coalesce(e.original_name, e.name), e.date DESC, e.updated_at DESC) h
			WHERE h.name = x.name`, []any{familyID}},
		{"merchants by name", `
			WITH known AS (
				SELECT name AS key, merchant_id AS id, 0 AS rank FROM merchant_names WHERE family_id = ?0
				UNION ALL SELECT regexp_replace(search_fold(name), '\s+', ' ', 'g'), id, 1 FROM merchants WHERE family_id = ?0),
			best AS (
				SELECT DISTINCT ON (n.merchant) n.merchant, k.id
				FROM import_merchant_names n
				CROSS JOIN LATERAL (SELECT string_to_array(n.key, ' ') AS w) f
				CROSS JOIN LATERAL generate_series(cardinality(f.w), 1, -1) AS i
				JOIN known k ON k.key = array_to_string(f.w[1:i], ' ')
				ORDER BY n.merchant, i DESC, k.rank)
			UPDATE import_merchant_names n SET merchant_id = best.id FROM best WHERE best.merchant = n.merchant`, []any{familyID}},
		{"new merchants", `
			WITH created AS (
				INSERT INTO merchants (id, family_id, name, import_id)
				SELECT gen_random_uuid(), ?0, n.merchant, ?1
				FROM (SELECT DISTINCT ON (n.key) n.merchant FROM import_merchant_names n
					WHERE n.merchant_id IS NULL
						AND EXISTS (SELECT 1 FROM import_merchants x WHERE x.merchant = n.merchant AND x.merchant_id IS NULL)
					ORDER BY n.key, n.merchant) n
				ON CONFLICT (family_id, name) DO NOTHING
				RETURNING id, search_fold(name) AS key),
			known AS (
				INSERT INTO merchant_names (family_id, name, merchant_id) SELECT ?0, key, id FROM created ON CONFLICT DO NOTHING)
			UPDATE import_merchant_names n SET merchant_id = c.id FROM created c WHERE n.merchant_id IS NULL AND n.key = c.key`,
			[]any{familyID, importID}},
		// Then each text's merchant is in its own row, so that Of probes one key: joined for
		// each row of a publish, the names' table was read whole (the planner takes it for
		// a few pages), 101 names for each of 245,000 rows, a third of the publish's inserts.
		{"merchants of the texts", `
			UPDATE import_merchants x SET merchant_id = n.merchant_id
			FROM import_merchant_names n WHERE x.merchant_id IS NULL AND n.merchant = x.merchant;
			ANALYZE import_merchants`, nil},
	} {
		if _, err := tx.NewRaw(step.sql, step.args...).Exec(ctx); err != nil {
			return false, fmt.Errorf("%s: %w", step.what, err)
		}
	}
	return true, nil
}

// Of is the merchant of the bank text text (an expression), as Derive found it, in a
// subquery: the one chosen by hand for the text, else its derived name's, which Derive wrote
// in the text's row.
func Of(text string) string {
	return `(SELECT x.merchant_id FROM import_merchants x WHERE x.name = ` + text + `)`
}

// Assign gives the family's transactions ids (a bank sync's new and changed ones) the merchant
// their bank text names, where they have none and nobody chose one by hand: new merchants are
// the family's own, not an import's. It runs before the rules, whose merchant wins.
func Assign(ctx context.Context, tx db.Tx, familyID uuid.UUID, ids []uuid.UUID) error {
	if len(ids) == 0 {
		return nil
	}
	const unassigned = `e.family_id = ? AND e.id = ANY (?::uuid[]) AND e.kind = 'transaction' AND e.merchant_id IS NULL
		AND NOT 'merchant' = ANY (e.locked_fields)`
	var texts []string
	if err := tx.NewRaw(`SELECT DISTINCT coalesce(e.original_name, e.name) FROM entries e WHERE `+unassigned+` AND e.name <> ''`,
		familyID, pgdialect.Array(ids)).Scan(ctx, &texts); err != nil {
		return fmt.Errorf("bank texts: %w", err)
	}
	found, err := Derive(ctx, tx, familyID, nil, texts)
	if err != nil || !found {
		return err
	}
	if _, err := tx.NewRaw(`UPDATE entries e SET merchant_id = `+Of("coalesce(e.original_name, e.name)")+`, updated_at = now()
		WHERE `+unassigned+` AND `+Of("coalesce(e.original_name, e.name)")+` IS NOT NULL`,
		familyID, pgdialect.Array(ids)).Exec(ctx); err != nil {
		return fmt.Errorf("merchants: %w", err)
	}
	// The tables go with the transaction; a second sync in it must be able to make them again.
	_, err = tx.Pgx.Exec(ctx, `DROP TABLE import_merchants, import_merchant_names`)
	return err
}
