package auditlog

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"tally/testkit"
)

func TestAuditRetentionWindows(t *testing.T) {
	for _, tc := range []struct {
		tier               Retention
		archives           bool
		dbFrom, keptFrom   string
		unparsedName       string
		wantParsedFromName Retention
	}{
		{Standard, false, "2026-08-24", "2026-08-24", "", Standard},
		{Extended, true, "2026-08-24", "2025-11-22", "Extended", Extended},
		{Compliance, true, "2026-08-24", "2019-11-22", " compliance ", Compliance},
	} {
		t.Run(string(tc.tier), func(t *testing.T) {
			if got := tc.tier.Archives(); got != tc.archives {
				t.Errorf("Archives() = %v", got)
			}
			if got := tc.tier.DatabaseCutoff(now).Format(time.RFC3339); got != tc.dbFrom+"T00:00:00Z" {
				t.Errorf("DatabaseCutoff = %s, want %s at midnight UTC", got, tc.dbFrom)
			}
			if got := tc.tier.ArchiveCutoff(now).Format(time.RFC3339); got != tc.keptFrom+"T00:00:00Z" {
				t.Errorf("ArchiveCutoff = %s, want %s at midnight UTC", got, tc.keptFrom)
			}
			if got, err := ParseRetention(tc.unparsedName); err != nil || got != tc.wantParsedFromName {
				t.Errorf("ParseRetention(%q) = %q, %v", tc.unparsedName, got, err)
			}
		})
	}
	if _, err := ParseRetention("forever"); err == nil || !strings.Contains(err.Error(), "standard, extended or compliance") {
		t.Errorf("ParseRetention(forever) = %v, want an error naming the tiers", err)
	}
}

func TestAuditStandardDeletesPastNinetyDaysWithoutArchiving(t *testing.T) {
	d := testkit.MustOpenDB(t)
	ctx := context.Background()
	cut := Standard.DatabaseCutoff(now)
	old := mustInsert(t, d, entry{at: cut.Add(-time.Nanosecond * 1000)}, entry{at: daysAgo(400)})
	kept := mustInsert(t, d, entry{at: cut}, entry{at: daysAgo(1)})
	archive := &DirArchive{Root: t.TempDir()}

	res, err := Run(ctx, d, archive, Standard, now)
	if err != nil {
		t.Fatal(err)
	}
	if got := dbIDs(t, d); !slices.Equal(got, sorted(kept)) {
		t.Errorf("database keeps %v, want %v (deleted %v)", got, sorted(kept), old)
	}
	if res.DeletedEntries != 2 || res.ArchivedEntries != 0 {
		t.Errorf("result %+v, want 2 deleted and nothing archived", res)
	}
	if k := keys(t, archive); len(k) != 0 {
		t.Errorf("standard wrote to the archive: %v", k)
	}
	// Standard needs no archive at all.
	if _, err := Run(ctx, d, nil, Standard, now); err != nil {
		t.Errorf("standard without an archive: %v", err)
	}
}

func TestAuditExtendedMovesDaysToTheArchiveAfterVerifying(t *testing.T) {
	d := testkit.MustOpenDB(t)
	ctx := context.Background()
	u := testkit.MustCreateUser(t, d, testkit.UserOpts{Email: "ada@example.com"})
	day100 := mustInsert(t, d,
		entry{event: "login", user: &u.ID, provider: "okta", at: daysAgo(100)},
		entry{event: "login_failed", provider: "okta", at: daysAgo(100).Add(time.Hour)},
		entry{event: "logout", user: &u.ID, at: daysAgo(100).Add(-11 * time.Hour)}) // 01:00 UTC, same day
	day200 := mustInsert(t, d, entry{at: daysAgo(200)})
	mustInsert(t, d, entry{at: daysAgo(400)}) // past the year: deleted, never archived
	recent := mustInsert(t, d, entry{at: daysAgo(89)}, entry{at: daysAgo(0)})
	archive := &DirArchive{Root: t.TempDir()}

	res, err := Run(ctx, d, archive, Extended, now)
	if err != nil {
		t.Fatal(err)
	}
	want := Result{ArchivedDays: 2, ArchivedEntries: 4, DeletedEntries: 1}
	if res != want {
		t.Errorf("result %+v, want %+v", res, want)
	}
	if got := dbIDs(t, d); !slices.Equal(got, sorted(recent)) {
		t.Errorf("database keeps %v, want only the last 90 days %v", got, sorted(recent))
	}
	k100, k200 := Key(daysAgo(100)), Key(daysAgo(200))
	if got := keys(t, archive); !slices.Equal(got, []string{k200, k100}) {
		t.Fatalf("archive holds %v, want [%s %s]", got, k200, k100)
	}
	if k100 != "2026/08/14.ndjson.gz" {
		t.Errorf("key of 2026-08-14 is %q", k100)
	}
	if got := objectIDs(t, archive, k100); !slices.Equal(got, []uuid.UUID{day100[2], day100[0], day100[1]}) {
		t.Errorf("day object holds %v, want the day's entries in time order", got)
	}
	if got := objectIDs(t, archive, k200); !slices.Equal(got, day200) {
		t.Errorf("day object holds %v, want %v", got, day200)
	}
	data, _ := archive.Get(ctx, k100)
	entries, _ := decode(data)
	if e := entries[1]; e.UserEmail != "ada@example.com" || e.Provider != "okta" || e.IPAddress != "192.0.2.7" ||
		e.UserAgent != "Firefox/140" || string(e.Metadata) != `{"reason":"test"}` || !e.CreatedAt.Equal(daysAgo(100)) {
		t.Errorf("archived entry %+v lost a field", e)
	}

	// A second run the same day has nothing left to do.
	if res, err := Run(ctx, d, archive, Extended, now); err != nil || res != (Result{}) {
		t.Errorf("second run: %+v, %v; want nothing done", res, err)
	}
}

// The archive must hold a day, read back and checked, before the day leaves the database.
func TestAuditAFailedArchiveKeepsTheEntries(t *testing.T) {
	for _, tc := range []struct {
		name  string
		fault func(a *faultyArchive)
		want  string
	}{
		{"put fails", func(a *faultyArchive) {
			a.put = func(context.Context, string, []byte) error { return errCrash }
		}, "died"},
		{"put stores a truncated object", func(a *faultyArchive) {
			a.put = func(ctx context.Context, key string, data []byte) error {
				return a.DirArchive.Put(ctx, key, data[:len(data)/2])
			}
		}, "read back"},
		{"the object read back lacks an entry", func(a *faultyArchive) {
			a.get = func(data []byte) []byte {
				entries, _ := decode(data)
				out, _ := encode(entries[1:])
				return out
			}
		}, "1 entries"},
		{"the object read back holds other entries", func(a *faultyArchive) {
			a.get = func(data []byte) []byte {
				entries, _ := decode(data)
				entries[0].ID = uuid.New()
				out, _ := encode(entries)
				return out
			}
		}, "read back"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			d := testkit.MustOpenDB(t)
			ids := mustInsert(t, d, entry{at: daysAgo(120)}, entry{at: daysAgo(120)})
			archive := &faultyArchive{DirArchive: &DirArchive{Root: t.TempDir()}}
			tc.fault(archive)

			res, err := Run(context.Background(), d, archive, Compliance, now)
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), daysAgo(120).Format(DateLayout)) {
				t.Fatalf("Run error %v, want one naming the day and %q", err, tc.want)
			}
			if got := dbIDs(t, d); !slices.Equal(got, sorted(ids)) {
				t.Errorf("database holds %v after a failed archive, want every entry %v", got, sorted(ids))
			}
			if res.ArchivedEntries != 0 {
				t.Errorf("result %+v counts entries as archived", res)
			}
		})
	}
}

// A run that dies after writing a day but before deleting its entries loses nothing, and the
// next run neither loses nor duplicates them, even when entries of that day arrived between.
func TestAuditACrashBetweenWriteAndDeleteIsRepairedByTheNextRun(t *testing.T) {
	d := testkit.MustOpenDB(t)
	ctx := context.Background()
	first := mustInsert(t, d, entry{at: daysAgo(95)}, entry{at: daysAgo(95).Add(time.Minute)})
	dir := &DirArchive{Root: t.TempDir()}
	crashing := &faultyArchive{DirArchive: dir, put: func(ctx context.Context, key string, data []byte) error {
		if err := dir.Put(ctx, key, data); err != nil {
			return err
		}
		return errCrash
	}}

	if _, err := Run(ctx, d, crashing, Extended, now); err == nil {
		t.Fatal("the crashing run reported no error")
	}
	key := Key(daysAgo(95))
	if got := objectIDs(t, dir, key); !slices.Equal(sorted(got), sorted(first)) {
		t.Fatalf("the crash left %v in the archive, want %v", got, first)
	}
	if got := dbIDs(t, d); !slices.Equal(got, sorted(first)) {
		t.Fatalf("the crash left %v in the database, want %v", got, sorted(first))
	}

	late := mustInsert(t, d, entry{at: daysAgo(95).Add(2 * time.Hour)})
	res, err := Run(ctx, d, dir, Extended, now)
	if err != nil {
		t.Fatal(err)
	}
	all := append(slices.Clone(first), late...)
	if got := objectIDs(t, dir, key); !slices.Equal(got, all) {
		t.Errorf("after the next run the day holds %v, want each of %v once, in time order", got, all)
	}
	if got := dbIDs(t, d); len(got) != 0 {
		t.Errorf("after the next run the database still holds %v", got)
	}
	if res.ArchivedEntries != 3 || res.ArchivedDays != 1 {
		t.Errorf("result %+v, want the day's 3 entries archived", res)
	}
}

// An existing object that cannot be read is never overwritten: what it holds may be the
// only copy of entries already deleted.
func TestAuditAnUnreadableDayObjectKeepsTheEntries(t *testing.T) {
	d := testkit.MustOpenDB(t)
	ctx := context.Background()
	ids := mustInsert(t, d, entry{at: daysAgo(100)})
	archive := &DirArchive{Root: t.TempDir()}
	key := Key(daysAgo(100))
	if err := archive.Put(ctx, key, []byte("not gzip")); err != nil {
		t.Fatal(err)
	}
	if _, err := Run(ctx, d, archive, Extended, now); err == nil || !strings.Contains(err.Error(), "cannot be read") {
		t.Fatalf("Run error %v, want the object named as unreadable", err)
	}
	if got := dbIDs(t, d); !slices.Equal(got, ids) {
		t.Errorf("database holds %v, want %v", got, ids)
	}
	if data, _ := archive.Get(ctx, key); string(data) != "not gzip" {
		t.Errorf("the unreadable object was overwritten")
	}
}

func TestAuditArchivedDaysExpireWithTheTier(t *testing.T) {
	for _, tc := range []struct {
		tier       Retention
		lastKept   time.Time // the oldest day kept; the day before it is deleted
		keepsOlder bool
	}{
		{Extended, Extended.ArchiveCutoff(now), false},
		{Compliance, Compliance.ArchiveCutoff(now), false},
		// Standard never touches the archive: a switch to it deletes nothing archived.
		{Standard, Extended.ArchiveCutoff(now), true},
	} {
		t.Run(string(tc.tier), func(t *testing.T) {
			t.Parallel()
			d := testkit.MustOpenDB(t)
			ctx := context.Background()
			archive := &DirArchive{Root: t.TempDir()}
			expired, kept := Key(tc.lastKept.AddDate(0, 0, -1)), Key(tc.lastKept)
			ancient := Key(now.AddDate(-10, 0, 0))
			for _, k := range []string{expired, kept, ancient, "README.txt"} {
				if err := archive.Put(ctx, k, []byte("x")); err != nil {
					t.Fatal(err)
				}
			}
			res, err := Run(ctx, d, archive, tc.tier, now)
			if err != nil {
				t.Fatal(err)
			}
			want := []string{kept, "README.txt"}
			if tc.keepsOlder {
				want = []string{ancient, expired, kept, "README.txt"}
			}
			slices.Sort(want)
			if got := keys(t, archive); !slices.Equal(got, want) {
				t.Errorf("archive holds %v, want %v", got, want)
			}
			if !tc.keepsOlder && res.ExpiredObjects != 2 {
				t.Errorf("result %+v, want 2 expired days", res)
			}
		})
	}
}

func TestAuditArchivingTiersNeedAnArchive(t *testing.T) {
	d := testkit.MustOpenDB(t)
	ids := mustInsert(t, d, entry{at: daysAgo(100)})
	if _, err := Run(context.Background(), d, nil, Compliance, now); err == nil {
		t.Fatal("compliance without an archive ran")
	}
	if got := dbIDs(t, d); !slices.Equal(got, ids) {
		t.Errorf("database holds %v, want %v", got, ids)
	}
}
