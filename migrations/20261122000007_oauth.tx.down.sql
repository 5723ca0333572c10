DELETE FROM sso_audit_logs WHERE event_type LIKE 'oauth\_%';
ALTER TABLE sso_audit_logs DROP CONSTRAINT sso_audit_logs_event_type_check;
ALTER TABLE sso_audit_logs ADD CONSTRAINT sso_audit_logs_event_type_check CHECK (event_type IN ('login', 'login_failed',
    'logout', 'logout_idp', 'link', 'unlink', 'jit_account_created', 'override_login', 'role_changed', 'provider_changed',
    'user_suspended', 'user_reactivated', 'user_deleted'));
DROP TABLE IF EXISTS oauth_tokens;
DROP TABLE IF EXISTS oauth_clients;
