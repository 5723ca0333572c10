-- Private and shared accounts (issue 44). Every account is shared with its family, as all
-- were before. One made private belongs to its owner (owner_id) and to the members it is
-- shared with (account_shares); no other member of the family can learn that it exists.
ALTER TABLE accounts ADD COLUMN owner_id uuid REFERENCES users (id) ON DELETE SET NULL;
ALTER TABLE accounts ADD COLUMN private boolean NOT NULL DEFAULT false;
-- The one query every request makes: the family's private accounts.
CREATE INDEX accounts_private_idx ON accounts (family_id) WHERE private;
CREATE INDEX accounts_owner_id_idx ON accounts (owner_id);

CREATE TABLE account_shares (
    account_id uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    user_id    uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    created_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (account_id, user_id)
);
CREATE INDEX account_shares_user_id_idx ON account_shares (user_id);
