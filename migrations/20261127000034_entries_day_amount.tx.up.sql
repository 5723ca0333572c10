-- The duplicate check of an upload and a publish probes, for each row, its account's entries of
-- the row's day with the row's amount. By account and day alone, a busy account (or a file
-- already imported once) makes every probe read each entry of that day, so that a 100,000-row
-- upload for review ran past the request's time; with the amount in the key a probe reads the
-- few entries that can match.
CREATE INDEX entries_account_day_amount_idx ON entries (account_id, date, amount);
