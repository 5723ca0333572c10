-- entries_merchant_idx carried the family of each entry for the recurring detection's read of a
-- merchant's look-alikes (recurring.DetectNew), but a merchant is one family's: the detection
-- reads the merchants of the family's own new transactions, so their entries need no check of
-- the family. Every publish writes the index, and each column it carries is paid for on every
-- row; the others are what the detection reads and filters on, and stay, so that the read is
-- still an index-only scan.
DROP INDEX entries_merchant_idx;
CREATE INDEX entries_merchant_idx ON entries (merchant_id, amount, date)
    INCLUDE (id, account_id, currency, category_id, kind, transaction_kind, parent_id, excluded, pending)
    WHERE merchant_id IS NOT NULL;
