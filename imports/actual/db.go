package actual

import (
	"context"
	"errors"
	"strings"

	"github.com/ncruces/go-sqlite3"

	"tally/imports/movein"
)

// maxSQLiteHeap bounds what SQLite itself may allocate for one export (its page cache and
// sorts); the rows the reader keeps are bounded by movein's counts.
const maxSQLiteHeap = 256 << 20

// db is an export's database, opened read-only from its temporary file. The file is the
// household's upload, so nothing in it is trusted: its schema runs no function of ours
// (trusted_schema off, defensive mode), every page's cells are checked as read, and only
// tables are read, never a view or a trigger it brings.
type db struct {
	conn   *sqlite3.Conn
	tables map[string]map[string]bool // each table's columns
}

func openDB(ctx context.Context, name string) (*db, error) {
	conn, err := sqlite3.OpenFlags(name, sqlite3.OPEN_READONLY)
	if err != nil {
		return nil, movein.Errorf("file", "db.sqlite", "db.sqlite cannot be opened: %v", err)
	}
	d := &db{conn: conn, tables: map[string]map[string]bool{}}
	conn.SetInterrupt(ctx)
	conn.HardHeapLimit(maxSQLiteHeap)
	if _, err = conn.Config(sqlite3.DBCONFIG_DEFENSIVE, true); err == nil {
		_, err = conn.Config(sqlite3.DBCONFIG_TRUSTED_SCHEMA, false)
	}
	if err == nil {
		err = conn.Exec("PRAGMA cell_size_check = ON; PRAGMA query_only = ON;")
	}
	if err == nil {
		err = d.readSchema()
	}
	if err != nil {
		conn.Close()
		return nil, d.fail("sqlite_schema", err)
	}
	return d, nil
}

func (d *db) close() { d.conn.Close() }

// readSchema lists the tables and their columns.
func (d *db) readSchema() error {
	var names []string
	err := d.query("SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY name", func(r row) error {
		names = append(names, r.s.ColumnText(0))
		return nil
	})
	if err != nil {
		return err
	}
	for _, t := range names {
		cols := map[string]bool{}
		err := d.query("SELECT name FROM pragma_table_info('"+strings.ReplaceAll(t, "'", "''")+"')", func(r row) error {
			cols[r.s.ColumnText(0)] = true
			return nil
		})
		if err != nil {
			return err
		}
		d.tables[t] = cols
	}
	return nil
}

// require refuses an export that lacks one of Actual's tables: then it is some other SQLite
// file, or one so old that its meaning has changed.
func (d *db) require(tables ...string) error {
	for _, t := range tables {
		if d.tables[t] == nil {
			return movein.Errorf("table", t, "db.sqlite has no table %s: it is not the database of an Actual budget", t)
		}
	}
	return nil
}

// has reports whether the export has the table.
func (d *db) has(table string) bool { return d.tables[table] != nil }

// each runs fn on every row of "SELECT cols FROM table tail" (tail is SQL: WHERE and ORDER BY
// clauses, or ""). A column written "?name" is optional: a table that lacks it reads NULL
// there, as older or newer versions of Actual differ in such columns. A missing required
// column is an error naming it.
func (d *db) each(table string, cols []string, tail string, fn func(r row) error) error {
	idx := make(map[string]int, len(cols))
	exprs := make([]string, len(cols))
	for i, c := range cols {
		name, optional := strings.CutPrefix(c, "?")
		idx[name] = i
		switch {
		case d.tables[table][name]:
			exprs[i] = quote(name)
		case optional:
			exprs[i] = "NULL"
		default:
			return movein.Errorf("table", table, "db.sqlite's table %s has no column %s: it is not the database of an Actual budget", table, name)
		}
	}
	sql := "SELECT " + strings.Join(exprs, ", ") + " FROM " + quote(table) + " " + tail
	if err := d.query(sql, func(r row) error { r.idx = idx; return fn(r) }); err != nil {
		return d.fail(table, err)
	}
	return nil
}

// count counts the rows of table that the condition where keeps.
func (d *db) count(table, where string) (int, error) {
	n := 0
	err := d.query("SELECT count(*) FROM "+quote(table)+" WHERE "+where, func(r row) error {
		n = int(r.s.ColumnInt64(0))
		return nil
	})
	return n, d.fail(table, err)
}

// query runs sql, calling fn on each row.
func (d *db) query(sql string, fn func(r row) error) error {
	stmt, _, err := d.conn.Prepare(sql)
	if err != nil {
		return err
	}
	defer stmt.Close()
	for stmt.Step() {
		if err := fn(row{s: stmt}); err != nil {
			return err
		}
	}
	return stmt.Err()
}

// fail names the table an SQLite error came from; the reader's own errors pass as they are.
func (d *db) fail(table string, err error) error {
	var me *movein.Error
	if err == nil || errors.As(err, &me) {
		return err
	}
	if d.conn.GetInterrupt().Err() != nil {
		return d.conn.GetInterrupt().Err()
	}
	return movein.Errorf("table", table, "db.sqlite's table %s cannot be read: %v", table, err)
}

// quote makes a name an SQL identifier.
func quote(name string) string { return `"` + strings.ReplaceAll(name, `"`, `""`) + `"` }

// row is the current row of a query, read by column name.
type row struct {
	s   *sqlite3.Stmt
	idx map[string]int
}

func (r row) text(col string) string { return r.s.ColumnText(r.idx[col]) }
func (r row) int(col string) int64   { return r.s.ColumnInt64(r.idx[col]) }

// key is a column's text in place, valid until the next row: for an id that is only looked
// up (m[string(key)] copies nothing), not kept.
func (r row) key(col string) []byte { return r.s.ColumnRawText(r.idx[col]) }

// bool reads Actual's flags, which are 0 and 1 (and "true" and "false" in a few old rows).
// flag is the same test in SQL.
func (r row) bool(col string) bool {
	if r.s.ColumnType(r.idx[col]) == sqlite3.TEXT {
		return strings.EqualFold(r.text(col), "true") || r.text(col) == "1"
	}
	return r.s.ColumnInt64(r.idx[col]) != 0
}

// flag is the SQL condition that row.bool reads col as true, so that a query may keep to the
// rows of a flag, or leave them out, as the reader would.
func flag(col string) string {
	c := quote(col)
	return "(CASE WHEN typeof(" + c + ") = 'text' THEN lower(" + c + ") IN ('true', '1') ELSE IFNULL(CAST(" + c + " AS INTEGER), 0) != 0 END)"
}
