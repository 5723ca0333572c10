ALTER TABLE imports DROP COLUMN IF EXISTS credit_col_label;
ALTER TABLE imports DROP COLUMN IF EXISTS debit_col_label;
