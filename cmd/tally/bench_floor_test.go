package main

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"tally/testkit"
)

// entriesParts are the parts of entries a clone of it can be made without, so that the cost
// of each in the faithful floor (the clone with them all) is the floor less a COPY into a
// clone without it.
type entriesParts struct {
	// search: the generated columns (search_text) and their indexes.
	noSearch bool
	// triggers: the table's own triggers (the month and category totals).
	noTriggers bool
	// indexes: every index but the primary key's (which the keys to the row need) and a
	// generated column's.
	noIndexes bool
}

// The clones BenchmarkScale times, the first the faithful floor.
var entriesVariants = []struct {
	name    string
	without entriesParts
}{
	{"floor", entriesParts{}},
	{"without search", entriesParts{noSearch: true}},
	{"without triggers", entriesParts{noTriggers: true}},
	{"without indexes", entriesParts{noIndexes: true}},
	{"heap", entriesParts{noSearch: true, noTriggers: true, noIndexes: true}},
}

// cloneEntries creates table as entries is now, read from the catalog, so that the clone
// follows any change of the schema by itself: the columns with their defaults, generated
// columns, checks and indexes (LIKE … INCLUDING ALL), then entries' foreign keys and triggers
// from their own definitions, a key to entries itself made a key to the clone. Less the parts
// without names. The foreign keys stay in every clone: a row's keys are checked however it
// arrives.
func cloneEntries(ctx context.Context, conn *pgx.Conn, table string, without entriesParts) error {
	ident := pgx.Identifier{table}.Sanitize()
	stmts := []string{`CREATE TABLE ` + ident + ` (LIKE entries INCLUDING ALL)`}
	if without.noSearch {
		generated, err := catalog(ctx, conn, `SELECT quote_ident(attname) FROM pg_attribute
			WHERE attrelid = 'entries'::regclass AND attgenerated <> '' AND NOT attisdropped`)
		if err != nil {
			return err
		}
		for _, col := range generated {
			stmts = append(stmts, `ALTER TABLE `+ident+` DROP COLUMN `+col)
		}
	}
	keys, err := catalog(ctx, conn, `SELECT CASE WHEN confrelid = conrelid
			THEN regexp_replace(pg_get_constraintdef(oid), 'REFERENCES \S+\(', 'REFERENCES '||$1||'(')
			ELSE pg_get_constraintdef(oid) END
		FROM pg_constraint WHERE conrelid = 'entries'::regclass AND contype = 'f' ORDER BY conname`, ident)
	if err != nil {
		return err
	}
	for _, k := range keys {
		stmts = append(stmts, `ALTER TABLE `+ident+` ADD `+k)
	}
	if !without.noTriggers {
		triggers, err := catalog(ctx, conn, `SELECT regexp_replace(pg_get_triggerdef(oid), ' ON \S+ ', ' ON '||$1||' ')
			FROM pg_trigger WHERE tgrelid = 'entries'::regclass AND NOT tgisinternal ORDER BY tgname`, ident)
		if err != nil {
			return err
		}
		stmts = append(stmts, triggers...)
	}
	for _, s := range stmts {
		if _, err := conn.Exec(ctx, s); err != nil {
			return fmt.Errorf("clone entries: %s: %w", s, err)
		}
	}
	if without.noIndexes {
		// After the columns: an index of a generated column is the search's, and stays
		// unless the search goes too.
		drops, err := catalog(ctx, conn, `SELECT 'DROP INDEX '||i.indexrelid::regclass FROM pg_index i
			WHERE i.indrelid = $1::regclass AND NOT i.indisprimary AND NOT EXISTS (SELECT 1 FROM pg_attribute a
				WHERE a.attrelid = i.indrelid AND a.attgenerated <> '' AND pg_get_indexdef(i.indexrelid) LIKE '%'||a.attname||'%')`, ident)
		if err != nil {
			return err
		}
		for _, s := range drops {
			if _, err := conn.Exec(ctx, s); err != nil {
				return fmt.Errorf("clone entries: %s: %w", s, err)
			}
		}
	}
	return nil
}

// catalog is the one text column that query reads, row by row.
func catalog(ctx context.Context, conn *pgx.Conn, query string, args ...any) ([]string, error) {
	rows, err := conn.Query(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, pgx.RowTo[string])
}

// tableShape describes a table as the catalog has it, with its own name (and its indexes')
// taken out, so that two tables compare: its columns with their types, defaults and
// generation, its constraints, indexes and triggers.
func tableShape(t *testing.T, conn *pgx.Conn, table string) map[string][]string {
	t.Helper()
	ctx := context.Background()
	queries := map[string]string{
		"columns": `SELECT attname||' '||format_type(atttypid, atttypmod)||CASE WHEN attnotnull THEN ' NOT NULL' ELSE '' END
				||coalesce(' '||nullif(attgenerated::text, '')||' generated', '')||coalesce(' '||pg_get_expr(d.adbin, d.adrelid), '')
			FROM pg_attribute a LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
			WHERE attrelid = $1::regclass AND attnum > 0 AND NOT attisdropped`,
		"constraints": `SELECT contype::text||' '||replace(pg_get_constraintdef(oid), 'REFERENCES '||$1||'(', 'REFERENCES <self>(')
			FROM pg_constraint WHERE conrelid = $1::regclass`,
		"indexes": `SELECT CASE WHEN indisprimary THEN 'primary ' ELSE '' END||regexp_replace(pg_get_indexdef(indexrelid), '^CREATE (UNIQUE )?INDEX \S+ ON \S+', 'CREATE \1INDEX ON <self>')
			FROM pg_index WHERE indrelid = $1::regclass`,
		"triggers": `SELECT regexp_replace(pg_get_triggerdef(oid), ' ON \S+ ', ' ON <self> ')
			FROM pg_trigger WHERE tgrelid = $1::regclass AND NOT tgisinternal`,
	}
	shape := map[string][]string{}
	for part, q := range queries {
		got, err := catalog(ctx, conn, q, table)
		if err != nil {
			t.Fatalf("%s of %s: %v", part, table, err)
		}
		slices.Sort(got)
		shape[part] = got
	}
	return shape
}

// TestEntriesClone holds the benchmarks' floor to what it claims: the clone of entries
// (cloneEntries) has entries' columns, generated columns, constraints, foreign keys, indexes
// and triggers, read from the catalog of the migrated schema; and each variant lacks exactly
// the part it is made without.
func TestEntriesClone(t *testing.T) {
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, testkit.DatabaseURL(t))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	entries := tableShape(t, conn, "entries")
	generated, err := catalog(ctx, conn, `SELECT attname FROM pg_attribute WHERE attrelid = 'entries'::regclass AND attgenerated <> ''`)
	if err != nil || len(generated) == 0 {
		t.Fatalf("entries' generated columns: %q %v", generated, err)
	}
	for part, want := range map[string]int{"columns": 20, "constraints": 8, "indexes": 12, "triggers": 6} {
		if len(entries[part]) < want {
			t.Fatalf("entries has %d %s, want at least %d: is the catalog read right? %q", len(entries[part]), part, want, entries[part])
		}
	}
	for i, v := range entriesVariants {
		table := fmt.Sprintf("clone_%d", i)
		if err := cloneEntries(ctx, conn, table, v.without); err != nil {
			t.Fatalf("%s: %v", v.name, err)
		}
		clone := tableShape(t, conn, table)
		for part, want := range entries {
			want = slices.DeleteFunc(slices.Clone(want), func(s string) bool { return lacks(v.without, generated, part, s) })
			if !slices.Equal(clone[part], want) {
				t.Errorf("the clone %s has %s\n%s\nwant\n%s", v.name, part, strings.Join(clone[part], "\n"), strings.Join(want, "\n"))
			}
		}
	}
}

// lacks says whether a variant made without the parts in without lacks the item s of its
// part of entries (tableShape), whose generated columns are generated.
func lacks(without entriesParts, generated []string, part, s string) bool {
	search := slices.ContainsFunc(generated, func(col string) bool { return strings.Contains(s, col) })
	switch part {
	case "columns":
		return without.noSearch && search
	case "indexes":
		return (without.noSearch && search) || (without.noIndexes && !search && !strings.HasPrefix(s, "primary "))
	case "triggers":
		return without.noTriggers
	}
	return false
}
