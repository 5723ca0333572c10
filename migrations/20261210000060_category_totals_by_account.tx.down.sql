-- Back to the family's totals without accounts (migration 20261208000010's table and trigger).
DROP TRIGGER entries_category_totals_insert ON entries;
DROP TRIGGER entries_category_totals_update ON entries;
DROP TRIGGER entries_category_totals_delete ON entries;

CREATE OR REPLACE FUNCTION entries_category_totals() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        INSERT INTO category_month_totals AS t (family_id, category_id, currency, month, outflow, inflow)
        SELECT family_id, category_id, currency, month, sum(outflow), sum(inflow) FROM (
            SELECT family_id, coalesce(category_id, '00000000-0000-0000-0000-000000000000') AS category_id, currency,
                date_trunc('month', date)::date AS month,
                CASE WHEN amount > 0 THEN amount ELSE 0 END AS outflow, CASE WHEN amount <= 0 THEN amount ELSE 0 END AS inflow
            FROM new_rows WHERE kind = 'transaction' AND NOT split AND NOT excluded
                AND transaction_kind NOT IN ('funds_movement', 'cc_payment', 'loan_payment', 'investment_contribution')
        ) c
        GROUP BY 1, 2, 3, 4
        -- A family being deleted takes its totals with it (below), whichever runs first.
        HAVING (sum(outflow) <> 0 OR sum(inflow) <> 0) AND EXISTS (SELECT 1 FROM families f WHERE f.id = c.family_id)
        ORDER BY 1, 2, 3, 4
        ON CONFLICT (family_id, category_id, currency, month)
            DO UPDATE SET outflow = t.outflow + EXCLUDED.outflow, inflow = t.inflow + EXCLUDED.inflow;
    ELSIF TG_OP = 'DELETE' THEN
        INSERT INTO category_month_totals AS t (family_id, category_id, currency, month, outflow, inflow)
        SELECT family_id, category_id, currency, month, sum(outflow), sum(inflow) FROM (
            SELECT family_id, coalesce(category_id, '00000000-0000-0000-0000-000000000000') AS category_id, currency,
                date_trunc('month', date)::date AS month,
                CASE WHEN amount > 0 THEN -amount ELSE 0 END AS outflow, CASE WHEN amount <= 0 THEN -amount ELSE 0 END AS inflow
            FROM old_rows WHERE kind = 'transaction' AND NOT split AND NOT excluded
                AND transaction_kind NOT IN ('funds_movement', 'cc_payment', 'loan_payment', 'investment_contribution')
        ) c
        GROUP BY 1, 2, 3, 4
        -- A family being deleted takes its totals with it (below), whichever runs first.
        HAVING (sum(outflow) <> 0 OR sum(inflow) <> 0) AND EXISTS (SELECT 1 FROM families f WHERE f.id = c.family_id)
        ORDER BY 1, 2, 3, 4
        ON CONFLICT (family_id, category_id, currency, month)
            DO UPDATE SET outflow = t.outflow + EXCLUDED.outflow, inflow = t.inflow + EXCLUDED.inflow;
    ELSE
        INSERT INTO category_month_totals AS t (family_id, category_id, currency, month, outflow, inflow)
        SELECT family_id, category_id, currency, month, sum(outflow), sum(inflow) FROM (
            SELECT family_id, coalesce(category_id, '00000000-0000-0000-0000-000000000000') AS category_id, currency,
                date_trunc('month', date)::date AS month,
                CASE WHEN amount > 0 THEN amount ELSE 0 END AS outflow, CASE WHEN amount <= 0 THEN amount ELSE 0 END AS inflow
            FROM new_rows WHERE kind = 'transaction' AND NOT split AND NOT excluded
                AND transaction_kind NOT IN ('funds_movement', 'cc_payment', 'loan_payment', 'investment_contribution')
            UNION ALL
            SELECT family_id, coalesce(category_id, '00000000-0000-0000-0000-000000000000') AS category_id, currency,
                date_trunc('month', date)::date AS month,
                CASE WHEN amount > 0 THEN -amount ELSE 0 END AS outflow, CASE WHEN amount <= 0 THEN -amount ELSE 0 END AS inflow
            FROM old_rows WHERE kind = 'transaction' AND NOT split AND NOT excluded
                AND transaction_kind NOT IN ('funds_movement', 'cc_payment', 'loan_payment', 'investment_contribution')
        ) c
        GROUP BY 1, 2, 3, 4
        -- A family being deleted takes its totals with it (below), whichever runs first.
        HAVING (sum(outflow) <> 0 OR sum(inflow) <> 0) AND EXISTS (SELECT 1 FROM families f WHERE f.id = c.family_id)
        ORDER BY 1, 2, 3, 4
        ON CONFLICT (family_id, category_id, currency, month)
            DO UPDATE SET outflow = t.outflow + EXCLUDED.outflow, inflow = t.inflow + EXCLUDED.inflow;
    END IF;
    RETURN NULL;
END
$$;

CREATE TABLE category_month_totals_by_family (
    family_id   uuid NOT NULL,
    category_id uuid NOT NULL,
    currency    text NOT NULL,
    month       date NOT NULL CHECK (month = date_trunc('month', month)::date),
    outflow     numeric(19, 4) NOT NULL DEFAULT 0,
    inflow      numeric(19, 4) NOT NULL DEFAULT 0,
    PRIMARY KEY (family_id, category_id, currency, month)
);
INSERT INTO category_month_totals_by_family (family_id, category_id, currency, month, outflow, inflow)
SELECT family_id, category_id, currency, month, sum(outflow), sum(inflow) FROM category_month_totals GROUP BY 1, 2, 3, 4;
DROP TABLE category_month_totals;
ALTER TABLE category_month_totals_by_family RENAME TO category_month_totals;
ALTER INDEX category_month_totals_by_family_pkey RENAME TO category_month_totals_pkey;

CREATE TRIGGER entries_category_totals_insert AFTER INSERT ON entries
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION entries_category_totals();
CREATE TRIGGER entries_category_totals_update AFTER UPDATE ON entries
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION entries_category_totals();
CREATE TRIGGER entries_category_totals_delete AFTER DELETE ON entries
    REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION entries_category_totals();
