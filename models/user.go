package models

import (
	"context"
	"net/mail"
	"strings"
	"tally/internal/i18n"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"tally/internal/apperr"
)

// Role is a user's permission level.
type Role string

// The roles, from most to least privileged.
const (
	RoleSuperAdmin Role = "super_admin"
	RoleAdmin      Role = "admin"
	RoleMember     Role = "member"
	// RoleViewer reads what the family's pages show and changes nothing (readOnlyForViewers).
	RoleViewer Role = "viewer"
)

// Rank orders roles: a higher rank wins when several apply. Unknown roles rank 0.
func (r Role) Rank() int {
	switch r {
	case RoleSuperAdmin:
		return 4
	case RoleAdmin:
		return 3
	case RoleMember:
		return 2
	case RoleViewer:
		return 1
	}
	return 0
}

// Valid reports whether r is one of the roles.
func (r Role) Valid() bool { return r.Rank() > 0 }

// Label is the role as a person reads it.
func (r Role) Label() string {
	switch r {
	case RoleSuperAdmin:
		return "Super admin"
	case RoleAdmin:
		return "Admin"
	case RoleViewer:
		return "Viewer"
	}
	return "Member"
}

// In is the role's name in the language of ctx: Label, as pages and mails say it.
func (r Role) In(ctx context.Context) string { return i18n.T(ctx, r.MessageID()) }

// MessageID is the id of the role's name in the catalogues (internal/i18n).
func (r Role) MessageID() string {
	switch r {
	case RoleSuperAdmin:
		return "role.super_admin"
	case RoleAdmin:
		return "role.admin"
	case RoleViewer:
		return "role.viewer"
	}
	return "role.member"
}

// FamilyRoles are the roles a family admin gives: to an invitation, or to a member.
var FamilyRoles = []Role{RoleAdmin, RoleMember, RoleViewer}

// FamilyRole reports whether a family admin may give role r (super admins are made on the
// administration pages only).
func (r Role) FamilyRole() bool { return r == RoleAdmin || r == RoleMember || r == RoleViewer }

// ReadOnly reports whether the role may change nothing.
func (r Role) ReadOnly() bool { return r == RoleViewer }

// User statuses.
const (
	UserActive    = "active"
	UserSuspended = "suspended"
)

// User is a person who signs in. Email is unique across the instance, stored lower-case.
type User struct {
	bun.BaseModel `bun:"table:users,alias:u"`

	ID            uuid.UUID `bun:"id,pk,type:uuid"`
	FamilyID      uuid.UUID `bun:"family_id,type:uuid"`
	Email         string    `bun:"email"`
	PasswordHash  *string   `bun:"password_hash"`
	FirstName     string    `bun:"first_name"`
	LastName      string    `bun:"last_name"`
	Role          Role      `bun:"role"`
	Status        string    `bun:"status"`
	FamilyCreator bool      `bun:"family_creator"`
	// RoleSource is "sso" when SSO role sync set the role last, else "local".
	RoleSource  string     `bun:"role_source,nullzero,default:'local'"`
	LastLoginAt *time.Time `bun:"last_login_at"`
	// Locale and DateFormat are how the pages write amounts and dates for the user; "" follows
	// the family's (NumberLocale, DatePattern).
	Locale      string     `bun:"locale"`
	DateFormat  string     `bun:"date_format"`
	SuspendedAt *time.Time `bun:"suspended_at"`
	CreatedAt   time.Time  `bun:"created_at,nullzero,default:now()"`
	UpdatedAt   time.Time  `bun:"updated_at,nullzero,default:now()"`

	// Language is the language the user reads Tally in, "" (NULL) for their family's (Lang).
	Language string `bun:"language,nullzero"`

	Family *Family `bun:"rel:belongs-to,join:family_id=id"`
}

// Active reports whether the user may sign in and use the API.
func (u *User) Active() bool { return u.Status == UserActive }

// IsAdmin reports whether the user administers their family (admins and super admins).
func (u *User) IsAdmin() bool { return u.Role.Rank() >= RoleAdmin.Rank() }

// MayDeleteAccounts reports whether the user may delete the family's accounts, with all their
// history: admins only, as only they may export it (a member closes an account instead).
func (u *User) MayDeleteAccounts() bool { return u.IsAdmin() }

// MaySetRates reports whether the user may set or delete the family's own exchange rates:
// admins only, on the page and in the API alike. Anyone in the family reads them.
func (u *User) MaySetRates() bool { return u.IsAdmin() }

// DisplayName is the user's name, or their email when they have none.
func (u *User) DisplayName() string {
	if n := strings.TrimSpace(u.FirstName + " " + u.LastName); n != "" {
		return n
	}
	return u.Email
}

// NormalizeEmail trims and lower-cases an email address.
func NormalizeEmail(email string) string { return strings.ToLower(strings.TrimSpace(email)) }

// NewUser describes a user to create.
type NewUser struct {
	FamilyID      uuid.UUID
	Email         string
	PasswordHash  *string
	FirstName     string
	LastName      string
	Role          Role
	FamilyCreator bool
}

// CreateUser inserts a user after validating it. A taken email is an Invalid error on the
// email field.
func CreateUser(ctx context.Context, db bun.IDB, n NewUser) (*User, error) {
	u := &User{
		ID: newID(), FamilyID: n.FamilyID, Email: NormalizeEmail(n.Email), PasswordHash: n.PasswordHash,
		FirstName: strings.TrimSpace(n.FirstName), LastName: strings.TrimSpace(n.LastName),
		Role: n.Role, Status: UserActive, FamilyCreator: n.FamilyCreator,
	}
	if u.Role == "" {
		u.Role = RoleMember
	}
	var v apperr.Validation
	if u.Email == "" {
		v.Add("email", "Email can't be blank")
	} else if a, err := mail.ParseAddress(u.Email); err != nil || a.Address != u.Email {
		v.Add("email", "Email is not a valid address")
	}
	checkPerson(&v, u.FirstName, u.LastName, u.Email)
	if !u.Role.Valid() {
		v.Add("role", "Role must be super_admin, admin, member or viewer")
	}
	if err := v.Err(); err != nil {
		return nil, err
	}
	if _, err := db.NewInsert().Model(u).Exec(ctx); err != nil {
		if c, ok := apperr.UniqueViolation(err); ok && c == "users_email_key" {
			v.Add("email", "Email has already been taken")
			return nil, v.Err()
		}
		return nil, err
	}
	return u, nil
}

// UserByID returns the user with id, with their family.
func UserByID(ctx context.Context, db bun.IDB, id uuid.UUID) (*User, error) {
	u := new(User)
	err := db.NewSelect().Model(u).Relation("Family").Where("u.id = ?", id).Scan(ctx)
	return u, notFound(err, "user")
}

// UserByEmail returns the user whose email is email (compared normalised).
func UserByEmail(ctx context.Context, db bun.IDB, email string) (*User, error) {
	u := new(User)
	err := db.NewSelect().Model(u).Relation("Family").Where("u.email = ?", NormalizeEmail(email)).Scan(ctx)
	return u, notFound(err, "user")
}

// CountUsers returns how many users exist on the instance.
func CountUsers(ctx context.Context, db bun.IDB) (int, error) {
	n, err := db.NewSelect().Model((*User)(nil)).Count(ctx)
	return int(n), err
}

// SetPasswordHash replaces the user's password hash.
func SetPasswordHash(ctx context.Context, db bun.IDB, userID uuid.UUID, hash string) error {
	_, err := db.NewUpdate().Model((*User)(nil)).
		Set("password_hash = ?", hash).Set("updated_at = now()").
		Where("id = ?", userID).Exec(ctx)
	return err
}

// TouchLastLogin records a successful sign-in.
func TouchLastLogin(ctx context.Context, db bun.IDB, userID uuid.UUID) error {
	_, err := db.NewUpdate().Model((*User)(nil)).Set("last_login_at = now()").Where("id = ?", userID).Exec(ctx)
	return err
}

// checkPerson bounds a person's names and email, for every way a user is made or changed.
func checkPerson(v *apperr.Validation, first, last, email string) {
	CheckText(v, "first_name", "First name", first, MaxName)
	CheckText(v, "last_name", "Last name", last, MaxName)
	CheckText(v, "email", "Email", email, MaxName)
}
