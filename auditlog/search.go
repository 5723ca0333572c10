package auditlog

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"

	"tally/internal/apperr"
	"tally/internal/dates"
	"tally/internal/db"
)

// EventTypes are the audit events, in the order the filter offers them.
var EventTypes = []string{
	EventLogin, EventLoginFailed, EventLogout, EventLogoutIdP, EventLink, EventUnlink,
	EventJITAccountCreated, EventOverrideLogin, EventRoleChanged, EventProviderChanged,
	EventUserSuspended, EventUserReactivated, EventUserDeleted,
	EventOAuthGrant, EventOAuthGrantDenied, EventOAuthTokenReuse, EventOAuthRevoke, EventOAuthClientChanged,
	EventOAuthFailed,
	EventMFAEnabled, EventMFADisabled, EventMFAFailed, EventMFARecoveryUsed, EventMFARecoveryRenewed,
	EventWebhookChanged, EventBankConsent,
	EventInvitationCreated, EventInvitationAccepted, EventInvitationRevoked, EventInvitationExpired, EventMemberRemoved,
}

// DateLayout is how the filter's dates are written: 2026-01-05.
const DateLayout = "2006-01-02"

// The archive is searched in bounded steps, so that a page never reads years of objects.
const (
	// ArchiveLimit is the most archived entries a page shows.
	ArchiveLimit = 200
	// ArchiveDays is the most archived days a page reads.
	ArchiveDays = 92
)

// Query is the filter as typed in the page's form (and kept in its URL).
type Query struct {
	EventType, User, Provider string
	// From and To are dates as YYYY-MM-DD, or "".
	From, To string
}

// Filter chooses audit entries; a zero field matches everything.
type Filter struct {
	EventType string
	Provider  string
	// User matches the entries of users whose email contains it, in any case.
	User string
	// From and To are UTC days, both included; a zero one leaves its end open. The archive is
	// searched only when From is set: an open range would read every archived day.
	From, To time.Time
	// Page (from 1) and PerPage choose the database entries Search returns.
	Page, PerPage int
}

// Parse checks q and returns its Filter, or an Invalid error naming every problem under its
// field (event_type, from, to).
func (q Query) Parse() (Filter, error) {
	var v apperr.Validation
	f := Filter{
		EventType: strings.TrimSpace(q.EventType),
		Provider:  strings.TrimSpace(q.Provider),
		User:      strings.ToLower(strings.TrimSpace(q.User)),
	}
	if f.EventType != "" && !slices.Contains(EventTypes, f.EventType) {
		v.Add("event_type", "Choose an event type from the list.")
	}
	var err error
	if s := strings.TrimSpace(q.From); s != "" {
		f.From, err = dates.Day("from", s)
		v.Merge(err)
	}
	if s := strings.TrimSpace(q.To); s != "" {
		f.To, err = dates.Day("to", s)
		v.Merge(err)
	}
	if !f.From.IsZero() && !f.To.IsZero() && f.To.Before(f.From) {
		v.Add("to", "Pick a day on or after From ("+f.From.Format(DateLayout)+").")
	}
	return f, v.Err()
}

// match reports whether an archived entry passes f (its dates included).
func (f Filter) match(e Entry) bool {
	return (f.EventType == "" || e.EventType == f.EventType) &&
		(f.Provider == "" || e.Provider == f.Provider) &&
		(f.User == "" || strings.Contains(strings.ToLower(e.UserEmail), f.User)) &&
		(f.From.IsZero() || !e.CreatedAt.Before(f.From)) &&
		(f.To.IsZero() || e.CreatedAt.Before(f.To.AddDate(0, 0, 1)))
}

// query selects the database entries f matches, newest first.
func (f Filter) query(d bun.IDB) *bun.SelectQuery {
	q := d.NewSelect().ColumnExpr(entryColumns).TableExpr("sso_audit_logs AS l").
		Join("LEFT JOIN users AS u ON u.id = l.user_id").
		OrderExpr("l.created_at DESC, l.id DESC")
	if f.EventType != "" {
		q = q.Where("l.event_type = ?", f.EventType)
	}
	if f.Provider != "" {
		q = q.Where("l.provider = ?", f.Provider)
	}
	if f.User != "" {
		// Emails are stored in lower case; the pattern's own wildcards are escaped.
		q = q.Where(`u.email LIKE ?`, "%"+likeEscaper.Replace(f.User)+"%")
	}
	if !f.From.IsZero() {
		q = q.Where("l.created_at >= ?", f.From)
	}
	if !f.To.IsZero() {
		q = q.Where("l.created_at < ?", f.To.AddDate(0, 0, 1))
	}
	return q
}

var likeEscaper = strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`)

// Page is what Search found.
type Page struct {
	// Entries are the database's matching entries on the page asked for, newest first.
	Entries []Entry
	// More says that a later page has more of the database's entries.
	More bool
	// Archive is what the archive holds for the filter, or nil when it was not searched:
	// no archive, no From date, or a later page of database entries comes first.
	Archive *ArchiveMatches
}

// ArchiveMatches are the archived entries a filter matches. Archived days are older than
// every day in the database, so they follow the database's last page, in a section of their
// own, bounded by ArchiveDays and ArchiveLimit; Each (the CSV) has no bound.
type ArchiveMatches struct {
	// Entries are newest first.
	Entries []Entry
	// Newest and Oldest are the archived days read; Days how many.
	Newest, Oldest time.Time
	Days           int
	// Truncated says that the search stopped at ArchiveLimit entries; Older, that the range
	// has archived days before Oldest that were not read (ArchiveDays).
	Truncated, Older bool
	// Unreadable are objects of the range that could not be read.
	Unreadable []string
}

// Search returns a page of the database's entries that f matches and, on the last page when
// f has a From date and archive is not nil, the matching archived entries.
func Search(ctx context.Context, d *db.DB, archive Archive, f Filter) (Page, error) {
	var p Page
	per := max(f.PerPage, 1)
	if err := f.query(d).Limit(int64(per+1)).Offset(int64((max(f.Page, 1)-1)*per)).Scan(ctx, &p.Entries); err != nil {
		return p, fmt.Errorf("search audit log: %w", err)
	}
	if len(p.Entries) > per {
		p.Entries, p.More = p.Entries[:per], true
	}
	if p.More || archive == nil || f.From.IsZero() {
		return p, nil
	}
	keys, err := archivedDays(ctx, archive, f)
	if err != nil {
		return p, err
	}
	m := &ArchiveMatches{}
	if len(keys) > ArchiveDays {
		keys, m.Older = keys[:ArchiveDays], true
	}
	for i, key := range keys {
		entries, err := readDay(ctx, d, archive, key, f)
		if err != nil {
			m.Unreadable = append(m.Unreadable, key)
			continue
		}
		kd, _ := keyDay(key)
		if m.Newest.IsZero() {
			m.Newest = kd
		}
		m.Oldest, m.Days = kd, m.Days+1
		room := ArchiveLimit - len(m.Entries)
		if len(entries) > room || (len(entries) == room && i < len(keys)-1) {
			m.Entries, m.Truncated = append(m.Entries, entries[:room]...), true
			m.Older = false // the cap on entries, not on days, is what stopped the search
			break
		}
		m.Entries = append(m.Entries, entries...)
	}
	p.Archive = m
	return p, nil
}

// Each calls fn with every entry f matches, newest first, ignoring paging: the database's,
// then, when f has a From date and archive is not nil, the archive's, without Search's
// bounds. Archived days that cannot be read are skipped and reported in the error, after
// everything else was passed to fn.
func Each(ctx context.Context, d *db.DB, archive Archive, f Filter, fn func(Entry) error) error {
	rows, err := f.query(d).Rows(ctx)
	if err != nil {
		return fmt.Errorf("read audit log: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var e Entry
		if err := d.ScanRow(ctx, rows, &e); err != nil {
			return fmt.Errorf("read audit log: %w", err)
		}
		if err := fn(e); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("read audit log: %w", err)
	}
	rows.Close()
	if archive == nil || f.From.IsZero() {
		return nil
	}
	keys, err := archivedDays(ctx, archive, f)
	if err != nil {
		return err
	}
	var errs []error
	for _, key := range keys {
		entries, err := readDay(ctx, d, archive, key, f)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		for _, e := range entries {
			if err := fn(e); err != nil {
				return err
			}
		}
	}
	return errors.Join(errs...)
}

// archivedDays are the keys of the archived days f's range covers, newest first.
func archivedDays(ctx context.Context, archive Archive, f Filter) ([]string, error) {
	all, err := archive.List(ctx, "")
	if err != nil {
		return nil, err
	}
	var keys []string
	for _, key := range all {
		d, ok := keyDay(key)
		if ok && !d.Before(f.From) && (f.To.IsZero() || !d.After(f.To)) {
			keys = append(keys, key)
		}
	}
	slices.Reverse(keys)
	return keys, nil
}

// readDay returns the entries of an archived day that f matches, newest first, less those
// still in the database (a run that stopped between writing the day and deleting its
// entries leaves both copies; the database's is the one listed).
func readDay(ctx context.Context, d *db.DB, archive Archive, key string, f Filter) ([]Entry, error) {
	data, err := archive.Get(ctx, key)
	if err != nil {
		return nil, fmt.Errorf("read archived day %s: %w", key, err)
	}
	entries, err := decode(data)
	if err != nil {
		return nil, fmt.Errorf("read archived day %s: %w", key, err)
	}
	var out []Entry
	var ids []uuid.UUID
	for _, e := range entries {
		if f.match(e) {
			out = append(out, e)
			ids = append(ids, e.ID)
		}
	}
	if len(ids) > 0 {
		var live []uuid.UUID
		if err := d.NewRaw(`SELECT id FROM sso_audit_logs WHERE id = ANY(?::uuid[])`, pgdialect.Array(ids)).Scan(ctx, &live); err != nil {
			return nil, fmt.Errorf("read archived day %s: %w", key, err)
		}
		out = slices.DeleteFunc(out, func(e Entry) bool { return slices.Contains(live, e.ID) })
	}
	slices.SortFunc(out, func(a, b Entry) int {
		if c := b.CreatedAt.Compare(a.CreatedAt); c != 0 {
			return c
		}
		return bytes.Compare(b.ID[:], a.ID[:])
	})
	return out, nil
}

// Providers are the providers named by the database's entries, sorted: the filter's choices.
func Providers(ctx context.Context, d bun.IDB) ([]string, error) {
	var names []string
	if err := d.NewRaw(`SELECT DISTINCT provider FROM sso_audit_logs WHERE provider IS NOT NULL ORDER BY provider`).Scan(ctx, &names); err != nil {
		return nil, fmt.Errorf("list audit providers: %w", err)
	}
	return names, nil
}
