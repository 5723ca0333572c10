package models

import (
	"context"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"
)

// UserFilter selects a page of the instance's users, for the administration pages.
type UserFilter struct {
	Role     string // "" for any
	Provider string // the name of an SSO provider the user is connected to; "" for any
	Status   string // active, suspended or ""
	// SecondFactor is one of the SecondFactor filters; "" for any.
	SecondFactor string
	Page         int
	PerPage      int
}

// UserSummary is a user as the users list shows them.
type UserSummary struct {
	ID          uuid.UUID  `bun:"id"`
	Email       string     `bun:"email"`
	FirstName   string     `bun:"first_name"`
	LastName    string     `bun:"last_name"`
	Role        Role       `bun:"role"`
	Status      string     `bun:"status"`
	LastLoginAt *time.Time `bun:"last_login_at"`
	HasPassword bool       `bun:"has_password"`
	FamilyID    uuid.UUID  `bun:"family_id"`
	FamilyName  string     `bun:"family_name"`
	Providers   []string   `bun:"providers,array"`
	CreatedAt   time.Time  `bun:"created_at"`
	// HasTOTP and Passkeys are the second factors a password sign-in asks for next.
	HasTOTP  bool `bun:"has_totp"`
	Passkeys int  `bun:"passkeys"`
}

// Second factors, as the users list filters them.
const (
	SecondFactorNone     = "none"
	SecondFactorTOTP     = "totp"
	SecondFactorPasskeys = "passkeys"
)

// The second factors of the user u, in SQL.
const (
	hasTOTPSQL     = "EXISTS (SELECT 1 FROM user_totp t WHERE t.user_id = u.id AND t.confirmed_at IS NOT NULL)"
	hasPasskeysSQL = "EXISTS (SELECT 1 FROM passkeys p WHERE p.user_id = u.id)"
)

// secondFactorWhere filters users by second factor.
var secondFactorWhere = map[string]string{
	SecondFactorNone:     "NOT " + hasTOTPSQL + " AND NOT " + hasPasskeysSQL,
	SecondFactorTOTP:     hasTOTPSQL,
	SecondFactorPasskeys: hasPasskeysSQL,
}

// ValidSecondFactor reports whether f is a second-factor filter.
func ValidSecondFactor(f string) bool { _, ok := secondFactorWhere[f]; return ok }

// DisplayName is the user's name, or their email.
func (u *UserSummary) DisplayName() string {
	return (&User{FirstName: u.FirstName, LastName: u.LastName, Email: u.Email}).DisplayName()
}

// ListUsers returns one page of the instance's users by email, with their sign-in methods,
// and how many match in all.
func ListUsers(ctx context.Context, db bun.IDB, f UserFilter) ([]UserSummary, int, error) {
	q := db.NewSelect().TableExpr("users AS u").
		ColumnExpr("u.id, u.email, u.first_name, u.last_name, u.role, u.status, u.last_login_at, u.created_at, u.family_id").
		ColumnExpr("u.password_hash IS NOT NULL AS has_password, f.name AS family_name").
		ColumnExpr("coalesce((SELECT array_agg(i.provider ORDER BY i.provider) FROM sso_identities i WHERE i.user_id = u.id), '{}') AS providers").
		ColumnExpr(hasTOTPSQL + " AS has_totp").
		ColumnExpr("(SELECT count(*) FROM passkeys p WHERE p.user_id = u.id) AS passkeys").
		Join("JOIN families AS f ON f.id = u.family_id").
		OrderExpr("u.email").Limit(int64(f.PerPage)).Offset(int64((f.Page - 1) * f.PerPage))
	if f.Role != "" {
		q = q.Where("u.role = ?", f.Role)
	}
	if f.Status != "" {
		q = q.Where("u.status = ?", f.Status)
	}
	if f.SecondFactor != "" {
		q = q.Where(secondFactorWhere[f.SecondFactor])
	}
	if f.Provider != "" {
		q = q.Where("EXISTS (SELECT 1 FROM sso_identities i WHERE i.user_id = u.id AND i.provider = ?)", f.Provider)
	}
	var out []UserSummary
	n, err := q.ScanAndCount(ctx, &out)
	return out, int(n), err
}

// IdentitySummary is an SSO account connected to a user.
type IdentitySummary struct {
	ID         uuid.UUID  `bun:"id"`
	Provider   string     `bun:"provider"`
	Email      string     `bun:"email"`
	Groups     []string   `bun:"groups,array"`
	LastUsedAt *time.Time `bun:"last_used_at"`
	CreatedAt  time.Time  `bun:"created_at"`
}

// UserIdentities returns the user's SSO accounts by provider, the oldest first at each.
func UserIdentities(ctx context.Context, db bun.IDB, userID uuid.UUID) ([]IdentitySummary, error) {
	var out []IdentitySummary
	err := db.NewRaw("SELECT id, provider, email, groups, last_used_at, created_at FROM sso_identities WHERE user_id = ? ORDER BY provider, created_at", userID).
		Scan(ctx, &out)
	return out, err
}

// ProviderNames lists the providers users are connected to, for filters.
func ProviderNames(ctx context.Context, db bun.IDB) ([]string, error) {
	var out []string
	err := db.NewRaw("SELECT coalesce(array_agg(DISTINCT provider ORDER BY provider), '{}') FROM sso_identities").Scan(ctx, pgdialect.Array(&out))
	return out, err
}

// LastActiveSuperAdmin reports whether u is the instance's only active super admin, whom
// nobody may demote, suspend or delete.
func LastActiveSuperAdmin(ctx context.Context, db bun.IDB, u *User) (bool, error) {
	if u.Role != RoleSuperAdmin {
		return false, nil
	}
	var n int
	err := db.NewRaw("SELECT count(*) FROM users WHERE role = 'super_admin' AND status = 'active' AND id <> ?", u.ID).Scan(ctx, &n)
	return n == 0, err
}

// SetRole gives the user role, marking where it came from: "local" (an administrator) or
// "sso" (the groups of their provider).
func SetRole(ctx context.Context, db bun.IDB, userID uuid.UUID, role Role, source string) error {
	_, err := db.NewRaw("UPDATE users SET role = ?, role_source = ?, updated_at = now() WHERE id = ?", role, source, userID).Exec(ctx)
	return err
}

// SetSuspended suspends the user, or makes them active again.
func SetSuspended(ctx context.Context, db bun.IDB, userID uuid.UUID, suspended bool) error {
	q := "UPDATE users SET status = 'active', suspended_at = NULL, updated_at = now() WHERE id = ?"
	if suspended {
		q = "UPDATE users SET status = 'suspended', suspended_at = now(), updated_at = now() WHERE id = ?"
	}
	_, err := db.NewRaw(q, userID).Exec(ctx)
	return err
}

// LastOfFamily reports whether the user is the only member of their family.
func LastOfFamily(ctx context.Context, db bun.IDB, u *User) (bool, error) {
	var others int
	err := db.NewRaw("SELECT count(*) FROM users WHERE family_id = ? AND id <> ?", u.FamilyID, u.ID).Scan(ctx, &others)
	return others == 0, err
}

// DeleteUser deletes the user, with their family and all its data when withFamily.
func DeleteUser(ctx context.Context, db bun.IDB, u *User, withFamily bool) error {
	if withFamily {
		return DeleteFamily(ctx, db, u.FamilyID)
	}
	_, err := db.NewRaw("DELETE FROM users WHERE id = ?", u.ID).Exec(ctx)
	return err
}

// AuthEvent is a line of a user's authentication history.
type AuthEvent struct {
	CreatedAt time.Time `bun:"created_at"`
	EventType string    `bun:"event_type"`
	Provider  string    `bun:"provider"`
	IP        string    `bun:"ip"`
	Reason    string    `bun:"reason"`
}

// AuthHistory is the user's latest limit audit events, the newest first.
func AuthHistory(ctx context.Context, db bun.IDB, userID uuid.UUID, limit int) ([]AuthEvent, error) {
	var out []AuthEvent
	err := db.NewRaw(`SELECT created_at, event_type, coalesce(provider, '') AS provider, coalesce(ip_address, '') AS ip,
			coalesce(metadata->>'reason', '') AS reason FROM sso_audit_logs WHERE user_id = ? ORDER BY created_at DESC LIMIT ?`, userID, limit).
		Scan(ctx, &out)
	return out, err
}
