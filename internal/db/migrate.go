package db

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"sort"
	"strings"

	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivermigrate"
	"github.com/uptrace/bun/migrate"

	"tally/migrations"
)

// migrationsTable is where bun/migrate records the migrations applied.
const migrationsTable = "bun_migrations"

func migrator(d *DB, files fs.FS) (*migrate.Migrator, error) {
	ms := migrate.NewMigrations()
	if err := ms.Discover(files); err != nil {
		return nil, fmt.Errorf("discover migrations: %w", err)
	}
	return migrate.NewMigrator(d.DB, ms, migrate.WithTableName(migrationsTable), migrate.WithMarkAppliedOnSuccess(true)), nil
}

// MigrateUp applies every pending migration: Tally's own, then River's. It holds bun's
// migration lock, so concurrent callers wait for each other.
func MigrateUp(ctx context.Context, d *DB) ([]string, error) {
	applied, err := migrateUp(ctx, d, migrations.Files)
	if err != nil {
		return nil, err
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

// migrateUp applies the pending migrations of files.
func migrateUp(ctx context.Context, d *DB, files fs.FS) ([]string, error) {
	m, err := migrator(d, files)
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
	return applied, nil
}

// ErrWouldDestroy is MigrateDown's refusal, without confirm, to run a rollback that destroys
// data: the Rollback it returns with it says what.
var ErrWouldDestroy = errors.New("the rollback would destroy data")

// MigrateDown rolls back the last of Tally's migrations applied, one a call (River's tables
// stay). The rollback runs first in a savepoint that is undone, so that PostgreSQL itself says
// what it destroys (see Rollback); when that is any data, MigrateDown refuses with
// ErrWouldDestroy and changes nothing, unless confirm. Otherwise the down migration and the
// mark that the migration is no longer applied commit in one transaction, so a crash leaves
// either both or neither.
//
// Every down migration runs in that transaction, whatever its file name says: one that cannot
// (DROP INDEX CONCURRENTLY) fails with PostgreSQL's error and changes nothing.
func MigrateDown(ctx context.Context, d *DB, confirm bool) (*Rollback, error) {
	return migrateDown(ctx, d, migrations.Files, confirm)
}

func migrateDown(ctx context.Context, d *DB, files fs.FS, confirm bool) (*Rollback, error) {
	m, err := migrator(d, files)
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
	down, err := downSQL(files, last.Name)
	if err != nil {
		return nil, err
	}
	rb := &Rollback{Migration: last.Name + "_" + last.Comment}
	err = d.InTx(ctx, func(ctx context.Context, tx Tx) error {
		if err := rb.measure(ctx, tx, down); err != nil {
			return err
		}
		if rb.Destroys() && !confirm {
			return ErrWouldDestroy
		}
		if _, err := tx.Pgx.Exec(ctx, down); err != nil {
			return err
		}
		_, err := tx.NewDelete().TableExpr(migrationsTable).Where("id = ?", last.ID).Exec(ctx)
		return err
	})
	if errors.Is(err, ErrWouldDestroy) {
		return rb, err
	}
	if err != nil {
		return nil, fmt.Errorf("rolling back %s failed, so nothing was changed: %w", rb.Migration, err)
	}
	return rb, nil
}

// downSQL is the text of the down migration of the migration named name.
func downSQL(files fs.FS, name string) (string, error) {
	entries, err := fs.ReadDir(files, ".")
	if err != nil {
		return "", err
	}
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), name+"_") && strings.HasSuffix(e.Name(), ".down.sql") {
			b, err := fs.ReadFile(files, e.Name())
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
	m, err := migrator(d, migrations.Files)
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
