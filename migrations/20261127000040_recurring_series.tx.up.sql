-- Recurring series found in the history (recurring.Detect) live beside those Sure exports
-- bring. A series is proposed by detection, then confirmed or ignored by a person; an ignored
-- one stays, so that detection never proposes it again. Sure's active/inactive become
-- confirmed/ignored: a Sure family saw and kept them.
ALTER TABLE recurring_transactions DROP CONSTRAINT recurring_transactions_status_check;
UPDATE recurring_transactions SET status = CASE status WHEN 'inactive' THEN 'ignored' ELSE 'confirmed' END;
ALTER TABLE recurring_transactions
    ALTER COLUMN status SET DEFAULT 'proposed',
    ADD CONSTRAINT recurring_transactions_status_check CHECK (status IN ('proposed', 'confirmed', 'ignored')),
    -- Sure knows only a day of the month.
    ADD COLUMN interval text NOT NULL DEFAULT 'monthly'
        CHECK (interval IN ('weekly', 'biweekly', 'monthly', 'monthly_last_working_day', 'quarterly', 'yearly')),
    ADD COLUMN category_id uuid REFERENCES categories (id) ON DELETE SET NULL,
    -- How sure detection is, from 0 to 1; a series a person confirmed or imported is 1.
    ADD COLUMN confidence numeric(3, 2) NOT NULL DEFAULT 1 CHECK (confidence BETWEEN 0 AND 1),
    -- The group detection found the series in: 'm:<merchant id>' or 'n:<normalised name>',
    -- with its account and direction; null for a series that came from a file.
    ADD COLUMN match_key text,
    ADD COLUMN last_amount numeric(19, 4),
    -- The share by which a payment may differ from amount and still be one of the series:
    -- 0.02 for a fixed amount, 0.10 for utilities.
    ADD COLUMN tolerance numeric(4, 3) NOT NULL DEFAULT 0.02 CHECK (tolerance >= 0 AND tolerance < 1);
-- The series a family's pages, bills and forecasts read: the family's, by status.
CREATE INDEX recurring_transactions_family_status_idx ON recurring_transactions (family_id, status, next_expected_date);

-- recurring_key is the group a transaction belongs to for detection, and by which a series
-- knows its payments: its merchant, or without one its name folded to its letters (no dates,
-- numbers or references), so that "Salary 11/2026" and "SALARY 12/2026" are one. NULL when
-- nothing is left of the name.
CREATE FUNCTION recurring_key(merchant_id uuid, name text) RETURNS text
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    RETURN CASE WHEN merchant_id IS NOT NULL THEN 'm:' || merchant_id::text
        ELSE 'n:' || nullif(btrim(regexp_replace(search_fold(name), '[^[:alpha:]]+', ' ', 'g')), '') END;
