DROP INDEX entries_merchant_idx;
CREATE INDEX entries_merchant_idx ON entries (merchant_id, amount, date) WHERE merchant_id IS NOT NULL;
