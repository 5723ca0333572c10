package banksync_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"tally/banksync"
)

func mustZone(t *testing.T, name string) *time.Location {
	t.Helper()
	loc, err := time.LoadLocation(name)
	if err != nil {
		t.Fatal(err)
	}
	return loc
}

func utc(s string) time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return t
}

// The daily time is the family's: in Europe/Berlin it moves against UTC as the clocks change
// in 2026 (on 29 March 02:00 CET becomes 03:00 CEST; on 25 October 03:00 CEST becomes
// 02:00 CET).
func TestNextSyncAtInTheFamilysTimeZone(t *testing.T) {
	berlin := mustZone(t, "Europe/Berlin")
	at := func(s string) *time.Time { v := utc(s); return &v }
	for _, tc := range []struct {
		name   string
		loc    *time.Location
		minute int
		last   *time.Time
		now    string
		want   string // UTC
	}{
		{"06:00 in winter is 05:00 UTC", berlin, 6 * 60, nil, "2026-01-10T04:00:00Z", "2026-01-10T05:00:00Z"},
		{"06:00 in summer is 04:00 UTC", berlin, 6 * 60, nil, "2026-07-10T03:59:00Z", "2026-07-10T04:00:00Z"},
		{"past today's time: tomorrow, across the spring change", berlin, 6 * 60, nil, "2026-03-28T12:00:00Z", "2026-03-29T04:00:00Z"},
		{"past today's time: tomorrow, across the autumn change", berlin, 6 * 60, nil, "2026-10-24T12:00:00Z", "2026-10-25T05:00:00Z"},
		{"tried since today's time: tomorrow", berlin, 6 * 60, at("2026-01-10T05:00:00Z"), "2026-01-10T04:59:00Z", "2026-01-11T05:00:00Z"},
		{"02:30 does not exist on the spring day: when the clocks jump", berlin, 2*60 + 30, nil, "2026-03-29T00:00:00Z", "2026-03-29T01:00:00Z"},
		{"the day after, 02:30 again", berlin, 2*60 + 30, at("2026-03-29T01:00:00Z"), "2026-03-29T01:05:00Z", "2026-03-30T00:30:00Z"},
		{"02:30 happens twice on the autumn day: the first", berlin, 2*60 + 30, nil, "2026-10-25T00:00:00Z", "2026-10-25T00:30:00Z"},
		{"tried at the first 02:30: not again at the second", berlin, 2*60 + 30, at("2026-10-25T00:30:00Z"), "2026-10-25T01:15:00Z", "2026-10-26T01:30:00Z"},
		{"the time just after the jump is itself", berlin, 3 * 60, nil, "2026-03-29T00:00:00Z", "2026-03-29T01:00:00Z"},
		{"a UTC family keeps its UTC minutes", time.UTC, 6 * 60, nil, "2026-03-29T00:00:00Z", "2026-03-29T06:00:00Z"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := banksync.Connection{SyncMinute: tc.minute, LastAttemptAt: tc.last}
			got := banksync.NextSyncAt(c, tc.loc, utc(tc.now))
			if !got.Equal(utc(tc.want)) {
				t.Fatalf("next sync %s (%s), want %s", got.UTC().Format(time.RFC3339), got.In(tc.loc).Format("15:04 MST"), tc.want)
			}
		})
	}
}

// The schedule's query picks a connection when its family's clocks have reached its daily
// time today and it was not tried since: the same moments as NextSyncAt.
func TestDueInTheFamilysTimeZone(t *testing.T) {
	e := newEnv(t)
	c := e.connect()
	ctx := context.Background()
	for _, tc := range []struct {
		name   string
		zone   string
		minute int
		last   string // UTC, "" for never
		now    string
		due    bool
	}{
		{"06:00 in Berlin has come at 05:30 UTC", "Europe/Berlin", 6 * 60, "2026-11-19T05:00:00Z", "2026-11-20T05:30:00Z", true},
		{"06:00 in Berlin has not come at 04:30 UTC", "Europe/Berlin", 6 * 60, "2026-11-19T05:00:00Z", "2026-11-20T04:30:00Z", false},
		{"tried since 06:00 in Berlin", "Europe/Berlin", 6 * 60, "2026-11-20T05:10:00Z", "2026-11-20T05:30:00Z", false},
		{"never tried", "Europe/Berlin", 6 * 60, "", "2026-11-20T05:30:00Z", true},
		{"00:30 in Berlin is today there while UTC is still yesterday", "Europe/Berlin", 30, "2026-11-19T00:00:00Z", "2026-11-19T23:45:00Z", true},
		{"23:30 in Berlin has come at 22:45 UTC", "Europe/Berlin", 23*60 + 30, "2026-11-19T22:30:00Z", "2026-11-20T22:45:00Z", true},
		{"06:00 in New York has not come at 10:30 UTC", "America/New_York", 6 * 60, "2026-11-19T11:00:00Z", "2026-11-20T10:30:00Z", false},
		{"06:00 in New York has come at 11:05 UTC", "America/New_York", 6 * 60, "2026-11-19T11:00:00Z", "2026-11-20T11:05:00Z", true},
		{"a UTC family at its UTC minute", "UTC", 6 * 60, "2026-11-19T06:00:00Z", "2026-11-20T06:00:00Z", true},
		{"a UTC family before it", "UTC", 6 * 60, "2026-11-19T06:00:00Z", "2026-11-20T05:59:00Z", false},
		{"02:30 skipped by the spring change: not before the jump", "Europe/Berlin", 2*60 + 30, "2026-03-28T01:30:00Z", "2026-03-29T00:59:00Z", false},
		{"02:30 skipped by the spring change: due when the clocks jump", "Europe/Berlin", 2*60 + 30, "2026-03-28T01:30:00Z", "2026-03-29T01:00:00Z", true},
		{"synced at the jump: not again at 02:30 read the old way", "Europe/Berlin", 2*60 + 30, "2026-03-29T01:00:00Z", "2026-03-29T01:35:00Z", false},
		{"02:30 repeated by the autumn change: due at the first", "Europe/Berlin", 2*60 + 30, "2026-10-24T00:30:00Z", "2026-10-25T00:30:00Z", true},
		{"synced at the first 02:30: not again at the second", "Europe/Berlin", 2*60 + 30, "2026-10-25T00:30:00Z", "2026-10-25T01:30:00Z", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var last *time.Time
			if tc.last != "" {
				v := utc(tc.last)
				last = &v
			}
			if _, err := e.db.NewRaw("UPDATE families SET timezone = ? WHERE id = ?", tc.zone, e.family).Exec(ctx); err != nil {
				t.Fatal(err)
			}
			if _, err := e.db.NewRaw("UPDATE bank_connections SET sync_minute = ?, last_attempt_at = ? WHERE id = ?", tc.minute, last, c.ID).Exec(ctx); err != nil {
				t.Fatal(err)
			}
			now := utc(tc.now)
			e.svc.Now = func() time.Time { return now }
			due, err := e.svc.Due(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if got := slices.Contains(due, c.ID); got != tc.due {
				t.Fatalf("due %v, want %v", got, tc.due)
			}
			// NextSyncAt agrees: seen from the last attempt (or a day ago), the next sync
			// is at or before now exactly when the query finds it due.
			from := now.Add(-24 * time.Hour)
			if last != nil {
				from = *last
			}
			next := banksync.NextSyncAt(banksync.Connection{SyncMinute: tc.minute, LastAttemptAt: last}, mustZone(t, tc.zone), from)
			if tc.due != !next.After(now) {
				t.Errorf("NextSyncAt says %s, which disagrees with due %v", next.UTC().Format(time.RFC3339), tc.due)
			}
		})
	}

	// A connection waiting for a new token, or paused by its provider, is not due.
	e.svc.Now = func() time.Time { return utc("2026-11-20T06:00:00Z") }
	if _, err := e.db.NewRaw("UPDATE bank_connections SET last_attempt_at = NULL, paused_until = ? WHERE id = ?", utc("2026-11-20T07:00:00Z"), c.ID).Exec(ctx); err != nil {
		t.Fatal(err)
	}
	if due, err := e.svc.Due(ctx); err != nil || len(due) != 0 {
		t.Fatalf("a paused connection: %v %v", due, err)
	}
	if _, err := e.db.NewRaw("UPDATE bank_connections SET paused_until = NULL, status = ? WHERE id = ?", banksync.StatusNeedsToken, c.ID).Exec(ctx); err != nil {
		t.Fatal(err)
	}
	if due, err := e.svc.Due(ctx); err != nil || len(due) != 0 {
		t.Fatalf("a connection that needs a token: %v %v", due, err)
	}
}
