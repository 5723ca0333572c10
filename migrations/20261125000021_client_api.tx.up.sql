-- Lists of transactions are newest first, by date then id, both descending (the API's cursor
-- and the pages' ordering): the indexes now hold that order, so a page is read straight off
-- the index at any depth, with no sort of a day's rows.
DROP INDEX entries_family_date_idx;
CREATE INDEX entries_family_date_idx ON entries (family_id, date DESC, id DESC);
DROP INDEX entries_account_date_idx;
CREATE INDEX entries_account_date_idx ON entries (account_id, date DESC, id DESC);

-- An Idempotency-Key an API client sent with a request that creates something: the first
-- response is kept for 24 hours and answered again to a retry with the same key and the same
-- request. A row without a response is a request still running (or one whose process died:
-- claimed_at tells how long ago).
CREATE TABLE idempotency_keys (
    user_id       uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    key           text NOT NULL CHECK (length(key) BETWEEN 1 AND 255),
    fingerprint   bytea NOT NULL,
    status        integer,
    response      jsonb,
    created_at    timestamptz NOT NULL DEFAULT now(),
    claimed_at    timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (user_id, key)
);
CREATE INDEX idempotency_keys_created_at_idx ON idempotency_keys (created_at);
