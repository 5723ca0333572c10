package models

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"net/mail"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"tally/internal/apperr"
)

// Invitation limits. The link lives a week; a family holds at most MaxPendingInvitations
// open invitations, so that a list of them, and the cost of any request over it, stays small.
const (
	InvitationLifetime    = 7 * 24 * time.Hour
	MaxPendingInvitations = 20
)

// Invitation statuses. Only a pending invitation may be accepted, resent or revoked.
const (
	InvitationPending  = "pending"
	InvitationAccepted = "accepted"
	InvitationRevoked  = "revoked"
	InvitationExpired  = "expired"
)

// Invitation asks someone, by email, to join a family with a role. Only the SHA-256 of its
// token is stored (HashSecret): the link is shown or mailed once.
type Invitation struct {
	bun.BaseModel `bun:"table:invitations,alias:inv"`

	ID         uuid.UUID  `bun:"id,pk,type:uuid"`
	FamilyID   uuid.UUID  `bun:"family_id,type:uuid"`
	Email      string     `bun:"email"`
	Role       Role       `bun:"role"`
	TokenHash  string     `bun:"token_hash"`
	InvitedBy  *uuid.UUID `bun:"invited_by,type:uuid"`
	Status     string     `bun:"status"`
	ExpiresAt  time.Time  `bun:"expires_at"`
	AcceptedBy *uuid.UUID `bun:"accepted_by,type:uuid"`
	CreatedAt  time.Time  `bun:"created_at,nullzero,default:now()"`
	UpdatedAt  time.Time  `bun:"updated_at,nullzero,default:now()"`

	Family *Family `bun:"rel:belongs-to,join:family_id=id"`
}

// NewToken returns a fresh unguessable token for a link, URL-safe.
func NewToken() (string, error) {
	raw := make([]byte, 32)
	if _, err := rand.Read(raw); err != nil {
		return "", err
	}
	return base64.RawURLEncoding.EncodeToString(raw), nil
}

// checkInvitation validates an invitation's email and role, naming the field at fault.
func checkInvitation(email string, role Role) error {
	var v apperr.Validation
	email = NormalizeEmail(email)
	if email == "" {
		v.Add("email", "Email can't be blank")
	} else if a, err := mail.ParseAddress(email); err != nil || a.Address != email {
		v.Add("email", "Email is not a valid address")
	}
	CheckText(&v, "email", "Email", email, MaxName)
	CheckFamilyRole(&v, role)
	return v.Err()
}

// CheckFamilyRole refuses, on the role field, a role that is not a family's (admin, member or
// viewer): a super admin is made on the administration pages only.
func CheckFamilyRole(v *apperr.Validation, role Role) {
	if !role.FamilyRole() {
		v.Add("role", "Role must be admin, member or viewer")
	}
}

// CreateInvitation stores a pending invitation of email into the family with role, and returns
// it with its token. The family must hold fewer than MaxPendingInvitations; an address already
// invited is refused (the admin resends that one instead), and so is a member's.
func CreateInvitation(ctx context.Context, db bun.IDB, familyID, invitedBy uuid.UUID, email string, role Role, now time.Time) (*Invitation, string, error) {
	if err := checkInvitation(email, role); err != nil {
		return nil, "", err
	}
	var pending int
	if err := db.NewRaw("SELECT count(*) FROM invitations WHERE family_id = ? AND status = 'pending'", familyID).Scan(ctx, &pending); err != nil {
		return nil, "", err
	}
	var v apperr.Validation
	var members int
	if err := db.NewRaw("SELECT count(*) FROM users WHERE email = ? AND family_id = ?", NormalizeEmail(email), familyID).Scan(ctx, &members); err != nil {
		return nil, "", err
	}
	if members > 0 {
		v.Add("email", "This address is already a member of the family")
		return nil, "", v.Err()
	}
	if pending >= MaxPendingInvitations {
		v.Add("email", "The family already has the most open invitations there may be: revoke one first")
		return nil, "", v.Err()
	}
	token, err := NewToken()
	if err != nil {
		return nil, "", err
	}
	inv := &Invitation{ID: newID(), FamilyID: familyID, Email: NormalizeEmail(email), Role: role, TokenHash: HashSecret(token),
		InvitedBy: &invitedBy, Status: InvitationPending, ExpiresAt: now.Add(InvitationLifetime)}
	if _, err := db.NewInsert().Model(inv).Exec(ctx); err != nil {
		if c, ok := apperr.UniqueViolation(err); ok && c == "invitations_pending_email_key" {
			v.Add("email", "This address already has an open invitation: resend it instead")
			return nil, "", v.Err()
		}
		return nil, "", err
	}
	return inv, token, nil
}

// PendingInvitations lists the family's open invitations, the newest first (at most
// MaxPendingInvitations).
func PendingInvitations(ctx context.Context, db bun.IDB, familyID uuid.UUID) ([]Invitation, error) {
	var out []Invitation
	err := db.NewSelect().Model(&out).Where("family_id = ? AND status = 'pending'", familyID).
		OrderExpr("created_at DESC").Limit(MaxPendingInvitations).Scan(ctx)
	return out, err
}

// FamilyInvitation returns the family's pending invitation id, locked for the caller's
// transaction; another family's, or one no longer pending, is not found.
func FamilyInvitation(ctx context.Context, db bun.IDB, familyID, id uuid.UUID) (*Invitation, error) {
	inv := new(Invitation)
	err := db.NewSelect().Model(inv).Where("id = ? AND family_id = ? AND status = 'pending'", id, familyID).For("UPDATE").Scan(ctx)
	return inv, notFound(err, "invitation")
}

// InvitationByToken returns the pending invitation of token, with its family, locked for the
// caller's transaction; whatever its expiry (the caller expires it).
func InvitationByToken(ctx context.Context, db bun.IDB, token string) (*Invitation, error) {
	inv := new(Invitation)
	err := db.NewSelect().Model(inv).Relation("Family").Where("inv.token_hash = ? AND inv.status = 'pending'", HashSecret(token)).
		For("UPDATE OF inv").Scan(ctx)
	return inv, notFound(err, "invitation")
}

// PendingInvitationFor returns the newest pending, unexpired invitation of email, locked,
// for single sign-on's first sign-in; NotFound when there is none.
func PendingInvitationFor(ctx context.Context, db bun.IDB, email string, now time.Time) (*Invitation, error) {
	inv := new(Invitation)
	err := db.NewSelect().Model(inv).Where("email = ? AND status = 'pending' AND expires_at > ?", NormalizeEmail(email), now).
		OrderExpr("created_at DESC").Limit(1).For("UPDATE").Scan(ctx)
	return inv, notFound(err, "invitation")
}

// RenewInvitationToken gives the invitation a new token and a new week; the old link dies.
func RenewInvitationToken(ctx context.Context, db bun.IDB, inv *Invitation, now time.Time) (string, error) {
	token, err := NewToken()
	if err != nil {
		return "", err
	}
	inv.TokenHash, inv.ExpiresAt = HashSecret(token), now.Add(InvitationLifetime)
	_, err = db.NewRaw("UPDATE invitations SET token_hash = ?, expires_at = ?, updated_at = now() WHERE id = ?",
		inv.TokenHash, inv.ExpiresAt, inv.ID).Exec(ctx)
	return token, err
}

// CloseInvitation ends a pending invitation with status (accepted, revoked or expired);
// acceptedBy is the user who accepted it, or nil.
func CloseInvitation(ctx context.Context, db bun.IDB, inv *Invitation, status string, acceptedBy *uuid.UUID) error {
	inv.Status, inv.AcceptedBy = status, acceptedBy
	_, err := db.NewRaw("UPDATE invitations SET status = ?, accepted_by = ?, updated_at = now() WHERE id = ?",
		status, acceptedBy, inv.ID).Exec(ctx)
	return err
}

// ExpireInvitations marks the family's pending invitations past their expiry as expired and
// returns them (at most MaxPendingInvitations can be pending).
func ExpireInvitations(ctx context.Context, db bun.IDB, familyID uuid.UUID, now time.Time) ([]Invitation, error) {
	var out []Invitation
	err := db.NewRaw(`UPDATE invitations SET status = 'expired', updated_at = now()
		WHERE family_id = ? AND status = 'pending' AND expires_at <= ? RETURNING id, family_id, email, role, expires_at`,
		familyID, now).Scan(ctx, &out)
	return out, err
}
