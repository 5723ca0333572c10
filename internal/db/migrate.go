package db

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"regexp"
	"sort"
	"strings"

	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivermigrate"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/migrate"

	"tally/migrations"
)

func migrator(d *DB) (*migrate.Migrator, error) {
	ms := migrate.NewMigrations()
	if err := ms.Discover(migrations.Files); err != nil {
		return nil, fmt.Errorf("discover migrations: %w", err)
	}
	return migrate.NewMigrator(d.DB, ms, migrate.WithMarkAppliedOnSuccess(true)), nil
}

// MigrateUp applies every pending migration: Tally's own, then River's. It holds bun's
// migration lock, so concurrent callers wait for each other.
func MigrateUp(ctx context.Context, d *DB) ([]string, error) {
	m, err := migrator(d)
	if err != nil {
		return nil, err
	}
	if err := m.Init(ctx); err != nil {
		return nil, fmt.Errorf("init migrations: %w", err)
	}
	if err := m.Lock(ctx); err != nil {
		return nil, fmt.Errorf("lock migrations: %w", err)
	}
	defer m.Unlock(context.WithoutCancel(ctx)) //nolint:errcheck

	group, err := m.Migrate(ctx)
	if err != nil {
		return nil, fmt.Errorf("migrate: %w", err)
	}
	var applied []string
	for _, mig := range group.Migrations {
		applied = append(applied, mig.Name+"_"+mig.Comment)
	}
	rm, err := rivermigrate.New(riverpgxv5.New(d.Pool), nil)
	if err != nil {
		return nil, err
	}
	res, err := rm.Migrate(ctx, rivermigrate.DirectionUp, nil)
	if err != nil {
		return nil, fmt.Errorf("migrate river: %w", err)
	}
	for _, v := range res.Versions {
		applied = append(applied, fmt.Sprintf("river_%03d_%s", v.Version, v.Name))
	}
	return applied, nil
}

// Rollback is what MigrateDown rolled back, or would: one migration, and the tables it drops
// with the rows each holds.
type Rollback struct {
	Migration string // name_comment; "" when nothing is applied
	Drops     []DroppedTable
}

// DroppedTable is a table a migration's rollback drops.
type DroppedTable struct {
	Name string
	Rows int64
}

// ErrRowsWouldGo is MigrateDown's refusal to drop tables that hold rows without confirm.
var ErrRowsWouldGo = errors.New("the rollback would drop tables that hold rows")

// dropTable finds the tables a down migration drops.
var dropTable = regexp.MustCompile(`(?i)\bDROP\s+TABLE\s+(?:IF\s+EXISTS\s+)?([a-z_][a-z0-9_]*)`)

// MigrateDown rolls back the last of Tally's migrations applied, one at a time (River's tables
// stay). It says what the rollback drops, and when a table it drops holds rows, it refuses
// (ErrRowsWouldGo, with the Rollback filled in) unless confirm.
func MigrateDown(ctx context.Context, d *DB, confirm bool) (*Rollback, error) {
	m, err := migrator(d)
	if err != nil {
		return nil, err
	}
	if err := m.Init(ctx); err != nil {
		return nil, err
	}
	if err := m.Lock(ctx); err != nil {
		return nil, err
	}
	defer m.Unlock(context.WithoutCancel(ctx)) //nolint:errcheck
	all, err := m.MigrationsWithStatus(ctx)
	if err != nil {
		return nil, err
	}
	applied := all.Applied() // newest first
	if len(applied) == 0 {
		return &Rollback{}, nil
	}
	last := applied[0]
	rb := &Rollback{Migration: last.Name + "_" + last.Comment}
	down, err := downSQL(last.Name)
	if err != nil {
		return nil, err
	}
	for _, match := range dropTable.FindAllStringSubmatch(down, -1) {
		var exists bool
		if err := d.NewRaw("SELECT to_regclass(?) IS NOT NULL", match[1]).Scan(ctx, &exists); err != nil {
			return nil, err
		}
		var rows int64
		if exists {
			if err := d.NewRaw("SELECT count(*) FROM ?", bun.Ident(match[1])).Scan(ctx, &rows); err != nil {
				return nil, fmt.Errorf("count the rows of %s: %w", match[1], err)
			}
		}
		rb.Drops = append(rb.Drops, DroppedTable{Name: match[1], Rows: rows})
	}
	for _, t := range rb.Drops {
		if t.Rows > 0 && !confirm {
			return rb, ErrRowsWouldGo
		}
	}
	if err := last.Down(ctx, m, &last); err != nil {
		return nil, fmt.Errorf("%s: down: %w", last.Name, err)
	}
	if err := m.MarkUnapplied(ctx, &last); err != nil {
		return nil, err
	}
	return rb, nil
}

// downSQL is the text of the down migration of the migration named name.
func downSQL(name string) (string, error) {
	entries, err := fs.ReadDir(migrations.Files, ".")
	if err != nil {
		return "", err
	}
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), name+"_") && strings.HasSuffix(e.Name(), ".down.sql") {
			b, err := fs.ReadFile(migrations.Files, e.Name())
			return string(b), err
		}
	}
	return "", nil
}

// MigrationStatus is one of Tally's migrations and whether it has been applied.
type MigrationStatus struct {
	Name    string
	Applied bool
}

// Status lists Tally's migrations in order with their state.
func Status(ctx context.Context, d *DB) ([]MigrationStatus, error) {
	m, err := migrator(d)
	if err != nil {
		return nil, err
	}
	if err := m.Init(ctx); err != nil {
		return nil, err
	}
	ms, err := m.MigrationsWithStatus(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]MigrationStatus, 0, len(ms))
	for _, mig := range ms {
		out = append(out, MigrationStatus{Name: mig.Name + "_" + mig.Comment, Applied: mig.IsApplied()})
	}
	return out, nil
}

// Pending returns the names of migrations not applied yet.
func Pending(ctx context.Context, d *DB) ([]string, error) {
	st, err := Status(ctx, d)
	if err != nil {
		return nil, err
	}
	var names []string
	for _, s := range st {
		if !s.Applied {
			names = append(names, s.Name)
		}
	}
	return names, nil
}

// SchemaHash identifies the migrated schema: a hash of every migration file. Test databases
// built from the same files are interchangeable.
func SchemaHash() (string, error) {
	h := sha256.New()
	names, err := fs.Glob(migrations.Files, "*.sql")
	if err != nil {
		return "", err
	}
	sort.Strings(names)
	for _, name := range names {
		f, err := migrations.Files.Open(name)
		if err != nil {
			return "", err
		}
		io.WriteString(h, name)
		_, err = io.Copy(h, f)
		f.Close()
		if err != nil {
			return "", err
		}
	}
	io.WriteString(h, "river v0.51.1")
	return hex.EncodeToString(h.Sum(nil)), nil
}
