ALTER TABLE import_rows DROP COLUMN IF EXISTS keep;
ALTER TABLE imports DROP COLUMN IF EXISTS keep_likely_duplicates, DROP COLUMN IF EXISTS likely_duplicate_rows_count;
