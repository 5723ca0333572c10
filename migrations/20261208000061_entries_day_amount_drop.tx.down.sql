CREATE INDEX entries_account_day_amount_idx ON entries (account_id, date, amount);
