package jobs

import (
	"context"
	"strings"
	"testing"

	"tally/auditlog"
	"tally/testkit"
)

func TestClientRunsTheAuditRetentionJobOnStart(t *testing.T) {
	d := testkit.MustOpenDB(t)
	ctx := context.Background()
	if _, err := d.NewRaw(`INSERT INTO sso_audit_logs (id, event_type, created_at)
		VALUES (gen_random_uuid(), 'login', now() - interval '200 days'), (gen_random_uuid(), 'login', now())`).Exec(ctx); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	startWorking(t, d, Options{Work: true, AuditRetention: auditlog.Extended, AuditArchiveURL: "file://" + dir})
	eventually(t, "the audit retention job runs on start", func() bool { return count(t, d, "SELECT count(*) FROM sso_audit_logs") == 1 })
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
