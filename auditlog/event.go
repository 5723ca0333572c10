package auditlog

import (
	"context"
	"encoding/json"

	"github.com/google/uuid"
	"github.com/uptrace/bun"
)

// The audit event catalogue: every event type any package writes, grouped by the package that
// writes it. A package with a new event declares it here, so that the log, its filter and its
// page know every event without importing the packages that write them.
const (
	// Sign-in and the users' accounts (sso, auth, the admin pages).
	EventLogin             = "login"
	EventLoginFailed       = "login_failed"
	EventLogout            = "logout"
	EventLogoutIdP         = "logout_idp"
	EventLink              = "link"
	EventUnlink            = "unlink"
	EventJITAccountCreated = "jit_account_created"
	EventOverrideLogin     = "override_login"
	EventRoleChanged       = "role_changed"
	EventProviderChanged   = "provider_changed"
	EventUserSuspended     = "user_suspended"
	EventUserReactivated   = "user_reactivated"
	EventUserDeleted       = "user_deleted"

	// Tally as an OAuth authorization server (oauth).
	EventOAuthGrant         = "oauth_grant"
	EventOAuthGrantDenied   = "oauth_grant_denied"
	EventOAuthTokenReuse    = "oauth_token_reuse"
	EventOAuthRevoke        = "oauth_revoke"
	EventOAuthClientChanged = "oauth_client_changed"
	EventOAuthFailed        = "oauth_failed"

	// Second factors (mfa).
	EventMFAEnabled         = "mfa_enabled"
	EventMFADisabled        = "mfa_disabled"
	EventMFAFailed          = "mfa_failed"
	EventMFARecoveryUsed    = "mfa_recovery_code_used"
	EventMFARecoveryRenewed = "mfa_recovery_codes_renewed"

	// A family's webhook endpoint created, updated, given a new secret or deleted (webhooks;
	// the action is in the event's data).
	EventWebhookChanged = "webhook_changed"

	// A bank's consent completed into a family at the Enable Banking callback, with who
	// finished it (the signed-in user, or none) and from where (banksync).
	EventBankConsent = "bank_consent"

	// A household's members (members): invitations created, accepted, revoked and expired,
	// and a member removed by a family admin (a role change is EventRoleChanged).
	EventInvitationCreated  = "invitation_created"
	EventInvitationAccepted = "invitation_accepted"
	EventInvitationRevoked  = "invitation_revoked"
	EventInvitationExpired  = "invitation_expired"
	EventMemberRemoved      = "member_removed"
)

// Meta is who made a request: recorded with every audit event.
type Meta struct {
	IP        string
	UserAgent string
}

// Event is one audit log entry to write.
type Event struct {
	Type     string
	UserID   *uuid.UUID
	Provider string
	Meta     Meta
	Data     map[string]any
}

// maxUserAgent bounds what a client's user agent may take in the log.
const maxUserAgent = 500

// Record writes an audit event in the caller's transaction (or alone with a plain IDB), so
// that it commits exactly when what it records does.
func Record(ctx context.Context, idb bun.IDB, e Event) error {
	data := e.Data
	if data == nil {
		data = map[string]any{}
	}
	meta, err := json.Marshal(data)
	if err != nil {
		return err
	}
	ua := e.Meta.UserAgent
	if len(ua) > maxUserAgent {
		ua = ua[:maxUserAgent]
	}
	_, err = idb.NewRaw(`INSERT INTO sso_audit_logs (id, event_type, user_id, provider, ip_address, user_agent, metadata)
		VALUES (?, ?, ?, nullif(?, ''), nullif(?, ''), nullif(?, ''), ?)`,
		uuid.Must(uuid.NewV7()), e.Type, e.UserID, e.Provider, e.Meta.IP, ua, string(meta)).Exec(ctx)
	return err
}
