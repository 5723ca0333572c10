package e2e

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"tally/app/apptest"
	"tally/testkit"
)

// TestStatementFileInTheBrowser drops a camt.053 statement on the New import page without
// saying what it is, checks the statement's reconciliation, sends its entries to an existing
// account instead of a new one, publishes, and then uploads the same file again: nothing is
// added, and each row says it was already there by the bank's id.
func TestStatementFileInTheBrowser(t *testing.T) {
	t.Parallel()
	ctx := newTab(t)
	srv := startServer(t, apptest.ServerOptions{})
	u := testkit.MustCreateUser(t, srv.DB, testkit.UserOpts{})
	joint := testkit.MustCreateAccount(t, srv.DB, u.FamilyID, "Joint checking", "Depository", "1000")
	file, err := filepath.Abs("testdata/camt053_march.xml")
	if err != nil {
		t.Fatal(err)
	}

	step(t, "the file's type is detected and its statement reconciles", func(t *testing.T) {
		signInAs(t, ctx, srv, u.Email)
		visit(t, ctx, srv.URL+"/imports/new")
		if got := inputValue(t, ctx, "field-type"); got != "auto" {
			t.Fatalf("the type defaults to %q, want auto", got)
		}
		uploadFile(t, ctx, "field-file", file)
		click(t, ctx, "new-import-submit")
		visible(t, ctx, "statement")
		wantText(t, ctx, "statement-account", "DE89370400440532013000")
		if got := attr(t, ctx, "statement-reconciliation", "data-status"); got != "reconciled" {
			t.Errorf("reconciliation %q, want reconciled", got)
		}
		wantText(t, ctx, "statement-opening", "€1,000.00 on 2026-03-02")
		wantText(t, ctx, "statement-closing", "€3,334.40 on 2026-03-04")
		if n := count(t, ctx, "file-row"); n != 3 {
			t.Errorf("%d entries shown, want 3", n)
		}
		shot(t, ctx, "import-statement")
		checkAccessible(t, ctx, axeSource(t), "a statement's preview")
	})

	step(t, "its entries go into the account chosen for them", func(t *testing.T) {
		chooseLabel(t, ctx, "statement-mapping-target", "Joint checking (USD)")
		click(t, ctx, "statement-mapping-save")
		// The upload left a success flash on the page too: wait for the mapping's own.
		waitText(t, ctx, "flash-success", "Account mapping saved.", 10*time.Second)
		if got := inputValue(t, ctx, "statement-mapping-target"); got != joint.ID.String() {
			t.Fatalf("the mapping shows %q after saving, want the joint account", got)
		}
		click(t, ctx, "publish-import")
		waitText(t, ctx, "import-status", "Complete", time.Minute)
		wantText(t, ctx, "match-new", "3")
		wantText(t, ctx, "statement-mapping-account", "Joint checking")
		var n int
		if err := srv.DB.NewRaw("SELECT count(*) FROM entries WHERE account_id = ? AND kind = 'transaction' AND external_id LIKE 'E2E-REF%'", joint.ID).
			Scan(context.Background(), &n); err != nil {
			t.Fatal(err)
		}
		if n != 3 {
			t.Errorf("%d of the statement's entries are in the joint account, want 3", n)
		}
	})

	step(t, "the same file again adds nothing and says why", func(t *testing.T) {
		visit(t, ctx, srv.URL+"/imports/new")
		uploadFile(t, ctx, "field-file", file)
		click(t, ctx, "new-import-submit")
		visible(t, ctx, "statement")
		if got := inputValue(t, ctx, "statement-mapping-target"); got != joint.ID.String() {
			t.Fatalf("the second file maps to %q, want the remembered joint account", got)
		}
		click(t, ctx, "publish-import")
		waitText(t, ctx, "import-status", "Complete", time.Minute)
		wantText(t, ctx, "match-new", "0")
		wantText(t, ctx, "match-bank-id", "3")
		if got := attr(t, ctx, "file-row-match", "data-rule"); got != "bank_id" {
			t.Errorf("a row says it matched by %q, want bank_id", got)
		}
		shot(t, ctx, "import-statement-again")
	})
}
