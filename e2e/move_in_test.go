package e2e

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"tally/app/apptest"
	"tally/testkit"
)

// TestMoveInFromActualInTheBrowser moves an Actual Budget in from the New import page: the
// file is detected, the page shows what comes across and what changes on the way before
// anything is written, and after publishing that it was read back as Actual has it.
func TestMoveInFromActualInTheBrowser(t *testing.T) {
	t.Parallel()
	ctx := newTab(t)
	srv := startServer(t, apptest.ServerOptions{})
	u := testkit.MustCreateUser(t, srv.DB, testkit.UserOpts{})
	content, err := os.ReadFile("../handlers/testdata/actual-household.zip")
	if err != nil {
		t.Fatal(err)
	}
	export := filepath.Join(t.TempDir(), "My Finances.zip")
	if err := os.WriteFile(export, content, 0o600); err != nil {
		t.Fatal(err)
	}

	step(t, "the export is detected and its dry run shown", func(t *testing.T) {
		signInAs(t, ctx, srv, u.Email)
		visit(t, ctx, srv.URL+"/imports/new")
		choose(t, ctx, "field-type", "auto")
		uploadFile(t, ctx, "field-file", export)
		click(t, ctx, "new-import-submit")
		visible(t, ctx, "move-in-counts")
		if n := count(t, ctx, "move-in-count"); n != 10 {
			t.Errorf("%d kinds counted, want 10 (goals too)", n)
		}
		if n := count(t, ctx, "move-in-notice"); n == 0 {
			t.Error("no notice listed")
		}
		shot(t, ctx, "import-move-in-dry-run")
	})

	step(t, "published, it is read back as Actual has it", func(t *testing.T) {
		click(t, ctx, "publish-import")
		waitText(t, ctx, "import-status", "Complete", time.Minute)
		visible(t, ctx, "move-in-readback")
		wantText(t, ctx, "readback-status", "Verified: matches the file")
		shot(t, ctx, "import-move-in-published")
	})
}
