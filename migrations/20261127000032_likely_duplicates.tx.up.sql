-- A row of a file with the date and amount of a transaction its account already has, but
-- another name or none, is a likely duplicate: publishing skips it unless a person keeps it,
-- the row alone (import_rows.keep) or all of the import's (keep_likely_duplicates).
ALTER TABLE imports
    ADD COLUMN keep_likely_duplicates boolean NOT NULL DEFAULT false,
    ADD COLUMN likely_duplicate_rows_count integer NOT NULL DEFAULT 0;
ALTER TABLE import_rows ADD COLUMN keep boolean NOT NULL DEFAULT false;
