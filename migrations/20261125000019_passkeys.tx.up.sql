-- A user's passkeys (WebAuthn credentials). credential is go-webauthn's record as JSON: the
-- public key, the sign counter, the backup flags and the transports.
CREATE TABLE passkeys (
    id            uuid PRIMARY KEY,
    user_id       uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    credential_id bytea NOT NULL UNIQUE,
    credential    jsonb NOT NULL,
    name          text NOT NULL CHECK (name <> ''),
    created_at    timestamptz NOT NULL DEFAULT now(),
    last_used_at  timestamptz
);
CREATE INDEX passkeys_user_id_idx ON passkeys (user_id);
