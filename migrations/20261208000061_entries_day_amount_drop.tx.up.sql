-- The duplicate check of an upload and a publish probes, for each distinct day, amount and
-- currency of its rows, the entries that can match. entries_transfer_match_idx (family, amount,
-- date) answers that probe as exactly as entries_account_day_amount_idx did (the family's few
-- transactions of that day and amount, of which the account's are kept), and the recurring
-- detection's look-alikes without a merchant are read through it too. The index it replaces
-- was written on every row of every publish for nothing else.
DROP INDEX entries_account_day_amount_idx;
