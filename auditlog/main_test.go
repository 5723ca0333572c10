package auditlog

import (
	"context"
	"errors"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/google/uuid"

	"tally/internal/db"
	"tally/testkit"
)

func TestMain(m *testing.M) { os.Exit(testkit.Main(m)) }

// now is the tests' clock: a fixed afternoon, so that windows fall on known days.
var now = time.Date(2026, 11, 22, 15, 4, 5, 0, time.UTC)

// daysAgo is noon UTC n days before now's day.
func daysAgo(n int) time.Time { return day(now).AddDate(0, 0, -n).Add(12 * time.Hour) }

// entry describes an audit row for mustInsert.
type entry struct {
	id       uuid.UUID // zero for a new one
	event    string
	user     *uuid.UUID
	provider string
	at       time.Time
}

// mustInsert writes audit rows as Record would, at their own times, and returns their ids.
func mustInsert(tb testing.TB, d *db.DB, entries ...entry) []uuid.UUID {
	tb.Helper()
	var ids []uuid.UUID
	for _, e := range entries {
		id := e.id
		if id == uuid.Nil {
			id = uuid.New()
		}
		if e.event == "" {
			e.event = "login"
		}
		_, err := d.NewRaw(`INSERT INTO sso_audit_logs (id, event_type, user_id, provider, ip_address, user_agent, metadata, created_at)
			VALUES (?, ?, ?, nullif(?, ''), '192.0.2.7', 'Firefox/140', '{"reason": "test"}', ?)`, id, e.event, e.user, e.provider, e.at).Exec(context.Background())
		if err != nil {
			tb.Fatalf("insert audit entry: %v", err)
		}
		ids = append(ids, id)
	}
	return ids
}

// dbIDs are the ids of the audit rows in the database, sorted.
func dbIDs(tb testing.TB, d *db.DB) []uuid.UUID {
	tb.Helper()
	var ids []uuid.UUID
	if err := d.NewRaw("SELECT id FROM sso_audit_logs ORDER BY id").Scan(context.Background(), &ids); err != nil {
		tb.Fatal(err)
	}
	return ids
}

// objectIDs are the ids an archived day holds, in the object's order.
func objectIDs(tb testing.TB, a Archive, key string) []uuid.UUID {
	tb.Helper()
	data, err := a.Get(context.Background(), key)
	if err != nil {
		tb.Fatalf("get %s: %v", key, err)
	}
	entries, err := decode(data)
	if err != nil {
		tb.Fatalf("decode %s: %v", key, err)
	}
	var ids []uuid.UUID
	for _, e := range entries {
		ids = append(ids, e.ID)
	}
	return ids
}

func sorted(ids []uuid.UUID) []uuid.UUID {
	out := slices.Clone(ids)
	slices.SortFunc(out, func(a, b uuid.UUID) int { return slices.Compare(a[:], b[:]) })
	return out
}

func keys(tb testing.TB, a Archive) []string {
	tb.Helper()
	k, err := a.List(context.Background(), "")
	if err != nil {
		tb.Fatal(err)
	}
	return k
}

// faultyArchive is a DirArchive with faults injected into Put and Get.
type faultyArchive struct {
	*DirArchive
	// put replaces Put; get, when set, replaces what Get returns.
	put func(ctx context.Context, key string, data []byte) error
	get func(data []byte) []byte
}

func (f *faultyArchive) Put(ctx context.Context, key string, data []byte) error {
	if f.put != nil {
		return f.put(ctx, key, data)
	}
	return f.DirArchive.Put(ctx, key, data)
}

func (f *faultyArchive) Get(ctx context.Context, key string) ([]byte, error) {
	data, err := f.DirArchive.Get(ctx, key)
	if err == nil && f.get != nil {
		data = f.get(data)
	}
	return data, err
}

var errCrash = errors.New("the process died here")
