package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
	"strings"
	"time"

	"tally/app"
	"tally/auditlog"
	"tally/internal/db"
	"tally/sso"
)

var (
	rule80  = strings.Repeat("=", 80)
	dash80  = strings.Repeat("-", 80)
	trueish = []string{"1", "true", "yes", "y"}
)

func dryRun(getenv func(string) string) bool {
	return slices.Contains(trueish, strings.ToLower(strings.TrimSpace(getenv("DRY_RUN"))))
}

// runSSOSeed copies the auth file's providers into sso_providers, creating or updating each
// by name. It is idempotent: a provider whose settings already match is skipped. A provider
// that does not validate is reported and the others are still saved.
func runSSOSeed(ctx context.Context, getenv func(string) string, stdout io.Writer) error {
	d, cfg, closeDB, err := openDB(ctx, getenv)
	if err != nil {
		return err
	}
	defer closeDB()
	dry := dryRun(getenv)
	fmt.Fprintf(stdout, "%s\nSSO Provider Seeding Task\n%s\n", rule80, rule80)
	if dry {
		fmt.Fprintln(stdout, "Mode: DRY RUN (no changes will be saved)")
	} else {
		fmt.Fprintln(stdout, "Mode: LIVE (changes will be saved)")
	}
	fmt.Fprintf(stdout, "Source: %s\n%s\n", cfg.AuthConfigFile, dash80)
	if _, err := os.Stat(cfg.AuthConfigFile); err != nil {
		fmt.Fprintf(stdout, "ERROR: %s not found\n", cfg.AuthConfigFile)
		return fmt.Errorf("%s not found", cfg.AuthConfigFile)
	}
	file, err := sso.LoadAuthFile(cfg.AuthConfigFile, cfg.AppEnv, getenv)
	if err != nil {
		fmt.Fprintf(stdout, "ERROR: %v\n", err)
		return err
	}
	if len(file.Providers) == 0 {
		fmt.Fprintf(stdout, "WARNING: No providers found in %s for %s environment\n", cfg.AuthConfigFile, cfg.AppEnv)
		return nil
	}
	fmt.Fprintf(stdout, "Found %d provider(s) in %s\n%s\n", len(file.Providers), cfg.AuthConfigFile, dash80)
	keys, err := app.EncryptionKeys(cfg)
	if err != nil {
		return err
	}
	// A save checks an OIDC issuer's discovery document, as the admin pages do.
	reg := &sso.DBRegistry{DB: d, Keys: keys, Discovery: &http.Client{Timeout: 10 * time.Second}}
	existing, err := reg.All(ctx)
	if err != nil {
		return err
	}
	var created, updated, skipped int
	var errs []string
	for _, p := range file.Providers {
		i := slices.IndexFunc(existing, func(e *sso.Provider) bool { return e.Name == p.Name })
		var old *sso.Provider
		if i >= 0 {
			old = existing[i]
			p.ID = old.ID
			if p.ClientSecret == "" { // a secret the file leaves out stays
				p.ClientSecret = old.ClientSecret
			}
			if p.SPPrivateKey == "" {
				p.SPPrivateKey = old.SPPrivateKey
			}
		}
		changes := sso.Changes(old, p)
		verb := "CREATE"
		if old != nil {
			verb = "UPDATE"
		}
		switch {
		case len(changes) == 0:
			fmt.Fprintf(stdout, "SKIP: %s (no changes)\n", p.Name)
			skipped++
			continue
		case dry:
			fmt.Fprintf(stdout, "%s (dry-run): %s (%s)\n  Changes: %s\n", verb, p.Name, p.Strategy, strings.Join(changes, ", "))
			continue
		}
		err := d.InTx(ctx, func(ctx context.Context, tx db.Tx) error {
			if err := reg.Save(ctx, tx, p); err != nil {
				return err
			}
			return auditlog.Record(ctx, tx, auditlog.Event{Type: auditlog.EventProviderChanged, Provider: p.Name,
				Data: map[string]any{"action": strings.ToLower(verb), "by": "sso_providers:seed", "changes": changes}})
		})
		if err != nil {
			msg := fmt.Sprintf("Failed to save %s: %v", p.Name, err)
			fmt.Fprintf(stdout, "ERROR: %s\n", msg)
			errs = append(errs, msg)
			continue
		}
		fmt.Fprintf(stdout, "%s: %s (%s)\n", verb, p.Name, p.Strategy)
		if old == nil {
			created++
		} else {
			updated++
		}
	}
	fmt.Fprintf(stdout, "%s\nSummary:\n  Created: %d\n  Updated: %d\n  Skipped: %d\n  Errors: %d\n", dash80, created, updated, skipped, len(errs))
	if len(errs) > 0 {
		fmt.Fprintln(stdout, "\nErrors encountered:")
		for _, e := range errs {
			fmt.Fprintf(stdout, "  - %s\n", e)
		}
	}
	if dry {
		fmt.Fprintln(stdout, "\nDRY RUN: No changes were saved to the database\nRun without DRY_RUN=true to apply changes")
	} else {
		fmt.Fprintln(stdout, "\nSeeding completed successfully!\nNote: with AUTH_PROVIDERS_SOURCE=db, changes apply on the next request")
	}
	fmt.Fprintln(stdout, rule80)
	return nil
}

// runSSOList prints the database's providers in a table.
func runSSOList(ctx context.Context, getenv func(string) string, stdout io.Writer) error {
	d, cfg, closeDB, err := openDB(ctx, getenv)
	if err != nil {
		return err
	}
	defer closeDB()
	keys, err := app.EncryptionKeys(cfg)
	if err != nil {
		return err
	}
	list, err := (&sso.DBRegistry{DB: d, Keys: keys}).All(ctx)
	if err != nil {
		return err
	}
	if len(list) == 0 {
		fmt.Fprintln(stdout, "No SSO providers found in database")
		return nil
	}
	fmt.Fprintf(stdout, "SSO Providers (%d):\n%s\n", len(list), dash80)
	for _, p := range list {
		state := "✓ enabled"
		if !p.Enabled {
			state = "✗ disabled"
		}
		fmt.Fprintf(stdout, "%-20s | %-20s | %s\n", p.Name, p.Strategy, state)
	}
	return nil
}

// runBackfillEncryption encrypts every secret still stored in plaintext, and reports counts
// per column as JSON.
func runBackfillEncryption(ctx context.Context, getenv func(string) string, stdout io.Writer) error {
	d, cfg, closeDB, err := openDB(ctx, getenv)
	if err != nil {
		return err
	}
	defer closeDB()
	keys, err := app.EncryptionKeys(cfg)
	if err != nil {
		return err
	}
	dry := dryRun(getenv)
	fmt.Fprintf(stdout, "Starting security backfill (dry_run: %t)...\n", dry)
	type result struct {
		Processed int `json:"processed"`
		Updated   int `json:"updated"`
		Failed    int `json:"failed_count"`
	}
	results := map[string]*result{}
	for _, c := range app.EncryptedColumns {
		r := &result{}
		results[c.Context()] = r
		err := d.InTx(ctx, func(ctx context.Context, tx db.Tx) error {
			var rows []struct {
				Key   string `bun:"key"`
				Value string `bun:"value"`
			}
			q := fmt.Sprintf("SELECT %[1]s::text AS key, %[2]s AS value FROM %[3]s WHERE %[2]s IS NOT NULL AND %[2]s <> '' FOR UPDATE", c.Key, c.Name, c.Table)
			if err := tx.NewRaw(q).Scan(ctx, &rows); err != nil {
				return err
			}
			for _, row := range rows {
				r.Processed++
				next, changed, err := keys.Reencrypt(row.Value, c.Context())
				if err != nil {
					r.Failed++
					continue
				}
				if !changed || dry {
					continue
				}
				if _, err := tx.NewRaw(fmt.Sprintf("UPDATE %s SET %s = ? WHERE %s = ?::uuid", c.Table, c.Name, c.Key), next, row.Key).Exec(ctx); err != nil {
					return err
				}
				r.Updated++
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	out, _ := json.Marshal(map[string]any{"ok": true, "dry_run": dry, "results": results})
	fmt.Fprintln(stdout, string(out))
	return nil
}
