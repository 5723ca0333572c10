ALTER TABLE transaction_changes DROP COLUMN account_ids;
