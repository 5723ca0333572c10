-- Tally as an OAuth 2.0 authorization server for API clients (ory/fosite on this storage).

CREATE TABLE oauth_clients (
    -- The client_id: random, public.
    id             text PRIMARY KEY,
    name           text NOT NULL CHECK (name <> ''),
    -- bcrypt of a confidential client's secret (shown once); NULL for public clients.
    secret_hash    text,
    redirect_uris  text[] NOT NULL DEFAULT '{}',
    grant_types    text[] NOT NULL DEFAULT '{authorization_code,refresh_token}',
    scopes         text[] NOT NULL DEFAULT '{read,read_write}',
    -- The user a confidential client's client_credentials tokens act for.
    owner_user_id  uuid REFERENCES users (id) ON DELETE CASCADE,
    -- admin (created at /oauth/applications) or dynamic (POST /register).
    registered_via text NOT NULL DEFAULT 'admin' CHECK (registered_via IN ('admin', 'dynamic')),
    created_at     timestamptz NOT NULL DEFAULT now(),
    updated_at     timestamptz NOT NULL DEFAULT now(),
    CHECK (secret_hash IS NOT NULL OR owner_user_id IS NULL OR NOT ('client_credentials' = ANY (grant_types)))
);

-- Authorization codes, PKCE challenges, access and refresh tokens. Only their signatures
-- (HMAC-SHA-512/256 of the token) are stored: a row cannot be turned back into a token.
CREATE TABLE oauth_tokens (
    kind             text NOT NULL CHECK (kind IN ('code', 'pkce', 'access', 'refresh')),
    signature        text NOT NULL,
    -- The grant: kept by every refresh, so one grant's tokens can be revoked together.
    request_id       text NOT NULL,
    client_id        text NOT NULL REFERENCES oauth_clients (id) ON DELETE CASCADE,
    user_id          uuid REFERENCES users (id) ON DELETE CASCADE,
    active           boolean NOT NULL DEFAULT true,
    requested_at     timestamptz NOT NULL,
    expires_at       timestamptz,
    requested_scopes text[] NOT NULL DEFAULT '{}',
    granted_scopes   text[] NOT NULL DEFAULT '{}',
    -- The request's form (without secrets) and fosite session, to rebuild the request.
    form             jsonb NOT NULL DEFAULT '{}',
    session          jsonb NOT NULL DEFAULT '{}',
    created_at       timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (kind, signature)
);
CREATE INDEX oauth_tokens_request_id_idx ON oauth_tokens (request_id);
CREATE INDEX oauth_tokens_user_id_idx ON oauth_tokens (user_id, client_id);
CREATE INDEX oauth_tokens_expires_at_idx ON oauth_tokens (expires_at);

ALTER TABLE sso_audit_logs DROP CONSTRAINT sso_audit_logs_event_type_check;
ALTER TABLE sso_audit_logs ADD CONSTRAINT sso_audit_logs_event_type_check CHECK (event_type IN ('login', 'login_failed',
    'logout', 'logout_idp', 'link', 'unlink', 'jit_account_created', 'override_login', 'role_changed', 'provider_changed',
    'user_suspended', 'user_reactivated', 'user_deleted',
    'oauth_grant', 'oauth_grant_denied', 'oauth_token_reuse', 'oauth_revoke', 'oauth_client_changed', 'oauth_failed'));
