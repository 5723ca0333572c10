// Package auditlog keeps the SSO audit log (sso_audit_logs) for as long as the retention tier
// says: it moves entries past the database window to an archive of one gzip NDJSON object
// per UTC day, deletes what is past the tier's total window, and searches the database and
// the archive for the admin page.
//
// Windows are counted in whole UTC days, so that a day is archived once, whole:
//
//   - the database keeps the entries created on or after DatabaseCutoff(now), the start of
//     the UTC day 90 days before today's; older ones are deleted (standard) or moved to the
//     archive (extended, compliance);
//   - the archive keeps a day's object while the day is on or after ArchiveCutoff(now): the
//     start of today's UTC date one year ago (extended) or seven years ago (compliance).
//     Older objects, and database entries older than that, are deleted.
package auditlog

import (
	"fmt"
	"strings"
	"time"
)

// Retention is how long audit entries are kept: AUDIT_LOG_RETENTION.
type Retention string

// The retention tiers.
const (
	// Standard keeps 90 days in the database and archives nothing.
	Standard Retention = "standard"
	// Extended keeps 90 days in the database and the rest of a year in the archive.
	Extended Retention = "extended"
	// Compliance keeps 90 days in the database and the rest of seven years in the archive.
	Compliance Retention = "compliance"
)

// DatabaseDays is how many whole UTC days before today's the database keeps, in every tier.
const DatabaseDays = 90

// ParseRetention reads a tier's name; "" is Standard, the default.
func ParseRetention(s string) (Retention, error) {
	switch r := Retention(strings.ToLower(strings.TrimSpace(s))); r {
	case "":
		return Standard, nil
	case Standard, Extended, Compliance:
		return r, nil
	}
	return "", fmt.Errorf("%q must be standard, extended or compliance", s)
}

// Archives reports whether the tier moves old entries to the archive rather than deleting
// them.
func (r Retention) Archives() bool { return r == Extended || r == Compliance }

// DatabaseCutoff is the first moment the database keeps at now: entries created before it
// leave the database.
func (r Retention) DatabaseCutoff(now time.Time) time.Time {
	return day(now).AddDate(0, 0, -DatabaseDays)
}

// ArchiveCutoff is the first moment kept at all at now: entries and archived days before it
// are deleted. For Standard it is DatabaseCutoff.
func (r Retention) ArchiveCutoff(now time.Time) time.Time {
	switch r {
	case Extended:
		return day(now).AddDate(-1, 0, 0)
	case Compliance:
		return day(now).AddDate(-7, 0, 0)
	}
	return r.DatabaseCutoff(now)
}

// day is the start of t's UTC day.
func day(t time.Time) time.Time {
	y, m, d := t.UTC().Date()
	return time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
}
