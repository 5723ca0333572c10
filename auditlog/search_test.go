package auditlog

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/google/uuid"

	"tally/internal/apperr"
	"tally/testkit"
)

func TestAuditQueryParse(t *testing.T) {
	for _, tc := range []struct {
		name   string
		q      Query
		fields []string // the fields with problems
	}{
		{"nothing is everything", Query{}, nil},
		{"every filter", Query{EventType: "login", User: " Ada@Example.com ", Provider: "okta", From: "2026-01-01", To: "2026-01-31"}, nil},
		{"one day", Query{From: "2026-01-05", To: "2026-01-05"}, nil},
		{"unknown event", Query{EventType: "drop_table"}, []string{"event_type"}},
		{"dates that are not dates", Query{From: "05/01/2026", To: "2026-02-30"}, []string{"from", "to"}},
		{"a range that ends before it starts", Query{From: "2026-02-01", To: "2026-01-31"}, []string{"to"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, err := tc.q.Parse()
			var got []string
			if e := apperr.As(err); e != nil {
				if e.Code != apperr.Invalid {
					t.Fatalf("error code %s, want invalid", e.Code)
				}
				for field := range e.Fields {
					got = append(got, field)
				}
				slices.Sort(got)
			} else if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, tc.fields) {
				t.Errorf("problems with %v, want %v (%v)", got, tc.fields, err)
			}
			if tc.name == "every filter" && (f.User != "ada@example.com" || !f.From.Equal(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))) {
				t.Errorf("filter %+v", f)
			}
		})
	}
}

func TestAuditSearchFiltersAndPagesTheDatabase(t *testing.T) {
	d := testkit.MustOpenDB(t)
	ctx := context.Background()
	ada := testkit.MustCreateUser(t, d, testkit.UserOpts{Email: "ada@example.com"})
	bob := testkit.MustCreateUser(t, d, testkit.UserOpts{Email: "bob_smith@example.org"})
	ids := mustInsert(t, d,
		entry{event: "login", user: &ada.ID, provider: "okta", at: daysAgo(3)},
		entry{event: "login_failed", provider: "okta", at: daysAgo(2)},
		entry{event: "login", user: &bob.ID, provider: "google", at: daysAgo(1)},
		entry{event: "logout", user: &bob.ID, at: daysAgo(0)},
	)
	for _, tc := range []struct {
		name string
		f    Filter
		want []uuid.UUID // newest first
	}{
		{"everything, newest first", Filter{}, []uuid.UUID{ids[3], ids[2], ids[1], ids[0]}},
		{"event type", Filter{EventType: "login"}, []uuid.UUID{ids[2], ids[0]}},
		{"provider", Filter{Provider: "okta"}, []uuid.UUID{ids[1], ids[0]}},
		{"part of an email", Filter{User: "bob"}, []uuid.UUID{ids[3], ids[2]}},
		{"an underscore is not a wildcard", Filter{User: "b_b"}, nil},
		{"from a day", Filter{From: day(daysAgo(1))}, []uuid.UUID{ids[3], ids[2]}},
		{"to a day, included", Filter{To: day(daysAgo(2))}, []uuid.UUID{ids[1], ids[0]}},
		{"all together", Filter{EventType: "login", Provider: "google", User: "example.org", From: day(daysAgo(5)), To: day(daysAgo(1))}, []uuid.UUID{ids[2]}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.f.PerPage = 10
			p, err := Search(ctx, d, nil, tc.f)
			if err != nil {
				t.Fatal(err)
			}
			var got []uuid.UUID
			for _, e := range p.Entries {
				got = append(got, e.ID)
			}
			if !slices.Equal(got, tc.want) || p.More || p.Archive != nil {
				t.Errorf("found %v (more %v, archive %v), want %v", got, p.More, p.Archive, tc.want)
			}
		})
	}

	p1, _ := Search(ctx, d, nil, Filter{Page: 1, PerPage: 3})
	p2, _ := Search(ctx, d, nil, Filter{Page: 2, PerPage: 3})
	if len(p1.Entries) != 3 || !p1.More || len(p2.Entries) != 1 || p2.More || p2.Entries[0].ID != ids[0] {
		t.Errorf("pages of 3: %d (more %v) then %d (more %v)", len(p1.Entries), p1.More, len(p2.Entries), p2.More)
	}
	if e := p1.Entries[1]; e.UserEmail != "bob_smith@example.org" || e.Provider != "google" {
		t.Errorf("entry %+v lacks its user's email or provider", e)
	}
	if e := p1.Entries[2]; e.UserEmail != "" || e.UserID != nil {
		t.Errorf("an entry without a user has an email: %+v", e)
	}
	providers, err := Providers(ctx, d)
	if err != nil || !slices.Equal(providers, []string{"google", "okta"}) {
		t.Errorf("Providers = %v, %v", providers, err)
	}
}

func TestAuditSearchReadsTheArchivedDaysOfTheRange(t *testing.T) {
	d := testkit.MustOpenDB(t)
	ctx := context.Background()
	ada := testkit.MustCreateUser(t, d, testkit.UserOpts{Email: "ada@example.com"})
	old := mustInsert(t, d,
		entry{event: "login", user: &ada.ID, provider: "okta", at: daysAgo(120)},
		entry{event: "login_failed", provider: "okta", at: daysAgo(120).Add(time.Hour)},
		entry{event: "login", user: &ada.ID, at: daysAgo(200)},
	)
	recent := mustInsert(t, d, entry{event: "login", user: &ada.ID, at: daysAgo(10)})
	archive := &DirArchive{Root: t.TempDir()}
	if _, err := Run(ctx, d, archive, Extended, now); err != nil {
		t.Fatal(err)
	}
	// Entries now archived: the user is deleted since, and their email stays on the entries.
	if _, err := d.NewRaw("DELETE FROM users WHERE id = ?", ada.ID).Exec(ctx); err != nil {
		t.Fatal(err)
	}

	search := func(f Filter) Page {
		t.Helper()
		f.PerPage = 10
		p, err := Search(ctx, d, archive, f)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	ids := func(entries []Entry) []uuid.UUID {
		var out []uuid.UUID
		for _, e := range entries {
			if !e.Archived {
				t.Errorf("archived entry %s is not marked so", e.ID)
			}
			out = append(out, e.ID)
		}
		return out
	}

	if p := search(Filter{}); p.Archive != nil || len(p.Entries) != 1 || p.Entries[0].ID != recent[0] {
		t.Errorf("without From: %+v, want the database only", p)
	}
	p := search(Filter{From: day(daysAgo(365))})
	if p.Archive == nil || len(p.Entries) != 1 {
		t.Fatalf("from a year ago: %+v, want the database entry and the archive searched", p)
	}
	if got := ids(p.Archive.Entries); !slices.Equal(got, []uuid.UUID{old[1], old[0], old[2]}) {
		t.Errorf("archived entries %v, want %v newest first", got, []uuid.UUID{old[1], old[0], old[2]})
	}
	if m := p.Archive; m.Days != 2 || !m.Newest.Equal(day(daysAgo(120))) || !m.Oldest.Equal(day(daysAgo(200))) || m.Truncated || m.Older {
		t.Errorf("archive search %+v, want the 2 archived days", m)
	}
	if got := ids(search(Filter{From: day(daysAgo(365)), User: "ada", EventType: "login"}).Archive.Entries); !slices.Equal(got, []uuid.UUID{old[0], old[2]}) {
		t.Errorf("a deleted user's archived logins: %v", got)
	}
	if got := ids(search(Filter{From: day(daysAgo(130)), To: day(daysAgo(110)), Provider: "okta"}).Archive.Entries); !slices.Equal(got, []uuid.UUID{old[1], old[0]}) {
		t.Errorf("okta between 130 and 110 days ago: %v", got)
	}
	if m := search(Filter{From: day(daysAgo(119)), To: day(daysAgo(100))}).Archive; m == nil || m.Days != 0 || len(m.Entries) != 0 {
		t.Errorf("a range without archived days: %+v", m)
	}

	// An entry both archived and still in the database (a run stopped before its delete) is
	// listed once, from the database.
	mustInsert(t, d, entry{id: old[1], event: "login_failed", provider: "okta", at: daysAgo(120).Add(time.Hour)})
	p = search(Filter{From: day(daysAgo(365))})
	if got := ids(p.Archive.Entries); slices.Contains(got, old[1]) || len(got) != 2 {
		t.Errorf("archived entries %v, want %s left out as the database lists it", got, old[1])
	}

	var each []uuid.UUID
	if err := Each(ctx, d, archive, Filter{From: day(daysAgo(365))}, func(e Entry) error {
		each = append(each, e.ID)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if want := []uuid.UUID{recent[0], old[1], old[0], old[2]}; !slices.Equal(each, want) {
		t.Errorf("Each passed %v, want %v", each, want)
	}
}

func TestAuditSearchBoundsWhatItReadsFromTheArchive(t *testing.T) {
	d := testkit.MustOpenDB(t)
	ctx := context.Background()
	archive := &DirArchive{Root: t.TempDir()}
	put := func(at time.Time, n int) {
		t.Helper()
		var entries []Entry
		for i := range n {
			entries = append(entries, Entry{ID: uuid.New(), EventType: "login", Metadata: []byte("{}"), CreatedAt: at.Add(time.Duration(i) * time.Second)})
		}
		data, err := encode(entries)
		if err != nil {
			t.Fatal(err)
		}
		if err := archive.Put(ctx, Key(at), data); err != nil {
			t.Fatal(err)
		}
	}
	for i := range ArchiveDays + 8 {
		put(daysAgo(100+i), 1)
	}
	p, err := Search(ctx, d, archive, Filter{From: day(daysAgo(400)), PerPage: 10})
	if err != nil {
		t.Fatal(err)
	}
	m := p.Archive
	if m.Days != ArchiveDays || len(m.Entries) != ArchiveDays || !m.Older || m.Truncated || !m.Newest.Equal(day(daysAgo(100))) {
		t.Errorf("over %d days: read %d, found %d, older %v, truncated %v", ArchiveDays+8, m.Days, len(m.Entries), m.Older, m.Truncated)
	}

	put(daysAgo(95), ArchiveLimit+1)
	m = must(Search(ctx, d, archive, Filter{From: day(daysAgo(400)), PerPage: 10})).Archive
	if len(m.Entries) != ArchiveLimit || !m.Truncated || m.Days != 1 {
		t.Errorf("a day of %d entries: %d shown, truncated %v, %d days", ArchiveLimit+1, len(m.Entries), m.Truncated, m.Days)
	}

	if err := archive.Put(ctx, Key(daysAgo(96)), []byte("garbage")); err != nil {
		t.Fatal(err)
	}
	m = must(Search(ctx, d, archive, Filter{From: day(daysAgo(96)), To: day(daysAgo(96)), PerPage: 10})).Archive
	if !slices.Equal(m.Unreadable, []string{Key(daysAgo(96))}) {
		t.Errorf("unreadable days %v, want the garbage one", m.Unreadable)
	}
	if err := Each(ctx, d, archive, Filter{From: day(daysAgo(96)), To: day(daysAgo(96))}, func(Entry) error { return nil }); err == nil {
		t.Error("Each over an unreadable day reported nothing")
	}
}

func must(p Page, err error) Page {
	if err != nil {
		panic(err)
	}
	return p
}
