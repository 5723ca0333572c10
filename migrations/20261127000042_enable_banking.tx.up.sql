-- European bank sync through Enable Banking, beside SimpleFIN: a connection names its provider;
-- an Enable Banking connection holds a session id (encrypted, like an access URL) and the
-- consent's end. The pending authorisations are rows of their own, found by the callback's
-- state alone, so that an approval finished in another browser or on a phone completes.

ALTER TABLE bank_connections
    ADD COLUMN provider text NOT NULL DEFAULT 'simplefin' CHECK (provider IN ('simplefin', 'enable_banking')),
    ALTER COLUMN access_url DROP NOT NULL,
    -- The provider's session id, encrypted (internal/secrets), never shown.
    ADD COLUMN session_id text,
    -- The bank (ASPSP) the session is with: its name and country, as the provider names them.
    ADD COLUMN aspsp_name text,
    ADD COLUMN aspsp_country text,
    ADD COLUMN consent_expires_at timestamptz,
    -- The last consent notice mailed for the current consent: 7 or 1 (days before its end).
    ADD COLUMN consent_notice_days integer;

ALTER TABLE bank_connections DROP CONSTRAINT bank_connections_status_check;
ALTER TABLE bank_connections ADD CONSTRAINT bank_connections_status_check
    CHECK (status IN ('good', 'needs_token', 'needs_renewal'));
ALTER TABLE bank_connections ADD CONSTRAINT bank_connections_credentials_check
    CHECK (CASE provider WHEN 'simplefin' THEN access_url IS NOT NULL ELSE session_id IS NOT NULL END);
CREATE INDEX bank_connections_consent_idx ON bank_connections (consent_expires_at) WHERE consent_expires_at IS NOT NULL;

-- The account's IBAN, when the provider gives one: it preselects the account a statement
-- import already knows by it. account_key names the account across sessions (Enable Banking's
-- identification_hash, else the IBAN): a renewed session's new uids are matched by it.
ALTER TABLE bank_accounts ADD COLUMN iban text, ADD COLUMN account_key text;

CREATE TABLE bank_authorizations (
    id              uuid PRIMARY KEY,
    family_id       uuid NOT NULL REFERENCES families (id) ON DELETE CASCADE,
    user_id         uuid REFERENCES users (id) ON DELETE SET NULL,
    -- SHA-256 of the state sent to the provider: single use, unguessable, 30 minutes.
    state_hash      text NOT NULL UNIQUE,
    aspsp_name      text NOT NULL,
    aspsp_country   text NOT NULL,
    history_days    integer NOT NULL CHECK (history_days BETWEEN 1 AND 730),
    -- The bank approves in its own app: the page waits for the session instead of sending
    -- the person there.
    decoupled       boolean NOT NULL DEFAULT false,
    authorization_url text NOT NULL,
    -- A renewal's connection, or the connection the authorisation made.
    connection_id   uuid REFERENCES bank_connections (id) ON DELETE CASCADE,
    renewal         boolean NOT NULL DEFAULT false,
    expires_at      timestamptz NOT NULL,
    used_at         timestamptz,
    -- Why the bank or the provider refused it, for the page that waits.
    error           text,
    created_at      timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX bank_authorizations_family_idx ON bank_authorizations (family_id);

-- Each country's list of banks, as the provider gave it, kept for a day.
CREATE TABLE bank_aspsps (
    country    text PRIMARY KEY,
    aspsps     jsonb NOT NULL,
    fetched_at timestamptz NOT NULL
);
