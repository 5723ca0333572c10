-- Each account's transactions summed per calendar month, kept by triggers on entries, so
-- that a balance on any day is a few month sums plus at most two months of entries
-- (models.balanceWalk): the charts never add up an account's whole history. Parts of split transactions are left out, as in
-- every balance; posted leaves out pending transactions too (bank-fed accounts count those).
-- No foreign key: the rows of an account go with it by the trigger on accounts below, and a
-- cascade from a deleted account must not trip over them.
CREATE TABLE account_month_totals (
    account_id uuid NOT NULL,
    month      date NOT NULL CHECK (month = date_trunc('month', month)::date),
    amount     numeric(19, 4) NOT NULL DEFAULT 0,
    posted     numeric(19, 4) NOT NULL DEFAULT 0,
    PRIMARY KEY (account_id, month)
);

INSERT INTO account_month_totals (account_id, month, amount, posted)
SELECT account_id, date_trunc('month', date)::date, sum(amount), coalesce(sum(amount) FILTER (WHERE NOT pending), 0)
FROM entries WHERE kind = 'transaction' AND parent_id IS NULL
GROUP BY 1, 2;

-- One statement's change of entries, as signed rows: what it added, less what it took away.
-- Rows are written in key order, so that two statements touching the same months never wait
-- on each other in a circle.
CREATE FUNCTION entries_month_totals() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        INSERT INTO account_month_totals AS t (account_id, month, amount, posted)
        SELECT account_id, date_trunc('month', date)::date, sum(amount), coalesce(sum(amount) FILTER (WHERE NOT pending), 0)
        FROM new_rows WHERE kind = 'transaction' AND parent_id IS NULL
        GROUP BY 1, 2 ORDER BY 1, 2
        ON CONFLICT (account_id, month) DO UPDATE SET amount = t.amount + EXCLUDED.amount, posted = t.posted + EXCLUDED.posted;
    ELSIF TG_OP = 'DELETE' THEN
        INSERT INTO account_month_totals AS t (account_id, month, amount, posted)
        SELECT account_id, date_trunc('month', date)::date, -sum(amount), -coalesce(sum(amount) FILTER (WHERE NOT pending), 0)
        FROM old_rows WHERE kind = 'transaction' AND parent_id IS NULL
            -- An account being deleted takes its totals with it (below), whichever runs first.
            AND EXISTS (SELECT 1 FROM accounts a WHERE a.id = old_rows.account_id)
        GROUP BY 1, 2 ORDER BY 1, 2
        ON CONFLICT (account_id, month) DO UPDATE SET amount = t.amount + EXCLUDED.amount, posted = t.posted + EXCLUDED.posted;
    ELSE
        INSERT INTO account_month_totals AS t (account_id, month, amount, posted)
        SELECT account_id, month, sum(amount), sum(posted) FROM (
            SELECT account_id, date_trunc('month', date)::date AS month, amount, CASE WHEN pending THEN 0 ELSE amount END AS posted
            FROM new_rows WHERE kind = 'transaction' AND parent_id IS NULL
            UNION ALL
            SELECT account_id, date_trunc('month', date)::date, -amount, CASE WHEN pending THEN 0 ELSE -amount END
            FROM old_rows WHERE kind = 'transaction' AND parent_id IS NULL
        ) c
        GROUP BY 1, 2 HAVING sum(amount) <> 0 OR sum(posted) <> 0 ORDER BY 1, 2
        ON CONFLICT (account_id, month) DO UPDATE SET amount = t.amount + EXCLUDED.amount, posted = t.posted + EXCLUDED.posted;
    END IF;
    RETURN NULL;
END
$$;

CREATE TRIGGER entries_month_totals_insert AFTER INSERT ON entries
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION entries_month_totals();
CREATE TRIGGER entries_month_totals_update AFTER UPDATE ON entries
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION entries_month_totals();
CREATE TRIGGER entries_month_totals_delete AFTER DELETE ON entries
    REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION entries_month_totals();

CREATE FUNCTION accounts_month_totals_delete() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    DELETE FROM account_month_totals t USING old_accounts a WHERE t.account_id = a.id;
    RETURN NULL;
END
$$;
CREATE TRIGGER accounts_month_totals_delete AFTER DELETE ON accounts
    REFERENCING OLD TABLE AS old_accounts FOR EACH STATEMENT EXECUTE FUNCTION accounts_month_totals_delete();
