-- Signed webhooks: a family's endpoints, the events sent to them and each delivery of an
-- event to an endpoint (package webhooks).

CREATE TABLE webhook_endpoints (
    id            uuid PRIMARY KEY,
    family_id     uuid NOT NULL REFERENCES families (id) ON DELETE CASCADE,
    url           text NOT NULL CHECK (url <> ''),
    description   text NOT NULL DEFAULT '',
    events        text[] NOT NULL CHECK (cardinality(events) > 0),
    -- The signing secret: stored encrypted (internal/secrets), shown once.
    secret        text NOT NULL,
    -- A paused endpoint is sent nothing.
    active        boolean NOT NULL DEFAULT true,
    -- Set when a delivery ran out of retries; cleared by a later success or by an admin
    -- resuming the endpoint.
    failing_since timestamptz,
    created_at    timestamptz NOT NULL DEFAULT now(),
    updated_at    timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX webhook_endpoints_family_id_idx ON webhook_endpoints (family_id);

-- An event is recorded only when an endpoint is subscribed to it; its id is the
-- Tally-Event-Id every delivery of it carries, redeliveries included.
CREATE TABLE webhook_events (
    id         uuid PRIMARY KEY,
    family_id  uuid NOT NULL REFERENCES families (id) ON DELETE CASCADE,
    type       text NOT NULL,
    data       jsonb NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX webhook_events_created_at_idx ON webhook_events (created_at);

-- One row per delivery of an event to an endpoint, with its attempts; a redelivery is a new
-- row. The newest 50 finished deliveries of an endpoint are kept.
CREATE TABLE webhook_deliveries (
    id              uuid PRIMARY KEY,
    endpoint_id     uuid NOT NULL REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
    event_id        uuid NOT NULL REFERENCES webhook_events (id) ON DELETE CASCADE,
    family_id       uuid NOT NULL REFERENCES families (id) ON DELETE CASCADE,
    status          text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'succeeded', 'failed')),
    attempts        integer NOT NULL DEFAULT 0,
    -- The last attempt's answer: its HTTP status and the start of its body, or why there was
    -- none; and how long it took.
    response_status integer,
    response_body   text,
    error           text,
    duration_ms     integer,
    redelivery_of   uuid,
    last_attempt_at timestamptz,
    next_attempt_at timestamptz,
    completed_at    timestamptz,
    created_at      timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX webhook_deliveries_endpoint_idx ON webhook_deliveries (endpoint_id, created_at DESC);
CREATE INDEX webhook_deliveries_event_id_idx ON webhook_deliveries (event_id);
