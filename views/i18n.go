package views

import (
	"context"

	"tally/internal/i18n"
	"tally/models"
)

// roleLabel is role's name in the language of ctx.
func roleLabel(ctx context.Context, role models.Role) string {
	return i18n.T(ctx, role.MessageID())
}
