package db

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"sort"

	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivermigrate"
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

// MigrateDown rolls back the last group of Tally's migrations. River's tables stay.
func MigrateDown(ctx context.Context, d *DB) ([]string, error) {
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
	group, err := m.Rollback(ctx)
	if err != nil {
		return nil, fmt.Errorf("rollback: %w", err)
	}
	var names []string
	for _, mig := range group.Migrations {
		names = append(names, mig.Name+"_"+mig.Comment)
	}
	return names, nil
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
