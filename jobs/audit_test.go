package jobs

import (
	"context"
	"strings"
	"testing"
	"time"

	"tally/auditlog"
	"tally/internal/testkit"
)

func TestClientRunsTheAuditRetentionJobOnStart(t *testing.T) {
	d := testkit.MustOpenDB(t)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if _, err := d.NewRaw(`INSERT INTO sso_audit_logs (id, event_type, created_at)
		VALUES (gen_random_uuid(), 'login', now() - interval '200 days'), (gen_random_uuid(), 'login', now())`).Exec(ctx); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	c, err := New(d, testkit.DiscardLogger(), Options{Work: true, AuditRetention: auditlog.Extended, AuditArchiveURL: "file://" + dir})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	defer c.Stop(context.Background())
	for {
		var n int
		if err := d.NewRaw("SELECT count(*) FROM sso_audit_logs").Scan(ctx, &n); err != nil {
			t.Fatal(err)
		}
		if n == 1 {
			break
		}
		select {
		case <-ctx.Done():
			t.Fatal("the audit retention job did not run on start")
		case <-time.After(100 * time.Millisecond):
		}
	}
	archive, _ := auditlog.Open("file://" + dir)
	if keys, err := archive.List(ctx, ""); err != nil || len(keys) != 1 {
		t.Errorf("archive holds %v, %v; want the old entry's day", keys, err)
	}
}

func TestAuditArchivingTierNeedsAUsableArchive(t *testing.T) {
	d := testkit.MustOpenDB(t)
	_, err := New(d, testkit.DiscardLogger(), Options{Work: true, AuditRetention: auditlog.Compliance, AuditArchiveURL: "s3://bucket"})
	if err == nil || !strings.Contains(err.Error(), "audit archive") {
		t.Fatalf("New error %v, want the archive named", err)
	}
}
