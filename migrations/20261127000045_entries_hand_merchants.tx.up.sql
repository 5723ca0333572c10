-- A publish gives each bank text first the merchant a person chose by hand for a transaction
-- with the same text (imports' deriveMerchants, "merchants chosen by hand"). Without an index
-- on those few entries it read every one of the family's transactions with a merchant, which
-- after a few imports is all of them, on every publish. The predicate is the query's own, so
-- that the planner can use the index; a publish's own entries have no locked fields and never
-- enter it.
CREATE INDEX entries_hand_merchant_idx ON entries (family_id, (coalesce(original_name, name)), date DESC, updated_at DESC)
    INCLUDE (merchant_id)
    WHERE kind = 'transaction' AND merchant_id IS NOT NULL AND 'merchant' = ANY (locked_fields);
