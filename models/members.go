package models

import (
	"context"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"
)

// Member is a user of a family as its Members page shows them.
type Member struct {
	ID          uuid.UUID  `bun:"id"`
	Email       string     `bun:"email"`
	FirstName   string     `bun:"first_name"`
	LastName    string     `bun:"last_name"`
	Role        Role       `bun:"role"`
	Status      string     `bun:"status"`
	LastLoginAt *time.Time `bun:"last_login_at"`
	// PrivateAccounts counts the family's accounts private to them: what becomes the family's
	// shared accounts when they leave (ShareWhenLeaving). Never which.
	PrivateAccounts int `bun:"private_accounts"`
}

// DisplayName is the member's name, or their email.
func (m *Member) DisplayName() string {
	return (&User{FirstName: m.FirstName, LastName: m.LastName, Email: m.Email}).DisplayName()
}

// FamilyMembers lists the family's users by email. A family is a household: its members are
// few, and every one is listed.
func FamilyMembers(ctx context.Context, db bun.IDB, familyID uuid.UUID) ([]Member, error) {
	var out []Member
	err := db.NewRaw(`SELECT id, email, first_name, last_name, role, status, last_login_at,
			(SELECT count(*) FROM accounts a WHERE a.family_id = u.family_id AND a.owner_id = u.id AND a.private) AS private_accounts
		FROM users u WHERE family_id = ? ORDER BY email`, familyID).Scan(ctx, &out)
	return out, err
}

// FamilyMember returns the family's user id; another family's is not found.
func FamilyMember(ctx context.Context, db bun.IDB, familyID, id uuid.UUID) (*User, error) {
	u := new(User)
	err := db.NewSelect().Model(u).Where("u.id = ? AND u.family_id = ?", id, familyID).Scan(ctx)
	return u, notFound(err, "member")
}

// LockFamily takes the family's row lock until the caller's transaction ends: every change of
// who administers a family takes it first, so that two concurrent demotions or removals see
// each other and cannot both leave the family without an admin.
func LockFamily(ctx context.Context, db bun.IDB, familyID uuid.UUID) error {
	_, err := db.NewRaw("SELECT id FROM families WHERE id = ? FOR UPDATE", familyID).Exec(ctx)
	return err
}

// LastActiveAdmin reports whether u is their family's only active admin (super admins count),
// whom nobody may demote or remove. Call it under LockFamily.
func LastActiveAdmin(ctx context.Context, db bun.IDB, u *User) (bool, error) {
	if !u.IsAdmin() {
		return false, nil
	}
	var others int
	err := db.NewRaw(`SELECT count(*) FROM users WHERE family_id = ? AND id <> ? AND status = 'active'
		AND role IN ('admin', 'super_admin')`, u.FamilyID, u.ID).Scan(ctx, &others)
	return others == 0, err
}

// MoveToFamily makes the user a member of another family with role. Nothing of theirs moves:
// the data they entered stays with the family it belongs to.
func MoveToFamily(ctx context.Context, db bun.IDB, userID, familyID uuid.UUID, role Role) error {
	_, err := db.NewRaw("UPDATE users SET family_id = ?, role = ?, role_source = 'local', family_creator = false, updated_at = now() WHERE id = ?",
		familyID, role, userID).Exec(ctx)
	return err
}

// FamilyHoldsData says whether the family has accounts or imports: what is lost when the
// family is deleted.
func FamilyHoldsData(ctx context.Context, db bun.IDB, familyID uuid.UUID) (bool, error) {
	var holds bool
	err := db.NewRaw(`SELECT EXISTS (SELECT 1 FROM accounts WHERE family_id = ?0)
		OR EXISTS (SELECT 1 FROM imports WHERE family_id = ?0)`, familyID).Scan(ctx, &holds)
	return holds, err
}

// DeleteFamily deletes the family and everything in it.
func DeleteFamily(ctx context.Context, db bun.IDB, familyID uuid.UUID) error {
	_, err := db.NewRaw("DELETE FROM families WHERE id = ?", familyID).Exec(ctx)
	return err
}
