-- NativeImport: verification, import sessions and the records an import reuses or makes itself.

ALTER TABLE imports
    -- Per-entity record counts of the file, captured at upload (NativeImport).
    ADD COLUMN expected_record_counts jsonb,
    -- The readback after publish; NULL until then ("not_verified").
    ADD COLUMN readback jsonb,
    -- What publish did, per entity: created, merged, synthesized and skipped counts.
    ADD COLUMN summary jsonb,
    -- Preflight findings kept with the upload, so that pages can show why it cannot publish.
    ADD COLUMN problems jsonb,
    ADD COLUMN warnings jsonb,
    -- Import sessions: an import whose file arrives as numbered chunks.
    ADD COLUMN session boolean NOT NULL DEFAULT false,
    ADD COLUMN client_session_id text CHECK (length(client_session_id) <= 255),
    ADD COLUMN expected_chunks integer CHECK (expected_chunks > 0),
    -- PdfImport: what the statement says about itself (balances, period, reconciliation).
    ADD COLUMN statement jsonb;
CREATE UNIQUE INDEX imports_client_session_key ON imports (family_id, client_session_id)
    WHERE client_session_id IS NOT NULL;

-- The chunks of an import session, in sequence order. The content is kept byte for byte; its
-- SHA-256 makes a retried upload idempotent.
CREATE TABLE import_chunks (
    import_id       uuid NOT NULL REFERENCES imports (id) ON DELETE CASCADE,
    sequence        integer NOT NULL CHECK (sequence > 0),
    client_chunk_id text CHECK (length(client_chunk_id) <= 255),
    sha256          bytea NOT NULL,
    content         bytea NOT NULL,
    byte_size       integer NOT NULL,
    rows_count      integer NOT NULL DEFAULT 0,
    valid_rows_count integer NOT NULL DEFAULT 0,
    record_counts   jsonb NOT NULL DEFAULT '{}',
    status          text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'importing', 'complete', 'failed')),
    error           jsonb,
    summary         jsonb,
    created_at      timestamptz NOT NULL DEFAULT now(),
    updated_at      timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (import_id, sequence),
    UNIQUE (import_id, client_chunk_id)
);

-- Records a NativeImport did not create from a line of its file but answers for: existing
-- records it merged a line into (a category of the same name), and records it made itself (an
-- opening balance, a category a rule names). Readback counts the first and reports the second
-- apart; revert removes what the import made and never what it merged into.
CREATE TABLE import_links (
    import_id uuid NOT NULL REFERENCES imports (id) ON DELETE CASCADE,
    entity    text NOT NULL,
    record_id uuid NOT NULL,
    role      text NOT NULL CHECK (role IN ('merged', 'synthesized')),
    PRIMARY KEY (import_id, entity, record_id)
);

CREATE INDEX balances_import_id_idx ON balances (import_id) WHERE import_id IS NOT NULL;
CREATE INDEX holdings_import_id_idx ON holdings (import_id) WHERE import_id IS NOT NULL;
CREATE INDEX budgets_import_id_idx ON budgets (import_id) WHERE import_id IS NOT NULL;
CREATE INDEX budget_categories_import_id_idx ON budget_categories (import_id) WHERE import_id IS NOT NULL;
CREATE INDEX recurring_transactions_import_id_idx ON recurring_transactions (import_id) WHERE import_id IS NOT NULL;
CREATE INDEX transfers_import_id_idx ON transfers (import_id) WHERE import_id IS NOT NULL;
CREATE INDEX rejected_transfers_import_id_idx ON rejected_transfers (import_id) WHERE import_id IS NOT NULL;
