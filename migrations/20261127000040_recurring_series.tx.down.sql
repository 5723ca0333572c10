DROP FUNCTION recurring_key(uuid, text);
DROP INDEX recurring_transactions_family_status_idx;
ALTER TABLE recurring_transactions DROP CONSTRAINT recurring_transactions_status_check,
    DROP COLUMN interval, DROP COLUMN category_id, DROP COLUMN confidence, DROP COLUMN match_key,
    DROP COLUMN last_amount, DROP COLUMN tolerance;
DELETE FROM recurring_transactions WHERE status = 'proposed';
UPDATE recurring_transactions SET status = CASE status WHEN 'ignored' THEN 'inactive' ELSE 'active' END;
ALTER TABLE recurring_transactions ALTER COLUMN status SET DEFAULT 'active',
    ADD CONSTRAINT recurring_transactions_status_check CHECK (status IN ('active', 'inactive'));
