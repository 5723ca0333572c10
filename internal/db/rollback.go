package db

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5"
)

// Rollback is what MigrateDown rolled back, or would: one migration, and the data its down
// migration destroys, as PostgreSQL reports it rather than as the SQL reads. Each list is
// sorted by name.
type Rollback struct {
	Migration string // name_comment; "" when nothing is applied

	Tables  []Count // the tables it drops, with the rows each holds
	Columns []Count // the columns it drops from tables that stay, as table.column, with their values (not null)
	Deleted []Count // the tables that stay that it deletes rows from (or truncates), with how many
	Updated []Count // the tables that stay that it overwrites rows of, with how many updates
	// The sequences it drops, with the value each stood at (0 when never used): a counter
	// such as an invoice number starts over when the migration is applied again.
	Sequences []Count
}

// Count is a thing a rollback destroys, with how much it holds.
type Count struct {
	Name string
	N    int64
}

// Destroys reports whether the rollback destroys any data: a row, a value or a sequence's
// position. Dropping an empty table or column destroys none.
func (rb *Rollback) Destroys() bool {
	for _, list := range [][]Count{rb.Tables, rb.Columns, rb.Deleted, rb.Updated, rb.Sequences} {
		for _, c := range list {
			if c.N > 0 {
				return true
			}
		}
	}
	return false
}

// measure runs the down migration in a savepoint of tx, reads from the catalog and from
// PostgreSQL's counts of the transaction's own work what it did, and undoes it. It then counts
// what the tables and columns it drops hold, which only the database before the rollback can
// say. Types are not measured: one that a column uses cannot go without the column, which is.
func (rb *Rollback) measure(ctx context.Context, tx Tx, down string) error {
	if err := requireTrackCounts(ctx, tx); err != nil {
		return err
	}
	if _, err := tx.Pgx.Exec(ctx, "SAVEPOINT measure_rollback"); err != nil {
		return err
	}
	t, err := tryDown(ctx, tx, down)
	if err != nil {
		return err
	}
	if _, err := tx.Pgx.Exec(ctx, "ROLLBACK TO SAVEPOINT measure_rollback"); err != nil {
		return err
	}
	if err := rb.count(ctx, tx, t); err != nil {
		return err
	}
	for _, list := range [][]Count{rb.Tables, rb.Columns, rb.Deleted, rb.Updated, rb.Sequences} {
		slices.SortFunc(list, func(a, b Count) int { return cmp.Compare(a.Name, b.Name) })
	}
	return nil
}

// trial is what a down migration did, read before it was undone.
type trial struct {
	before, after catalog
	changes       map[uint32]rowChanges // by table
	rowsLeft      map[uint32]int64      // in each table that stays and that it truncated or rewrote
}

// tryDown runs the down migration and reads what it did.
func tryDown(ctx context.Context, tx Tx, down string) (trial, error) {
	var t trial
	var err error
	if t.before, err = readCatalog(ctx, tx); err != nil {
		return t, err
	}
	// The counts read as the transaction's may hold the connection's earlier transactions too,
	// until they are flushed, which does not happen in a transaction: the difference is the
	// down migration's.
	changesBefore, err := readRowChanges(ctx, tx)
	if err != nil {
		return t, err
	}
	if _, err := tx.Pgx.Exec(ctx, down); err != nil {
		return t, err
	}
	if t.after, err = readCatalog(ctx, tx); err != nil {
		return t, err
	}
	if t.changes, err = readRowChanges(ctx, tx); err != nil {
		return t, err
	}
	for oid, c := range t.changes {
		t.changes[oid] = rowChanges{c.Deleted - changesBefore[oid].Deleted, c.Updated - changesBefore[oid].Updated}
	}
	t.rowsLeft = map[uint32]int64{}
	for oid, r := range t.before.relations {
		if a, stays := t.after.relations[oid]; stays && !r.Sequence && a.FileNode != r.FileNode {
			if t.rowsLeft[oid], err = countRows(ctx, tx, r.Name); err != nil {
				return t, err
			}
		}
	}
	return t, nil
}

// count fills rb from the trial t, on the database as it was before it.
func (rb *Rollback) count(ctx context.Context, tx Tx, t trial) error {
	droppedColumns := map[uint32][]column{} // by table, of the tables that stay
	for key, c := range t.before.columns {
		if _, stays := t.after.columns[key]; !stays && t.after.has(key.Table) {
			droppedColumns[key.Table] = append(droppedColumns[key.Table], c)
		}
	}
	for oid, cols := range droppedColumns {
		if err := rb.countColumns(ctx, tx, t.before.relations[oid].Name, cols); err != nil {
			return err
		}
	}
	for oid, r := range t.before.relations {
		if !t.after.has(oid) {
			if err := rb.countDropped(ctx, tx, r); err != nil {
				return err
			}
			continue
		}
		deleted := t.changes[oid].Deleted
		if left, rewritten := t.rowsLeft[oid]; rewritten {
			// A TRUNCATE is not in the transaction's counts of deleted rows.
			rows, err := countRows(ctx, tx, r.Name)
			if err != nil {
				return err
			}
			deleted = max(deleted, rows-left)
		}
		if deleted > 0 {
			rb.Deleted = append(rb.Deleted, Count{r.Name, deleted})
		}
		if updated := t.changes[oid].Updated; updated > 0 {
			rb.Updated = append(rb.Updated, Count{r.Name, updated})
		}
	}
	return nil
}

// requireTrackCounts refuses to measure a rollback when PostgreSQL does not count the rows a
// transaction deletes: a DELETE in a down migration would then go unseen.
func requireTrackCounts(ctx context.Context, tx Tx) error {
	var on bool
	if err := tx.Pgx.QueryRow(ctx, "SELECT current_setting('track_counts')::bool").Scan(&on); err != nil {
		return err
	}
	if !on {
		return errors.New("PostgreSQL's track_counts setting is off, so it cannot say which rows a rollback deletes: turn it back on (it is on by default)")
	}
	return nil
}

// catalog is what a rollback is measured against: the tables and sequences of the database,
// and the columns of its tables, by the ids PostgreSQL gives them, which a rename keeps.
type catalog struct {
	relations map[uint32]relation
	columns   map[columnKey]column
}

func (c catalog) has(oid uint32) bool {
	_, ok := c.relations[oid]
	return ok
}

type relation struct {
	OID      uint32
	Name     string // as regclass prints it: quoted when needed, with its schema when not on the search path
	Sequence bool
	FileNode uint32 // changes when the table is truncated or rewritten
}

type columnKey struct {
	Table uint32
	Num   int16
}

type column struct {
	Table uint32
	Num   int16
	Name  string
}

// userRelations picks, from pg_class c joined to pg_namespace n, the tables and sequences
// outside PostgreSQL's own schemas.
const userRelations = `c.relkind IN ('r', 'p', 'S') AND n.nspname <> 'information_schema' AND n.nspname NOT LIKE 'pg\_%'`

func readCatalog(ctx context.Context, tx Tx) (catalog, error) {
	cat := catalog{relations: map[uint32]relation{}, columns: map[columnKey]column{}}
	rows, _ := tx.Pgx.Query(ctx, `SELECT c.oid, c.oid::regclass::text, c.relkind = 'S', c.relfilenode
		FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE `+userRelations)
	rels, err := pgx.CollectRows(rows, pgx.RowToStructByPos[relation])
	if err != nil {
		return cat, fmt.Errorf("read the catalog's tables: %w", err)
	}
	for _, r := range rels {
		cat.relations[r.OID] = r
	}
	// Generated columns are left out: their values are computed from the others.
	rows, _ = tx.Pgx.Query(ctx, `SELECT a.attrelid, a.attnum, a.attname
		FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid JOIN pg_namespace n ON n.oid = c.relnamespace
		WHERE `+userRelations+` AND c.relkind <> 'S' AND a.attnum > 0 AND NOT a.attisdropped AND a.attgenerated = ''`)
	cols, err := pgx.CollectRows(rows, pgx.RowToStructByPos[column])
	if err != nil {
		return cat, fmt.Errorf("read the catalog's columns: %w", err)
	}
	for _, c := range cols {
		cat.columns[columnKey{c.Table, c.Num}] = c
	}
	return cat, nil
}

type rowChanges struct{ Deleted, Updated int64 }

// readRowChanges is how many rows of each table the transaction has deleted and updated so
// far, from PostgreSQL's statistics (which count the rows an ON DELETE CASCADE or a trigger
// deletes too).
func readRowChanges(ctx context.Context, tx Tx) (map[uint32]rowChanges, error) {
	rows, err := tx.Pgx.Query(ctx, `SELECT relid, n_tup_del, n_tup_upd FROM pg_stat_xact_user_tables
		WHERE n_tup_del > 0 OR n_tup_upd > 0`)
	if err != nil {
		return nil, err
	}
	changes := map[uint32]rowChanges{}
	var oid uint32
	var c rowChanges
	_, err = pgx.ForEachRow(rows, []any{&oid, &c.Deleted, &c.Updated}, func() error {
		changes[oid] = c
		return nil
	})
	return changes, err
}

// countDropped adds the relation r, which the rollback drops, with what it holds.
func (rb *Rollback) countDropped(ctx context.Context, tx Tx, r relation) error {
	if r.Sequence {
		var at int64
		if err := tx.Pgx.QueryRow(ctx, "SELECT coalesce(pg_sequence_last_value($1::oid), 0)", r.OID).Scan(&at); err != nil {
			return fmt.Errorf("read the sequence %s: %w", r.Name, err)
		}
		rb.Sequences = append(rb.Sequences, Count{r.Name, at})
		return nil
	}
	n, err := countRows(ctx, tx, r.Name)
	rb.Tables = append(rb.Tables, Count{r.Name, n})
	return err
}

// countRows counts the rows of table (ONLY its own: a partitioned table's rows are counted in
// its partitions, which are tables too).
func countRows(ctx context.Context, tx Tx, table string) (int64, error) {
	var n int64
	if err := tx.Pgx.QueryRow(ctx, "SELECT count(*) FROM ONLY "+table).Scan(&n); err != nil {
		return 0, fmt.Errorf("count the rows of %s: %w", table, err)
	}
	return n, nil
}

// countColumns adds the columns cols of table, which the rollback drops, with the values each
// holds, counted in one pass over the table.
func (rb *Rollback) countColumns(ctx context.Context, tx Tx, table string, cols []column) error {
	counts := make([]string, len(cols))
	for i, c := range cols {
		counts[i] = "count(" + pgx.Identifier{c.Name}.Sanitize() + ")"
	}
	values := make([]int64, len(cols))
	dest := make([]any, len(cols))
	for i := range values {
		dest[i] = &values[i]
	}
	if err := tx.Pgx.QueryRow(ctx, "SELECT "+strings.Join(counts, ", ")+" FROM ONLY "+table).Scan(dest...); err != nil {
		return fmt.Errorf("count the values of %s's columns: %w", table, err)
	}
	for i, c := range cols {
		rb.Columns = append(rb.Columns, Count{table + "." + c.Name, values[i]})
	}
	return nil
}
