// Package members is a household of several adults: a family admin invites people by email
// with a role, changes their roles and removes them. Every change is audited in the
// transaction that makes it.
package members

import (
	"context"
	"log/slog"
	"net/url"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"tally/auditlog"
	"tally/banksync"
	"tally/internal/apperr"
	"tally/internal/db"
	"tally/internal/i18n"
	"tally/internal/mail"
	"tally/internal/password"
	"tally/internal/sessions"
	"tally/models"
)

// MsgInvalidInvitation answers a link that is unknown, used, revoked or expired, and says what
// to do next.
const MsgInvalidInvitation = "This invitation link was already used, revoked or has expired. Ask the person who invited you to send a new one."

// Service keeps a family's members and invitations.
type Service struct {
	DB *db.DB
	// Mailer sends invitations when SendMail is set; otherwise the admin copies the link.
	Mailer   mail.Mailer
	SendMail bool
	AppURL   string
	Now      func() time.Time
	// Log records why a mail failed: the mail server's words are the operator's, not the
	// family admin's.
	Log *slog.Logger
	// Bank disconnects the bank connections of a member who leaves (banksync.Service.Leave);
	// nil disconnects none.
	Bank *banksync.Service
}

// Sent is an invitation just created or resent: Link is its one-time link, shown to the admin
// unless Mailed. MailFailed says that a mail that was to be sent was not: the invitation
// stands, and the admin passes the link on by hand.
type Sent struct {
	Invitation *models.Invitation
	Link       string
	Mailed     bool
	MailFailed bool
}

// Link returns the page an invitation's token opens.
func (s *Service) Link(token string) string {
	return s.AppURL + "/invitations/accept?" + url.Values{"token": {token}}.Encode()
}

// Invite asks email to join the admin's family with role, and mails the link when mail is set
// up.
func (s *Service) Invite(ctx context.Context, admin *models.User, email string, role models.Role, meta auditlog.Meta) (*Sent, error) {
	var sent *Sent
	err := s.DB.InTx(ctx, func(ctx context.Context, tx db.Tx) error {
		inv, token, err := models.CreateInvitation(ctx, tx, admin.FamilyID, admin.ID, email, role, s.Now())
		if err != nil {
			return err
		}
		sent = &Sent{Invitation: inv, Link: s.Link(token)}
		return auditlog.Record(ctx, tx, invitationEvent(auditlog.EventInvitationCreated, admin, inv, meta))
	})
	if err != nil {
		return nil, err
	}
	s.mail(ctx, admin, sent)
	return sent, nil
}

// Resend gives the family's pending invitation id a new link and a new week, and sends it
// again; the old link dies.
func (s *Service) Resend(ctx context.Context, admin *models.User, id uuid.UUID, meta auditlog.Meta) (*Sent, error) {
	var sent *Sent
	err := s.DB.InTx(ctx, func(ctx context.Context, tx db.Tx) error {
		inv, err := models.FamilyInvitation(ctx, tx, admin.FamilyID, id)
		if err != nil {
			return err
		}
		token, err := models.RenewInvitationToken(ctx, tx, inv, s.Now())
		if err != nil {
			return err
		}
		sent = &Sent{Invitation: inv, Link: s.Link(token)}
		e := invitationEvent(auditlog.EventInvitationCreated, admin, inv, meta)
		e.Data["resent"] = true
		return auditlog.Record(ctx, tx, e)
	})
	if err != nil {
		return nil, err
	}
	s.mail(ctx, admin, sent)
	return sent, nil
}

// Revoke ends the family's pending invitation id: its link no longer works.
func (s *Service) Revoke(ctx context.Context, admin *models.User, id uuid.UUID, meta auditlog.Meta) (*models.Invitation, error) {
	var inv *models.Invitation
	err := s.DB.InTx(ctx, func(ctx context.Context, tx db.Tx) error {
		var err error
		if inv, err = models.FamilyInvitation(ctx, tx, admin.FamilyID, id); err != nil {
			return err
		}
		if err := models.CloseInvitation(ctx, tx, inv, models.InvitationRevoked, nil); err != nil {
			return err
		}
		return auditlog.Record(ctx, tx, invitationEvent(auditlog.EventInvitationRevoked, admin, inv, meta))
	})
	return inv, err
}

// Pending lists the family's open invitations, after expiring (and auditing) those past their
// week.
func (s *Service) Pending(ctx context.Context, familyID uuid.UUID) ([]models.Invitation, error) {
	var out []models.Invitation
	err := s.DB.InTx(ctx, func(ctx context.Context, tx db.Tx) error {
		expired, err := models.ExpireInvitations(ctx, tx, familyID, s.Now())
		if err != nil {
			return err
		}
		for i := range expired {
			if err := auditlog.Record(ctx, tx, invitationEvent(auditlog.EventInvitationExpired, nil, &expired[i], auditlog.Meta{})); err != nil {
				return err
			}
		}
		out, err = models.PendingInvitations(ctx, tx, familyID)
		return err
	})
	return out, err
}

// Open returns the pending invitation of token, with its family, for its page. An expired one
// is marked and audited as such, and refused like any dead link.
func (s *Service) Open(ctx context.Context, token string) (*models.Invitation, error) {
	var inv *models.Invitation
	err := s.inTxKeepingExpiry(ctx, func(ctx context.Context, tx db.Tx) error {
		var err error
		inv, err = s.live(ctx, tx, token)
		return err
	})
	return inv, err
}

// live returns the pending invitation of token, locked; an expired one is closed as expired
// and errExpired returned (inTxKeepingExpiry commits the expiry and refuses the link).
func (s *Service) live(ctx context.Context, tx db.Tx, token string) (*models.Invitation, error) {
	inv, err := models.InvitationByToken(ctx, tx, token)
	if apperr.Is(err, apperr.NotFound) {
		return nil, apperr.New(apperr.Invalid, MsgInvalidInvitation)
	}
	if err != nil {
		return nil, err
	}
	if !inv.ExpiresAt.After(s.Now()) {
		if err := models.CloseInvitation(ctx, tx, inv, models.InvitationExpired, nil); err != nil {
			return nil, err
		}
		if err := auditlog.Record(ctx, tx, invitationEvent(auditlog.EventInvitationExpired, nil, inv, auditlog.Meta{})); err != nil {
			return nil, err
		}
		return nil, errExpired
	}
	return inv, nil
}

// errExpired is a link that expired just now: the expiry commits, the link is refused.
var errExpired = apperr.New(apperr.Invalid, MsgInvalidInvitation)

// inTxKeepingExpiry runs fn in a transaction; when fn met an expired invitation, the expiry
// commits and the caller gets MsgInvalidInvitation.
func (s *Service) inTxKeepingExpiry(ctx context.Context, fn func(ctx context.Context, tx db.Tx) error) error {
	expired := false
	err := s.DB.InTx(ctx, func(ctx context.Context, tx db.Tx) error {
		err := fn(ctx, tx)
		if err == errExpired {
			expired = true
			return nil
		}
		return err
	})
	if err == nil && expired {
		return errExpired
	}
	return err
}

// NewMember is who accepts an invitation by setting a password.
type NewMember struct {
	FirstName, LastName, Password string
}

// AcceptWithPassword makes the invitee a user of the inviting family with the invitation's
// role and the password they chose. An address that already has a user is refused: that user
// signs in and confirms (Join).
func (s *Service) AcceptWithPassword(ctx context.Context, token string, n NewMember, meta auditlog.Meta) (*models.User, error) {
	if id, data := password.Problem(n.Password); id != "" {
		var v apperr.Validation
		v.AddText("password", id, data...)
		return nil, v.Err()
	}
	hash, err := password.Hash(n.Password)
	if err != nil {
		return nil, err
	}
	var u *models.User
	err = s.inTxKeepingExpiry(ctx, func(ctx context.Context, tx db.Tx) error {
		inv, err := s.live(ctx, tx, token)
		if err != nil {
			return err
		}
		u, err = models.CreateUser(ctx, tx, models.NewUser{FamilyID: inv.FamilyID, Email: inv.Email, PasswordHash: &hash,
			FirstName: n.FirstName, LastName: n.LastName, Role: inv.Role})
		if err != nil {
			return err
		}
		return accepted(ctx, tx, inv, u, meta, "password")
	})
	if err != nil {
		return nil, err
	}
	return u, nil
}

// AcceptWithSSO is single sign-on's first sign-in of email, in its transaction: when the
// address has a live invitation, create makes its user in the inviting family with the
// invitation's role (and not a family of its own), and the invitation is accepted. ok is false
// without one.
func AcceptWithSSO(ctx context.Context, tx db.Tx, email string, now time.Time, meta auditlog.Meta,
	create func(familyID uuid.UUID, role models.Role) (*models.User, error)) (*models.User, bool, error) {
	inv, err := models.PendingInvitationFor(ctx, tx, email, now)
	if apperr.Is(err, apperr.NotFound) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	u, err := create(inv.FamilyID, inv.Role)
	if err != nil {
		return nil, false, err
	}
	return u, true, accepted(ctx, tx, inv, u, meta, "sso")
}

// Join moves the signed-in user u, whose address the invitation is for, into the inviting
// family with its role. Only the membership moves: what u entered stays with their old family,
// and the accounts u kept private there become its shared accounts (models.ShareWhenLeaving).
// The last admin of a family with other members must hand it over first.
//
// A family that u is the only member of would be left to no one: it is deleted. When it holds
// accounts or imports, u must say so (deleteOld), or Join refuses, naming delete_family.
func (s *Service) Join(ctx context.Context, token string, u *models.User, deleteOld bool, meta auditlog.Meta) error {
	var departure *banksync.Departure
	err := s.inTxKeepingExpiry(ctx, func(ctx context.Context, tx db.Tx) error {
		inv, err := s.live(ctx, tx, token)
		if err != nil {
			return err
		}
		if inv.Email != u.Email {
			return apperr.New(apperr.Forbidden, "This invitation is for "+inv.Email+". Sign out, and sign in as that address to accept it.")
		}
		if inv.FamilyID == u.FamilyID {
			return apperr.New(apperr.Conflict, "You are already a member of "+inv.Family.Name+".")
		}
		if err := models.LockFamily(ctx, tx, u.FamilyID); err != nil {
			return err
		}
		alone, err := LeavesFamilyEmpty(ctx, tx, u)
		if err != nil {
			return err
		}
		if err := refuseLastAdminLeaving(ctx, tx, u, alone); err != nil {
			return err
		}
		if alone.Holds && !deleteOld {
			msg := "Confirm that " + alone.Name + " is deleted with its accounts and transactions, or export them first."
			return apperr.New(apperr.Invalid, msg).WithFields(map[string][]string{"delete_family": {msg}})
		}
		shared, disconnected := 0, 0
		if !alone.Alone {
			if departure, err = s.Bank.Leave(ctx, tx, u.FamilyID, u.ID); err != nil {
				return err
			}
			disconnected = departure.Disconnected
			if shared, err = models.ShareWhenLeaving(ctx, tx, u.FamilyID, u.ID); err != nil {
				return err
			}
		}
		if err := models.MoveToFamily(ctx, tx, u.ID, inv.FamilyID, inv.Role); err != nil {
			return err
		}
		if alone.Alone {
			if err := models.DeleteFamily(ctx, tx, u.FamilyID); err != nil {
				return err
			}
		}
		return accepted(ctx, tx, inv, u, meta, "existing_user", map[string]any{"private_accounts_shared": shared,
			"bank_connections_disconnected": disconnected})
	})
	if err == nil && departure != nil {
		departure.End(ctx)
	}
	return err
}

// OldFamily is what joining another family leaves behind: whether u is its only member
// (Alone), and then whether it holds accounts or imports that go with it (Holds); otherwise how
// many accounts u keeps private there, which become its shared accounts (PrivateAccounts).
type OldFamily struct {
	Name            string
	Alone, Holds    bool
	PrivateAccounts int
}

// LeavesFamilyEmpty says what u leaving their family leaves behind.
func LeavesFamilyEmpty(ctx context.Context, db bun.IDB, u *models.User) (OldFamily, error) {
	old := OldFamily{Name: "your family"}
	if u.Family != nil {
		old.Name = u.Family.Name
	}
	alone, err := models.LastOfFamily(ctx, db, u)
	if err != nil {
		return old, err
	}
	if !alone {
		old.PrivateAccounts, err = models.PrivateAccountsOf(ctx, db, u.FamilyID, u.ID)
		return old, err
	}
	old.Alone = true
	old.Holds, err = models.FamilyHoldsData(ctx, db, u.FamilyID)
	return old, err
}

// refuseLastAdminLeaving stops the only admin of a family others still use (old, read under
// the family's lock) from leaving it without an admin.
func refuseLastAdminLeaving(ctx context.Context, tx db.Tx, u *models.User, old OldFamily) error {
	if old.Alone {
		return nil
	}
	last, err := models.LastActiveAdmin(ctx, tx, u)
	if err != nil || !last {
		return err
	}
	return apperr.New(apperr.Conflict, "You are the only admin of your current family: make another member admin there first.")
}

// accepted closes the invitation as accepted by u and audits it, with data's further facts.
func accepted(ctx context.Context, tx db.Tx, inv *models.Invitation, u *models.User, meta auditlog.Meta, how string, data ...map[string]any) error {
	if err := models.CloseInvitation(ctx, tx, inv, models.InvitationAccepted, &u.ID); err != nil {
		return err
	}
	e := invitationEvent(auditlog.EventInvitationAccepted, nil, inv, meta)
	e.UserID = &u.ID
	e.Data["via"] = how
	for _, d := range data {
		for k, v := range d {
			e.Data[k] = v
		}
	}
	return auditlog.Record(ctx, tx, e)
}

// ChangeRole gives the admin's family member id the role. The family's last admin keeps
// theirs, and a super admin's role is changed on the administration pages only.
func (s *Service) ChangeRole(ctx context.Context, admin *models.User, id uuid.UUID, role models.Role, meta auditlog.Meta) (*models.User, error) {
	var v apperr.Validation
	models.CheckFamilyRole(&v, role)
	if err := v.Err(); err != nil {
		return nil, err
	}
	var m *models.User
	err := s.DB.InTx(ctx, func(ctx context.Context, tx db.Tx) error {
		var err error
		if m, err = s.lockedMember(ctx, tx, admin, id); err != nil {
			return err
		}
		if m.Role == role {
			return nil
		}
		if role.Rank() < models.RoleAdmin.Rank() {
			if err := refuseLastAdmin(ctx, tx, m, "demoted"); err != nil {
				return err
			}
		}
		if err := models.SetRole(ctx, tx, m.ID, role, "local"); err != nil {
			return err
		}
		e := auditlog.Event{Type: auditlog.EventRoleChanged, UserID: &m.ID, Meta: meta,
			Data: map[string]any{"from": m.Role, "to": role, "by": "family_admin", "actor_user_id": admin.ID.String()}}
		m.Role = role
		return auditlog.Record(ctx, tx, e)
	})
	return m, err
}

// Remove takes the admin's family member id out of Tally: their user goes, and with it at
// once their sessions, API keys and OAuth tokens (as when a super admin deletes a user). What
// they entered stays with the family, the accounts they kept private become its shared
// accounts (models.ShareWhenLeaving), and the bank connections they made are disconnected
// (banksync.Service.Leave), in the same transaction, audited with their counts.
func (s *Service) Remove(ctx context.Context, admin *models.User, id uuid.UUID, meta auditlog.Meta) (*models.User, error) {
	var m *models.User
	var departure *banksync.Departure
	err := s.DB.InTx(ctx, func(ctx context.Context, tx db.Tx) error {
		var err error
		if m, err = s.lockedMember(ctx, tx, admin, id); err != nil {
			return err
		}
		if err := refuseLastAdmin(ctx, tx, m, "removed"); err != nil {
			return err
		}
		if departure, err = s.Bank.Leave(ctx, tx, m.FamilyID, m.ID); err != nil {
			return err
		}
		shared, err := models.ShareWhenLeaving(ctx, tx, m.FamilyID, m.ID)
		if err != nil {
			return err
		}
		e := auditlog.Event{Type: auditlog.EventMemberRemoved, Meta: meta, Data: map[string]any{
			"target_user_id": m.ID.String(), "email": m.Email, "actor_user_id": admin.ID.String(), "private_accounts_shared": shared,
			"bank_connections_disconnected": departure.Disconnected}}
		if err := auditlog.Record(ctx, tx, e); err != nil {
			return err
		}
		if _, err := sessions.RevokeUser(ctx, tx, m.ID, ""); err != nil {
			return err
		}
		return models.DeleteUser(ctx, tx, m, false)
	})
	if err == nil {
		departure.End(ctx)
	}
	return m, err
}

// lockedMember takes the family's lock and returns its member id: another family's is not
// found, and a super admin is left to the administration pages.
func (s *Service) lockedMember(ctx context.Context, tx db.Tx, admin *models.User, id uuid.UUID) (*models.User, error) {
	if err := models.LockFamily(ctx, tx, admin.FamilyID); err != nil {
		return nil, err
	}
	m, err := models.FamilyMember(ctx, tx, admin.FamilyID, id)
	if err != nil {
		return nil, err
	}
	if m.Role == models.RoleSuperAdmin {
		return nil, apperr.New(apperr.Conflict, "A super admin's role and account are managed in Admin › Users.")
	}
	return m, nil
}

// refuseLastAdmin stops the family's only active admin from being demoted or removed.
func refuseLastAdmin(ctx context.Context, tx db.Tx, m *models.User, what string) error {
	last, err := models.LastActiveAdmin(ctx, tx, m)
	if err != nil || !last {
		return err
	}
	return apperr.New(apperr.Conflict, m.DisplayName()+" is the family's only admin and cannot be "+what+": make another member admin first.")
}

// mail sends the invitation when mail is set up; otherwise, or when sending fails, the admin
// is shown the link. A failure does not undo the invitation, which is already written.
func (s *Service) mail(ctx context.Context, admin *models.User, sent *Sent) {
	if !s.SendMail {
		return
	}
	// The invitee has no language of their own yet: the family's, which they will read it in.
	family, in := admin.Family.Name, i18n.WithLanguage(ctx, admin.Family.Language)
	inviter := admin.DisplayName()
	err := s.Mailer.Send(ctx, mail.Message{
		To:      sent.Invitation.Email,
		Subject: i18n.T(in, "mail.invitation.subject", "Inviter", inviter, "Family", family),
		Body: i18n.T(in, "mail.invitation.body", "Inviter", inviter, "Family", family,
			"Role", sent.Invitation.Role.In(in), "Link", sent.Link),
		Link: sent.Link,
	})
	if err != nil {
		sent.MailFailed = true
		s.Log.Warn("invitation mail not sent", "invitation_id", sent.Invitation.ID, "error", err.Error())
		return
	}
	sent.Mailed = true
}

// invitationEvent is the audit event of kind about inv, by admin (nil for the invitee or the
// clock).
func invitationEvent(kind string, admin *models.User, inv *models.Invitation, meta auditlog.Meta) auditlog.Event {
	data := map[string]any{"invitation_id": inv.ID.String(), "email": inv.Email, "role": inv.Role, "family_id": inv.FamilyID.String()}
	e := auditlog.Event{Type: kind, Meta: meta, Data: data}
	if admin != nil {
		e.UserID = &admin.ID
		data["actor_user_id"] = admin.ID.String()
	}
	return e
}
