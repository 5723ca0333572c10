package banksync

import (
	"context"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"tally/internal/apperr"
	"tally/internal/db"
	"tally/models"
)

// View is a connection as its pages show it: never with its access URL or session id.
type View struct {
	Connection
	Accounts []BankAccount
	// NextSyncAt is when the daily sync comes next, in Location.
	NextSyncAt time.Time
	// Location is the family's time zone, in which SyncMinute is a time of day.
	Location *time.Location
}

func notFound() error { return apperr.New(apperr.NotFound, "Bank connection not found") }

// List returns the family's connections with their accounts.
func (s *Service) List(ctx context.Context, familyID uuid.UUID) ([]View, error) {
	var conns []Connection
	if err := s.DB.NewSelect().Model(&conns).ExcludeColumn("access_url", "session_id").Where("family_id = ?", familyID).Order("created_at").Scan(ctx); err != nil {
		return nil, err
	}
	loc, err := s.location(ctx, familyID)
	if err != nil {
		return nil, err
	}
	out := make([]View, len(conns))
	for i, c := range conns {
		v, err := s.view(ctx, c, loc)
		if err != nil {
			return nil, err
		}
		out[i] = v
	}
	return out, nil
}

// Get returns the family's connection; another family's is not found.
func (s *Service) Get(ctx context.Context, familyID, id uuid.UUID) (*View, error) {
	var c Connection
	err := s.DB.NewSelect().Model(&c).ExcludeColumn("access_url", "session_id").Where("id = ? AND family_id = ?", id, familyID).Scan(ctx)
	if db.IsNoRows(err) {
		return nil, notFound()
	}
	if err != nil {
		return nil, err
	}
	loc, err := s.location(ctx, familyID)
	if err != nil {
		return nil, err
	}
	v, err := s.view(ctx, c, loc)
	return &v, err
}

// location is the family's time zone.
func (s *Service) location(ctx context.Context, familyID uuid.UUID) (*time.Location, error) {
	f, err := models.FamilyByID(ctx, s.DB, familyID)
	if err != nil {
		return nil, err
	}
	return f.Location(), nil
}

func (s *Service) view(ctx context.Context, c Connection, loc *time.Location) (View, error) {
	v := View{Connection: c, Location: loc, NextSyncAt: NextSyncAt(c, loc, s.now())}
	err := s.DB.NewSelect().Model(&v.Accounts).Where("connection_id = ?", c.ID).Order("name").Scan(ctx)
	return v, err
}

// NextSyncAt is when the connection's daily sync comes next after now: at its time of day in
// loc, the family's time zone, unless it was tried since that time today, and not before a
// pause the provider asked for ends. It agrees with Due: a time of day that a spring-forward
// day skips comes at the instant the clocks jump past it, and one that a fall-back day
// repeats at its first occurrence.
func NextSyncAt(c Connection, loc *time.Location, now time.Time) time.Time {
	y, m, d := now.In(loc).Date()
	next := dailyAt(y, m, d, c.SyncMinute, loc)
	if !next.After(now) || (c.LastAttemptAt != nil && !c.LastAttemptAt.Before(next)) {
		next = dailyAt(y, m, d+1, c.SyncMinute, loc)
	}
	if c.PausedUntil != nil && c.PausedUntil.After(next) {
		next = *c.PausedUntil
	}
	return next
}

// dailyAt is the first instant of the day y-m-d in loc at which the clocks show minute
// minutes after midnight, or later.
func dailyAt(y int, m time.Month, d, minute int, loc *time.Location) time.Time {
	t := time.Date(y, m, d, 0, minute, 0, 0, loc)
	start, _ := t.ZoneBounds()
	if h, mm, _ := t.Clock(); h*60+mm != minute {
		// A time the clocks skip: Go reads it with the offset from before the jump, which
		// lands past the jump. The jump itself is the first instant after it.
		return start
	}
	if !start.IsZero() {
		// A time the clocks repeat: Go may pick the second one. The first is as far before
		// it as the clocks went back.
		_, before := start.Add(-time.Nanosecond).Zone()
		_, after := t.Zone()
		if first := t.Add(time.Duration(after-before) * time.Second); first.Before(start) && sameClock(first, t) {
			return first
		}
	}
	return t
}

func sameClock(a, b time.Time) bool {
	ah, am, as := a.Clock()
	bh, bm, bs := b.Clock()
	return ah == bh && am == bm && as == bs && a.Day() == b.Day()
}

// Due returns the connections whose daily sync is due now: their family's clocks have
// reached their time of day today, they were not tried since, they have a working token and
// the provider asked for no pause that lasts. The times are compared as the family's clocks
// show them, so that, as in NextSyncAt, a time a spring-forward day skips comes due when the
// clocks jump past it, and one a fall-back day repeats at its first occurrence.
func (s *Service) Due(ctx context.Context) ([]uuid.UUID, error) {
	now := s.now()
	var due []uuid.UUID
	err := s.DB.NewRaw(`
		SELECT c.id FROM bank_connections c JOIN families f ON f.id = c.family_id,
			LATERAL (SELECT ?::timestamptz AT TIME ZONE f.timezone AS now) l,
			LATERAL (SELECT date_trunc('day', l.now) + c.sync_minute * interval '1 minute' AS at) s
		WHERE c.status IN ('good', 'failing') AND (c.paused_until IS NULL OR c.paused_until <= ?)
			AND l.now >= s.at AND (c.last_attempt_at IS NULL OR c.last_attempt_at AT TIME ZONE f.timezone < s.at)
		ORDER BY c.created_at`, now, now).Scan(ctx, &due)
	return due, err
}

// Settings are what a family may change about a connection.
type Settings struct {
	SyncMinute     int
	IncludePending bool
	HistoryDays    int
}

// ParseSyncTime reads a daily sync time given as HH:MM (in the family's time zone) as minutes
// after midnight; it is -1 when the text is not a time of day, which UpdateSettings refuses.
func ParseSyncTime(hhmm string) int {
	h, m, ok := strings.Cut(hhmm, ":")
	if !ok {
		return -1
	}
	hh, err1 := strconv.Atoi(h)
	mm, err2 := strconv.Atoi(m)
	if err1 != nil || err2 != nil || hh < 0 || hh >= 24 || mm < 0 || mm >= 60 {
		return -1
	}
	return hh*60 + mm
}

// UpdateSettings changes the connection's daily time, pending choice and history depth.
func (s *Service) UpdateSettings(ctx context.Context, familyID, id uuid.UUID, set Settings) error {
	var v apperr.Validation
	if set.SyncMinute < 0 || set.SyncMinute > 1439 {
		v.Add("sync_time", "The sync time must be a time of day, such as 06:30")
	}
	if set.HistoryDays < 1 || set.HistoryDays > 730 {
		v.Add("history_days", "History must be between 1 and 730 days")
	}
	if err := v.Err(); err != nil {
		return err
	}
	res, err := s.DB.NewRaw(`UPDATE bank_connections SET sync_minute = ?, include_pending = ?, history_days = ?, updated_at = now()
		WHERE id = ? AND family_id = ?`, set.SyncMinute, set.IncludePending, set.HistoryDays, id, familyID).Exec(ctx)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return notFound()
	}
	return nil
}

// Reconnect claims a new setup token for a connection the provider stopped accepting, and
// keeps its linked accounts: the access URL is replaced in place.
func (s *Service) Reconnect(ctx context.Context, familyID, id uuid.UUID, token string) error {
	if v, err := s.Get(ctx, familyID, id); err != nil {
		return err
	} else if v.Provider != ProviderSimpleFIN {
		return apperr.New(apperr.Invalid, "A European bank's connection is renewed at the bank, not with a setup token.")
	}
	access, err := s.claim(ctx, token)
	if err != nil {
		return err
	}
	enc, err := s.Keys.Encrypt(access, accessURLColumn.Context())
	if err != nil {
		return err
	}
	_, err = s.DB.NewRaw(`UPDATE bank_connections SET access_url = ?, protocol = ?, status = ?, last_error = NULL, paused_until = NULL,
		updated_at = now() WHERE id = ? AND family_id = ?`, enc, protocolOf(ctx, s.Client, access), StatusGood, id, familyID).Exec(ctx)
	return err
}

// Delete removes the connection. Its linked accounts stay, as manual accounts with all their
// entries: their balance is the family's to keep from now on. An Enable Banking session is
// closed at the provider.
func (s *Service) Delete(ctx context.Context, familyID, id uuid.UUID) error {
	var session string
	err := s.DB.InTx(ctx, func(ctx context.Context, tx db.Tx) error {
		// The connection's lock first, as a sync's writes take it: a sync running now finishes
		// before the accounts are let go, rather than the two deadlocking on their rows.
		var locked []struct {
			ID        uuid.UUID `bun:"id"`
			SessionID *string   `bun:"session_id"`
		}
		if err := tx.NewRaw("SELECT id, session_id FROM bank_connections WHERE id = ? AND family_id = ? FOR UPDATE", id, familyID).Scan(ctx, &locked); err != nil && !db.IsNoRows(err) {
			return err
		}
		if len(locked) == 0 {
			return notFound()
		}
		if locked[0].SessionID != nil {
			session = *locked[0].SessionID
		}
		return detach(ctx, tx, id)
	})
	if err != nil {
		return err
	}
	s.deleteSession(context.WithoutCancel(ctx), session)
	return nil
}

// detach deletes the connection id, locked by the caller's tx, and lets its accounts go: they
// and their history stay the family's, no longer synced.
func detach(ctx context.Context, tx db.Tx, id uuid.UUID) error {
	if _, err := tx.NewRaw(`UPDATE accounts a SET source = NULL, external_id = NULL, updated_at = now()
		FROM bank_accounts b WHERE b.account_id = a.id AND b.connection_id = ?`, id).Exec(ctx); err != nil {
		return err
	}
	_, err := tx.NewRaw("DELETE FROM bank_connections WHERE id = ?", id).Exec(ctx)
	return err
}

// Departure is what a member's leaving the family did to the bank connections they made.
type Departure struct {
	s        *Service
	sessions []string
	// Disconnected counts the connections let go.
	Disconnected int
}

// Leave disconnects, in tx, each bank connection that userID made in familyID, as Delete does
// one: the consent at the bank was the member's, and they take it with them when they leave
// (they are removed, their user is deleted, or they join another family). The accounts and
// their history stay the family's, no longer synced; an admin can connect them again with a
// consent of their own. Call End once tx has committed. A nil Service disconnects nothing.
func (s *Service) Leave(ctx context.Context, tx db.Tx, familyID, userID uuid.UUID) (*Departure, error) {
	d := &Departure{s: s}
	if s == nil {
		return d, nil
	}
	var locked []struct {
		ID        uuid.UUID `bun:"id"`
		SessionID *string   `bun:"session_id"`
	}
	if err := tx.NewRaw("SELECT id, session_id FROM bank_connections WHERE family_id = ? AND user_id = ? ORDER BY id FOR UPDATE",
		familyID, userID).Scan(ctx, &locked); err != nil && !db.IsNoRows(err) {
		return nil, err
	}
	for _, c := range locked {
		if err := detach(ctx, tx, c.ID); err != nil {
			return nil, err
		}
		if c.SessionID != nil {
			d.sessions = append(d.sessions, *c.SessionID)
		}
	}
	d.Disconnected = len(locked)
	return d, nil
}

// End closes at the banks the sessions of the connections Leave let go; a failure is logged,
// and the bank ends the session when its consent runs out.
func (d *Departure) End(ctx context.Context) {
	for _, session := range d.sessions {
		d.s.deleteSession(context.WithoutCancel(ctx), session)
	}
}

// troubleAfter is how long a connection's syncs may fail before the family is told outside
// Settings: a failure the next sync repairs is no news.
const troubleAfter = 24 * time.Hour

// Troubles returns the family's connections that need someone: one that needs a renewal or a
// new setup token, or whose syncs have failed for a day; with accountID, only those linked to
// that account. Their credentials are not read. Another member's own connection is theirs to
// hear of, not userID's (Connection.Theirs).
func (s *Service) Troubles(ctx context.Context, familyID, userID uuid.UUID, accountID *uuid.UUID) ([]Connection, error) {
	out := []Connection{}
	q := s.DB.NewSelect().Model(&out).ExcludeColumn("access_url", "session_id").Where("bc.family_id = ?", familyID).
		Where("bc.user_id IS NULL OR bc.user_id = ?", userID).
		WhereGroup(" AND ", func(q *bun.SelectQuery) *bun.SelectQuery {
			return q.Where("bc.status IN (?)", bun.In([]string{StatusNeedsRenewal, StatusNeedsToken})).
				WhereOr("bc.status = ? AND coalesce(bc.last_synced_at, bc.created_at) <= ?", StatusFailing, s.now().Add(-troubleAfter))
		}).Order("bc.created_at")
	if accountID != nil {
		q = q.Where("EXISTS (SELECT 1 FROM bank_accounts ba WHERE ba.connection_id = bc.id AND ba.account_id = ?)", *accountID)
	}
	return out, q.Scan(ctx)
}
