-- Budgets (issue 31): the rollover setting of each category, the moves of money between
-- categories within a month, and each category's spending summed per month and currency,
-- kept by triggers on entries so that a rollover over ten years reads a few hundred rows.

-- How a category's leftover goes into the next month: off (each month starts fresh), surplus
-- (what was not spent carries), both (an overspend carries too, as a negative). The carry is
-- never stored: budgets.Service computes it from the months before.
ALTER TABLE categories ADD COLUMN budget_rollover text NOT NULL DEFAULT 'off'
    CHECK (budget_rollover IN ('off', 'surplus', 'both'));

-- Money moved from one category's budget to another's in a month: who, when and why. The move
-- changes both budget lines; undoing it changes them back and records when and by whom.
CREATE TABLE budget_moves (
    id               uuid PRIMARY KEY,
    family_id        uuid NOT NULL REFERENCES families (id) ON DELETE CASCADE,
    month            date NOT NULL CHECK (month = date_trunc('month', month)::date),
    from_category_id uuid NOT NULL REFERENCES categories (id) ON DELETE CASCADE,
    to_category_id   uuid NOT NULL REFERENCES categories (id) ON DELETE CASCADE,
    amount           numeric(19, 4) NOT NULL CHECK (amount > 0),
    currency         text NOT NULL,
    reason           text NOT NULL DEFAULT '',
    created_by       uuid REFERENCES users (id) ON DELETE SET NULL,
    created_at       timestamptz NOT NULL DEFAULT now(),
    undone_by        uuid REFERENCES users (id) ON DELETE SET NULL,
    undone_at        timestamptz,
    CHECK (from_category_id <> to_category_id)
);
CREATE INDEX budget_moves_family_month_idx ON budget_moves (family_id, month, created_at DESC);

-- A month's budget lines are read by their category across months for a rollover.
CREATE INDEX budget_categories_family_category_idx ON budget_categories (family_id, category_id);

-- What each category's transactions took out (outflow, amounts > 0) and brought back in
-- (inflow, amounts <= 0) per calendar month and currency, counted as the spending report
-- counts (reports.MonthSpending): transactions only, split parts left out (their transaction
-- counts once), excluded ones and transfers between the family's own accounts left out
-- (models.TransferKinds). Whether money in is a refund depends on the category's
-- classification, which is read with the totals, never kept in them. category_id is the nil
-- uuid for transactions without a category. No foreign keys, as account_month_totals: a
-- family's rows go with it by the trigger on families below.
CREATE TABLE category_month_totals (
    family_id   uuid NOT NULL,
    category_id uuid NOT NULL,
    currency    text NOT NULL,
    month       date NOT NULL CHECK (month = date_trunc('month', month)::date),
    outflow     numeric(19, 4) NOT NULL DEFAULT 0,
    inflow      numeric(19, 4) NOT NULL DEFAULT 0,
    PRIMARY KEY (family_id, category_id, currency, month)
);

INSERT INTO category_month_totals (family_id, category_id, currency, month, outflow, inflow)
SELECT family_id, coalesce(category_id, '00000000-0000-0000-0000-000000000000'), currency, date_trunc('month', date)::date,
    coalesce(sum(amount) FILTER (WHERE amount > 0), 0), coalesce(sum(amount) FILTER (WHERE amount <= 0), 0)
FROM entries
WHERE kind = 'transaction' AND parent_id IS NULL AND NOT excluded
    AND transaction_kind NOT IN ('funds_movement', 'cc_payment', 'loan_payment', 'investment_contribution')
GROUP BY 1, 2, 3, 4;

-- One statement's change of entries as signed rows, in key order (two statements touching the
-- same months never wait on each other in a circle). The kinds are models.TransferKinds, and
-- the condition is reports.MonthSpending's (budgets' tests hold the two together).
CREATE FUNCTION entries_category_totals() RETURNS trigger LANGUAGE plpgsql AS $$
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

CREATE TRIGGER entries_category_totals_insert AFTER INSERT ON entries
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION entries_category_totals();
CREATE TRIGGER entries_category_totals_update AFTER UPDATE ON entries
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION entries_category_totals();
CREATE TRIGGER entries_category_totals_delete AFTER DELETE ON entries
    REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION entries_category_totals();

CREATE FUNCTION families_category_totals_delete() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    DELETE FROM category_month_totals t USING old_families f WHERE t.family_id = f.id;
    RETURN NULL;
END
$$;
CREATE TRIGGER families_category_totals_delete AFTER DELETE ON families
    REFERENCING OLD TABLE AS old_families FOR EACH STATEMENT EXECUTE FUNCTION families_category_totals_delete();
