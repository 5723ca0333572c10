-- Bank presets and saved profiles: how a file was read (a bank's known export, or a mapping a
-- person saved for one account), a fee column, and the rows a preset left out on purpose
-- (a bank's balance lines, reverted card payments).
ALTER TABLE imports ADD COLUMN fee_col_label text;
ALTER TABLE imports ADD COLUMN preset text;
ALTER TABLE imports ADD COLUMN profile_id uuid;
ALTER TABLE imports ADD COLUMN skipped_rows integer NOT NULL DEFAULT 0;

-- Tab- and pipe-separated files are read since the import wizard; the first schema only let
-- a comma or a semicolon be stored.
ALTER TABLE imports DROP CONSTRAINT imports_col_sep_check;
ALTER TABLE imports ADD CONSTRAINT imports_col_sep_check CHECK (col_sep IN (',', ';', E'\t', '|'));

-- A mapping saved for one account: the next file into that account whose header is the same
-- (compared normalized, in order) is read with it.
CREATE TABLE import_profiles (
    id           uuid PRIMARY KEY,
    family_id    uuid NOT NULL REFERENCES families (id) ON DELETE CASCADE,
    account_id   uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    name         text NOT NULL,
    headers      text[] NOT NULL,
    settings     jsonb NOT NULL,
    created_at   timestamptz NOT NULL DEFAULT now(),
    updated_at   timestamptz NOT NULL DEFAULT now(),
    last_used_at timestamptz
);
CREATE UNIQUE INDEX import_profiles_account_headers_idx ON import_profiles (account_id, headers);
CREATE INDEX import_profiles_family_idx ON import_profiles (family_id);
