-- A user's TOTP second factor. The secret is encrypted with internal/secrets; it is not on
-- until the user confirms it with a code (confirmed_at).
CREATE TABLE user_totp (
    user_id      uuid PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
    secret       text NOT NULL,
    confirmed_at timestamptz,
    -- The 30-second step of the last code accepted: no code of it or before is accepted again.
    last_step    bigint NOT NULL DEFAULT 0,
    created_at   timestamptz NOT NULL DEFAULT now()
);

-- One-time recovery codes, stored as SHA-256 of the code (80 random bits each).
CREATE TABLE recovery_codes (
    id         uuid PRIMARY KEY,
    user_id    uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    code_hash  bytea NOT NULL,
    used_at    timestamptz,
    created_at timestamptz NOT NULL DEFAULT now(),
    UNIQUE (user_id, code_hash)
);

ALTER TABLE sso_audit_logs DROP CONSTRAINT sso_audit_logs_event_type_check;
ALTER TABLE sso_audit_logs ADD CONSTRAINT sso_audit_logs_event_type_check CHECK (event_type IN ('login', 'login_failed',
    'logout', 'logout_idp', 'link', 'unlink', 'jit_account_created', 'override_login', 'role_changed', 'provider_changed',
    'user_suspended', 'user_reactivated', 'user_deleted',
    'oauth_grant', 'oauth_grant_denied', 'oauth_token_reuse', 'oauth_revoke', 'oauth_client_changed', 'oauth_failed',
    'mfa_enabled', 'mfa_disabled', 'mfa_failed', 'mfa_recovery_code_used', 'mfa_recovery_codes_renewed'));
