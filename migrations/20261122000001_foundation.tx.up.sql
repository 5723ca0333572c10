-- The whole domain model of Tally. Later migrations add behaviour, not redesigns.
-- Money is numeric(19,4); entry amounts are signed with positive = outflow.

CREATE TABLE families (
    id          uuid PRIMARY KEY,
    name        text NOT NULL CHECK (name <> ''),
    currency    text NOT NULL DEFAULT 'USD' CHECK (currency ~ '^[A-Z]{3}$'),
    locale      text NOT NULL DEFAULT 'en',
    date_format text NOT NULL DEFAULT '%Y-%m-%d',
    timezone    text NOT NULL DEFAULT 'UTC',
    created_at  timestamptz NOT NULL DEFAULT now(),
    updated_at  timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE users (
    id                uuid PRIMARY KEY,
    family_id         uuid NOT NULL REFERENCES families (id) ON DELETE CASCADE,
    email             text NOT NULL CHECK (email = lower(email) AND email LIKE '%_@_%'),
    password_hash     text,
    first_name        text NOT NULL DEFAULT '',
    last_name         text NOT NULL DEFAULT '',
    role              text NOT NULL DEFAULT 'member' CHECK (role IN ('super_admin', 'admin', 'member')),
    status            text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'suspended')),
    -- The family's creator stays at least admin of it, whatever SSO role sync says.
    family_creator    boolean NOT NULL DEFAULT false,
    last_login_at     timestamptz,
    suspended_at      timestamptz,
    created_at        timestamptz NOT NULL DEFAULT now(),
    updated_at        timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX users_email_key ON users (email);
CREATE INDEX users_family_id_idx ON users (family_id);

-- Server-side sessions for scs. user_id is filled from the session data on commit, so that all
-- of a user's sessions can be revoked with one statement.
CREATE TABLE sessions (
    token        text PRIMARY KEY,
    data         bytea NOT NULL,
    expiry       timestamptz NOT NULL,
    user_id      uuid REFERENCES users (id) ON DELETE CASCADE,
    ip_address   text NOT NULL DEFAULT '',
    user_agent   text NOT NULL DEFAULT '',
    created_at   timestamptz NOT NULL DEFAULT now(),
    last_seen_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX sessions_expiry_idx ON sessions (expiry);
CREATE INDEX sessions_user_id_idx ON sessions (user_id) WHERE user_id IS NOT NULL;

CREATE TABLE password_resets (
    id          uuid PRIMARY KEY,
    user_id     uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    token_hash  text NOT NULL UNIQUE,
    expires_at  timestamptz NOT NULL,
    used_at     timestamptz,
    created_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX password_resets_user_id_idx ON password_resets (user_id);

CREATE TABLE api_keys (
    id           uuid PRIMARY KEY,
    user_id      uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    name         text NOT NULL CHECK (name <> ''),
    -- The first characters of the key, shown so that a person can tell keys apart.
    prefix       text NOT NULL,
    -- SHA-256 of the whole key, hex. The key itself is shown once and never stored.
    key_hash     text NOT NULL UNIQUE,
    scope        text NOT NULL CHECK (scope IN ('read', 'read_write')),
    last_used_at timestamptz,
    expires_at   timestamptz,
    revoked_at   timestamptz,
    created_at   timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX api_keys_user_id_idx ON api_keys (user_id);
CREATE UNIQUE INDEX api_keys_active_name_key ON api_keys (user_id, name) WHERE revoked_at IS NULL;

-- Fixed-window counters shared by every instance.
CREATE TABLE rate_limits (
    key          text NOT NULL,
    window_start timestamptz NOT NULL,
    count        integer NOT NULL,
    PRIMARY KEY (key, window_start)
);

CREATE TABLE accounts (
    id                 uuid PRIMARY KEY,
    family_id          uuid NOT NULL REFERENCES families (id) ON DELETE CASCADE,
    name               text NOT NULL CHECK (name <> ''),
    accountable_type   text NOT NULL CHECK (accountable_type IN (
        'Depository', 'CreditCard', 'Investment', 'Crypto', 'Property', 'Vehicle', 'Loan',
        'OtherAsset', 'OtherLiability')),
    subtype            text NOT NULL DEFAULT '',
    currency           text NOT NULL CHECK (currency ~ '^[A-Z]{3}$'),
    balance            numeric(19, 4) NOT NULL DEFAULT 0,
    cash_balance       numeric(19, 4) NOT NULL DEFAULT 0,
    status             text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'disabled', 'draft')),
    institution_name   text NOT NULL DEFAULT '',
    institution_domain text NOT NULL DEFAULT '',
    notes              text NOT NULL DEFAULT '',
    locked_attributes  jsonb NOT NULL DEFAULT '{}',
    import_id          uuid,
    external_id        text,
    source             text,
    created_at         timestamptz NOT NULL DEFAULT now(),
    updated_at         timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX accounts_family_id_idx ON accounts (family_id, accountable_type, name);
-- Lets entries and holdings reference (account, family) together, so that a record's family is
-- always its account's.
CREATE UNIQUE INDEX accounts_id_family_key ON accounts (id, family_id);
CREATE INDEX accounts_import_id_idx ON accounts (import_id) WHERE import_id IS NOT NULL;

CREATE TABLE categories (
    id             uuid PRIMARY KEY,
    family_id      uuid NOT NULL REFERENCES families (id) ON DELETE CASCADE,
    parent_id      uuid REFERENCES categories (id) ON DELETE SET NULL,
    name           text NOT NULL CHECK (name <> ''),
    color          text NOT NULL DEFAULT '#737373',
    lucide_icon    text NOT NULL DEFAULT 'shapes',
    classification text NOT NULL DEFAULT 'expense' CHECK (classification IN ('income', 'expense')),
    import_id      uuid,
    created_at     timestamptz NOT NULL DEFAULT now(),
    updated_at     timestamptz NOT NULL DEFAULT now(),
    UNIQUE (family_id, name)
);

CREATE TABLE tags (
    id         uuid PRIMARY KEY,
    family_id  uuid NOT NULL REFERENCES families (id) ON DELETE CASCADE,
    name       text NOT NULL CHECK (name <> ''),
    color      text NOT NULL DEFAULT '#e99537',
    import_id  uuid,
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now(),
    UNIQUE (family_id, name)
);

CREATE TABLE merchants (
    id          uuid PRIMARY KEY,
    family_id   uuid NOT NULL REFERENCES families (id) ON DELETE CASCADE,
    name        text NOT NULL CHECK (name <> ''),
    color       text NOT NULL DEFAULT '',
    logo_url    text NOT NULL DEFAULT '',
    website_url text NOT NULL DEFAULT '',
    import_id   uuid,
    created_at  timestamptz NOT NULL DEFAULT now(),
    updated_at  timestamptz NOT NULL DEFAULT now(),
    UNIQUE (family_id, name)
);

-- Securities are reference data shared by every family (a ticker is the same everywhere).
CREATE TABLE securities (
    id                     uuid PRIMARY KEY,
    ticker                 text NOT NULL CHECK (ticker = upper(ticker) AND ticker <> ''),
    name                   text NOT NULL DEFAULT '',
    exchange_operating_mic text,
    exchange_mic           text,
    exchange_acronym       text,
    country_code           text,
    kind                   text NOT NULL DEFAULT 'standard',
    website_url            text,
    created_at             timestamptz NOT NULL DEFAULT now(),
    updated_at             timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX securities_ticker_mic_key ON securities (ticker, coalesce(exchange_operating_mic, ''));

-- Entries are the ledger: one row per transaction, trade or valuation. Transaction details
-- live on the entry itself (the common case, and the one imports write in bulk); trades and
-- valuations keep their extra fields in tables of their own keyed by the entry.
CREATE TABLE entries (
    id               uuid PRIMARY KEY,
    family_id        uuid NOT NULL,
    account_id       uuid NOT NULL,
    kind             text NOT NULL CHECK (kind IN ('transaction', 'trade', 'valuation')),
    date             date NOT NULL,
    amount           numeric(19, 4) NOT NULL,
    currency         text NOT NULL CHECK (currency ~ '^[A-Z]{3}$'),
    name             text NOT NULL DEFAULT '',
    notes            text NOT NULL DEFAULT '',
    excluded         boolean NOT NULL DEFAULT false,
    -- Transaction fields (NULL or default for trades and valuations).
    category_id      uuid REFERENCES categories (id) ON DELETE SET NULL,
    merchant_id      uuid REFERENCES merchants (id) ON DELETE SET NULL,
    -- The entry's tags. An array rather than a join table: bulk writes (imports, bank sync)
    -- write a transaction and its tags in one row, with no per-tag foreign-key check; deleting
    -- a tag removes it from the arrays (models.DeleteTag).
    tag_ids          uuid[] NOT NULL DEFAULT '{}',
    transaction_kind text NOT NULL DEFAULT 'standard' CHECK (transaction_kind IN (
        'standard', 'funds_movement', 'cc_payment', 'loan_payment', 'one_time', 'investment_contribution')),
    pending          boolean NOT NULL DEFAULT false,
    -- A split entry's parts point at it.
    parent_id        uuid REFERENCES entries (id) ON DELETE CASCADE,
    -- Provenance: the import that created the entry, and a stable id from its source. The
    -- import is not a foreign key: only its own publish and revert write these rows, and an
    -- import with entries cannot be deleted.
    import_id        uuid,
    external_id      text,
    source           text,
    created_at       timestamptz NOT NULL DEFAULT now(),
    updated_at       timestamptz NOT NULL DEFAULT now(),
    -- One check for both: the account exists and belongs to the entry's family.
    FOREIGN KEY (account_id, family_id) REFERENCES accounts (id, family_id) ON DELETE CASCADE
);
CREATE INDEX entries_account_date_idx ON entries (account_id, date DESC, id);
CREATE INDEX entries_family_date_idx ON entries (family_id, date DESC, id);
CREATE INDEX entries_import_id_idx ON entries (import_id) WHERE import_id IS NOT NULL;
-- The parent's cascade looks its parts up: without this, deleting entries is quadratic.
CREATE INDEX entries_parent_id_idx ON entries (parent_id) WHERE parent_id IS NOT NULL;
CREATE INDEX entries_tag_ids_idx ON entries USING gin (tag_ids) WHERE tag_ids <> '{}';
CREATE UNIQUE INDEX entries_source_external_id_key ON entries (account_id, source, external_id)
    WHERE external_id IS NOT NULL AND source IS NOT NULL;

CREATE TABLE trades (
    entry_id    uuid PRIMARY KEY REFERENCES entries (id) ON DELETE CASCADE,
    security_id uuid NOT NULL REFERENCES securities (id),
    qty         numeric(24, 8) NOT NULL,
    price       numeric(24, 8) NOT NULL,
    fee         numeric(19, 4) NOT NULL DEFAULT 0,
    currency    text NOT NULL
);
CREATE INDEX trades_security_id_idx ON trades (security_id);

CREATE TABLE valuations (
    entry_id uuid PRIMARY KEY REFERENCES entries (id) ON DELETE CASCADE,
    kind     text NOT NULL DEFAULT 'reconciliation' CHECK (kind IN ('reconciliation', 'opening_anchor', 'current_anchor'))
);

CREATE TABLE holdings (
    id                uuid PRIMARY KEY,
    family_id         uuid NOT NULL REFERENCES families (id) ON DELETE CASCADE,
    account_id        uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    security_id       uuid NOT NULL REFERENCES securities (id),
    date              date NOT NULL,
    qty               numeric(24, 8) NOT NULL,
    price             numeric(24, 8) NOT NULL,
    amount            numeric(19, 4) NOT NULL,
    currency          text NOT NULL,
    cost_basis        numeric(19, 4),
    cost_basis_source text CHECK (cost_basis_source IN ('manual', 'calculated', 'provider')),
    cost_basis_locked boolean NOT NULL DEFAULT false,
    security_locked   boolean NOT NULL DEFAULT false,
    import_id         uuid,
    external_id       text,
    source            text,
    created_at        timestamptz NOT NULL DEFAULT now(),
    updated_at        timestamptz NOT NULL DEFAULT now(),
    UNIQUE (account_id, security_id, date, currency)
);

-- Daily balance history of an account, with the flows that explain it.
CREATE TABLE balances (
    id                     uuid PRIMARY KEY,
    family_id              uuid NOT NULL REFERENCES families (id) ON DELETE CASCADE,
    account_id             uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    date                   date NOT NULL,
    currency               text NOT NULL,
    balance                numeric(19, 4) NOT NULL,
    cash_balance           numeric(19, 4) NOT NULL DEFAULT 0,
    start_cash_balance     numeric(19, 4) NOT NULL DEFAULT 0,
    start_non_cash_balance numeric(19, 4) NOT NULL DEFAULT 0,
    cash_inflows           numeric(19, 4) NOT NULL DEFAULT 0,
    cash_outflows          numeric(19, 4) NOT NULL DEFAULT 0,
    non_cash_inflows       numeric(19, 4) NOT NULL DEFAULT 0,
    non_cash_outflows      numeric(19, 4) NOT NULL DEFAULT 0,
    net_market_flows       numeric(19, 4) NOT NULL DEFAULT 0,
    cash_adjustments       numeric(19, 4) NOT NULL DEFAULT 0,
    non_cash_adjustments   numeric(19, 4) NOT NULL DEFAULT 0,
    flows_factor           smallint NOT NULL DEFAULT 1 CHECK (flows_factor IN (-1, 1)),
    import_id              uuid,
    created_at             timestamptz NOT NULL DEFAULT now(),
    updated_at             timestamptz NOT NULL DEFAULT now(),
    UNIQUE (account_id, date, currency)
);

CREATE TABLE rules (
    id             uuid PRIMARY KEY,
    family_id      uuid NOT NULL REFERENCES families (id) ON DELETE CASCADE,
    name           text NOT NULL DEFAULT '',
    resource_type  text NOT NULL DEFAULT 'transaction' CHECK (resource_type = 'transaction'),
    active         boolean NOT NULL DEFAULT false,
    effective_date date,
    conditions     jsonb NOT NULL DEFAULT '[]',
    actions        jsonb NOT NULL DEFAULT '[]',
    import_id      uuid,
    created_at     timestamptz NOT NULL DEFAULT now(),
    updated_at     timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX rules_family_id_idx ON rules (family_id);

CREATE TABLE budgets (
    id                uuid PRIMARY KEY,
    family_id         uuid NOT NULL REFERENCES families (id) ON DELETE CASCADE,
    start_date        date NOT NULL,
    end_date          date NOT NULL CHECK (end_date >= start_date),
    budgeted_spending numeric(19, 4),
    expected_income   numeric(19, 4),
    currency          text NOT NULL,
    import_id         uuid,
    created_at        timestamptz NOT NULL DEFAULT now(),
    updated_at        timestamptz NOT NULL DEFAULT now(),
    UNIQUE (family_id, start_date, end_date)
);

CREATE TABLE budget_categories (
    id                uuid PRIMARY KEY,
    family_id         uuid NOT NULL REFERENCES families (id) ON DELETE CASCADE,
    budget_id         uuid NOT NULL REFERENCES budgets (id) ON DELETE CASCADE,
    category_id       uuid NOT NULL REFERENCES categories (id) ON DELETE CASCADE,
    budgeted_spending numeric(19, 4) NOT NULL DEFAULT 0,
    currency          text NOT NULL,
    import_id         uuid,
    created_at        timestamptz NOT NULL DEFAULT now(),
    updated_at        timestamptz NOT NULL DEFAULT now(),
    UNIQUE (budget_id, category_id)
);

CREATE TABLE recurring_transactions (
    id                    uuid PRIMARY KEY,
    family_id             uuid NOT NULL REFERENCES families (id) ON DELETE CASCADE,
    account_id            uuid REFERENCES accounts (id) ON DELETE CASCADE,
    merchant_id           uuid REFERENCES merchants (id) ON DELETE SET NULL,
    name                  text NOT NULL DEFAULT '',
    amount                numeric(19, 4) NOT NULL,
    currency              text NOT NULL,
    expected_day_of_month smallint NOT NULL CHECK (expected_day_of_month BETWEEN 1 AND 31),
    last_occurrence_date  date NOT NULL,
    next_expected_date    date NOT NULL,
    status                text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'inactive')),
    occurrence_count      integer NOT NULL DEFAULT 0,
    manual                boolean NOT NULL DEFAULT false,
    expected_amount_min   numeric(19, 4),
    expected_amount_max   numeric(19, 4),
    expected_amount_avg   numeric(19, 4),
    import_id             uuid,
    created_at            timestamptz NOT NULL DEFAULT now(),
    updated_at            timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX recurring_transactions_family_id_idx ON recurring_transactions (family_id);

CREATE TABLE transfers (
    id                uuid PRIMARY KEY,
    family_id         uuid NOT NULL REFERENCES families (id) ON DELETE CASCADE,
    inflow_entry_id   uuid NOT NULL REFERENCES entries (id) ON DELETE CASCADE,
    outflow_entry_id  uuid NOT NULL REFERENCES entries (id) ON DELETE CASCADE,
    status            text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'confirmed')),
    notes             text NOT NULL DEFAULT '',
    import_id         uuid,
    created_at        timestamptz NOT NULL DEFAULT now(),
    updated_at        timestamptz NOT NULL DEFAULT now(),
    UNIQUE (inflow_entry_id, outflow_entry_id),
    CHECK (inflow_entry_id <> outflow_entry_id)
);
CREATE INDEX transfers_outflow_entry_id_idx ON transfers (outflow_entry_id);

-- Pairs the user said are not transfers, so that matching does not propose them again.
CREATE TABLE rejected_transfers (
    id               uuid PRIMARY KEY,
    family_id        uuid NOT NULL REFERENCES families (id) ON DELETE CASCADE,
    inflow_entry_id  uuid NOT NULL REFERENCES entries (id) ON DELETE CASCADE,
    outflow_entry_id uuid NOT NULL REFERENCES entries (id) ON DELETE CASCADE,
    import_id        uuid,
    created_at       timestamptz NOT NULL DEFAULT now(),
    UNIQUE (inflow_entry_id, outflow_entry_id)
);
CREATE INDEX rejected_transfers_outflow_entry_id_idx ON rejected_transfers (outflow_entry_id);
