package views

import (
	"context"
	"time"

	"tally/internal/i18n"
	"tally/models"
)

// ChangedByText says who made a record's last change, and on which day, in the person's
// language and date style: "Changed by Jana, 03.12.2026". It is "" when nothing is known of it.
func ChangedByText(ctx context.Context, c models.ChangedBy, at time.Time) string {
	day := UserDay(ctx, at)
	switch c.Via {
	case models.ViaMember:
		if c.Name == "" {
			return i18n.T(ctx, "changed.by_former_member", "Day", day)
		}
		return i18n.T(ctx, "changed.by_member", "Name", c.Name, "Day", day)
	case models.ViaRule:
		return i18n.T(ctx, "changed.by_rule", "Day", day)
	case models.ViaImport:
		return i18n.T(ctx, "changed.by_import", "Day", day)
	case models.ViaBankSync:
		return i18n.T(ctx, "changed.by_bank_sync", "Day", day)
	}
	return ""
}
