package views

import (
	"context"

	"tally/models"
)

// roleLabel is role's name in the language of ctx.
func roleLabel(ctx context.Context, role models.Role) string {
	return role.LabelIn(ctx)
}
