DROP TABLE account_shares;
DROP INDEX accounts_owner_id_idx;
DROP INDEX accounts_private_idx;
ALTER TABLE accounts DROP COLUMN private;
ALTER TABLE accounts DROP COLUMN owner_id;
