-- Imports: an uploaded file, its parsed rows and the mappings of its names to family records.

CREATE TABLE imports (
    id                               uuid PRIMARY KEY,
    family_id                        uuid NOT NULL REFERENCES families (id) ON DELETE CASCADE,
    user_id                          uuid REFERENCES users (id) ON DELETE SET NULL,
    type                             text NOT NULL CHECK (type IN (
        'TransactionImport', 'TradeImport', 'AccountImport', 'ExternalAppAImport', 'ExternalAppBImport',
        'ExternalAppCImport', 'CategoryImport', 'RuleImport', 'MerchantImport', 'PdfImport', 'QifImport',
        'NativeImport')),
    status                           text NOT NULL DEFAULT 'pending' CHECK (status IN (
        'pending', 'importing', 'complete', 'failed', 'reverting', 'revert_failed')),
    account_id                       uuid REFERENCES accounts (id) ON DELETE SET NULL,
    error                            text,
    -- Configuration, as the caller sent it (NULL when not sent).
    date_col_label                   text,
    amount_col_label                 text,
    name_col_label                   text,
    category_col_label               text,
    tags_col_label                   text,
    notes_col_label                  text,
    account_col_label                text,
    entity_type_col_label            text,
    currency_col_label               text,
    qty_col_label                    text,
    ticker_col_label                 text,
    price_col_label                  text,
    exchange_operating_mic_col_label text,
    date_format                      text,
    number_format                    text NOT NULL DEFAULT '1,234.56',
    signage_convention               text NOT NULL DEFAULT 'inflows_positive' CHECK (signage_convention IN ('inflows_positive', 'inflows_negative')),
    col_sep                          text NOT NULL DEFAULT ',' CHECK (col_sep IN (',', ';')),
    amount_type_strategy             text NOT NULL DEFAULT 'signed_amount' CHECK (amount_type_strategy IN ('signed_amount', 'custom_column')),
    amount_type_inflow_value         text,
    rows_to_skip                     integer NOT NULL DEFAULT 0 CHECK (rows_to_skip >= 0),
    -- The uploaded file, byte for byte, and how it was read.
    content                          bytea,
    filename                         text,
    content_type                     text,
    encoding                         text,
    byte_size                        integer NOT NULL DEFAULT 0,
    rows_count                       integer NOT NULL DEFAULT 0,
    valid_rows_count                 integer NOT NULL DEFAULT 0,
    duplicate_rows_count             integer NOT NULL DEFAULT 0,
    job_id                           bigint,
    status_changed_at                timestamptz NOT NULL DEFAULT now(),
    created_at                       timestamptz NOT NULL DEFAULT now(),
    updated_at                       timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX imports_family_created_idx ON imports (family_id, created_at DESC, id);
CREATE INDEX imports_running_idx ON imports (status) WHERE status IN ('importing', 'reverting');

-- Progress of a running publish or revert. It is written outside the job's transaction, which
-- holds the import's row lock, so it lives in a table of its own.
CREATE TABLE import_progress (
    import_id  uuid PRIMARY KEY REFERENCES imports (id) ON DELETE CASCADE,
    done       integer NOT NULL,
    total      integer NOT NULL,
    updated_at timestamptz NOT NULL DEFAULT now()
);

-- One row per data row of the file: the raw cells for diagnostics, every problem found, and
-- the typed values publish writes (set when the row is valid).
CREATE TABLE import_rows (
    import_id   uuid NOT NULL REFERENCES imports (id) ON DELETE CASCADE,
    row_number  integer NOT NULL,
    line        integer NOT NULL,
    raw         text[] NOT NULL,
    errors      text[] NOT NULL DEFAULT '{}',
    -- The id of the record the row creates (entry, account, ...), fixed when the row is made so
    -- that publish can link what it writes without a lookup.
    record_id   uuid NOT NULL,
    date        date,
    amount      numeric(19, 4),
    currency    text,
    name        text,
    notes       text,
    account_key text,
    category_key text,
    tags        text[],
    entity_type text,
    ticker      text,
    mic         text,
    qty         numeric(24, 8),
    price       numeric(24, 8),
    extra       jsonb,
    duplicate   boolean NOT NULL DEFAULT false,
    PRIMARY KEY (import_id, row_number)
);

-- A name in the file (an account, a category, a tag, an account type) and the family record it
-- stands for: an existing one matched by exact name, or one publish creates.
CREATE TABLE import_mappings (
    id                uuid PRIMARY KEY,
    import_id         uuid NOT NULL REFERENCES imports (id) ON DELETE CASCADE,
    kind              text NOT NULL CHECK (kind IN ('account', 'category', 'tag', 'account_type')),
    key               text NOT NULL,
    target_id         uuid,
    value             text,
    create_when_empty boolean NOT NULL DEFAULT false,
    -- The target was created by this import's publish (and is removed by its revert).
    created           boolean NOT NULL DEFAULT false,
    UNIQUE (import_id, kind, key)
);

ALTER TABLE accounts ADD FOREIGN KEY (import_id) REFERENCES imports (id) ON DELETE SET NULL;
ALTER TABLE categories ADD FOREIGN KEY (import_id) REFERENCES imports (id) ON DELETE SET NULL;
ALTER TABLE tags ADD FOREIGN KEY (import_id) REFERENCES imports (id) ON DELETE SET NULL;
ALTER TABLE merchants ADD FOREIGN KEY (import_id) REFERENCES imports (id) ON DELETE SET NULL;
ALTER TABLE rules ADD FOREIGN KEY (import_id) REFERENCES imports (id) ON DELETE SET NULL;
CREATE INDEX categories_import_id_idx ON categories (import_id) WHERE import_id IS NOT NULL;
CREATE INDEX tags_import_id_idx ON tags (import_id) WHERE import_id IS NOT NULL;
CREATE INDEX merchants_import_id_idx ON merchants (import_id) WHERE import_id IS NOT NULL;
CREATE INDEX rules_import_id_idx ON rules (import_id) WHERE import_id IS NOT NULL;
