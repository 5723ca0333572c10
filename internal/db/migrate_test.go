package db_test

import (
	"cmp"
	"context"
	_ "embed"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"reflect"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/jackc/pgx/v5"

	"tally/internal/db"
	"tally/migrations"
	"tally/testkit"
)

//go:embed testdata/every_table.sql
var everyTable string

// TestEveryDownMigrationAsksBeforeDestroyingData rolls back every one of Tally's migrations,
// newest first, on a database with rows in every table, as `tally migrate down` does. Each
// rollback that destroys data is refused without confirm, naming every table, column and row
// that would go, and changes nothing; confirmed, it rolls back exactly that migration and
// destroys exactly what it named. A rollback that destroys nothing needs no confirm. Then
// every migration applies again.
func TestEveryDownMigrationAsksBeforeDestroyingData(t *testing.T) {
	ctx := context.Background()
	d := testkit.MustOpenDB(t)
	if _, err := d.Pool.Exec(ctx, everyTable); err != nil {
		t.Fatalf("testdata/every_table.sql: %v", err)
	}
	before := readState(t, d)
	if empty := before.emptyTables(); len(empty) > 0 {
		t.Fatalf("no rows in %s: this test cannot see what rolling back their migration destroys. Add rows for them to internal/db/testdata/every_table.sql",
			strings.Join(empty, ", "))
	}
	for {
		rb, err := db.MigrateDown(ctx, d, false)
		refused := errors.Is(err, db.ErrWouldDestroy)
		if refused {
			if now := readState(t, d); !reflect.DeepEqual(now, before) {
				t.Fatalf("the refused rollback of %s changed the database:\n%s", rb.Migration, before.diff(now))
			}
			var confirmed *db.Rollback
			if confirmed, err = db.MigrateDown(ctx, d, true); err != nil {
				t.Fatalf("confirmed rollback of %s: %v", rb.Migration, err)
			}
			if !reflect.DeepEqual(confirmed, rb) {
				t.Fatalf("the refusal said %+v, the confirmed rollback %+v", rb, confirmed)
			}
		} else if err != nil {
			t.Fatalf("rollback: %v", err)
		}
		if rb.Migration == "" {
			break
		}
		after := readState(t, d)
		checkReport(t, rb, before, after)
		if !refused && rb.Destroys() {
			t.Fatalf("%s was rolled back without confirm, destroying %+v", rb.Migration, rb)
		}
		before = after
	}
	if len(before.tables) > 0 {
		t.Fatalf("every migration rolled back, yet these tables stay: %s", before.diff(state{}))
	}
	if len(before.applied) > 0 {
		t.Fatalf("every migration rolled back, yet these are applied: %v", before.applied)
	}
	if _, err := db.MigrateUp(ctx, d); err != nil {
		t.Fatalf("migrate up again: %v", err)
	}
	if pending, err := db.Pending(ctx, d); err != nil || len(pending) > 0 {
		t.Fatalf("pending after migrating up again: %v (err %v)", pending, err)
	}
}

// TestRollbackMeasuresWhatItDestroys rolls back, after Tally's migrations, one migration of
// each kind Tally has no down migration for yet.
func TestRollbackMeasuresWhatItDestroys(t *testing.T) {
	for _, tc := range []struct {
		name           string
		up, data, down string
		want           db.Rollback // without its Migration
	}{{
		name: "delete rows",
		up:   "SELECT 1",
		data: `INSERT INTO exchange_rates (id, date, base, quote, rate, source) VALUES
			(gen_random_uuid(), '2026-11-02', 'EUR', 'USD', 1.08, 'ecb'),
			(gen_random_uuid(), '2026-11-02', 'EUR', 'GBP', 0.87, 'seed'),
			(gen_random_uuid(), '2026-11-03', 'EUR', 'GBP', 0.88, 'seed')`,
		down: "DELETE FROM exchange_rates WHERE source = 'seed'",
		want: db.Rollback{Deleted: []db.Count{{Name: "exchange_rates", N: 2}}},
	}, {
		name: "drop a column with values",
		up:   "ALTER TABLE families ADD COLUMN motto text",
		data: `INSERT INTO families (id, name, motto) VALUES (gen_random_uuid(), 'Okafor', 'Waste not'),
			(gen_random_uuid(), 'Smith', NULL), (gen_random_uuid(), 'Jones', 'Onwards')`,
		down: "ALTER TABLE families DROP COLUMN motto",
		want: db.Rollback{Columns: []db.Count{{Name: "families.motto", N: 2}}},
	}, {
		name: "delete rows through a foreign key",
		up:   "SELECT 1",
		data: `INSERT INTO families (id, name) VALUES ('f0000000-0000-4000-8000-000000000001', 'Okafor'), (gen_random_uuid(), 'Smith');
			INSERT INTO accounts (id, family_id, name, accountable_type, currency) VALUES
			(gen_random_uuid(), 'f0000000-0000-4000-8000-000000000001', 'Current', 'Depository', 'EUR'),
			(gen_random_uuid(), 'f0000000-0000-4000-8000-000000000001', 'Savings', 'Depository', 'EUR')`,
		down: "DELETE FROM families WHERE name = 'Okafor'",
		want: db.Rollback{Deleted: []db.Count{{Name: "accounts", N: 2}, {Name: "families", N: 1}}},
	}, {
		name: "overwrite rows",
		up:   "SELECT 1",
		data: `INSERT INTO families (id, name, week_start) VALUES (gen_random_uuid(), 'Okafor', 'sunday'),
			(gen_random_uuid(), 'Smith', 'monday')`,
		down: "UPDATE families SET week_start = 'monday' WHERE week_start = 'sunday'",
		want: db.Rollback{Updated: []db.Count{{Name: "families", N: 1}}},
	}, {
		name: "truncate a table",
		up:   "SELECT 1",
		data: `INSERT INTO exchange_rates (id, date, base, quote, rate, source) VALUES
			(gen_random_uuid(), '2026-11-02', 'EUR', 'USD', 1.08, 'ecb'), (gen_random_uuid(), '2026-11-02', 'EUR', 'GBP', 0.87, 'ecb')`,
		down: "TRUNCATE exchange_rates",
		want: db.Rollback{Deleted: []db.Count{{Name: "exchange_rates", N: 2}}},
	}, {
		name: "drop a table with rows and a sequence in use",
		up:   "CREATE SEQUENCE invoice_numbers; CREATE TABLE invoices (number bigint DEFAULT nextval('invoice_numbers'), total numeric)",
		data: "INSERT INTO invoices (total) VALUES (10), (20), (30)",
		down: "DROP TABLE invoices; DROP SEQUENCE invoice_numbers",
		want: db.Rollback{Tables: []db.Count{{Name: "invoices", N: 3}}, Sequences: []db.Count{{Name: "invoice_numbers", N: 3}}},
	}, {
		name: "drop empty tables and columns",
		up:   "CREATE TABLE notes (body text); CREATE SEQUENCE note_numbers; ALTER TABLE families ADD COLUMN motto text",
		data: "INSERT INTO families (id, name) VALUES (gen_random_uuid(), 'Okafor')",
		down: "DROP TABLE notes; DROP SEQUENCE note_numbers; ALTER TABLE families DROP COLUMN motto",
		want: db.Rollback{Tables: []db.Count{{Name: "notes"}}, Columns: []db.Count{{Name: "families.motto"}},
			Sequences: []db.Count{{Name: "note_numbers"}}},
	}, {
		name: "rename a table and a column that hold rows",
		up:   "ALTER TABLE exchange_rates RENAME TO rates; ALTER TABLE rates RENAME COLUMN source TO origin",
		data: "INSERT INTO rates (id, date, base, quote, rate, origin) VALUES (gen_random_uuid(), '2026-11-02', 'EUR', 'USD', 1.08, 'ecb')",
		down: "ALTER TABLE rates RENAME COLUMN origin TO source; ALTER TABLE rates RENAME TO exchange_rates",
	}, {
		name: "empty down migration",
		up:   "SELECT 1",
		data: "INSERT INTO families (id, name) VALUES (gen_random_uuid(), 'Okafor')",
	}, {
		name: "drop an index",
		up:   "CREATE INDEX families_name_idx ON families (name)",
		data: "INSERT INTO families (id, name) VALUES (gen_random_uuid(), 'Okafor')",
		down: "DROP INDEX families_name_idx",
	}} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			d := testkit.MustOpenDB(t)
			files, name := withMigration(t, strings.ReplaceAll(tc.name, " ", "_"), tc.up, tc.down)
			if _, err := db.MigrateUpFrom(ctx, d, files); err != nil {
				t.Fatal(err)
			}
			if _, err := d.Pool.Exec(ctx, tc.data); err != nil {
				t.Fatal(err)
			}
			want := tc.want
			want.Migration = name
			before := readState(t, d)

			rb, err := db.MigrateDownFrom(ctx, d, files, false)
			if want.Destroys() {
				if !errors.Is(err, db.ErrWouldDestroy) {
					t.Fatalf("without confirm: %+v, %v; want a refusal", rb, err)
				}
				if now := readState(t, d); !reflect.DeepEqual(now, before) {
					t.Fatalf("the refused rollback changed the database:\n%s", before.diff(now))
				}
				if !reflect.DeepEqual(*rb, want) {
					t.Fatalf("refusal says %+v, want %+v", *rb, want)
				}
				rb, err = db.MigrateDownFrom(ctx, d, files, true)
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(*rb, want) {
				t.Fatalf("rolled back %+v, want %+v", *rb, want)
			}
			checkReport(t, rb, before, readState(t, d))
		})
	}
}

// TestRollbackThatCannotRunInATransactionChangesNothing: a down migration runs in a
// transaction whatever its file is called, so one that cannot fails, and nothing changes.
func TestRollbackThatCannotRunInATransactionChangesNothing(t *testing.T) {
	ctx := context.Background()
	d := testkit.MustOpenDB(t)
	files, _ := withMigration(t, "concurrent_index", "CREATE INDEX families_name_idx ON families (name)",
		"ALTER TABLE families DROP COLUMN week_start; DROP INDEX CONCURRENTLY families_name_idx")
	if _, err := db.MigrateUpFrom(ctx, d, files); err != nil {
		t.Fatal(err)
	}
	if _, err := d.Pool.Exec(ctx, "INSERT INTO families (id, name) VALUES (gen_random_uuid(), 'Okafor')"); err != nil {
		t.Fatal(err)
	}
	before := readState(t, d)
	_, err := db.MigrateDownFrom(ctx, d, files, true)
	if err == nil || !strings.Contains(err.Error(), "cannot run inside a transaction block") {
		t.Fatalf("rollback: %v, want PostgreSQL's refusal", err)
	}
	if now := readState(t, d); !reflect.DeepEqual(now, before) {
		t.Fatalf("the failed rollback changed the database:\n%s", before.diff(now))
	}
}

// TestRollbackNeedsTrackCounts: without track_counts PostgreSQL does not count the rows a
// transaction deletes, so MigrateDown refuses rather than miss them.
func TestRollbackNeedsTrackCounts(t *testing.T) {
	ctx := context.Background()
	u, err := url.Parse(testkit.DatabaseURL(t))
	if err != nil {
		t.Fatal(err)
	}
	u.User = url.User("postgres") // a superuser, who may turn it off
	u.RawQuery += "&options=-c%20track_counts%3Doff"
	d, err := db.Open(ctx, u.String())
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	before := readState(t, d)
	if _, err := db.MigrateDown(ctx, d, true); err == nil || !strings.Contains(err.Error(), "track_counts") {
		t.Fatalf("rollback without track_counts: %v", err)
	}
	if now := readState(t, d); !reflect.DeepEqual(now, before) {
		t.Fatalf("the refused rollback changed the database:\n%s", before.diff(now))
	}
}

// withMigration is Tally's migrations and one more, named name, applied after them; it
// returns the files and the migration's name as MigrateDown reports it.
func withMigration(t *testing.T, name, up, down string) (fs.FS, string) {
	t.Helper()
	files := fstest.MapFS{}
	err := fs.WalkDir(migrations.Files, ".", func(path string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		b, err := fs.ReadFile(migrations.Files, path)
		files[path] = &fstest.MapFile{Data: b}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	const version = "29991231000001"
	files[version+"_"+name+".tx.up.sql"] = &fstest.MapFile{Data: []byte(up)}
	files[version+"_"+name+".tx.down.sql"] = &fstest.MapFile{Data: []byte(down)}
	return files, version + "_" + name
}

// state is what a test sees of the database: each table (by its id, which a rename keeps)
// with its rows and its columns' values, and the versions of the migrations applied.
type state struct {
	tables  map[uint32]tableState
	applied []string
}

type tableState struct {
	Name    string
	Rows    int64
	Columns map[int16]columnState // by number, which a rename keeps
}

type columnState struct {
	Name   string
	Values int64 // not null
}

// readState reads the state of every table but River's and bun's own, which no Tally
// migration makes or drops. Generated columns are left out: their values are derived.
func readState(t *testing.T, d *db.DB) state {
	t.Helper()
	ctx := context.Background()
	rows, _ := d.Pool.Query(ctx, `SELECT c.oid, c.oid::regclass::text, a.attnum, a.attname
		FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace JOIN pg_attribute a ON a.attrelid = c.oid
		WHERE c.relkind IN ('r', 'p') AND n.nspname <> 'information_schema' AND n.nspname NOT LIKE 'pg\_%'
		AND c.relname NOT LIKE 'river\_%' AND c.relname NOT LIKE 'bun\_%'
		AND a.attnum > 0 AND NOT a.attisdropped AND a.attgenerated = ''`)
	type col struct {
		Table uint32
		Name  string
		Num   int16
		Col   string
	}
	cols, err := pgx.CollectRows(rows, pgx.RowToStructByPos[col])
	if err != nil {
		t.Fatal(err)
	}
	s := state{tables: map[uint32]tableState{}}
	byTable := map[uint32][]col{}
	for _, c := range cols {
		byTable[c.Table] = append(byTable[c.Table], c)
	}
	for oid, cols := range byTable {
		counts := []string{"count(*)"}
		for _, c := range cols {
			counts = append(counts, "count("+pgx.Identifier{c.Col}.Sanitize()+")")
		}
		n := make([]int64, len(counts))
		dest := make([]any, len(n))
		for i := range n {
			dest[i] = &n[i]
		}
		if err := d.Pool.QueryRow(ctx, "SELECT "+strings.Join(counts, ", ")+" FROM ONLY "+cols[0].Name).Scan(dest...); err != nil {
			t.Fatalf("count %s: %v", cols[0].Name, err)
		}
		ts := tableState{Name: cols[0].Name, Rows: n[0], Columns: map[int16]columnState{}}
		for i, c := range cols {
			ts.Columns[c.Num] = columnState{Name: c.Col, Values: n[i+1]}
		}
		s.tables[oid] = ts
	}
	rows, _ = d.Pool.Query(ctx, "SELECT name FROM bun_migrations ORDER BY name")
	if s.applied, err = pgx.CollectRows(rows, pgx.RowTo[string]); err != nil {
		t.Fatal(err)
	}
	return s
}

// emptyTables are the names of the tables without rows.
func (s state) emptyTables() []string {
	var names []string
	for _, ts := range s.tables {
		if ts.Rows == 0 {
			names = append(names, ts.Name)
		}
	}
	slices.Sort(names)
	return names
}

// diff says how now differs from s, table by table.
func (s state) diff(now state) string {
	var lines []string
	for oid, ts := range s.tables {
		if n, ok := now.tables[oid]; !ok {
			lines = append(lines, fmt.Sprintf("%s (%d rows) dropped", ts.Name, ts.Rows))
		} else if !reflect.DeepEqual(n, ts) {
			lines = append(lines, fmt.Sprintf("%+v became %+v", ts, n))
		}
	}
	for oid, n := range now.tables {
		if _, ok := s.tables[oid]; !ok {
			lines = append(lines, fmt.Sprintf("%s created", n.Name))
		}
	}
	if !slices.Equal(s.applied, now.applied) {
		lines = append(lines, fmt.Sprintf("the migrations applied %v became %v", s.applied, now.applied))
	}
	slices.Sort(lines)
	return strings.Join(lines, "\n")
}

// checkReport checks that the rollback rb took the database from before to after by rolling
// back its migration alone, and its report against what went: every table dropped with its
// rows, every column dropped from a table that stays with its values, and for each table that
// lost rows, at least as many deleted rows. (Sequences and overwritten rows the states do not
// show.)
func checkReport(t *testing.T, rb *db.Rollback, before, after state) {
	t.Helper()
	version, _, _ := strings.Cut(rb.Migration, "_")
	if want := slices.DeleteFunc(slices.Clone(before.applied), func(v string) bool { return v == version }); !slices.Equal(after.applied, want) {
		t.Fatalf("rolling back %s left the migrations %v applied, want %v", rb.Migration, after.applied, want)
	}
	var tables, columns []db.Count
	deleted := map[string]int64{}
	for oid, b := range before.tables {
		a, stays := after.tables[oid]
		if !stays {
			tables = append(tables, db.Count{Name: b.Name, N: b.Rows})
			continue
		}
		for num, c := range b.Columns {
			if _, ok := a.Columns[num]; !ok {
				columns = append(columns, db.Count{Name: b.Name + "." + c.Name, N: c.Values})
			}
		}
		if a.Rows < b.Rows {
			deleted[b.Name] = b.Rows - a.Rows
		}
	}
	byName := func(a, b db.Count) int { return cmp.Compare(a.Name, b.Name) }
	slices.SortFunc(tables, byName)
	slices.SortFunc(columns, byName)
	if !slices.Equal(rb.Tables, tables) {
		t.Errorf("%s: reported the tables %v, dropped %v", rb.Migration, rb.Tables, tables)
	}
	if !slices.Equal(rb.Columns, columns) {
		t.Errorf("%s: reported the columns %v, dropped %v", rb.Migration, rb.Columns, columns)
	}
	for _, c := range rb.Deleted {
		if c.N < deleted[c.Name] {
			t.Errorf("%s: reported %d rows deleted from %s, %d went", rb.Migration, c.N, c.Name, deleted[c.Name])
		}
		delete(deleted, c.Name)
	}
	if len(deleted) > 0 {
		t.Errorf("%s: rows went from %v unreported", rb.Migration, deleted)
	}
}
