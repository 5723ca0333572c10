package views

import (
	"context"

	"tally/internal/i18n"
	"tally/models"
)

// roleLabel is role's name in the language of ctx.
func roleLabel(ctx context.Context, role models.Role) string {
	switch role {
	case models.RoleSuperAdmin:
		return i18n.T(ctx, "role.super_admin")
	case models.RoleAdmin:
		return i18n.T(ctx, "role.admin")
	case models.RoleViewer:
		return i18n.T(ctx, "role.viewer")
	}
	return i18n.T(ctx, "role.member")
}
