DROP INDEX bank_connections_user_id_idx;
ALTER TABLE bank_connections DROP COLUMN user_id;
