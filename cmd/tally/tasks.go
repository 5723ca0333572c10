package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"tally/app"
	"tally/auth"
	"tally/config"
	"tally/imports"
	"tally/internal/apperr"
	"tally/internal/db"
	"tally/internal/pgtmp"
	"tally/models"
	"tally/views"
)

// openDB opens the database of an operator task: DATABASE_URL, or else the `tally dev`
// cluster under the data directory, which is started for the task when it is not running.
// The returned close function closes the database and stops a cluster started here.
func openDB(ctx context.Context, getenv func(string) string) (*db.DB, config.Config, func(), error) {
	cfg, err := app.LoadConfig(getenv)
	if err != nil {
		return nil, cfg, nil, err
	}
	stop := func() {}
	if cfg.DatabaseURL == "" {
		pgDir := filepath.Join(devDataDir(cfg), "postgres")
		if _, err := os.Stat(filepath.Join(pgDir, "PG_VERSION")); err != nil {
			return nil, cfg, nil, errors.New("DATABASE_URL is not set and there is no `tally dev` database here: set DATABASE_URL, or run `make run` first")
		}
		url, ok := pgtmp.Running(ctx, pgDir, "tally")
		if !ok {
			bins, err := devBinaries(ctx, getenv, cfg, os.Stderr)
			if err != nil {
				return nil, cfg, nil, err
			}
			cluster, err := pgtmp.Start(ctx, pgtmp.Options{DataDir: pgDir, BinDir: bins.Dir})
			if err != nil {
				return nil, cfg, nil, err
			}
			stop = func() { cluster.Stop() }
			url = cluster.URL("tally")
		}
		cfg.DatabaseURL = url
		if cfg.SecretKeyBase == "" {
			// The dev server's secret, so that tasks read and write its encrypted values.
			if cfg.SecretKeyBase, err = devSecret(filepath.Join(devDataDir(cfg), "secret_key_base")); err != nil {
				return nil, cfg, nil, err
			}
		}
	}
	d, err := db.Open(ctx, cfg.DatabaseURL)
	if err != nil {
		stop()
		return nil, cfg, nil, err
	}
	return d, cfg, func() { d.Close(); stop() }, nil
}

func runMigrate(ctx context.Context, args []string, getenv func(string) string, stdout io.Writer) error {
	dir := "up"
	if len(args) > 0 {
		dir = args[0]
	}
	d, _, closeDB, err := openDB(ctx, getenv)
	if err != nil {
		return err
	}
	defer closeDB()
	switch dir {
	case "up":
		names, err := db.MigrateUp(ctx, d)
		if err != nil {
			return err
		}
		if len(names) == 0 {
			fmt.Fprintln(stdout, "The database is up to date.")
		}
		for _, n := range names {
			fmt.Fprintln(stdout, "applied", n)
		}
	case "down":
		// One migration a run; one that destroys data takes --yes or CONFIRM=1.
		confirm := slices.Contains(args[1:], "--yes") || getenv("CONFIRM") == "1"
		rb, err := db.MigrateDown(ctx, d, confirm)
		if errors.Is(err, db.ErrWouldDestroy) {
			return fmt.Errorf("rolling back %s would destroy data:\n%s\nNothing was changed. To roll it back all the same, run `tally migrate down --yes` (or with CONFIRM=1)",
				rb.Migration, strings.Join(rollbackLosses(rb), "\n"))
		}
		if err != nil {
			return err
		}
		if rb.Migration == "" {
			fmt.Fprintln(stdout, "Nothing to roll back.")
			return nil
		}
		losses := rollbackLosses(rb)
		if len(losses) == 0 {
			fmt.Fprintln(stdout, "rolled back", rb.Migration)
			return nil
		}
		fmt.Fprintf(stdout, "rolled back %s, destroying:\n%s\n", rb.Migration, strings.Join(losses, "\n"))
	case "status":
		st, err := db.Status(ctx, d)
		if err != nil {
			return err
		}
		for _, s := range st {
			state := "pending"
			if s.Applied {
				state = "applied"
			}
			fmt.Fprintf(stdout, "%-8s %s\n", state, s.Name)
		}
	default:
		return fmt.Errorf("migrate takes up, down or status, not %q", dir)
	}
	return nil
}

// rollbackLosses are the lines that say what a rollback drops and what data goes with it,
// for an operator.
func rollbackLosses(rb *db.Rollback) []string {
	var lines []string
	add := func(list []db.Count, format, one, many string) {
		for _, c := range list {
			lines = append(lines, fmt.Sprintf(format, c.Name, views.Plural(int(c.N), one, many)))
		}
	}
	add(rb.Tables, "  table %s, with %s", "row", "rows")
	add(rb.Columns, "  column %s, with %s", "value", "values")
	add(rb.Deleted, "  %[2]s deleted from %[1]s", "row", "rows")
	add(rb.Updated, "  %[2]s overwritten in %[1]s", "row", "rows")
	for _, c := range rb.Sequences {
		lines = append(lines, fmt.Sprintf("  sequence %s, which stood at %d", c.Name, c.N))
	}
	return lines
}

func runUsersCreate(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("users:create", flag.ContinueOnError)
	fs.SetOutput(stderr)
	email := fs.String("email", "", "email address (required)")
	password := fs.String("password", "", "password, at least 8 characters (required)")
	role := fs.String("role", "member", "super_admin, admin, member or viewer")
	family := fs.String("family", "", "family to join; created when missing (default: a new family named after the user)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *email == "" || *password == "" {
		return errors.New("users:create needs --email and --password")
	}
	d, cfg, closeDB, err := openDB(ctx, getenv)
	if err != nil {
		return err
	}
	defer closeDB()
	svc := &auth.Service{DB: d, Log: slog.New(slog.NewTextHandler(stderr, nil)), Policy: auth.Policy{LocalLoginEnabled: cfg.LocalLoginEnabled}}
	u, err := svc.CreateUser(ctx, auth.NewUserInput{Email: *email, Password: *password, Role: models.Role(*role), FamilyName: *family})
	if err != nil {
		return clientMessage(err)
	}
	fmt.Fprintf(stdout, "Created %s (%s) in the family %q\n", u.Email, u.Role, u.Family.Name)
	return nil
}

func runAPIKeysCreate(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("api_keys:create", flag.ContinueOnError)
	fs.SetOutput(stderr)
	email := fs.String("email", "", "the key's user (required)")
	name := fs.String("name", "CLI key", "a name to recognise the key by")
	scope := fs.String("scope", models.ScopeReadWrite, "read or read_write")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *email == "" {
		return errors.New("api_keys:create needs --email")
	}
	d, _, closeDB, err := openDB(ctx, getenv)
	if err != nil {
		return err
	}
	defer closeDB()
	u, err := models.UserByEmail(ctx, d, *email)
	if err != nil {
		return clientMessage(err)
	}
	_, key, err := models.CreateAPIKey(ctx, d, u.ID, *name, *scope)
	if err != nil {
		return clientMessage(err)
	}
	fmt.Fprintln(stdout, key)
	return nil
}

// clientMessage shortens coded errors to their message, for the terminal.
func clientMessage(err error) error {
	if e := apperr.As(err); e != nil && e.Code != apperr.Internal {
		return errors.New(e.Message)
	}
	return err
}

func runExport(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("export", flag.ContinueOnError)
	fs.SetOutput(stderr)
	family := fs.String("family", "", "the family to export (required)")
	out := fs.String("out", "", "file to write; standard output when empty")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *family == "" {
		return errors.New("export needs --family")
	}
	d, _, closeDB, err := openDB(ctx, getenv)
	if err != nil {
		return err
	}
	defer closeDB()
	f, err := models.FamilyByName(ctx, d, *family)
	if err != nil {
		return clientMessage(err)
	}
	w := stdout
	if *out != "" {
		file, err := os.Create(*out)
		if err != nil {
			return err
		}
		defer file.Close()
		w = file
	}
	// The operator's export is the family's whole, private accounts included: a backup, or a
	// move to another server, run by whom runs this one.
	counts, err := imports.Export(ctx, d, models.FamilyViewer(f.ID), w)
	if err != nil {
		return err
	}
	if *out != "" {
		fmt.Fprintf(stdout, "Exported the family %q to %s: %v\n", f.Name, *out, counts)
	}
	return nil
}
