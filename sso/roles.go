package sso

import (
	"slices"

	"tally/models"
)

// MappedRole is the role a provider's group mappings give to groups: the highest role whose
// group is among them (matched case-sensitively), or the provider's default role when none
// is. ok is false when the provider has no mappings, so roles are not the provider's to set.
func MappedRole(p *Provider, groups []string) (role models.Role, ok bool) {
	if len(p.GroupMappings) == 0 {
		return "", false
	}
	role = p.DefaultRole
	matched := false
	for _, m := range p.GroupMappings {
		if !slices.Contains(groups, m.Group) {
			continue
		}
		if !matched || m.Role.Rank() > role.Rank() {
			role, matched = m.Role, true
		}
	}
	return role, true
}

// WithFloors is withFloors for callers outside the package (the admin's "sync roles").
func WithFloors(u *models.User, role models.Role) models.Role { return withFloors(u, role) }

// withFloors keeps what SSO may not take away: the creator of a family stays at least its
// admin, and a super admin made outside SSO stays one.
func withFloors(u *models.User, role models.Role) models.Role {
	if u.Role == models.RoleSuperAdmin && u.RoleSource != "sso" {
		return models.RoleSuperAdmin
	}
	if u.FamilyCreator && role.Rank() < models.RoleAdmin.Rank() {
		return models.RoleAdmin
	}
	return role
}
