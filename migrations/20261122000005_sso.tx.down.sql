ALTER TABLE users DROP COLUMN IF EXISTS role_source;
DROP TABLE IF EXISTS sso_flows;
DROP TABLE IF EXISTS sso_saml_assertions;
DROP TABLE IF EXISTS sso_audit_logs;
DROP TABLE IF EXISTS sso_identities;
DROP TABLE IF EXISTS sso_providers;
