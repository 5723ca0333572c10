-- Bank sync through a SimpleFIN-protocol provider: a connection per claimed access URL, the
-- provider's accounts under it, each linked to a Tally account (or skipped).

CREATE TABLE bank_connections (
    id              uuid PRIMARY KEY,
    family_id       uuid NOT NULL REFERENCES families (id) ON DELETE CASCADE,
    name            text NOT NULL DEFAULT 'SimpleFIN connection',
    -- The access URL holds Basic credentials: stored encrypted (internal/secrets), never shown.
    access_url      text NOT NULL,
    status          text NOT NULL DEFAULT 'good' CHECK (status IN ('good', 'needs_token')),
    include_pending boolean NOT NULL DEFAULT false,
    -- The protocol version the provider's GET /info offered at connect: 2, else 1.
    protocol        smallint NOT NULL DEFAULT 1 CHECK (protocol IN (1, 2)),
    -- How far back the first sync reaches, in days.
    history_days    integer NOT NULL DEFAULT 90 CHECK (history_days BETWEEN 1 AND 730),
    -- The daily sync's hour and minute, UTC.
    sync_minute     integer NOT NULL DEFAULT 360 CHECK (sync_minute BETWEEN 0 AND 1439),
    last_synced_at  timestamptz,
    last_attempt_at timestamptz,
    -- After a 429 the provider is left alone until then.
    paused_until    timestamptz,
    last_error      text,
    -- Requests made to the provider on requests_on (UTC), against the daily budget.
    requests_on     date,
    requests_today  integer NOT NULL DEFAULT 0,
    last_stats      jsonb NOT NULL DEFAULT '{}',
    created_at      timestamptz NOT NULL DEFAULT now(),
    updated_at      timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX bank_connections_family_id_idx ON bank_connections (family_id);

CREATE TABLE bank_accounts (
    id                  uuid PRIMARY KEY,
    connection_id       uuid NOT NULL REFERENCES bank_connections (id) ON DELETE CASCADE,
    family_id           uuid NOT NULL REFERENCES families (id) ON DELETE CASCADE,
    provider_account_id text NOT NULL,
    name                text NOT NULL DEFAULT '',
    currency            text NOT NULL DEFAULT 'USD',
    balance             numeric(19, 4),
    available_balance   numeric(19, 4),
    balance_date        timestamptz,
    institution         text NOT NULL DEFAULT '',
    -- The Tally account its data goes to; NULL until linked (or when skipped).
    account_id          uuid UNIQUE REFERENCES accounts (id) ON DELETE SET NULL,
    skipped             boolean NOT NULL DEFAULT false,
    -- The provider's error for this account at the last sync, if any.
    error               text,
    created_at          timestamptz NOT NULL DEFAULT now(),
    updated_at          timestamptz NOT NULL DEFAULT now(),
    UNIQUE (connection_id, provider_account_id)
);
CREATE INDEX bank_accounts_family_id_idx ON bank_accounts (family_id);
