package models

import (
	"context"
	"slices"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"tally/internal/apperr"
)

// SignInRules are the instance's rules for signing in, as they stand now.
type SignInRules struct {
	// LocalLogin and AdminOverride are the password sign-in policy (auth.Policy): the form
	// for everyone, or, with local login off, for super admins only.
	LocalLogin, AdminOverride bool
	// Enabled are the names of the SSO providers enabled now, in the registry's order.
	Enabled []string
}

// SignInWays is what a user can sign in with, for deciding whether an identity may go.
type SignInWays struct {
	SignInRules
	HasPassword bool
	Role        Role
	Identities  []IdentitySummary
}

// Connectable returns the names of the enabled providers the user has no identity at.
func (w SignInWays) Connectable() []string {
	var out []string
	for _, name := range w.Enabled {
		if !slices.ContainsFunc(w.Identities, func(id IdentitySummary) bool { return id.Provider == name }) {
			out = append(out, name)
		}
	}
	return out
}

// Refusal returns why the identity id may not be disconnected, or "" when the user keeps
// another way to sign in without it:
//   - another identity at a provider that is enabled now (one at a disabled or removed
//     provider signs no one in), or
//   - a password that the sign-in form accepts from this user: with local login on, or, with
//     it off, through the admin override for a super admin only, as auth.Service.SignIn
//     decides. A password that the form would refuse does not count.
func (w SignInWays) Refusal(id uuid.UUID) string {
	passwordWorks := w.HasPassword && (w.LocalLogin || (w.AdminOverride && w.Role == RoleSuperAdmin))
	if passwordWorks {
		return ""
	}
	others := 0
	for _, other := range w.Identities {
		if other.ID == id {
			continue
		}
		others++
		if slices.Contains(w.Enabled, other.Provider) {
			return ""
		}
	}
	adminOnly := !w.LocalLogin && w.AdminOverride
	msg := "This is your only way to sign in, so it can't be disconnected."
	switch {
	case others > 0:
		msg = "This is your only way to sign in that works now: the providers of your other connected accounts are not available, so it can't be disconnected."
	case w.HasPassword && adminOnly:
		msg = "This is your only way to sign in: on this Tally only super admins may sign in with a password, so yours can't be used instead."
	case w.HasPassword:
		msg = "This is your only way to sign in: password sign-in is turned off on this Tally, so your password can't be used instead."
	}
	if len(w.Connectable()) > 0 {
		return msg + " Connect another provider first, so that you are not locked out of your account."
	}
	return msg + " Ask your administrator for another way to sign in first, so that you are not locked out of your account."
}

// DisconnectIdentity deletes the user's SSO identity id and returns it, unless it is their
// last way to sign in under rules (a Conflict saying why). Another user's identity is
// NotFound. Run it in a transaction: the user's row is locked so that two disconnects at once
// cannot each count the other's identity as the way in that remains, and lock the user out
// together.
func DisconnectIdentity(ctx context.Context, tx bun.IDB, userID, id uuid.UUID, rules SignInRules) (IdentitySummary, error) {
	w := SignInWays{SignInRules: rules}
	var hash *string
	if err := tx.NewRaw("SELECT password_hash, role FROM users WHERE id = ? FOR UPDATE", userID).Scan(ctx, &hash, &w.Role); err != nil {
		return IdentitySummary{}, err
	}
	w.HasPassword = hash != nil
	var err error
	if w.Identities, err = UserIdentities(ctx, tx, userID); err != nil {
		return IdentitySummary{}, err
	}
	i := slices.IndexFunc(w.Identities, func(x IdentitySummary) bool { return x.ID == id })
	if i < 0 {
		return IdentitySummary{}, apperr.New(apperr.NotFound, "This connected account does not exist.")
	}
	if reason := w.Refusal(id); reason != "" {
		return IdentitySummary{}, apperr.New(apperr.Conflict, reason)
	}
	if _, err := tx.NewRaw("DELETE FROM sso_identities WHERE id = ? AND user_id = ?", id, userID).Exec(ctx); err != nil {
		return IdentitySummary{}, err
	}
	return w.Identities[i], nil
}

// SessionSummary is one of a user's signed-in browsers. It never holds the session's token.
type SessionSummary struct {
	IP         string    `bun:"ip_address"`
	UserAgent  string    `bun:"user_agent"`
	CreatedAt  time.Time `bun:"created_at"`
	LastSeenAt time.Time `bun:"last_seen_at"`
	Current    bool      `bun:"current"`
}

// UserSessions returns the user's live sessions, the one of token first, then the most
// recently active.
func UserSessions(ctx context.Context, db bun.IDB, userID uuid.UUID, token string) ([]SessionSummary, error) {
	var out []SessionSummary
	err := db.NewRaw(`SELECT ip_address, user_agent, created_at, last_seen_at, token = ? AS current
		FROM sessions WHERE user_id = ? AND expiry > now() ORDER BY current DESC, last_seen_at DESC`, token, userID).Scan(ctx, &out)
	return out, err
}
