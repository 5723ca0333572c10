-- The accounts a change of many transactions touched: a reader kept from any of them (a
-- private account, models.Viewer) neither lists nor undoes the change, which is then a 404 as
-- another family's. The changes that can still be undone take theirs from what they kept.
ALTER TABLE transaction_changes ADD COLUMN account_ids uuid[] NOT NULL DEFAULT '{}';
UPDATE transaction_changes tc SET account_ids = coalesce((SELECT array_agg(DISTINCT e.account_id)
        FROM jsonb_to_recordset(tc.previous) AS p(id uuid) JOIN entries e ON e.id = p.id), '{}')
    WHERE tc.undone_at IS NULL;
