package sso

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun/dialect/pgdialect"

	"tally/auditlog"
	"tally/internal/apperr"
	"tally/internal/db"
	"tally/members"
	"tally/models"
)

// JIT modes.
const (
	JITCreateAndLink = "create_and_link" // first sign-ins create accounts
	JITLinkOnly      = "link_only"       // sign-ins only reach users that exist
)

// CheckJITMode says what is wrong with mode as a JIT mode; "" (unset) is allowed.
func CheckJITMode(mode string) error {
	if mode != "" && mode != JITCreateAndLink && mode != JITLinkOnly {
		return fmt.Errorf("%q must be %s or %s", mode, JITCreateAndLink, JITLinkOnly)
	}
	return nil
}

// Rules are the sign-in rules of the deployment.
type Rules struct {
	JITMode string
	// AllowedDomains limits just-in-time creation to these email domains; empty allows any.
	AllowedDomains []string
}

// Service applies the sign-in rules to an identity a strategy returned.
type Service struct {
	DB    *db.DB
	Rules Rules
	Log   *slog.Logger
}

// Outcome is what a completed sign-in leads to.
type Outcome struct {
	// User is signed in (or, for a link, the user the identity was connected to).
	User *models.User
	// Created is true when the user was created just in time.
	Created bool
	// PendingEmail is set instead of User when a user with the identity's email exists: they
	// must confirm with their password before the identity is linked to them.
	PendingEmail string
}

// Identity record of a user at a provider.
type identityRow struct {
	ID       uuid.UUID `bun:"id"`
	UserID   uuid.UUID `bun:"user_id"`
	Issuer   *string   `bun:"issuer"`
	Provider string    `bun:"provider"`
}

// Complete signs in (or links, for PurposeLink with current set) the person a provider
// vouched for. Every refusal is a *Failure and is audited as login_failed.
func (s *Service) Complete(ctx context.Context, p *Provider, id *Identity, meta auditlog.Meta, purpose string, current *models.User) (*Outcome, error) {
	out, err := s.complete(ctx, p, id, meta, purpose, current)
	if f, ok := AsFailure(err); ok {
		s.audit(ctx, failureEvent(p.Name, f, meta))
	}
	return out, err
}

func (s *Service) complete(ctx context.Context, p *Provider, id *Identity, meta auditlog.Meta, purpose string, current *models.User) (*Outcome, error) {
	var out *Outcome
	err := s.DB.InTx(ctx, func(ctx context.Context, tx db.Tx) error {
		row, err := s.identity(ctx, tx, p.Name, id.Subject)
		if err != nil {
			return err
		}
		switch {
		case row != nil:
			out, err = s.returning(ctx, tx, p, id, row, meta, purpose, current)
		case purpose == PurposeLink && current != nil:
			out, err = s.link(ctx, tx, p, id, current, meta)
		default:
			out, err = s.firstSignIn(ctx, tx, p, id, meta)
		}
		return err
	})
	return out, err
}

func (s *Service) identity(ctx context.Context, tx db.Tx, provider, subject string) (*identityRow, error) {
	row := new(identityRow)
	err := tx.NewRaw("SELECT id, user_id, issuer, provider FROM sso_identities WHERE provider = ? AND subject = ? FOR UPDATE",
		provider, subject).Scan(ctx, row)
	if db.IsNoRows(err) {
		return nil, nil
	}
	return row, err
}

// returning signs in the user an identity is linked to.
func (s *Service) returning(ctx context.Context, tx db.Tx, p *Provider, id *Identity, row *identityRow, meta auditlog.Meta, purpose string, current *models.User) (*Outcome, error) {
	if row.Issuer != nil && *row.Issuer != "" && p.Strategy != StrategyOAuth2 && *row.Issuer != id.Issuer {
		return nil, fail(ReasonIssuerMismatch, "This account was connected through another issuer than the provider now reports, so you were not signed in. Contact your administrator.",
			fmt.Errorf("identity issuer %q, token issuer %q", *row.Issuer, id.Issuer))
	}
	u, err := models.UserByID(ctx, tx, row.UserID)
	if err != nil {
		return nil, err
	}
	if purpose == PurposeLink && current != nil && current.ID != u.ID {
		return nil, fail(ReasonIdentityInUse, "This "+p.Label+" account is already connected to another Tally user.", nil)
	}
	if !u.Active() {
		return nil, fail(ReasonSuspended, "Your account has been suspended. Contact your administrator.", nil)
	}
	if err := s.touch(ctx, tx, row.ID, id); err != nil {
		return nil, err
	}
	if err := s.syncRole(ctx, tx, p, u, id.Groups, meta); err != nil {
		return nil, err
	}
	if purpose == PurposeLink {
		return &Outcome{User: u}, nil
	}
	if err := markLogin(ctx, tx, u.ID); err != nil {
		return nil, err
	}
	var data map[string]any
	if p.SecondFactorChecked(id) {
		// Tally asks for no second factor of its own: the log says why.
		data = map[string]any{"second_factor": "provider"}
	}
	return &Outcome{User: u}, auditlog.Record(ctx, tx, auditlog.Event{Type: auditlog.EventLogin, UserID: &u.ID, Provider: p.Name, Meta: meta, Data: data})
}

// link connects a new identity to the signed-in user.
func (s *Service) link(ctx context.Context, tx db.Tx, p *Provider, id *Identity, u *models.User, meta auditlog.Meta) (*Outcome, error) {
	if err := s.insertIdentity(ctx, tx, u.ID, id); err != nil {
		return nil, err
	}
	if err := s.syncRole(ctx, tx, p, u, id.Groups, meta); err != nil {
		return nil, err
	}
	return &Outcome{User: u}, auditlog.Record(ctx, tx, auditlog.Event{Type: auditlog.EventLink, UserID: &u.ID, Provider: p.Name, Meta: meta})
}

// firstSignIn handles an identity seen for the first time: an existing user with its email
// must confirm with their password; otherwise the user is created just in time.
func (s *Service) firstSignIn(ctx context.Context, tx db.Tx, p *Provider, id *Identity, meta auditlog.Meta) (*Outcome, error) {
	if id.Email == "" {
		return nil, fail(ReasonEmailMissing, "The sign-in provider did not share your email address, which Tally needs. Ask your administrator to release the email claim or attribute to Tally.", nil)
	}
	existing, err := models.UserByEmail(ctx, tx, id.Email)
	switch {
	case err == nil:
		if !id.EmailVerified {
			return nil, fail(ReasonEmailUnverified, "Your email address at the sign-in provider is not verified, so it cannot be connected to the Tally account with that address. Verify it there, or sign in with your password and connect the provider from Settings › Security.", nil)
		}
		if !existing.Active() {
			return nil, fail(ReasonSuspended, "Your account has been suspended. Contact your administrator.", nil)
		}
		return &Outcome{PendingEmail: existing.Email}, nil
	case !apperr.Is(err, apperr.NotFound):
		return nil, err
	}
	if out, err := s.acceptInvitation(ctx, tx, p, id, meta); out != nil || err != nil {
		return out, err
	}
	if s.Rules.JITMode == JITLinkOnly {
		return nil, fail(ReasonLinkOnly, "There is no Tally account for "+id.Email+", and new accounts are not created through single sign-on here. Ask your administrator to create your account.", nil)
	}
	if !id.EmailVerified {
		return nil, fail(ReasonEmailUnverified, "Your email address at the sign-in provider is not verified, so no account can be created for it. Verify it there and try again.", nil)
	}
	if !s.domainAllowed(id.Email) {
		return nil, fail(ReasonDomainNotAllowed, "Accounts cannot be created for "+emailDomain(id.Email)+" addresses here. Sign in with an address of your organisation, or ask your administrator.", nil)
	}
	u, err := s.createUser(ctx, tx, p, id)
	if err != nil {
		return nil, err
	}
	if err := s.insertIdentity(ctx, tx, u.ID, id); err != nil {
		return nil, err
	}
	if err := auditlog.Record(ctx, tx, auditlog.Event{Type: auditlog.EventJITAccountCreated, UserID: &u.ID, Provider: p.Name, Meta: meta}); err != nil {
		return nil, err
	}
	if err := s.syncRole(ctx, tx, p, u, id.Groups, meta); err != nil {
		return nil, err
	}
	if err := markLogin(ctx, tx, u.ID); err != nil {
		return nil, err
	}
	return &Outcome{User: u, Created: true}, auditlog.Record(ctx, tx, auditlog.Event{Type: auditlog.EventLogin, UserID: &u.ID, Provider: p.Name, Meta: meta})
}

// createUser makes the user a first sign-in needs, in a family of their own, which they
// administer. The first user of an instance is its super admin.
func (s *Service) createUser(ctx context.Context, tx db.Tx, p *Provider, id *Identity) (*models.User, error) {
	var users int
	if err := tx.NewRaw("SELECT count(*) FROM users").Scan(ctx, &users); err != nil {
		return nil, err
	}
	role := p.DefaultRole
	if role.Rank() < models.RoleAdmin.Rank() {
		role = models.RoleAdmin
	}
	if users == 0 {
		role = models.RoleSuperAdmin
	}
	first, last := names(id)
	familyName := strings.TrimSpace(first + " " + last)
	if familyName == "" {
		familyName = id.Email
	}
	familyName, _ = models.Clip(familyName, models.MaxName-len("'s family"))
	fam, err := models.CreateFamily(ctx, tx, familyName+"'s family", "", "", "UTC")
	if err != nil {
		return nil, err
	}
	u, err := models.CreateUser(ctx, tx, models.NewUser{FamilyID: fam.ID, Email: id.Email, FirstName: first, LastName: last,
		Role: role, FamilyCreator: true})
	if err != nil {
		return nil, err
	}
	return u, nil
}

// names are the identity's first and last names, as far as a name goes: the provider's names
// are taken, never refused.
func names(id *Identity) (first, last string) {
	first, last = id.FirstName, id.LastName
	if first == "" && last == "" {
		first, last, _ = strings.Cut(strings.TrimSpace(id.Name), " ")
	}
	first, _ = models.Clip(strings.TrimSpace(first), models.MaxName)
	last, _ = models.Clip(strings.TrimSpace(last), models.MaxName)
	return first, last
}

// acceptInvitation is the first sign-in of an address a family invited: its user joins that
// family with the invitation's role, rather than getting a family of its own, even where
// sign-ins only reach existing users (an admin asked for this one). The address must be
// verified, as the invitation was sent to it. Nil without a live invitation.
func (s *Service) acceptInvitation(ctx context.Context, tx db.Tx, p *Provider, id *Identity, meta auditlog.Meta) (*Outcome, error) {
	if !id.EmailVerified {
		return nil, nil
	}
	u, ok, err := members.AcceptWithSSO(ctx, tx, id.Email, time.Now(), meta, func(familyID uuid.UUID, role models.Role) (*models.User, error) {
		first, last := names(id)
		return models.CreateUser(ctx, tx, models.NewUser{FamilyID: familyID, Email: id.Email, FirstName: first, LastName: last, Role: role})
	})
	if err != nil || !ok {
		return nil, err
	}
	if err := s.insertIdentity(ctx, tx, u.ID, id); err != nil {
		return nil, err
	}
	if err := auditlog.Record(ctx, tx, auditlog.Event{Type: auditlog.EventJITAccountCreated, UserID: &u.ID, Provider: p.Name, Meta: meta,
		Data: map[string]any{"invited": true}}); err != nil {
		return nil, err
	}
	if err := markLogin(ctx, tx, u.ID); err != nil {
		return nil, err
	}
	return &Outcome{User: u, Created: true}, auditlog.Record(ctx, tx, auditlog.Event{Type: auditlog.EventLogin, UserID: &u.ID, Provider: p.Name, Meta: meta})
}

// ConfirmLink links the identity to the user userID, whose password the caller confirmed
// (auth.Service.ConfirmPassword, under the account's wrong-password limit), and signs them
// in; the identity's email must be the user's, and the user active.
func (s *Service) ConfirmLink(ctx context.Context, p *Provider, id *Identity, userID uuid.UUID, meta auditlog.Meta) (*models.User, error) {
	var out *models.User
	err := s.DB.InTx(ctx, func(ctx context.Context, tx db.Tx) error {
		u, err := models.UserByID(ctx, tx, userID)
		if err != nil {
			return err
		}
		if !u.Active() || u.Email != id.Email {
			return apperr.New(apperr.Invalid, "Invalid email or password.").WithSlug("invalid_credentials")
		}
		if err := s.insertIdentity(ctx, tx, u.ID, id); err != nil {
			return err
		}
		if err := auditlog.Record(ctx, tx, auditlog.Event{Type: auditlog.EventLink, UserID: &u.ID, Provider: p.Name, Meta: meta}); err != nil {
			return err
		}
		if err := s.syncRole(ctx, tx, p, u, id.Groups, meta); err != nil {
			return err
		}
		if err := markLogin(ctx, tx, u.ID); err != nil {
			return err
		}
		out = u
		return auditlog.Record(ctx, tx, auditlog.Event{Type: auditlog.EventLogin, UserID: &u.ID, Provider: p.Name, Meta: meta})
	})
	return out, err
}

func (s *Service) insertIdentity(ctx context.Context, tx db.Tx, userID uuid.UUID, id *Identity) error {
	groups := id.Groups
	if groups == nil {
		groups = []string{}
	}
	_, err := tx.NewRaw(`INSERT INTO sso_identities (id, user_id, provider, subject, issuer, email, name, groups, last_used_at)
		VALUES (?, ?, ?, ?, nullif(?, ''), ?, ?, ?, now())`, uuid.Must(uuid.NewV7()), userID, id.Provider, id.Subject,
		id.Issuer, id.Email, displayName(id), pgdialect.Array(groups)).Exec(ctx)
	if c, ok := apperr.UniqueViolation(err); ok && c == "sso_identities_provider_subject_key" {
		return fail(ReasonIdentityInUse, "This account at the sign-in provider is already connected to a Tally user.", err)
	}
	return err
}

// touch records a use of the identity and what the provider says of the person now.
func (s *Service) touch(ctx context.Context, tx db.Tx, identityID uuid.UUID, id *Identity) error {
	groups := id.Groups
	if groups == nil {
		groups = []string{}
	}
	_, err := tx.NewRaw(`UPDATE sso_identities SET email = ?, name = ?, groups = ?, issuer = coalesce(issuer, nullif(?, '')),
		last_used_at = now(), updated_at = now() WHERE id = ?`, id.Email, displayName(id), pgdialect.Array(groups), id.Issuer, identityID).Exec(ctx)
	return err
}

// syncRole sets the user's role from the provider's group mappings, within the floors, and
// audits a change.
func (s *Service) syncRole(ctx context.Context, tx db.Tx, p *Provider, u *models.User, groups []string, meta auditlog.Meta) error {
	role, ok := MappedRole(p, groups)
	if !ok {
		return nil
	}
	role = withFloors(u, role)
	if role == u.Role {
		return nil
	}
	if _, err := tx.NewRaw("UPDATE users SET role = ?, role_source = 'sso', updated_at = now() WHERE id = ?", role, u.ID).Exec(ctx); err != nil {
		return err
	}
	from := u.Role
	u.Role, u.RoleSource = role, "sso"
	return auditlog.Record(ctx, tx, auditlog.Event{Type: auditlog.EventRoleChanged, UserID: &u.ID, Provider: p.Name, Meta: meta,
		Data: map[string]any{"from": from, "to": role, "groups": groups, "by": "sso"}})
}

func markLogin(ctx context.Context, tx db.Tx, userID uuid.UUID) error {
	_, err := tx.NewRaw("UPDATE users SET last_login_at = now() WHERE id = ?", userID).Exec(ctx)
	return err
}

func (s *Service) domainAllowed(email string) bool {
	if len(s.Rules.AllowedDomains) == 0 {
		return true
	}
	return slices.Contains(s.Rules.AllowedDomains, emailDomain(email))
}

func emailDomain(email string) string {
	at := strings.LastIndexByte(email, '@')
	if at < 0 {
		return ""
	}
	return strings.ToLower(email[at+1:])
}

func displayName(id *Identity) string {
	if id.Name != "" {
		return id.Name
	}
	return strings.TrimSpace(id.FirstName + " " + id.LastName)
}

// failureEvent is the audit entry of a refused sign-in.
func failureEvent(provider string, f *Failure, meta auditlog.Meta) auditlog.Event {
	return auditlog.Event{Type: auditlog.EventLoginFailed, Provider: provider, Meta: meta, Data: map[string]any{"reason": f.Reason}}
}

// RecordFailure audits a sign-in a strategy refused before any rule ran.
func (s *Service) RecordFailure(ctx context.Context, provider string, err error, meta auditlog.Meta) {
	f, ok := AsFailure(err)
	if !ok {
		f = &Failure{Reason: "error"}
	}
	s.audit(ctx, failureEvent(provider, f, meta))
}

// audit writes an event on its own; a failure to write is logged, never hidden.
func (s *Service) audit(ctx context.Context, e auditlog.Event) {
	if err := auditlog.Record(context.WithoutCancel(ctx), s.DB, e); err != nil {
		s.Log.ErrorContext(ctx, "write audit event", "event", e.Type, "error", err.Error())
	}
}

// ParseDomains reads ALLOWED_OIDC_DOMAINS: comma-separated, lower-cased.
func ParseDomains(s string) []string {
	var out []string
	for _, d := range strings.Split(s, ",") {
		if d = strings.ToLower(strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(d), "@"))); d != "" {
			out = append(out, d)
		}
	}
	return out
}
