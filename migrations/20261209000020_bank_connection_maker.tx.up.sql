-- A member's own bank connection (issue 44): who made it. Its accounts are private to them
-- until they share them, and only they see, renew or remove it. A connection made before this
-- (user_id NULL) stays the family's, as it was.
ALTER TABLE bank_connections ADD COLUMN user_id uuid REFERENCES users (id) ON DELETE SET NULL;
CREATE INDEX bank_connections_user_id_idx ON bank_connections (user_id) WHERE user_id IS NOT NULL;
