ALTER TABLE webhook_events DROP COLUMN account_ids;
