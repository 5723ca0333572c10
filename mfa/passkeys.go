package mfa

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"strings"
	"time"

	"github.com/go-webauthn/webauthn/protocol"
	"github.com/go-webauthn/webauthn/webauthn"
	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"tally/internal/apperr"
	"tally/internal/db"
)

// MethodPasskey is a sign-in or a second factor by passkey.
const MethodPasskey = "passkey"

// NewWebAuthn is the relying party of appURL: its host is the RP ID, its origin the only one
// accepted.
func NewWebAuthn(appURL string) (*webauthn.WebAuthn, error) {
	u, err := url.Parse(appURL)
	if err != nil || u.Hostname() == "" {
		return nil, fmt.Errorf("APP_URL %q has no host for passkeys", appURL)
	}
	return webauthn.New(&webauthn.Config{RPID: u.Hostname(), RPDisplayName: Issuer, RPOrigins: []string{u.Scheme + "://" + u.Host}})
}

// Passkey is one of a user's passkeys, as the settings list them.
type Passkey struct {
	ID         uuid.UUID  `bun:"id"`
	Name       string     `bun:"name"`
	CreatedAt  time.Time  `bun:"created_at"`
	LastUsedAt *time.Time `bun:"last_used_at"`
	// Synced is true for a passkey its provider backs up (iCloud Keychain, Google Password
	// Manager, 1Password): it works on the user's other devices too.
	Synced bool `bun:"synced"`
}

// Passkeys lists the user's passkeys, the oldest first.
func (s *Service) Passkeys(ctx context.Context, userID uuid.UUID) ([]Passkey, error) {
	var out []Passkey
	err := s.DB.NewRaw(`SELECT id, name, created_at, last_used_at, coalesce((credential->'flags'->>'backupState')::boolean, false) AS synced
		FROM passkeys WHERE user_id = ? ORDER BY created_at, id`, userID).Scan(ctx, &out)
	return out, err
}

// webauthnUser is a user as go-webauthn sees them: the handle is the user's id.
type webauthnUser struct {
	id          uuid.UUID
	name        string
	credentials []webauthn.Credential
}

func (u *webauthnUser) WebAuthnID() []byte                         { return u.id[:] }
func (u *webauthnUser) WebAuthnName() string                       { return u.name }
func (u *webauthnUser) WebAuthnDisplayName() string                { return u.name }
func (u *webauthnUser) WebAuthnCredentials() []webauthn.Credential { return u.credentials }

// loadUser is the user with their passkeys' credentials.
func (s *Service) loadUser(ctx context.Context, idb bun.IDB, userID uuid.UUID) (*webauthnUser, error) {
	u := &webauthnUser{id: userID}
	if err := idb.NewRaw("SELECT email FROM users WHERE id = ? AND status = 'active'", userID).Scan(ctx, &u.name); err != nil {
		if db.IsNoRows(err) {
			return nil, passkeyRefused("This passkey belongs to no active account.")
		}
		return nil, err
	}
	var raws []json.RawMessage
	if err := idb.NewRaw("SELECT credential FROM passkeys WHERE user_id = ? ORDER BY created_at", userID).Scan(ctx, &raws); err != nil && !db.IsNoRows(err) {
		return nil, err
	}
	for _, raw := range raws {
		var c webauthn.Credential
		if err := json.Unmarshal(raw, &c); err != nil {
			return nil, fmt.Errorf("stored passkey: %w", err)
		}
		u.credentials = append(u.credentials, c)
	}
	return u, nil
}

func passkeyRefused(msg string) error {
	return apperr.New(apperr.Invalid, msg).WithSlug("passkey_refused")
}

// PasskeysEnabled reports whether this Tally can use passkeys: APP_URL names it by a domain.
func (s *Service) PasskeysEnabled() bool { return s.WebAuthn != nil }

// errPasskeysOff is the answer to any passkey request while passkeys are off.
var errPasskeysOff = apperr.New(apperr.Conflict, "Passkeys are off on this Tally: its address (APP_URL) must be a domain name such as tally.example.com, not an IP address.").WithSlug("passkeys_off")

// BeginPasskeyRegistration starts adding a passkey for the user: the options for the browser,
// and the ceremony's state to keep until FinishPasskeyRegistration. The passkey is
// discoverable (it signs in without an email) and verifies its user.
func (s *Service) BeginPasskeyRegistration(ctx context.Context, userID uuid.UUID) (*protocol.CredentialCreation, *webauthn.SessionData, error) {
	if !s.PasskeysEnabled() {
		return nil, nil, errPasskeysOff
	}
	u, err := s.loadUser(ctx, s.DB, userID)
	if err != nil {
		return nil, nil, err
	}
	var exclude []protocol.CredentialDescriptor
	for _, c := range u.credentials {
		exclude = append(exclude, c.Descriptor())
	}
	return s.WebAuthn.BeginRegistration(u,
		webauthn.WithAuthenticatorSelection(protocol.AuthenticatorSelection{
			ResidentKey: protocol.ResidentKeyRequirementRequired, RequireResidentKey: protocol.ResidentKeyRequired(),
			UserVerification: protocol.VerificationRequired}),
		webauthn.WithExclusions(exclude))
}

// FinishPasskeyRegistration verifies the browser's answer (body) and keeps the passkey as name.
func (s *Service) FinishPasskeyRegistration(ctx context.Context, userID uuid.UUID, session webauthn.SessionData, name string, body io.Reader) (*Passkey, error) {
	if !s.PasskeysEnabled() {
		return nil, errPasskeysOff
	}
	name = strings.TrimSpace(name)
	if name == "" {
		name = "Passkey"
	}
	if len(name) > 100 {
		return nil, apperr.New(apperr.Invalid, "A passkey's name is at most 100 characters.")
	}
	parsed, err := protocol.ParseCredentialCreationResponseBody(body)
	if err != nil {
		return nil, passkeyRefused("The browser's answer is not a passkey: " + protocolMessage(err))
	}
	u, err := s.loadUser(ctx, s.DB, userID)
	if err != nil {
		return nil, err
	}
	cred, err := s.WebAuthn.CreateCredential(u, session, parsed)
	if err != nil {
		return nil, passkeyRefused("The passkey was not accepted: " + protocolMessage(err))
	}
	raw, err := json.Marshal(cred)
	if err != nil {
		return nil, err
	}
	p := &Passkey{ID: uuid.Must(uuid.NewV7()), Name: name, CreatedAt: time.Now(), Synced: cred.Flags.BackupState}
	if _, err := s.DB.NewRaw("INSERT INTO passkeys (id, user_id, credential_id, credential, name) VALUES (?, ?, ?, ?, ?)",
		p.ID, userID, cred.ID, string(raw), name).Exec(ctx); err != nil {
		if _, ok := apperr.UniqueViolation(err); ok {
			return nil, apperr.New(apperr.Conflict, "This passkey is added already.")
		}
		return nil, err
	}
	return p, nil
}

// BeginPasskeyLogin starts a passkey sign-in: of anyone (a discoverable passkey names its
// user) when userID is nil, else of that user, as their second factor after a password.
func (s *Service) BeginPasskeyLogin(ctx context.Context, userID *uuid.UUID) (*protocol.CredentialAssertion, *webauthn.SessionData, error) {
	if !s.PasskeysEnabled() {
		return nil, nil, errPasskeysOff
	}
	if userID == nil {
		return s.WebAuthn.BeginDiscoverableLogin(webauthn.WithUserVerification(protocol.VerificationRequired))
	}
	u, err := s.loadUser(ctx, s.DB, *userID)
	if err != nil {
		return nil, nil, err
	}
	if len(u.credentials) == 0 {
		return nil, nil, passkeyRefused("You have no passkey: use a code from your app.")
	}
	return s.WebAuthn.BeginLogin(u, webauthn.WithUserVerification(protocol.VerificationRequired))
}

// FinishPasskeyLogin verifies the browser's answer and returns whose passkey signed in.
//
// A passkey whose sign counter went backwards may be a copy of it; but a synced passkey
// (backed up by its provider) counts on each device apart, or not at all, so its counter
// says nothing and is not held against it.
func (s *Service) FinishPasskeyLogin(ctx context.Context, session webauthn.SessionData, userID *uuid.UUID, body io.Reader) (uuid.UUID, error) {
	if !s.PasskeysEnabled() {
		return uuid.Nil, errPasskeysOff
	}
	parsed, err := protocol.ParseCredentialRequestResponseBody(body)
	if err != nil {
		return uuid.Nil, passkeyRefused("The browser's answer is not a passkey sign-in: " + protocolMessage(err))
	}
	var (
		user *webauthnUser
		cred *webauthn.Credential
	)
	// An error of the database while go-webauthn looks the user up is ours, not the passkey's:
	// it is kept apart, since the library would wrap it into a refusal.
	var lookupErr error
	if userID == nil {
		var found webauthn.User
		found, cred, err = s.WebAuthn.ValidatePasskeyLogin(func(_, handle []byte) (webauthn.User, error) {
			id, err := uuid.FromBytes(handle)
			if err != nil {
				return nil, passkeyRefused("This passkey is not one of Tally's.")
			}
			u, err := s.loadUser(ctx, s.DB, id)
			if err != nil && apperr.As(err) == nil {
				lookupErr = err
			}
			return u, err
		}, session, parsed)
		if lookupErr != nil {
			return uuid.Nil, lookupErr
		}
		if u, ok := found.(*webauthnUser); ok {
			user = u
		}
	} else {
		user, err = s.loadUser(ctx, s.DB, *userID)
		if err == nil {
			cred, err = s.WebAuthn.ValidateLogin(user, session, parsed)
		}
	}
	if err != nil {
		if apperr.As(err) != nil && apperr.As(err).Code != apperr.Internal {
			return uuid.Nil, err
		}
		return uuid.Nil, passkeyRefused("The passkey was not accepted: " + protocolMessage(err))
	}
	if cred.Authenticator.CloneWarning && !cred.Flags.BackupEligible {
		return uuid.Nil, passkeyRefused("This passkey's counter went backwards, as a copy's would: it was refused. Sign in another way, then remove it and add it again.")
	}
	raw, err := json.Marshal(cred)
	if err != nil {
		return uuid.Nil, err
	}
	// Two sign-ins at once must not move the stored counter back: the higher one stays.
	if _, err := s.DB.NewRaw(`UPDATE passkeys SET last_used_at = now(),
			credential = CASE WHEN coalesce((credential->'authenticator'->>'signCount')::bigint, 0) <= ? THEN ?::jsonb ELSE credential END
		WHERE user_id = ? AND credential_id = ?`,
		cred.Authenticator.SignCount, string(raw), user.id, cred.ID).Exec(ctx); err != nil {
		return uuid.Nil, err
	}
	return user.id, nil
}

// RemovePasskey deletes one of the user's passkeys; another user's is not found.
func (s *Service) RemovePasskey(ctx context.Context, idb bun.IDB, userID, id uuid.UUID) (string, error) {
	var name string
	err := idb.NewRaw("DELETE FROM passkeys WHERE id = ? AND user_id = ? RETURNING name", id, userID).Scan(ctx, &name)
	if db.IsNoRows(err) {
		return "", apperr.New(apperr.NotFound, "Passkey not found")
	}
	return name, err
}

// protocolMessage is what go-webauthn says went wrong, for a person.
func protocolMessage(err error) string {
	var pe *protocol.Error
	if errors.As(err, &pe) {
		if pe.Details != "" {
			return pe.Details
		}
		return pe.Type
	}
	return "it could not be read"
}
