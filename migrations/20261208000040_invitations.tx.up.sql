-- A household of several adults: a viewer role, and invitations into a family. An invitation's
-- link is stored only as the SHA-256 of its token (models.HashSecret), as password resets are.
ALTER TABLE users DROP CONSTRAINT users_role_check;
ALTER TABLE users ADD CONSTRAINT users_role_check CHECK (role IN ('super_admin', 'admin', 'member', 'viewer'));

CREATE TABLE invitations (
    id          uuid PRIMARY KEY,
    family_id   uuid NOT NULL REFERENCES families (id) ON DELETE CASCADE,
    email       text NOT NULL CHECK (email <> ''),
    role        text NOT NULL CHECK (role IN ('admin', 'member', 'viewer')),
    token_hash  text NOT NULL UNIQUE,
    invited_by  uuid REFERENCES users (id) ON DELETE SET NULL,
    status      text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'accepted', 'revoked', 'expired')),
    expires_at  timestamptz NOT NULL,
    accepted_by uuid REFERENCES users (id) ON DELETE SET NULL,
    created_at  timestamptz NOT NULL DEFAULT now(),
    updated_at  timestamptz NOT NULL DEFAULT now()
);
-- One pending invitation per address and family: inviting again is resending.
CREATE UNIQUE INDEX invitations_pending_email_key ON invitations (family_id, email) WHERE status = 'pending';
-- Single sign-on looks an address's pending invitation up at its first sign-in.
CREATE INDEX invitations_pending_by_email_idx ON invitations (email) WHERE status = 'pending';
CREATE INDEX invitations_invited_by_idx ON invitations (invited_by);
CREATE INDEX invitations_accepted_by_idx ON invitations (accepted_by);

-- Invitations created, accepted, revoked and expired, and members removed from a family, are
-- audited.
ALTER TABLE sso_audit_logs DROP CONSTRAINT sso_audit_logs_event_type_check;
ALTER TABLE sso_audit_logs ADD CONSTRAINT sso_audit_logs_event_type_check CHECK (event_type IN ('login', 'login_failed',
    'logout', 'logout_idp', 'link', 'unlink', 'jit_account_created', 'override_login', 'role_changed', 'provider_changed',
    'user_suspended', 'user_reactivated', 'user_deleted',
    'oauth_grant', 'oauth_grant_denied', 'oauth_token_reuse', 'oauth_revoke', 'oauth_client_changed', 'oauth_failed',
    'mfa_enabled', 'mfa_disabled', 'mfa_failed', 'mfa_recovery_code_used', 'mfa_recovery_codes_renewed',
    'webhook_changed', 'bank_consent',
    'invitation_created', 'invitation_accepted', 'invitation_revoked', 'invitation_expired', 'member_removed'));
