package views

import (
	"context"
	"time"

	"tally/models"
)

// CanWrite reports whether the signed-in person may change the family's data: a viewer reads
// only (handlers/viewer_rules.go refuses their changes), and their pages leave out the
// buttons and forms that change something.
func CanWrite(ctx context.Context) bool {
	u := StateOf(ctx).User
	return u != nil && !u.Role.ReadOnly()
}

// ChangedByText says who made a record's last change, and on which day, in the person's date
// style: "Changed by Jana, 03.12.2026". It is "" when nothing is known of it.
func ChangedByText(ctx context.Context, c models.ChangedBy, at time.Time) string {
	var who string
	switch c.Via {
	case models.ViaMember:
		who = "Changed by " + c.Name
		if c.Name == "" {
			who = "Changed by a former member"
		}
	case models.ViaRule:
		who = "Changed by a rule"
	case models.ViaImport:
		who = "From an import"
	case models.ViaBankSync:
		who = "From a bank sync"
	default:
		return ""
	}
	return who + ", " + UserDay(ctx, at)
}
