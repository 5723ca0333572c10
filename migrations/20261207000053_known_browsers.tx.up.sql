-- The browsers each user signed in from (auth.Browsers). A browser holds a random mark for
-- each of its users in its tally_browser cookie; only the mark's SHA-256 is stored here. A
-- known browser has wrong-password and second-factor counts of its own, which nobody guessing
-- elsewhere can use up. Each sign-in in the browser gives it a new mark and moves expires_at
-- on; the user forgets one by deleting its row.
CREATE TABLE known_browsers (
    id           uuid PRIMARY KEY,
    user_id      uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    mark_hash    bytea NOT NULL UNIQUE,
    user_agent   text,
    ip_address   text,
    created_at   timestamptz NOT NULL DEFAULT now(),
    last_used_at timestamptz NOT NULL DEFAULT now(),
    expires_at   timestamptz NOT NULL
);
CREATE INDEX known_browsers_user_idx ON known_browsers (user_id, last_used_at DESC);
