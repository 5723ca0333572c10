package auditlog

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun/dialect/pgdialect"

	"tally/internal/db"
)

// Result counts what a Run did.
type Result struct {
	// ArchivedDays and ArchivedEntries are the days written to the archive and the database
	// entries moved there.
	ArchivedDays, ArchivedEntries int
	// DeletedEntries are database entries deleted without being archived: past the database
	// window in Standard, past the whole tier's window in the others.
	DeletedEntries int
	// ExpiredObjects are archived days deleted because they are past the tier's window.
	ExpiredObjects int
}

// deleteBatch bounds one DELETE, so that a first run over years of entries is many short
// statements rather than one long lock.
const deleteBatch = 5000

// Run applies tier at now (see the package comment for the windows):
//
//  1. database entries older than ArchiveCutoff are deleted; in Standard that is every
//     entry past the database window, and nothing is archived;
//  2. in Extended and Compliance, each UTC day between ArchiveCutoff and DatabaseCutoff that
//     still has entries in the database is moved to the archive, oldest day first, one
//     transaction per day: its entries are locked, merged with the day's object if one exists
//     (a run that stopped between writing and deleting left it), written, read back and
//     checked (entry count and a checksum of the ids), and only then deleted. A failed day
//     keeps its entries and stops the archiving; the next run takes it up again;
//  3. archived days before ArchiveCutoff are deleted. Standard does not touch the archive, so
//     a switch to it from another tier never deletes what was archived.
func Run(ctx context.Context, d *db.DB, archive Archive, tier Retention, now time.Time) (Result, error) {
	var res Result
	if tier.Archives() && archive == nil {
		return res, fmt.Errorf("audit retention %s needs an archive", tier)
	}
	keepFrom, dbFrom := tier.ArchiveCutoff(now), tier.DatabaseCutoff(now)
	n, err := deleteBefore(ctx, d, keepFrom)
	res.DeletedEntries = n
	if err != nil || !tier.Archives() {
		return res, err
	}
	var errs []error
	days, err := daysWithEntries(ctx, d, keepFrom, dbFrom)
	if err != nil {
		errs = append(errs, err)
	}
	for _, day := range days {
		n, err := archiveDay(ctx, d, archive, day)
		if err != nil {
			errs = append(errs, fmt.Errorf("archive audit entries of %s: %w", day.Format(DateLayout), err))
			break
		}
		res.ArchivedDays++
		res.ArchivedEntries += n
	}
	res.ExpiredObjects, err = expire(ctx, archive, keepFrom)
	return res, errors.Join(append(errs, err)...)
}

// deleteBefore deletes the database entries created before t, in batches.
func deleteBefore(ctx context.Context, d *db.DB, t time.Time) (int, error) {
	total := 0
	for {
		r, err := d.NewRaw(`DELETE FROM sso_audit_logs WHERE id IN (
			SELECT id FROM sso_audit_logs WHERE created_at < ? LIMIT ?)`, t, deleteBatch).Exec(ctx)
		if err != nil {
			return total, fmt.Errorf("delete audit entries before %s: %w", t.Format(DateLayout), err)
		}
		n, _ := r.RowsAffected()
		total += int(n)
		if n < deleteBatch {
			return total, nil
		}
	}
}

// daysWithEntries are the UTC days in [from, to) that have database entries, oldest first.
func daysWithEntries(ctx context.Context, d *db.DB, from, to time.Time) ([]time.Time, error) {
	var days []time.Time
	err := d.NewRaw(`SELECT DISTINCT date_trunc('day', created_at AT TIME ZONE 'UTC') AS day
		FROM sso_audit_logs WHERE created_at >= ? AND created_at < ? ORDER BY day`, from, to).Scan(ctx, &days)
	if err != nil {
		return nil, fmt.Errorf("find audit days to archive: %w", err)
	}
	for i, t := range days { // a timestamp without time zone: its wall clock is UTC's
		days[i] = time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)
	}
	return days, nil
}

// entryColumns are what Entry reads, from sso_audit_logs AS l joined to users AS u.
const entryColumns = `l.id, l.event_type, l.user_id, l.provider, l.ip_address, l.user_agent, l.metadata,
	l.created_at, u.email AS user_email`

// archiveDay moves the database entries of one UTC day to its archive object, and returns
// how many it moved.
func archiveDay(ctx context.Context, d *db.DB, archive Archive, day time.Time) (int, error) {
	moved := 0
	err := d.InTx(ctx, func(ctx context.Context, tx db.Tx) error {
		// The lock makes a second run on the same day wait for this one, then find nothing.
		var fresh []Entry
		if err := tx.NewRaw(`SELECT `+entryColumns+` FROM sso_audit_logs AS l LEFT JOIN users AS u ON u.id = l.user_id
			WHERE l.created_at >= ? AND l.created_at < ? ORDER BY l.created_at, l.id FOR UPDATE OF l`,
			day, day.AddDate(0, 0, 1)).Scan(ctx, &fresh); err != nil {
			return fmt.Errorf("read entries: %w", err)
		}
		if len(fresh) == 0 {
			return nil
		}
		key := Key(day)
		var archived []Entry
		old, err := archive.Get(ctx, key)
		switch {
		case errors.Is(err, ErrNotFound):
		case err != nil:
			return err
		default:
			// Overwriting an object that cannot be read would lose what it holds.
			if archived, err = decode(old); err != nil {
				return fmt.Errorf("%s exists but cannot be read (%v): the entries stay in the database until it is repaired or removed", key, err)
			}
		}
		all := merge(archived, fresh)
		data, err := encode(all)
		if err != nil {
			return fmt.Errorf("encode %s: %w", key, err)
		}
		if err := archive.Put(ctx, key, data); err != nil {
			return err
		}
		if err := verify(ctx, archive, key, all); err != nil {
			return err
		}
		ids := make([]uuid.UUID, len(fresh))
		for i, e := range fresh {
			ids[i] = e.ID
		}
		if _, err := tx.NewRaw(`DELETE FROM sso_audit_logs WHERE id = ANY(?::uuid[])`, pgdialect.Array(ids)).Exec(ctx); err != nil {
			return fmt.Errorf("delete archived entries: %w", err)
		}
		moved = len(fresh)
		return nil
	})
	return moved, err
}

// verify reads key back and checks that it holds exactly want: as many entries, with the
// same ids.
func verify(ctx context.Context, archive Archive, key string, want []Entry) error {
	data, err := archive.Get(ctx, key)
	if err != nil {
		return fmt.Errorf("read back %s: %w", key, err)
	}
	got, err := decode(data)
	if err != nil {
		return fmt.Errorf("read back %s: %w", key, err)
	}
	if len(got) != len(want) || checksum(got) != checksum(want) {
		return fmt.Errorf("read back %s: %d entries (ids %.12s…), wrote %d (ids %.12s…)", key, len(got), checksum(got), len(want), checksum(want))
	}
	return nil
}

// expire deletes the archived days before t.
func expire(ctx context.Context, archive Archive, t time.Time) (int, error) {
	keys, err := archive.List(ctx, "")
	if err != nil {
		return 0, err
	}
	n := 0
	for _, key := range keys {
		if d, ok := keyDay(key); ok && d.Before(t) {
			if err := archive.Delete(ctx, key); err != nil {
				return n, err
			}
			n++
		}
	}
	return n, nil
}
