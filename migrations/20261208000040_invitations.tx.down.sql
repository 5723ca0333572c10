DELETE FROM sso_audit_logs WHERE event_type IN ('invitation_created', 'invitation_accepted', 'invitation_revoked',
    'invitation_expired', 'member_removed');
ALTER TABLE sso_audit_logs DROP CONSTRAINT sso_audit_logs_event_type_check;
ALTER TABLE sso_audit_logs ADD CONSTRAINT sso_audit_logs_event_type_check CHECK (event_type IN ('login', 'login_failed',
    'logout', 'logout_idp', 'link', 'unlink', 'jit_account_created', 'override_login', 'role_changed', 'provider_changed',
    'user_suspended', 'user_reactivated', 'user_deleted',
    'oauth_grant', 'oauth_grant_denied', 'oauth_token_reuse', 'oauth_revoke', 'oauth_client_changed', 'oauth_failed',
    'mfa_enabled', 'mfa_disabled', 'mfa_failed', 'mfa_recovery_code_used', 'mfa_recovery_codes_renewed',
    'webhook_changed', 'bank_consent'));
DROP TABLE invitations;
DELETE FROM users WHERE role = 'viewer';
ALTER TABLE users DROP CONSTRAINT users_role_check;
ALTER TABLE users ADD CONSTRAINT users_role_check CHECK (role IN ('super_admin', 'admin', 'member'));
