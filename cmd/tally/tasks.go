package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"

	"tally/auth"
	"tally/config"
	"tally/internal/apperr"
	"tally/internal/db"
	"tally/models"
)

// openDB opens DATABASE_URL for an operator task.
func openDB(ctx context.Context, getenv func(string) string) (*db.DB, config.Config, error) {
	cfg, err := config.Load(getenv)
	if err != nil {
		return nil, cfg, err
	}
	if cfg.DatabaseURL == "" {
		return nil, cfg, errors.New("DATABASE_URL is required for this task")
	}
	d, err := db.Open(ctx, cfg.DatabaseURL)
	return d, cfg, err
}

func runMigrate(ctx context.Context, args []string, getenv func(string) string, stdout io.Writer) error {
	dir := "up"
	if len(args) > 0 {
		dir = args[0]
	}
	d, _, err := openDB(ctx, getenv)
	if err != nil {
		return err
	}
	defer d.Close()
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
		names, err := db.MigrateDown(ctx, d)
		if err != nil {
			return err
		}
		if len(names) == 0 {
			fmt.Fprintln(stdout, "Nothing to roll back.")
		}
		for _, n := range names {
			fmt.Fprintln(stdout, "rolled back", n)
		}
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

func runUsersCreate(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("users:create", flag.ContinueOnError)
	fs.SetOutput(stderr)
	email := fs.String("email", "", "email address (required)")
	password := fs.String("password", "", "password, at least 8 characters (required)")
	role := fs.String("role", "member", "super_admin, admin or member")
	family := fs.String("family", "", "family to join; created when missing (default: a new family named after the user)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *email == "" || *password == "" {
		return errors.New("users:create needs --email and --password")
	}
	d, cfg, err := openDB(ctx, getenv)
	if err != nil {
		return err
	}
	defer d.Close()
	svc := &auth.Service{DB: d, Log: slog.New(slog.NewTextHandler(stderr, nil)), Policy: auth.Policy{LocalLoginEnabled: cfg.LocalLoginEnabled}}
	u, err := svc.CreateUser(ctx, auth.NewUserInput{Email: *email, Password: *password, Role: models.Role(*role), FamilyName: *family})
	if err != nil {
		return clientMessage(err)
	}
	fmt.Fprintf(stdout, "Created %s (%s) in family %s\n", u.Email, u.Role, u.FamilyID)
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
	d, _, err := openDB(ctx, getenv)
	if err != nil {
		return err
	}
	defer d.Close()
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
