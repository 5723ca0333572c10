DROP TABLE idempotency_keys;
DROP INDEX entries_account_date_idx;
CREATE INDEX entries_account_date_idx ON entries (account_id, date DESC, id);
DROP INDEX entries_family_date_idx;
CREATE INDEX entries_family_date_idx ON entries (family_id, date DESC, id);
