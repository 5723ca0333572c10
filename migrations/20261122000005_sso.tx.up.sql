-- Single sign-on: providers (when AUTH_PROVIDERS_SOURCE=db), the identities users sign in
-- with, the audit log of authentication events, and the SAML assertions already used.

CREATE TABLE sso_providers (
    id                         uuid PRIMARY KEY,
    strategy                   text NOT NULL CHECK (strategy IN ('openid_connect', 'oauth2', 'saml')),
    name                       text NOT NULL UNIQUE CHECK (name ~ '^[a-z0-9_]+$'),
    label                      text NOT NULL CHECK (label <> ''),
    icon                       text,
    enabled                    boolean NOT NULL DEFAULT true,
    default_role               text NOT NULL DEFAULT 'member' CHECK (default_role IN ('super_admin', 'admin', 'member')),
    -- [{"group": "finance-admins", "role": "admin"}, ...]; groups match case-sensitively.
    group_mappings             jsonb NOT NULL DEFAULT '[]',
    -- SAML and OAuth2 IdPs do not say whether an email is verified: this says whether theirs
    -- are to be trusted for just-in-time creation and linking (OIDC uses email_verified).
    trust_email                boolean NOT NULL DEFAULT false,
    -- OIDC and OAuth2.
    issuer                     text,
    client_id                  text,
    client_secret              text, -- encrypted (internal/secrets)
    scopes                     text[] NOT NULL DEFAULT '{}',
    prompt                     text,
    authorization_url          text,
    token_url                  text,
    userinfo_url               text,
    token_endpoint_auth_method text NOT NULL DEFAULT 'client_secret_post'
        CHECK (token_endpoint_auth_method IN ('client_secret_post', 'client_secret_basic')),
    subject_claim              text,
    email_claim                text,
    name_claim                 text,
    groups_claim               text,
    -- SAML.
    idp_sso_url                text,
    idp_entity_id              text,
    idp_certificate            text,
    idp_metadata_url           text,
    idp_slo_url                text,
    sign_requests              boolean NOT NULL DEFAULT false,
    sp_private_key             text, -- encrypted
    sp_certificate             text,
    groups_attribute           text,
    name_id_format             text,
    created_at                 timestamptz NOT NULL DEFAULT now(),
    updated_at                 timestamptz NOT NULL DEFAULT now()
);

-- An account at an identity provider, linked to a user.
CREATE TABLE sso_identities (
    id            uuid PRIMARY KEY,
    user_id       uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    provider      text NOT NULL, -- the provider's name
    subject       text NOT NULL,
    -- The ID token's issuer, checked on every later OIDC login.
    issuer        text,
    email         text NOT NULL DEFAULT '',
    name          text NOT NULL DEFAULT '',
    groups        text[] NOT NULL DEFAULT '{}',
    last_used_at  timestamptz,
    created_at    timestamptz NOT NULL DEFAULT now(),
    updated_at    timestamptz NOT NULL DEFAULT now(),
    UNIQUE (provider, subject)
);
CREATE INDEX sso_identities_user_id_idx ON sso_identities (user_id);

-- Authentication events. user_id survives the user's deletion as NULL.
CREATE TABLE sso_audit_logs (
    id         uuid PRIMARY KEY,
    event_type text NOT NULL CHECK (event_type IN ('login', 'login_failed', 'logout', 'logout_idp', 'link', 'unlink',
        'jit_account_created', 'override_login', 'role_changed', 'provider_changed', 'user_suspended',
        'user_reactivated', 'user_deleted')),
    user_id    uuid REFERENCES users (id) ON DELETE SET NULL,
    provider   text,
    ip_address text,
    user_agent text,
    metadata   jsonb NOT NULL DEFAULT '{}',
    created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX sso_audit_logs_created_at_idx ON sso_audit_logs (created_at DESC, id);
CREATE INDEX sso_audit_logs_event_type_idx ON sso_audit_logs (event_type, created_at DESC);
CREATE INDEX sso_audit_logs_user_id_idx ON sso_audit_logs (user_id, created_at DESC);

-- SAML assertion ids already accepted, until they expire: a replayed response is refused.
CREATE TABLE sso_saml_assertions (
    id         text PRIMARY KEY,
    expires_at timestamptz NOT NULL
);

-- Sign-ins under way, by their state (the OAuth state or SAML RelayState). A flow is used
-- once; its binding ties it to the browser session that started it. A SAML response arrives
-- as a cross-site POST without the session cookie, so the ACS checks it against the flow here
-- and leaves the identity in result for the browser's next, same-session request.
CREATE TABLE sso_flows (
    state      text PRIMARY KEY,
    flow       jsonb NOT NULL,
    binding    text NOT NULL,
    result     jsonb,
    expires_at timestamptz NOT NULL
);
CREATE INDEX sso_flows_expires_at_idx ON sso_flows (expires_at);

-- Whether a user's role was last set by SSO role sync: a super_admin granted outside SSO is
-- never demoted by it.
ALTER TABLE users ADD COLUMN role_source text NOT NULL DEFAULT 'local' CHECK (role_source IN ('local', 'sso'));
