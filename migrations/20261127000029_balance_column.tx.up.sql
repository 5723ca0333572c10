-- A transaction file's running-balance column, read only when a person maps it: its balances
-- become checkpoints of the account.
ALTER TABLE imports ADD COLUMN balance_col_label text;
