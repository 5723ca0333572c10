DROP INDEX entries_merchant_idx;
CREATE INDEX entries_merchant_idx ON entries (merchant_id, amount, date)
    INCLUDE (family_id, id, account_id, currency, category_id, kind, transaction_kind, parent_id, excluded, pending)
    WHERE merchant_id IS NOT NULL;
