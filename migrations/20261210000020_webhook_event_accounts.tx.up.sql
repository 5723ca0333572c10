-- The accounts a webhook event is about (issue 44): an import's, a bank connection's, or the
-- account whose balance differs, as the event's data names them (models.AccountsEvent). A
-- member who may not see one of them is shown none of the event's deliveries and cannot send
-- it again, and nothing is sent about an account made private since the event was recorded.
-- Events are few (a day's, and those the kept deliveries name), so the backfill is cheap.
ALTER TABLE webhook_events ADD COLUMN account_ids uuid[] NOT NULL DEFAULT '{}';
UPDATE webhook_events ev SET account_ids = ARRAY(
    SELECT DISTINCT a.id::uuid FROM (
        SELECT ev.data ->> 'account_id' WHERE jsonb_typeof(ev.data -> 'account_id') = 'string'
        UNION ALL
        SELECT jsonb_array_elements_text(ev.data -> 'account_ids') WHERE jsonb_typeof(ev.data -> 'account_ids') = 'array'
    ) AS a (id))
WHERE jsonb_typeof(ev.data -> 'account_id') = 'string' OR jsonb_typeof(ev.data -> 'account_ids') = 'array';
