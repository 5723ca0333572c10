-- Back to counting a split transaction once, under its own category, and its parts not at
-- all (migration 038's rule). The parts keep the excluded state and kind they took from their
-- transaction: with the parts left out, they count nowhere.
DROP TRIGGER entries_split_follow ON entries;
DROP FUNCTION entries_split_follow();
DROP TRIGGER entries_split_marks_delete ON entries;
DROP TRIGGER entries_split_marks_update ON entries;
DROP TRIGGER entries_split_marks_insert ON entries;
DROP FUNCTION entries_split_marks();

CREATE OR REPLACE FUNCTION entries_category_totals() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        INSERT INTO category_month_totals AS t (family_id, category_id, currency, month, outflow, inflow)
        SELECT family_id, category_id, currency, month, sum(outflow), sum(inflow) FROM (
            SELECT family_id, coalesce(category_id, '00000000-0000-0000-0000-000000000000') AS category_id, currency,
                date_trunc('month', date)::date AS month,
                CASE WHEN amount > 0 THEN amount ELSE 0 END AS outflow, CASE WHEN amount <= 0 THEN amount ELSE 0 END AS inflow
            FROM new_rows WHERE kind = 'transaction' AND parent_id IS NULL AND NOT excluded
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
            FROM old_rows WHERE kind = 'transaction' AND parent_id IS NULL AND NOT excluded
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
            FROM new_rows WHERE kind = 'transaction' AND parent_id IS NULL AND NOT excluded
                AND transaction_kind NOT IN ('funds_movement', 'cc_payment', 'loan_payment', 'investment_contribution')
            UNION ALL
            SELECT family_id, coalesce(category_id, '00000000-0000-0000-0000-000000000000') AS category_id, currency,
                date_trunc('month', date)::date AS month,
                CASE WHEN amount > 0 THEN -amount ELSE 0 END AS outflow, CASE WHEN amount <= 0 THEN -amount ELSE 0 END AS inflow
            FROM old_rows WHERE kind = 'transaction' AND parent_id IS NULL AND NOT excluded
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

ALTER TABLE entries DROP COLUMN split;

DELETE FROM category_month_totals;
INSERT INTO category_month_totals (family_id, category_id, currency, month, outflow, inflow)
SELECT family_id, coalesce(category_id, '00000000-0000-0000-0000-000000000000'), currency, date_trunc('month', date)::date,
    coalesce(sum(amount) FILTER (WHERE amount > 0), 0), coalesce(sum(amount) FILTER (WHERE amount <= 0), 0)
FROM entries
WHERE kind = 'transaction' AND parent_id IS NULL AND NOT excluded
    AND transaction_kind NOT IN ('funds_movement', 'cc_payment', 'loan_payment', 'investment_contribution')
GROUP BY 1, 2, 3, 4;
