-- Budgets and spending count a split transaction through its parts, each under its own
-- category, as Actual and YNAB do (issue 41): until now they counted the transaction once,
-- under its own category (which a moved-in split has none of), and left its parts out.
-- Account balances still count transactions alone: parts are not more money.
--
-- Whether a transaction has parts is kept on its own row (split), so that every row's part
-- in category_month_totals is read from that row alone: a statement's transition tables
-- need no join, and a parent deleted with its parts (their foreign key cascades, after the
-- parent is gone) takes back exactly what each row gave.
ALTER TABLE entries ADD COLUMN split boolean NOT NULL DEFAULT false;

-- A part is excluded, or a transfer, as its transaction is: an excluded split counts nothing,
-- and so does one between the family's own accounts, whatever its parts say. Parts of the
-- transaction's own kind follow a change of it; a part of a kind of its own (the side of a
-- transfer that a split names) keeps it. Parts written before this take their transaction's
-- state now, as they would have at the change.
UPDATE entries c SET excluded = c.excluded OR p.excluded,
    transaction_kind = CASE WHEN c.transaction_kind = 'standard' AND p.transaction_kind IN
        ('funds_movement', 'cc_payment', 'loan_payment', 'investment_contribution') THEN p.transaction_kind ELSE c.transaction_kind END
FROM entries p
WHERE c.parent_id = p.id AND (p.excluded AND NOT c.excluded
    OR c.transaction_kind = 'standard' AND p.transaction_kind IN ('funds_movement', 'cc_payment', 'loan_payment', 'investment_contribution'));

UPDATE entries e SET split = true WHERE e.id IN (SELECT parent_id FROM entries WHERE parent_id IS NOT NULL);

-- The counting rule is reports.MonthSpending's: transactions, not split (their parts count
-- instead), not excluded, not a transfer between the family's own accounts
-- (models.TransferKinds). Otherwise as migration 038 wrote it.
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

-- Keeps split true exactly on the transactions that have parts, whatever writes them (an
-- import's COPY of a transaction and its parts, a revert, SQL): after each statement, the
-- transactions its parts point at (before and after) and those it wrote as split are looked
-- up by id, and those that are wrong are set by one UPDATE, which the triggers above count.
-- A statement that writes no part and no split transaction reads its own rows alone, and
-- runs no UPDATE (which would fire this again).
CREATE FUNCTION entries_split_marks() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    ids uuid[];
    wrong uuid[];
BEGIN
    IF TG_OP = 'INSERT' THEN
        SELECT array_agg(DISTINCT id) INTO ids FROM (
            SELECT parent_id AS id FROM new_rows WHERE parent_id IS NOT NULL UNION ALL SELECT id FROM new_rows WHERE split) x;
    ELSIF TG_OP = 'DELETE' THEN
        SELECT array_agg(DISTINCT parent_id) INTO ids FROM old_rows WHERE parent_id IS NOT NULL;
    ELSE
        SELECT array_agg(DISTINCT id) INTO ids FROM (
            SELECT parent_id AS id FROM new_rows WHERE parent_id IS NOT NULL UNION ALL SELECT id FROM new_rows WHERE split
            UNION ALL SELECT parent_id FROM old_rows WHERE parent_id IS NOT NULL) x;
    END IF;
    IF ids IS NULL THEN
        RETURN NULL;
    END IF;
    SELECT array_agg(e.id ORDER BY e.id) INTO wrong FROM entries e
    WHERE e.id = ANY (ids) AND e.split <> EXISTS (SELECT 1 FROM entries p WHERE p.parent_id = e.id);
    IF wrong IS NOT NULL THEN
        UPDATE entries SET split = NOT split WHERE id = ANY (wrong);
    END IF;
    RETURN NULL;
END
$$;

CREATE TRIGGER entries_split_marks_insert AFTER INSERT ON entries
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION entries_split_marks();
CREATE TRIGGER entries_split_marks_update AFTER UPDATE ON entries
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION entries_split_marks();
CREATE TRIGGER entries_split_marks_delete AFTER DELETE ON entries
    REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION entries_split_marks();

-- Excluding a split transaction excludes its parts, and including it includes them again; a
-- change of its kind moves the parts of its old kind to the new one (above). A row trigger
-- whose condition only a split transaction meets: any other row costs its test alone.
CREATE FUNCTION entries_split_follow() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE entries SET excluded = CASE WHEN OLD.excluded <> NEW.excluded THEN NEW.excluded ELSE excluded END,
        transaction_kind = CASE WHEN transaction_kind = OLD.transaction_kind THEN NEW.transaction_kind ELSE transaction_kind END
    WHERE parent_id = NEW.id AND (OLD.excluded <> NEW.excluded AND excluded <> NEW.excluded
        OR OLD.transaction_kind <> NEW.transaction_kind AND transaction_kind = OLD.transaction_kind);
    RETURN NULL;
END
$$;

CREATE TRIGGER entries_split_follow AFTER UPDATE OF excluded, transaction_kind ON entries FOR EACH ROW
    WHEN (NEW.split AND (OLD.excluded <> NEW.excluded OR OLD.transaction_kind <> NEW.transaction_kind))
    EXECUTE FUNCTION entries_split_follow();

-- The totals as the new rule counts them.
DELETE FROM category_month_totals;
INSERT INTO category_month_totals (family_id, category_id, currency, month, outflow, inflow)
SELECT family_id, coalesce(category_id, '00000000-0000-0000-0000-000000000000'), currency, date_trunc('month', date)::date,
    coalesce(sum(amount) FILTER (WHERE amount > 0), 0), coalesce(sum(amount) FILTER (WHERE amount <= 0), 0)
FROM entries
WHERE kind = 'transaction' AND NOT split AND NOT excluded
    AND transaction_kind NOT IN ('funds_movement', 'cc_payment', 'loan_payment', 'investment_contribution')
GROUP BY 1, 2, 3, 4;
