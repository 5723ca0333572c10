package main

import (
	"context"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/uptrace/bun"

	"tally/internal/db"
	"tally/testkit"
)

// TestMigrateDownAsksBeforeDestroyingData runs `tally migrate down` as an operator might, once
// for every migration, without --yes, on a database with a family, its user and an import:
// the runs roll back what destroys no data, then refuse the first rollback that would, each
// time naming what would go and saying that nothing was changed, and the family, its user
// and its import stay. With --yes, or CONFIRM=1, a run rolls back that one migration and says
// what it destroyed.
func TestMigrateDownAsksBeforeDestroyingData(t *testing.T) {
	ctx := context.Background()
	url := testkit.DatabaseURL(t)
	d, err := db.Open(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	u := testkit.MustCreateUser(t, d, testkit.UserOpts{})
	if _, err := d.NewRaw("INSERT INTO imports (id, family_id, user_id, type) VALUES (gen_random_uuid(), ?, ?, 'TransactionImport')",
		u.FamilyID, u.ID).Exec(ctx); err != nil {
		t.Fatal(err)
	}
	migrateDown := func(env map[string]string, args ...string) (string, error) {
		env["DATABASE_URL"] = url
		var out strings.Builder
		err := run(ctx, append([]string{"tally", "migrate", "down"}, args...), func(k string) string { return env[k] }, &out, io.Discard)
		return out.String(), err
	}

	migrations, err := db.Status(ctx, d)
	if err != nil {
		t.Fatal(err)
	}
	var refusal error
	for range migrations {
		out, err := migrateDown(map[string]string{})
		switch {
		case err == nil && refusal != nil:
			t.Fatalf("after refusing, a run rolled back: %s", out)
		case err != nil && refusal != nil && err.Error() != refusal.Error():
			t.Fatalf("refused %q, then %q", refusal, err)
		case err != nil:
			refusal = err
		}
	}
	if refusal == nil {
		t.Fatal("every migration was rolled back without --yes")
	}
	heading, rest, _ := strings.Cut(refusal.Error(), "\n")
	migration, ok := strings.CutSuffix(strings.TrimPrefix(heading, "rolling back "), " would destroy data:")
	lost, advice, _ := strings.Cut(rest, "\nNothing was changed.")
	if !ok || lost == "" || !strings.Contains(advice, "tally migrate down --yes") || !strings.Contains(advice, "CONFIRM=1") {
		t.Fatalf("refusal: %v", refusal)
	}
	for _, table := range []string{"families", "users", "imports"} {
		var n int
		if err := d.NewRaw("SELECT count(*) FROM ?", bun.Ident(table)).Scan(ctx, &n); err != nil || n != 1 {
			t.Fatalf("%s holds %d rows (err %v) after runs without --yes", table, n, err)
		}
	}

	pending := func() []string {
		p, err := db.Pending(ctx, d)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	before := pending()
	out, err := migrateDown(map[string]string{}, "--yes")
	if err != nil {
		t.Fatal(err)
	}
	if want := "rolled back " + migration + ", destroying:\n" + lost + "\n"; out != want {
		t.Fatalf("--yes said %q, want %q", out, want)
	}
	if got := pending(); !slices.Equal(got, append([]string{migration}, before...)) {
		t.Fatalf("after --yes, pending %v, was %v", got, before)
	}

	before = pending()
	if _, err := migrateDown(map[string]string{"CONFIRM": "1"}); err != nil {
		t.Fatal(err)
	}
	if got := pending(); len(got) != len(before)+1 {
		t.Fatalf("after CONFIRM=1, pending %v, was %v", got, before)
	}
}
