ALTER TABLE imports DROP COLUMN IF EXISTS balance_col_label;
