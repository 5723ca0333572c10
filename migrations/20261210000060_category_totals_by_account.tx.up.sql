-- category_month_totals keep each account's part apart (issue 44): a member who may not see
-- some private accounts reads the family's budget from the totals of the accounts they see,
-- by the same index, instead of reading the hidden accounts' entries to take them out again
-- (which grew with those accounts' history: about a second for five years of 400,000 rows).
-- The trigger's rule is unchanged; its rows are grouped by account too. An import or a sync
-- writes one account at a time, so a statement makes as many rows as before.
DROP TRIGGER entries_category_totals_insert ON entries;
DROP TRIGGER entries_category_totals_update ON entries;
DROP TRIGGER entries_category_totals_delete ON entries;

CREATE OR REPLACE FUNCTION entries_category_totals() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        INSERT INTO category_month_totals AS t (family_id, account_id, category_id, currency, month, outflow, inflow)
        SELECT family_id, account_id, category_id, currency, month, sum(outflow), sum(inflow) FROM (
            SELECT family_id, account_id, coalesce(category_id, '00000000-0000-0000-0000-000000000000') AS category_id, currency,
                date_trunc('month', date)::date AS month,
                CASE WHEN amount > 0 THEN amount ELSE 0 END AS outflow, CASE WHEN amount <= 0 THEN amount ELSE 0 END AS inflow
            FROM new_rows WHERE kind = 'transaction' AND NOT split AND NOT excluded
                AND transaction_kind NOT IN ('funds_movement', 'cc_payment', 'loan_payment', 'investment_contribution')
        ) c
        GROUP BY 1, 2, 3, 4, 5
        -- A family being deleted takes its totals with it (migration 038), whichever runs first.
        HAVING (sum(outflow) <> 0 OR sum(inflow) <> 0) AND EXISTS (SELECT 1 FROM families f WHERE f.id = c.family_id)
        ORDER BY 1, 2, 3, 4, 5
        ON CONFLICT (family_id, category_id, currency, month, account_id)
            DO UPDATE SET outflow = t.outflow + EXCLUDED.outflow, inflow = t.inflow + EXCLUDED.inflow;
    ELSIF TG_OP = 'DELETE' THEN
        INSERT INTO category_month_totals AS t (family_id, account_id, category_id, currency, month, outflow, inflow)
        SELECT family_id, account_id, category_id, currency, month, sum(outflow), sum(inflow) FROM (
            SELECT family_id, account_id, coalesce(category_id, '00000000-0000-0000-0000-000000000000') AS category_id, currency,
                date_trunc('month', date)::date AS month,
                CASE WHEN amount > 0 THEN -amount ELSE 0 END AS outflow, CASE WHEN amount <= 0 THEN -amount ELSE 0 END AS inflow
            FROM old_rows WHERE kind = 'transaction' AND NOT split AND NOT excluded
                AND transaction_kind NOT IN ('funds_movement', 'cc_payment', 'loan_payment', 'investment_contribution')
        ) c
        GROUP BY 1, 2, 3, 4, 5
        HAVING (sum(outflow) <> 0 OR sum(inflow) <> 0) AND EXISTS (SELECT 1 FROM families f WHERE f.id = c.family_id)
        ORDER BY 1, 2, 3, 4, 5
        ON CONFLICT (family_id, category_id, currency, month, account_id)
            DO UPDATE SET outflow = t.outflow + EXCLUDED.outflow, inflow = t.inflow + EXCLUDED.inflow;
    ELSE
        INSERT INTO category_month_totals AS t (family_id, account_id, category_id, currency, month, outflow, inflow)
        SELECT family_id, account_id, category_id, currency, month, sum(outflow), sum(inflow) FROM (
            SELECT family_id, account_id, coalesce(category_id, '00000000-0000-0000-0000-000000000000') AS category_id, currency,
                date_trunc('month', date)::date AS month,
                CASE WHEN amount > 0 THEN amount ELSE 0 END AS outflow, CASE WHEN amount <= 0 THEN amount ELSE 0 END AS inflow
            FROM new_rows WHERE kind = 'transaction' AND NOT split AND NOT excluded
                AND transaction_kind NOT IN ('funds_movement', 'cc_payment', 'loan_payment', 'investment_contribution')
            UNION ALL
            SELECT family_id, account_id, coalesce(category_id, '00000000-0000-0000-0000-000000000000') AS category_id, currency,
                date_trunc('month', date)::date AS month,
                CASE WHEN amount > 0 THEN -amount ELSE 0 END AS outflow, CASE WHEN amount <= 0 THEN -amount ELSE 0 END AS inflow
            FROM old_rows WHERE kind = 'transaction' AND NOT split AND NOT excluded
                AND transaction_kind NOT IN ('funds_movement', 'cc_payment', 'loan_payment', 'investment_contribution')
        ) c
        GROUP BY 1, 2, 3, 4, 5
        HAVING (sum(outflow) <> 0 OR sum(inflow) <> 0) AND EXISTS (SELECT 1 FROM families f WHERE f.id = c.family_id)
        ORDER BY 1, 2, 3, 4, 5
        ON CONFLICT (family_id, category_id, currency, month, account_id)
            DO UPDATE SET outflow = t.outflow + EXCLUDED.outflow, inflow = t.inflow + EXCLUDED.inflow;
    END IF;
    RETURN NULL;
END
$$;

-- The totals by account, as the rule counts them. The key keeps the family, category and
-- month first, so that the budget's read of a family's months is one range of it.
DROP TABLE category_month_totals;
CREATE TABLE category_month_totals (
    family_id   uuid NOT NULL,
    category_id uuid NOT NULL,
    currency    text NOT NULL,
    month       date NOT NULL CHECK (month = date_trunc('month', month)::date),
    account_id  uuid NOT NULL,
    outflow     numeric(19, 4) NOT NULL DEFAULT 0,
    inflow      numeric(19, 4) NOT NULL DEFAULT 0,
    PRIMARY KEY (family_id, category_id, currency, month, account_id)
);
INSERT INTO category_month_totals (family_id, account_id, category_id, currency, month, outflow, inflow)
SELECT family_id, account_id, coalesce(category_id, '00000000-0000-0000-0000-000000000000'), currency, date_trunc('month', date)::date,
    coalesce(sum(amount) FILTER (WHERE amount > 0), 0), coalesce(sum(amount) FILTER (WHERE amount <= 0), 0)
FROM entries
WHERE kind = 'transaction' AND NOT split AND NOT excluded
    AND transaction_kind NOT IN ('funds_movement', 'cc_payment', 'loan_payment', 'investment_contribution')
GROUP BY 1, 2, 3, 4, 5;

CREATE TRIGGER entries_category_totals_insert AFTER INSERT ON entries
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION entries_category_totals();
CREATE TRIGGER entries_category_totals_update AFTER UPDATE ON entries
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION entries_category_totals();
CREATE TRIGGER entries_category_totals_delete AFTER DELETE ON entries
    REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION entries_category_totals();
