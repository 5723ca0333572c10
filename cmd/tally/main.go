// Command tally is Tally's one binary: the web server, the job worker and the operator tasks.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args, os.Getenv, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "tally:", err)
		os.Exit(1)
	}
}

const usage = `Usage: tally <command> [flags]

Commands:
  dev                 start a private PostgreSQL under .data/, migrate, and serve web and worker
  serve               serve web and worker (needs DATABASE_URL and SECRET_KEY_BASE)
  worker              work background jobs only (/healthz, /readyz and /metrics on METRICS_ADDR)
  healthcheck [URL]   exit 0 when URL (default: /readyz on LISTEN_ADDR) answers 200, for containers
  migrate up|down [--yes]|status
  users:create        --email E --password P [--role super_admin|admin|member|viewer] [--family NAME]
  api_keys:create     --email E [--name N] [--scope read|read_write]; prints the key alone
  export              --family NAME [--out FILE]; the family's data as NDJSON (stdout by default)
  sso_providers:seed  copy the providers of AUTH_CONFIG_FILE into the database (DRY_RUN=true previews)
  sso_providers:list  list the database's SSO providers
  security:backfill_encryption
                      encrypt secrets stored in plaintext (DRY_RUN=true counts only)

Configuration is read from the environment: see README.md.
`

// run is the whole program, with its environment passed in, so that tests run it as main does.
func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	if len(args) < 2 {
		fmt.Fprint(stderr, usage)
		return fmt.Errorf("no command given")
	}
	cmd, rest := args[1], args[2:]
	switch cmd {
	case "dev":
		return runDev(ctx, getenv, stdout, stderr)
	case "serve":
		return runServe(ctx, getenv, stdout, stderr, true)
	case "worker":
		return runServe(ctx, getenv, stdout, stderr, false)
	case "healthcheck":
		return runHealthcheck(ctx, rest, getenv, stdout)
	case "migrate":
		return runMigrate(ctx, rest, getenv, stdout)
	case "users:create":
		return runUsersCreate(ctx, rest, getenv, stdout, stderr)
	case "api_keys:create":
		return runAPIKeysCreate(ctx, rest, getenv, stdout, stderr)
	case "export":
		return runExport(ctx, rest, getenv, stdout, stderr)
	case "sso_providers:seed":
		return runSSOSeed(ctx, getenv, stdout)
	case "sso_providers:list":
		return runSSOList(ctx, getenv, stdout)
	case "security:backfill_encryption":
		return runBackfillEncryption(ctx, getenv, stdout)
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
		return nil
	}
	fmt.Fprint(stderr, usage)
	return fmt.Errorf("unknown command %q", cmd)
}
