-- A merchant's transactions of about one amount are read through entries_merchant_idx: the
-- recurring detection after an import probes, for each new transaction, the earlier ones of
-- its merchant within the tolerance of its amount, rather than all of them, and leaves those
-- dated before the window it reads in the index rather than fetching them. The index keeps
-- its name and its leading column, so the merchant filter and search use it as before, and
-- entries keep the same number of indexes to maintain on the bulk paths.
DROP INDEX entries_merchant_idx;
CREATE INDEX entries_merchant_idx ON entries (merchant_id, amount, date) WHERE merchant_id IS NOT NULL;
