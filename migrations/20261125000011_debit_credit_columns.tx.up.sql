-- Files with a column for money out and one for money in, instead of a signed amount.
ALTER TABLE imports ADD COLUMN debit_col_label text;
ALTER TABLE imports ADD COLUMN credit_col_label text;
