-- The recurring detection after an import reads, for each new transaction, its merchant's
-- earlier transactions of about its amount: some 13,000 rows for an import of 1,000 in a
-- family of 500,000, nearly each on its own heap page. entries_merchant_idx now carries what
-- that read filters on and returns, so that it is an index-only scan for the rows vacuum has
-- marked visible (all but the newest). It keeps its name, its key and its predicate: the
-- merchant filter and search read it as before, and entries keep the same number of indexes
-- to maintain on the bulk paths.
DROP INDEX entries_merchant_idx;
CREATE INDEX entries_merchant_idx ON entries (merchant_id, amount, date)
    INCLUDE (family_id, id, account_id, currency, category_id, kind, transaction_kind, parent_id, excluded, pending)
    WHERE merchant_id IS NOT NULL;
