DROP TABLE IF EXISTS import_profiles;
ALTER TABLE imports DROP COLUMN IF EXISTS skipped_rows;
ALTER TABLE imports DROP CONSTRAINT IF EXISTS imports_col_sep_check;
ALTER TABLE imports ADD CONSTRAINT imports_col_sep_check CHECK (col_sep IN (',', ';')) NOT VALID;
ALTER TABLE imports DROP COLUMN IF EXISTS profile_id;
ALTER TABLE imports DROP COLUMN IF EXISTS preset;
ALTER TABLE imports DROP COLUMN IF EXISTS fee_col_label;
