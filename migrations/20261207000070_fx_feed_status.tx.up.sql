-- What the fetches of the ECB's rates did lately, in one row: when one last worked, and since
-- when they fail and why, so that the pages can say the rates are stale.
CREATE TABLE fx_feed_status (
    id boolean PRIMARY KEY DEFAULT true CHECK (id),
    last_success_at timestamptz,
    failing_since timestamptz,
    last_failure_at timestamptz,
    last_error text
);
